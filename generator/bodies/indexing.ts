/** What the list and single lookups' indexers share while every body of a build is made. */
import type { Manifest } from '../../contract/manifest.ts';
import type { BodySink } from '../packs/spill.ts';
import type { ParentLanguages } from '../records/translations.ts';
import type { BuildSettings } from '../records/schemas.ts';
import type { Dataset } from '../validate.ts';
import type { Projection } from './projection.ts';
import type { RecordKeys } from './recordKeys.ts';

export interface Indexing {
  readonly dataset: Dataset;
  readonly settings: BuildSettings;
  readonly keys: RecordKeys;
  readonly projection: Projection;
  /** The languages of every parent of a route with names in several, gathered before any body is made. */
  readonly languages: ParentLanguages;
  /** Where each body goes, by its file's path in dist/: a map, or the spill of a full build. */
  readonly bodies: BodySink;
  /** Each single lookup's key that names several records, with the one chosen. */
  readonly ambiguous: Manifest['ambiguous'];
  /** The lookups answered with another's bodies: each first key with the parent id's key (routes.ts `aliasOf`). */
  readonly aliases: Record<string, Record<string, string>>;
  /** What is wrong with the data, in the order met: the build fails when any is. */
  readonly problems: string[];
}

/**
 * Which of a route's groups to make (a list's or single lookup's key tuples joined with `/`, a
 * search's scopes): a rebuild makes only those its changed records fall in. Every group when absent.
 */
export type GroupFilter = (group: string) => boolean;

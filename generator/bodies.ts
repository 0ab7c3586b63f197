/**
 * Index: every possible lookup response, computed from the validated dataset and the route table.
 * The result maps a body file's path (relative to dist/) to the body's JSON text: list lookups
 * (bodies/lists.ts), single lookups and their ambiguity rule (bodies/singles.ts, bodies/ambiguity.ts),
 * and the documents computed from several record types (bodies/calendars.ts).
 */
import type { Manifest } from '../contract/manifest.ts';
import type { RecordType, Route } from '../contract/routes.ts';
import { recordTypes } from '../contract/recordTypes.ts';
import { indexWorkCalendars } from './bodies/calendars.ts';
import type { GroupFilter, Indexing } from './bodies/indexing.ts';
import { indexAlias, indexList, listTuples } from './bodies/lists.ts';
import { Projection } from './bodies/projection.ts';
import { RecordKeys } from './bodies/recordKeys.ts';
import { indexSearch, searchScopes } from './bodies/search.ts';
import { indexSingle, singleTuples } from './bodies/singles.ts';
import type { BodySink } from './packs/spill.ts';
import { BuildError } from './records/errors.ts';
import { compareCodePoints } from './records/ordering.ts';
import { silentProgress, type Progress } from './builds/progress.ts';
import { ParentLanguages } from './records/translations.ts';
import type { BuildSettings, DataRecord } from './records/schemas.ts';
import type { Dataset } from './validate.ts';

export interface IndexedBodies<Bodies extends BodySink = Map<string, string>> {
  /** Every body made, by its file's path: where indexData was told to put them. */
  readonly bodies: Bodies;
  readonly ambiguous: Manifest['ambiguous'];
  readonly aliases: Manifest['aliases'];
  readonly languages: Manifest['languages'];
  /** A record as the API shows it, as its bodies hold it: the exports' lines, without stringifying every record again. */
  readonly shown: (type: RecordType, record: DataRecord) => string;
}

/** The languages of every parent of a route with names in several, gathered before any body is made. */
function gatherLanguages(routes: readonly Route[], dataset: Dataset, keys: RecordKeys): ParentLanguages {
  const languages = new ParentLanguages();
  for (const route of routes) {
    const [first] = route.params;
    // A document's languages are those of the records it is made of, gathered by their own routes
    // (the work calendar's, by country code, by the lookups by code).
    if (!route.languages || !first || route.document) continue;
    for (const record of dataset.records.get(route.record) ?? []) {
      const parent = keys.ownKey(route.record, record, first);
      if (parent !== undefined) languages.add(parent, record, route.languages);
    }
  }
  return languages;
}

/**
 * Which of a route's bodies a build makes: all, none (a rebuild keeps the previous build's), or
 * those of the groups `only` admits, from `records` (every record of those groups, in data order).
 */
export type RoutePlan =
  | { readonly make: 'all' }
  | { readonly make: 'none' }
  | { readonly make: 'groups'; readonly records: readonly DataRecord[]; readonly only: GroupFilter };

/** The groups of a route a record falls in (its key tuples, or a search's scopes): what a change to it can change. */
export function groupsOf(route: Route, record: DataRecord, indexing: Pick<Indexing, 'keys'>): string[] {
  if (route.search) return searchScopes(route, record, indexing);
  return route.shape === 'list' ? listTuples(route, record, indexing) : singleTuples(route, record, indexing);
}

/**
 * The work of a route's bodies, as a long build's progress counts it: its records (a route is
 * made in about the time its records take), or one for a route of none.
 */
function workOf(route: Route, dataset: Dataset): number {
  return Math.max(1, dataset.records.get(route.record)?.length ?? 0);
}

/** The work of all the routes' bodies, in workOf's units: the total of the bodies stage's progress. */
export function indexingWork(routes: readonly Route[], dataset: Dataset): number {
  return routes.reduce((sum, route) => sum + workOf(route, dataset), 0);
}

/** Where indexData puts the bodies it makes (a new map unless given), and whom it tells as each route is done. */
export interface IndexOptions<Bodies extends BodySink> {
  readonly bodies?: Bodies;
  readonly progress?: Progress;
}

/**
 * Every body of the routes (those `plans` name, as they say; a rebuild's), with the manifest's parts
 * that come with them.
 */
export function indexData<Bodies extends BodySink = Map<string, string>>(
  dataset: Dataset,
  settings: BuildSettings,
  routes: readonly Route[],
  plans?: ReadonlyMap<string, RoutePlan>,
  { bodies = new Map<string, string>() as unknown as Bodies, progress = silentProgress }: IndexOptions<Bodies> = {},
): IndexedBodies<Bodies> {
  const problems: string[] = [];
  const keys = new RecordKeys(dataset, problems);
  const languages = gatherLanguages(routes, dataset, keys);
  problems.push(...languages.problems());
  const indexing: Indexing = {
    dataset,
    settings,
    keys,
    projection: new Projection(),
    languages,
    bodies,
    ambiguous: [],
    aliases: {},
    problems,
  };
  for (const route of routes) {
    const plan = plans?.get(route.path) ?? { make: 'all' };
    const records = plan.make === 'groups' ? plan.records : (dataset.records.get(route.record) ?? []);
    const only = plan.make === 'groups' ? plan.only : undefined;
    if (route.aliasOf) indexAlias(route, indexing);
    else if (plan.make === 'none') continue;
    else if (route.document === 'workCalendar') indexWorkCalendars(route, indexing);
    else if (route.search) indexSearch(route, records, indexing, only);
    else if (route.shape === 'list') indexList(route, records, indexing, only);
    else indexSingle(route, records, indexing, only);
    progress.advance(workOf(route, dataset));
  }
  if (problems.length > 0) throw new BuildError(problems);
  const { ambiguous, aliases, projection } = indexing;
  // By file: the same data gives the same list, however many of its bodies a build made.
  ambiguous.sort((a, b) => compareCodePoints(a.file, b.file));
  return { bodies, ambiguous, aliases, languages: languages.toManifest(), shown: (type, record) => projection.project(type, record) };
}

/** Records per record type, for the manifest. */
export function countRecords(dataset: Dataset): Record<string, number> {
  return Object.fromEntries(recordTypes.map((type) => [type, dataset.records.get(type)?.length ?? 0]));
}

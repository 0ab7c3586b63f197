/**
 * data/sources.json: the version of every source the records were imported from. `npm run
 * data:import` writes it (import/sourceVersions.ts, from where each version is recorded); the build
 * reads it with the records, copies it into the manifest, and a change list names the sources whose
 * versions moved. The one place a build learns its sources' versions.
 */
import { z } from 'zod';
import { BuildError } from './errors.ts';

export const sourcesFileName = 'sources.json';

export const dataSourcesSchema = z.strictObject({
  note: z.string().optional(),
  /** Source name to version: a package version, a commit, or `sha256:…` of a file without one. */
  sources: z.record(z.string().min(1), z.string().min(1)),
});
export type DataSources = z.infer<typeof dataSourcesSchema>['sources'];

/** The sources whose versions differ between two builds, by name; null where one build did not list it. */
export function movedSources(from: DataSources, to: DataSources): { name: string; from: string | null; to: string | null }[] {
  const names = [...new Set([...Object.keys(from), ...Object.keys(to)])].sort();
  return names.filter((name) => from[name] !== to[name]).map((name) => ({ name, from: from[name] ?? null, to: to[name] ?? null }));
}

/** The sources of a dataset (load.ts's `sources`): none for a dataset without the file. */
export function validateSources(sources: unknown): DataSources {
  if (sources === undefined) return {};
  const result = dataSourcesSchema.safeParse(sources);
  if (!result.success) throw new BuildError([`data/${sourcesFileName}: ${z.prettifyError(result.error)}`]);
  return result.data.sources;
}

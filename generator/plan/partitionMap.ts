/**
 * Where a partitioned type's records lie (the world's districts and neighbourhoods, 1.5 million
 * records in a few hundred files): for each of their record files, the countries of its records and
 * the groups it falls in of the routes whose groups may span countries (postal codes without a
 * country). Every build saves it beside its summary; a rebuild plans from it which files hold the
 * records its changed groups need, and leaves the others' records untouched, instead of working
 * out the country of every record of the world again.
 *
 * An entry is the file's as the build with that file's SHA-256 found it. A record's country and its
 * spanning groups depend on its own fields and on its district's and province's, and a rebuild
 * whose changes move a district or a province to another country is a full build
 * (plan/routePlans.ts), so an entry holds for as long as its file's SHA-256 does, on the same code.
 */
import { recordTypes, type RecordType } from '../../contract/recordTypes.ts';
import { recordDefinitions } from '../records/recordTypes.ts';
import { compareCodePoints } from '../records/ordering.ts';
import type { Route } from '../../contract/routes.ts';
import { exampleRecords } from '../openapi/examples.ts';
import { groupsOf } from '../bodies.ts';
import { RecordKeys } from '../bodies/recordKeys.ts';
import type { ValidatedDataset } from '../validate.ts';
import type { FilePartition, PartitionMap } from './partitionMapFile.ts';
import { partitionedTypeOf, partitionOf } from './reads.ts';
import { spanningPart } from './routePlans.ts';

/** The routes whose groups may hold records of several countries, each cut to that part. */
export function spanningRoutes(routes: readonly Route[]): { readonly route: Route; readonly spanning: Route }[] {
  return routes.flatMap((route) => {
    const fixing = partitionOf(route.record)?.by;
    const spanning = fixing === undefined || route.aliasOf !== undefined ? undefined : spanningPart(route, fixing);
    return spanning === undefined ? [] : [{ route, spanning }];
  });
}

/**
 * The map of `dataset`'s partitioned files. An entry of `previous` whose SHA-256 is the file's now
 * is taken as it is; the other files' entries are worked out from their records. `unread` are the
 * files a rebuild did not read, whose entries `previous` holds as they are.
 */
export function mapPartitions(
  dataset: ValidatedDataset,
  routes: readonly Route[],
  sha256Of: (file: string) => string | undefined,
  previous?: PartitionMap,
  unread: Iterable<string> = [],
): PartitionMap {
  const keys = new RecordKeys(dataset, []);
  const spanningOf = spanningRoutes(routes);
  const files: Record<string, FilePartition> = {};
  for (const [file, records] of dataset.byFile) {
    const type = partitionedTypeOf(file);
    const sha256 = sha256Of(file);
    if (type === undefined || sha256 === undefined) continue;
    const known = previous?.files[file];
    if (known !== undefined && known.sha256 === sha256) {
      files[file] = known;
      continue;
    }
    const countries = new Set<string>();
    for (const record of records) countries.add(String(keys.fieldValue(type, record, 'countryId')));
    const spanning: Record<string, string[]> = {};
    for (const { route, spanning: part } of spanningOf) {
      if (route.record !== type) continue;
      const groups = new Set<string>();
      for (const record of records) for (const group of groupsOf(part, record, { keys })) groups.add(group);
      spanning[route.path] = [...groups].sort();
    }
    files[file] = { sha256, records: records.length, countries: [...countries].sort(), spanning };
  }
  for (const file of unread) {
    const known = previous?.files[file];
    if (known === undefined) throw new Error(`${file} was not read, yet the previous partition map does not describe it`);
    files[file] = known;
  }
  return { files: Object.fromEntries(Object.entries(files).sort(([a], [b]) => compareCodePoints(a, b))), examples: examplesOf(dataset) };
}

/** The record each partitioned type's examples come from, with its file: a rebuild reads that file, and checks the examples stay. */
function examplesOf(dataset: ValidatedDataset): NonNullable<PartitionMap['examples']> {
  const example = exampleRecords(dataset);
  const found: Record<string, { id: string; file: string }> = {};
  for (const type of recordTypes) {
    if (partitionOf(type) === undefined) continue;
    const record = example(type);
    if (record === undefined) continue;
    for (const [file, records] of dataset.byFile)
      if (partitionedTypeOf(file) === type && records.includes(record)) {
        found[type] = { id: record.id, file };
        break;
      }
  }
  return found;
}

/**
 * Whether the record of `type` with `id` is in `dataset` and so is every record it refers to, and
 * theirs in turn: an example's values are read through its references (a neighbourhood's country
 * is its district's), which a rebuild that read part of the files must hold.
 */
export function referencesFound(dataset: ValidatedDataset, type: RecordType, id: string | undefined, toField = 'id'): boolean {
  const record = (dataset.records.get(type) ?? []).find((candidate) => candidate[toField] === id);
  if (record === undefined) return false;
  return recordDefinitions[type].references.every(
    (reference) =>
      (record[reference.field] === null && reference.nullable) || referencesFound(dataset, reference.to, record[reference.field] as string, reference.toField),
  );
}

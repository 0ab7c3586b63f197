/**
 * A rebuild that makes only what its changes can change.
 *
 * A build saves each record file it read under `.dist-builds/.inputs/<SHA-256>` and records the
 * files' hashes, its code's fingerprint and its settings in its summary. The next build, on the same
 * code and settings, compares: the record files whose hashes differ are read as they were, so that
 * the records that changed are known in both versions. Then, per route:
 *
 * - a route none of whose record types changed keeps every body of the previous build, unmade;
 * - a route of districts or neighbourhoods (millions of bodies at the world's size) makes only the
 *   groups its changed records fall in (the key tuples, or a search's scopes, of the old and the new
 *   version of each), from every record of those groups: the records of the countries concerned,
 *   or of all countries where a group spans them (postal codes without a country);
 * - any other route, when a record it may read changed, makes all its bodies.
 *
 * Each route so planned is made twice: from the data as it is and as the previous build had it.
 * What differs between the two is the patch applied to the previous build's index (write.ts):
 * a path made only from the old data is gone, a path whose body differs is new or changed.
 *
 * Where the shortcut cannot be shown safe, the plan is a reason for a full build instead: another
 * code or settings, the previous inputs not saved, a subdivision moved to another country or
 * added or removed, a district moved to another country.
 */
import { createHash } from 'node:crypto';
import { mkdir, readdir, readFile, rename, rm, writeFile } from 'node:fs/promises';
import path from 'node:path';
import type { Route } from '../contract/routes.ts';
import { isRecordType, recordTypes, type RecordType } from '../contract/recordTypes.ts';
import { groupsOf, type RoutePlan } from './bodies.ts';
import type { GroupFilter } from './bodies/indexing.ts';
import { RecordKeys } from './bodies/recordKeys.ts';
import { gateAddressCountries, parseRecordFiles, typeNameOf, type InputFile, type Inputs, type LoadedData, type RecordFile } from './load.ts';
import type { DataRecord } from './records/schemas.ts';
import { recordDefinitions, type RebuildFacts } from './records/recordTypes.ts';
import type { RebuildBasis } from './builds/summary.ts';

export type { RebuildBasis };
import { parseFileRecords, type CheckedBefore, type Dataset, type ValidatedDataset } from './validate.ts';

/** The folder of the builds root holding the current build's record files by content. */
const inputsDirName = '.inputs';

const sha256 = (bytes: Buffer): string => createHash('sha256').update(bytes).digest('hex');

/** The basis of a build of `inputs`, to be saved in its summary. */
export function basisOf(inputs: Inputs, codeVersion: string, entriesPerShard: number): RebuildBasis {
  return {
    codeVersion,
    settings: inputs.settings.sha256,
    entriesPerShard,
    records: Object.fromEntries(inputs.records.map((file) => [file.relativePath, file.sha256])),
  };
}

/**
 * Saves the record files a build read by content, before it makes anything, so that it need not
 * hold their bytes to the end: the next build reads the ones it finds changed from here. A file
 * already saved is left as it is; nothing is removed (pruneInputs does, once the build is out).
 */
export async function saveInputs(buildsRoot: string, inputs: Inputs): Promise<void> {
  const dir = path.join(buildsRoot, inputsDirName);
  await mkdir(dir, { recursive: true });
  const present = new Set(await readdir(dir));
  for (const { sha256: hash, bytes } of inputs.records) {
    if (present.has(hash)) continue;
    const partial = path.join(dir, `${hash}.${process.pid}.partial`);
    await writeFile(partial, bytes);
    await rename(partial, path.join(dir, hash));
  }
}

/** Removes the saved record files that are not the finished build's (`basis`): no later build compares with them. */
export async function pruneInputs(buildsRoot: string, basis: RebuildBasis): Promise<void> {
  const dir = path.join(buildsRoot, inputsDirName);
  const wanted = new Set(Object.values(basis.records));
  for (const name of await readdir(dir).catch(() => [] as string[])) if (!wanted.has(name)) await rm(path.join(dir, name), { force: true });
}

/** A saved record file, or undefined when it is missing or not what its name says. */
async function readSaved(buildsRoot: string, hash: string): Promise<Buffer | undefined> {
  const bytes = await readFile(path.join(buildsRoot, inputsDirName, hash)).catch(() => undefined);
  return bytes !== undefined && sha256(bytes) === hash ? bytes : undefined;
}

/**
 * What the previous build, made by this code with these settings, checked of the data as it is now:
 * the record files whose bytes it read, and the types all of whose records are as it had them
 * (the same files, gated from the same records). Nothing when the code or the settings differ.
 */
export function checkedBefore(previous: RebuildBasis | undefined, current: RebuildBasis): CheckedBefore {
  if (previous === undefined || previous.codeVersion !== current.codeVersion || previous.settings !== current.settings) return {};
  const changed = new Set<string>();
  for (const file of new Set([...Object.keys(previous.records), ...Object.keys(current.records)]))
    if (previous.records[file] !== current.records[file]) changed.add(typeNameOf(file));
  // A gate that moved may serve records of an unchanged file that the previous build left out, unchecked.
  const gateMoved = (type: string) => (rebuildFactsOf(type)?.gatedBy ?? []).some((other) => changed.has(other));
  const files = Object.keys(current.records).filter((file) => previous.records[file] === current.records[file] && !gateMoved(typeNameOf(file)));
  const types = recordTypes.filter((type) => !changed.has(type) && !gateMoved(type));
  return { files: new Set(files), types: new Set(types) };
}

/** What a rebuild knows of a type (generator/records/recordTypes.ts); undefined for a name that is no record type. */
const rebuildFactsOf = (type: string): RebuildFacts | undefined => (isRecordType(type) ? recordDefinitions[type].rebuild : undefined);
/** The fields that fix a record's country, where the type's routes are planned group by group. */
const partitionedBy = (type: RecordType): readonly string[] | undefined => recordDefinitions[type].rebuild?.partitionedBy;
/** The types whose changes matter to the partitioned routes, and the fields those routes read of them. */
const readByAddresses = recordTypes.flatMap((type) => {
  const fields = recordDefinitions[type].rebuild?.readByAddresses;
  return fields === undefined ? [] : [[type, fields] as const];
});

/**
 * The route cut to the groups that may hold records of several countries (postal codes without a
 * country): its parameters before the first that fixes a country; undefined when every group is
 * one country's.
 */
function spanningPart(route: Route, fixing: readonly string[]): Route | undefined {
  const first = route.search ? 1 : 0;
  const params = route.params.slice(first);
  const fewest = params.filter((param) => !param.optional).length;
  const fixed = params.findIndex((param) => fixing.includes(param.field));
  const free = fixed === -1 ? params.length : fixed;
  return free < fewest ? undefined : { ...route, params: route.params.slice(0, first + free) };
}

/** A record's versions across a change: `before` as the previous build had them, `after` as they are. */
interface Changed {
  readonly before: DataRecord[];
  readonly after: DataRecord[];
}

/** A rebuild's plan: the data as the previous build had it, and what to make of each route from each. */
export interface RebuildPlan {
  readonly before: Dataset;
  readonly plans: ReadonlyMap<string, RoutePlan>;
  readonly plansBefore: ReadonlyMap<string, RoutePlan>;
  /** Records changed, per type (added, removed or different): their ids. */
  readonly changed: ReadonlyMap<RecordType, ReadonlySet<string>>;
}

export interface RebuildInputs {
  readonly buildsRoot: string;
  readonly basis: RebuildBasis | undefined;
  readonly current: RebuildBasis;
  readonly loaded: LoadedData;
  readonly dataset: ValidatedDataset;
  readonly routes: readonly Route[];
}

/** The plan of a rebuild from the previous build, or why a full build is needed. */
export async function planRebuild({ buildsRoot, basis, current, loaded, dataset, routes }: RebuildInputs): Promise<RebuildPlan | string> {
  if (basis === undefined) return 'no previous build records its inputs';
  if (basis.codeVersion !== current.codeVersion) return "the generator's code changed";
  if (basis.settings !== current.settings) return 'data/build.json changed';
  if (basis.entriesPerShard !== current.entriesPerShard) return 'the entries per shard changed';
  const paths = [...new Set([...Object.keys(basis.records), ...Object.keys(current.records)])].sort();
  const changedPaths = new Set(paths.filter((file) => basis.records[file] !== current.records[file]));
  // Files added or removed move other files' records in data order: every record of them counts as changed.
  const movedPaths = new Set([...changedPaths].filter((file) => basis.records[file] === undefined || current.records[file] === undefined));

  // The changed files as the previous build read them, gated as the build gates them.
  const oldInputs: InputFile[] = [];
  for (const file of changedPaths) {
    const hash = basis.records[file];
    if (hash === undefined) continue;
    const bytes = await readSaved(buildsRoot, hash);
    if (bytes === undefined) return `the previous build's copy of ${file} is not saved`;
    oldInputs.push({ relativePath: file, displayPath: file, bytes, sha256: hash });
  }
  const problems: string[] = [];
  const oldFiles = parseRecordFiles(oldInputs, problems);
  if (problems.length > 0) return `the previous build's copy of a file does not parse: ${problems[0]}`;
  const oldAll = [...loaded.allFiles.filter((file) => !changedPaths.has(file.relativePath)), ...oldFiles].sort((a, b) =>
    a.relativePath < b.relativePath ? -1 : 1,
  );
  let gated: readonly RecordFile[];
  try {
    gated = gateAddressCountries(oldAll, loaded.settings);
  } catch {
    return "the previous build's data does not gate";
  }
  const recordsBefore = new Map<string, readonly DataRecord[]>();
  const typeOf = new Map<string, RecordType>();
  for (const file of gated) {
    typeOf.set(file.relativePath, file.recordType);
    if (!changedPaths.has(file.relativePath)) continue;
    const records = parseFileRecords(file);
    if (records === undefined) return `the previous build's copy of ${file.relativePath} does not validate`;
    recordsBefore.set(file.relativePath, records);
  }
  for (const file of loaded.files) typeOf.set(file.relativePath, file.recordType);

  // The data as the previous build had it: unchanged files' records are the same objects.
  const gatedPaths = gated.map((file) => file.relativePath);
  const changedTypes = new Set([...changedPaths].flatMap((file) => typeOf.get(file) ?? []));
  const beforeRecords = new Map(dataset.records);
  for (const type of changedTypes) {
    beforeRecords.set(
      type,
      gatedPaths.filter((file) => typeOf.get(file) === type).flatMap((file) => recordsBefore.get(file) ?? dataset.byFile.get(file) ?? []),
    );
  }
  const before: Dataset = { records: beforeRecords, where: () => undefined };
  const readBefore = new Set([...recordsBefore.values()].flat());

  const changed = new Map<RecordType, Changed>();
  for (const type of changedTypes) {
    const filesOfType = paths.filter((file) => changedPaths.has(file) && typeOf.get(file) === type);
    const olds = filesOfType.flatMap((file) => recordsBefore.get(file) ?? []);
    const news = filesOfType.flatMap((file) => dataset.byFile.get(file) ?? []);
    const moved = filesOfType.some((file) => movedPaths.has(file));
    changed.set(type, diffRecords(olds, news, moved));
  }

  // What the district and neighbourhood routes read of other types must be as it was.
  for (const [type, fields] of readByAddresses) {
    const versions = changed.get(type);
    if (versions && !sameSignatures(versions, fields)) return `a ${type} record changed its ${fields.join(' or ')}, or was added or removed`;
  }
  const keysAfter = new RecordKeys(dataset, []);
  const keysBefore = new RecordKeys(before, []);
  const districts = changed.get('district');
  const districtsAdded = new Set<DataRecord>();
  if (districts) {
    const countryBefore = new Map(districts.before.map((district) => [district.id, keysBefore.fieldValue('district', district, 'countryId')]));
    for (const district of districts.after) {
      const was = countryBefore.get(district.id);
      if (!countryBefore.has(district.id)) districtsAdded.add(district);
      else if (was !== keysAfter.fieldValue('district', district, 'countryId')) return `district ${district.id} moved to another country`;
    }
  }

  // Each record's country, worked out once per type rather than once per route (millions of places).
  const countriesByType = new Map<RecordType, unknown[]>();
  const countriesAfter = (type: RecordType, records: readonly DataRecord[]): unknown[] => {
    let found = countriesByType.get(type);
    if (found === undefined) {
      found = records.map((record) => keysAfter.fieldValue(type, record, 'countryId'));
      countriesByType.set(type, found);
    }
    return found;
  };
  const plans = new Map<string, RoutePlan>();
  const plansBefore = new Map<string, RoutePlan>();
  const otherChanged = [...changed.keys()].some((type) => partitionedBy(type) === undefined);
  for (const route of routes) {
    const fixing = partitionedBy(route.record);
    if (fixing === undefined) {
      const plan: RoutePlan = { make: otherChanged ? 'all' : 'none' };
      plans.set(route.path, plan);
      plansBefore.set(route.path, plan);
      continue;
    }
    const own = changed.get(route.record);
    // A district added or removed gives its neighbourhoods' lists a body, or takes it.
    const parents = route.parent?.record === 'district' && districts ? districtParents(route, districts, districtsAdded, keysAfter, keysBefore) : [];
    if (own === undefined && parents.length === 0) {
      plans.set(route.path, { make: 'none' });
      plansBefore.set(route.path, { make: 'none' });
      continue;
    }
    const groups = new Set<string>();
    const countries = new Set<unknown>();
    for (const [records, keys] of [
      [own?.after ?? [], keysAfter],
      [own?.before ?? [], keysBefore],
    ] as const) {
      for (const record of records) {
        for (const group of groupsOf(route, record, { keys })) groups.add(group);
        countries.add(keys.fieldValue(route.record, record, 'countryId'));
      }
    }
    const firstKeys = new Set(parents.map(({ key }) => key));
    for (const { country } of parents) countries.add(country);
    const only: GroupFilter = (group) => groups.has(group) || (firstKeys.size > 0 && firstKeys.has(group.split('/', 1)[0] as string));
    // A group spanning countries (a postal code without one) may hold a record of any country; a
    // record of another country can fall only in such groups, found by the parameters before the
    // first that fixes a country.
    const spanning = spanningPart(route, fixing);
    const admits = (keys: RecordKeys, record: DataRecord, country = keys.fieldValue(route.record, record, 'countryId')): boolean =>
      countries.has(country) ? groupsOf(route, record, { keys }).some(only) : spanning !== undefined && groupsOf(spanning, record, { keys }).some(only);
    const records = dataset.records.get(route.record) ?? [];
    const countryAt = countriesAfter(route.record, records);
    const madeFrom = records.filter((record, at) => admits(keysAfter, record, countryAt[at]));
    // A record of an unchanged file is the same object in both, in the same groups.
    const admitted = new Set(madeFrom);
    const madeBefore = (before.records.get(route.record) ?? []).filter((record) =>
      readBefore.has(record) ? admits(keysBefore, record) : admitted.has(record),
    );
    plans.set(route.path, { make: 'groups', records: madeFrom, only });
    plansBefore.set(route.path, { make: 'groups', records: madeBefore, only });
  }
  return {
    before,
    plans,
    plansBefore,
    changed: new Map([...changed].map(([type, { after, before }]) => [type, new Set([...after, ...before].map((record) => record.id))])),
  };
}

/** The districts added or removed, as the first keys of a route whose parent is a district, with their countries. */
function districtParents(route: Route, districts: Changed, added: ReadonlySet<DataRecord>, keysAfter: RecordKeys, keysBefore: RecordKeys) {
  const [first] = route.params;
  const field = route.parent?.field ?? 'id';
  if (!first) return [];
  const after = new Set(districts.after.map((district) => district.id));
  const removed = districts.before.filter((district) => !after.has(district.id));
  return [...[...added].map((district) => ({ district, keys: keysAfter })), ...removed.map((district) => ({ district, keys: keysBefore }))].flatMap(
    ({ district, keys }) => {
      const key = keys.keyOf('district', district, first, keys.fieldValue('district', district, field));
      return key === undefined ? [] : [{ key, country: keys.fieldValue('district', district, 'countryId') }];
    },
  );
}

/**
 * The records of one type's changed files that differ: added, removed or changed, each in its
 * versions. Where the records common to both stand in another order (or a file was added or
 * removed), every record of those files counts as changed: lists hold records in data order.
 */
function diffRecords(before: readonly DataRecord[], after: readonly DataRecord[], moved: boolean): Changed {
  if (moved) return { before: [...before], after: [...after] };
  const textBefore = new Map(before.map((record) => [record.id, JSON.stringify(record)]));
  const same = new Set<string>();
  for (const record of after) if (textBefore.get(record.id) === JSON.stringify(record)) same.add(record.id);
  const orderBefore = before.filter((record) => same.has(record.id)).map((record) => record.id);
  const orderAfter = after.filter((record) => same.has(record.id)).map((record) => record.id);
  if (orderBefore.some((id, index) => orderAfter[index] !== id)) return { before: [...before], after: [...after] };
  return { before: before.filter((record) => !same.has(record.id)), after: after.filter((record) => !same.has(record.id)) };
}

/** Whether the changed records of a type keep their ids and these fields: none added, removed or changed in them. */
function sameSignatures({ before, after }: Changed, fields: readonly string[]): boolean {
  const signature = (record: DataRecord) => JSON.stringify(fields.map((field) => record[field]));
  const was = new Map(before.map((record) => [record.id, signature(record)]));
  if (before.length !== after.length) return false;
  return after.every((record) => was.get(record.id) === signature(record));
}

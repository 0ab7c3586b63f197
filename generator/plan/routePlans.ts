/**
 * What to make of each route, from the data as it is and as the previous build had it:
 *
 * - a route made whole (not partitioned) makes all its bodies when any type it reads changed
 *   (reads.ts), else none;
 * - a partitioned route (districts, neighbourhoods: millions of bodies at the world's size) makes
 *   only the groups its changed records fall in (the key tuples, or a search's scopes, of the old
 *   and the new version of each), from every record of those groups: the records of the countries
 *   concerned, or of all countries where a group spans them (postal codes without a country); and
 *   the first keys of the parents added or removed, whose lists gain or lose their body.
 *
 * Where that cannot be shown safe, the answer is a reason for a full build instead.
 */
import type { RecordType } from '../../contract/recordTypes.ts';
import type { Route } from '../../contract/routes.ts';
import { groupsOf, type RoutePlan } from '../bodies.ts';
import type { GroupFilter } from '../bodies/indexing.ts';
import { RecordKeys } from '../bodies/recordKeys.ts';
import type { DataRecord } from '../records/schemas.ts';
import type { Dataset } from '../validate.ts';
import { sameSignatures, type Changed } from './changes.ts';
import type { PartitionMap } from './partitionMapFile.ts';
import { fieldsRead, partitionedTypeOf, partitionOf, readByPartitioned, typesRead } from './reads.ts';

export interface RoutePlanInputs {
  readonly routes: readonly Route[];
  readonly dataset: Dataset;
  readonly before: Dataset;
  readonly changed: ReadonlyMap<RecordType, Changed>;
  /** The records of the previous build's copies of the changed files (the others are shared with `dataset`). */
  readonly readBefore: ReadonlySet<DataRecord>;
  /** Where the records lie, when the previous build saved its partition map: the files a partitioned route's changed groups cannot reach are passed over. */
  readonly located?: Located | undefined;
  /** The same of the data as the previous build had it. */
  readonly locatedBefore?: Located | undefined;
}

/** The data's records by file, and what the previous build's partition map says of each file it still describes. */
export interface Located {
  readonly byFile: ReadonlyMap<string, readonly DataRecord[]>;
  readonly map: PartitionMap;
  /** A record file's SHA-256 now: a map entry of another describes another file. */
  readonly sha256Of: (file: string) => string | undefined;
  /** The files of partitioned types the build did not read (their map entries are as they are). */
  readonly unread?: ReadonlySet<string>;
  /** Where the unread files a plan needs are noted. */
  readonly wanted?: Set<string>;
}

export type RoutePlans =
  | { readonly kind: 'full'; readonly reason: string }
  /** Files the build did not read that the plan needs: read them too, and plan again. */
  | { readonly kind: 'more'; readonly files: ReadonlySet<string> }
  | { readonly kind: 'planned'; readonly plans: ReadonlyMap<string, RoutePlan>; readonly plansBefore: ReadonlyMap<string, RoutePlan> };

/** The keys of the data in both versions. */
interface BothKeys {
  readonly after: RecordKeys;
  readonly before: RecordKeys;
}

/** The route cut to the groups that may hold records of several countries (postal codes without a country); undefined when every group is one country's. */
export function spanningPart(route: Route, fixing: readonly string[]): Route | undefined {
  const first = route.search ? 1 : 0;
  const params = route.params.slice(first);
  const fewest = params.filter((param) => !param.optional).length;
  const fixed = params.findIndex((param) => fixing.includes(param.field));
  const free = fixed === -1 ? params.length : fixed;
  return free < fewest ? undefined : { ...route, params: route.params.slice(0, first + free) };
}

/** Why the partitioned routes cannot be planned group by group, if they cannot: a field they read of a type made whole changed. */
function unplannable(routes: readonly Route[], changed: ReadonlyMap<RecordType, Changed>): string | undefined {
  for (const [type, fields] of readByPartitioned(routes)) {
    const versions = changed.get(type);
    if (versions && !sameSignatures(versions, fields)) return `a ${type} record changed its ${fields.join(' or ')}, or was added or removed`;
  }
  return undefined;
}

/**
 * The records of partitioned types that other partitioned routes read (a neighbourhood's district)
 * added since the previous build, by type; or why a full build is needed: one moved to another
 * country, which moves the records that read it without their changing.
 */
function addedParents(routes: readonly Route[], changed: ReadonlyMap<RecordType, Changed>, keys: BothKeys): Map<RecordType, Set<DataRecord>> | string {
  const readTypes = new Set(routes.filter((route) => partitionOf(route.record) !== undefined).flatMap((route) => fieldsRead(route).map(({ type }) => type)));
  const added = new Map<RecordType, Set<DataRecord>>();
  for (const type of readTypes) {
    const versions = changed.get(type);
    if (versions === undefined || partitionOf(type) === undefined) continue;
    const countryBefore = new Map(versions.before.map((record) => [record.id, keys.before.fieldValue(type, record, 'countryId')]));
    const fresh = new Set<DataRecord>();
    for (const record of versions.after) {
      if (!countryBefore.has(record.id)) fresh.add(record);
      else if (countryBefore.get(record.id) !== keys.after.fieldValue(type, record, 'countryId')) return `${type} ${record.id} moved to another country`;
    }
    added.set(type, fresh);
  }
  return added;
}

/** The parents added or removed, as the first keys of a route whose parent they are, with their countries. */
function parentKeys(route: Route, versions: Changed, added: ReadonlySet<DataRecord>, keys: BothKeys): { key: string; country: unknown }[] {
  const [first] = route.params;
  const { parent } = route;
  if (first === undefined || parent === undefined) return [];
  const after = new Set(versions.after.map((record) => record.id));
  const removed = versions.before.filter((record) => !after.has(record.id));
  const both = [...[...added].map((record) => ({ record, keys: keys.after })), ...removed.map((record) => ({ record, keys: keys.before }))];
  return both.flatMap(({ record, keys: keysOf }) => {
    const key = keysOf.keyOf(parent.record, record, first, keysOf.fieldValue(parent.record, record, parent.field));
    return key === undefined ? [] : [{ key, country: keysOf.fieldValue(parent.record, record, 'countryId') }];
  });
}

/** Each record's country, worked out once per list of records rather than once per route (millions of places). */
function countriesOnce(keys: RecordKeys): (type: RecordType, records: readonly DataRecord[]) => unknown[] {
  const byList = new WeakMap<readonly DataRecord[], unknown[]>();
  return (type, records) => {
    let found = byList.get(records);
    if (found === undefined) {
      found = records.map((record) => keys.fieldValue(type, record, 'countryId'));
      byList.set(records, found);
    }
    return found;
  };
}

/**
 * The records of `type` a partitioned route's groups may take, in data order: every record, or,
 * where the partition map describes a file as it is, only the records of the files with a record
 * of one of `countries` or in a spanning group `only` admits (the route's spanning part's).
 */
function candidates(type: RecordType, all: readonly DataRecord[], located: Located | undefined, reach: Reach): readonly DataRecord[] {
  if (located === undefined) return all;
  const countries = new Set([...reach.countries].map(String));
  const found: DataRecord[] = [];
  const concerned = (file: string): boolean => {
    const entry = located.map.files[file];
    return (
      entry === undefined ||
      entry.sha256 !== located.sha256Of(file) ||
      entry.countries.some((country) => countries.has(country)) ||
      (reach.spanning !== undefined && (entry.spanning[reach.spanning] ?? []).some(reach.only))
    );
  };
  for (const [file, records] of located.byFile) if (partitionedTypeOf(file) === type && concerned(file)) for (const record of records) found.push(record);
  for (const file of located.unread ?? []) if (partitionedTypeOf(file) === type && concerned(file)) located.wanted?.add(file);
  return found;
}

/** What a partitioned route's changed groups reach: their countries, and the groups of its spanning part (by route path) `only` admits. */
interface Reach {
  readonly countries: ReadonlySet<unknown>;
  readonly spanning: string | undefined;
  readonly only: GroupFilter;
}

export function planRoutes({ routes, dataset, before, changed, readBefore, located, locatedBefore }: RoutePlanInputs): RoutePlans {
  const why = unplannable(routes, changed);
  if (why !== undefined) return { kind: 'full', reason: why };
  const keys: BothKeys = { after: new RecordKeys(dataset, []), before: new RecordKeys(before, []) };
  const added = addedParents(routes, changed, keys);
  if (typeof added === 'string') return { kind: 'full', reason: added };
  const countriesAfter = countriesOnce(keys.after);
  const plans = new Map<string, RoutePlan>();
  const plansBefore = new Map<string, RoutePlan>();
  for (const route of routes) {
    const fixing = partitionOf(route.record)?.by;
    if (fixing === undefined) {
      const plan: RoutePlan = { make: [...typesRead(route)].some((type) => changed.has(type)) ? 'all' : 'none' };
      // Made whole from a partitioned type: from every record of it.
      if (plan.make === 'all')
        for (const each of [located, locatedBefore])
          for (const file of each?.unread ?? []) if (typesRead(route).has(partitionedTypeOf(file) as RecordType)) each?.wanted?.add(file);
      plans.set(route.path, plan);
      plansBefore.set(route.path, plan);
      continue;
    }
    const own = changed.get(route.record);
    const parentType = route.parent?.record;
    // Parents of a partitioned type added or removed; those made whole cannot be (unplannable).
    const parentVersions = parentType === undefined || partitionOf(parentType) === undefined ? undefined : changed.get(parentType);
    const parents = parentType && parentVersions ? parentKeys(route, parentVersions, added.get(parentType) ?? new Set(), keys) : [];
    if (own === undefined && parents.length === 0) {
      plans.set(route.path, { make: 'none' });
      plansBefore.set(route.path, { make: 'none' });
      continue;
    }
    const groups = new Set<string>();
    const countries = new Set<unknown>();
    for (const [records, keysOf] of [
      [own?.after ?? [], keys.after],
      [own?.before ?? [], keys.before],
    ] as const) {
      for (const record of records) {
        for (const group of groupsOf(route, record, { keys: keysOf })) groups.add(group);
        countries.add(keysOf.fieldValue(route.record, record, 'countryId'));
      }
    }
    const firstKeys = new Set(parents.map(({ key }) => key));
    for (const { country } of parents) countries.add(country);
    const only: GroupFilter = (group) => groups.has(group) || (firstKeys.size > 0 && firstKeys.has(group.split('/', 1)[0] as string));
    // A group spanning countries (a postal code without one) may hold a record of any country; a
    // record of another country can fall only in such groups, found by the parameters before the
    // first that fixes a country.
    const spanning = spanningPart(route, fixing);
    const admits = (keysOf: RecordKeys, record: DataRecord, country = keysOf.fieldValue(route.record, record, 'countryId')): boolean =>
      countries.has(country)
        ? groupsOf(route, record, { keys: keysOf }).some(only)
        : spanning !== undefined && groupsOf(spanning, record, { keys: keysOf }).some(only);
    const reach: Reach = { countries, spanning: spanning && route.path, only };
    const records = candidates(route.record, dataset.records.get(route.record) ?? [], located, reach);
    const countryAt = countriesAfter(route.record, records);
    const madeFrom = records.filter((record, at) => admits(keys.after, record, countryAt[at]));
    // A record of an unchanged file is the same object in both, in the same groups.
    const admitted = new Set(madeFrom);
    const madeBefore = candidates(route.record, before.records.get(route.record) ?? [], locatedBefore, reach).filter((record) =>
      readBefore.has(record) ? admits(keys.before, record) : admitted.has(record),
    );
    plans.set(route.path, { make: 'groups', records: madeFrom, only });
    plansBefore.set(route.path, { make: 'groups', records: madeBefore, only });
  }
  const wanted = new Set([...(located?.wanted ?? []), ...(locatedBefore?.wanted ?? [])]);
  if (wanted.size > 0) return { kind: 'more', files: wanted };
  return { kind: 'planned', plans, plansBefore };
}

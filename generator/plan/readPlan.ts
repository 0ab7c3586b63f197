/**
 * Which record files a rebuild reads. Parsing the world's record files costs most of a rebuild
 * (1.5 million districts and neighbourhoods), yet a change to one neighbourhood reaches the
 * records of its country and of the postal codes it shares with others, and nothing else. So a
 * rebuild that starts from a previous build's partition map (partitionMap.ts) reads every file of
 * the types made whole, and of the partitioned types only:
 *
 * - the files changed since, and any the map does not describe as they are;
 * - the files holding a record of a country a read file holds a record of (its districts, the
 *   groups its changes fall in), to a closure; the countries of the changed files' old versions seed it;
 * - the files the previous build's examples came from (the OpenAPI document's examples), which
 *   only need their own records: the build checks they are the same and find what they refer to.
 *
 * What the rebuild finds it needs beyond that (a spanning group's files, a new file's countries, a
 * route made whole that reads a partitioned type) it asks for (`more`), and reads again with them.
 * What cannot be shown right on part of the records (a check that fails, examples that moved) has
 * the build read everything. Where a file is not read, its records are taken as the previous
 * build had them: its SHA-256 is the same, and the code and settings are.
 */
import { isRecordType, recordTypes } from '../../contract/recordTypes.ts';
import type { Route } from '../../contract/routes.ts';
import type { RebuildBasis } from '../builds/summary.ts';
import type { Inputs } from '../load.ts';
import { recordDefinitions } from '../records/recordTypes.ts';
import type { PartitionMap } from './partitionMapFile.ts';
import { partitionedTypeOf, partitionOf } from './reads.ts';

/** The files a rebuild reads: every one, or these (the partitioned types' files; every other file is read). */
export type ReadPlan = { readonly all: true } | { readonly all: false; readonly partitioned: ReadonlySet<string> };

export const readEverything: ReadPlan = { all: true };

/**
 * Why part of the records cannot stand for all under this route table and these types, if it cannot:
 * a partitioned type whose records must differ in more than their ids (each is checked against all),
 * or a type made whole that refers to a partitioned one (its references are checked against all).
 */
export function partialReadBlocked(routes: readonly Route[]): string | undefined {
  const partitioned = (type: string) => isRecordType(type) && partitionOf(type) !== undefined;
  for (const route of routes) {
    if (!partitioned(route.record) || route.shape !== 'single' || route.document || route.params.some((param) => param.kind === 'name')) continue;
    if (route.params.some((param) => param.field !== 'id')) return `${route.path} needs its values unique across every ${route.record}`;
  }
  for (const type of recordTypes) {
    if (partitioned(type)) continue;
    const reference = recordDefinitions[type].references.find((each) => partitioned(each.to));
    if (reference) return `${type} refers to ${reference.to}`;
  }
  return undefined;
}

/** Whether the settings serve every country's addresses: a build serving fewer gates records across files, and reads them all. */
function servesAll(settings: Inputs['settings']): boolean {
  try {
    const parsed = JSON.parse(settings.bytes.toString('utf8')) as { addressCountries?: unknown };
    return parsed.addressCountries === undefined || parsed.addressCountries === 'all';
  } catch {
    return false;
  }
}

export interface ReadPlanInputs {
  readonly inputs: Inputs;
  /** The previous build's basis, on this code and these settings. */
  readonly basis: RebuildBasis;
  readonly map: PartitionMap | undefined;
  readonly routes: readonly Route[];
  /** Files to read besides: what a plan asked for. */
  readonly more?: ReadonlySet<string> | undefined;
}

/** The files of the partitioned types a rebuild reads, closed over countries; every file when the map cannot say. */
export function planReads({ inputs, basis, map, routes, more = new Set() }: ReadPlanInputs): ReadPlan {
  if (map === undefined || !servesAll(inputs.settings) || partialReadBlocked(routes) !== undefined) return readEverything;
  const current = new Map(inputs.records.flatMap((file) => (partitionedTypeOf(file.relativePath) ? [[file.relativePath, file.sha256] as const] : [])));
  const read = new Set<string>([...more].filter((file) => current.has(file)));
  const countries = new Set<string>();
  for (const file of new Set([...current.keys(), ...Object.keys(basis.records).filter((each) => partitionedTypeOf(each))])) {
    const entry = map.files[file];
    const changed = basis.records[file] !== current.get(file);
    if (changed) for (const country of entry?.countries ?? []) countries.add(country);
    if (!current.has(file)) continue;
    if (changed || entry === undefined || entry.sha256 !== current.get(file)) read.add(file);
  }
  // The closure: a file read brings its countries, whose files bring theirs.
  for (let grown = true; grown; ) {
    grown = false;
    for (const file of read) for (const country of map.files[file]?.countries ?? []) countries.add(country);
    for (const file of current.keys()) {
      if (read.has(file) || !(map.files[file]?.countries ?? []).some((country) => countries.has(country))) continue;
      read.add(file);
      grown = true;
    }
  }
  for (const { file } of Object.values(map.examples ?? {})) if (current.has(file)) read.add(file);
  return read.size === current.size ? readEverything : { all: false, partitioned: read };
}

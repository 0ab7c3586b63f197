/**
 * A rebuild that makes only what its changes can change.
 *
 * A build saves each record file it read (plan/savedInputs.ts) and records the files' hashes, its
 * code's fingerprint and its settings in its summary. The next build, on the same code and
 * settings, compares: the record files whose hashes differ are read as they were, so that the
 * records that changed are known in both versions (plan/previous.ts). Then each route is planned
 * from what it reads (plan/reads.ts, plan/routePlans.ts): a route none of whose read types changed
 * keeps every body of the previous build, a partitioned route (districts, neighbourhoods) makes
 * only the groups its changed records fall in, any other route makes all its bodies.
 *
 * Each route so planned is made twice: from the data as it is and as the previous build had it.
 * What differs between the two is the patch applied to the previous build's index (write.ts):
 * a path made only from the old data is gone, a path whose body differs is new or changed.
 *
 * Where the shortcut cannot be shown safe, the plan is a full build, with its reason: another
 * code or settings, the previous inputs not saved, a field the partitioned routes read of another
 * type changed, a district moved to another country.
 */
import { isRecordType, recordTypes, type RecordType } from '../contract/recordTypes.ts';
import { recordDefinitions } from './records/recordTypes.ts';
import type { Changed } from './plan/changes.ts';
import type { Route } from '../contract/routes.ts';
import type { RoutePlan } from './bodies.ts';
import type { RebuildBasis } from './builds/summary.ts';
import { typeNameOf, type Inputs, type LoadedData } from './load.ts';
import { previousData } from './plan/previous.ts';
import { planRoutes } from './plan/routePlans.ts';
import { partitionOf } from './plan/reads.ts';
import type { PartitionMap } from './plan/partitionMapFile.ts';
import type { CheckedBefore, Dataset, ValidatedDataset } from './validate.ts';

export type { RebuildBasis };

/** The basis of a build of `inputs`, to be saved in its summary. */
export function basisOf(inputs: Inputs, codeVersion: string, entriesPerShard: number): RebuildBasis {
  return {
    codeVersion,
    settings: inputs.settings.sha256,
    entriesPerShard,
    records: Object.fromEntries(inputs.records.map((file) => [file.relativePath, file.sha256])),
    signatures: Object.fromEntries(inputs.records.flatMap((file) => (file.signature === undefined ? [] : [[file.relativePath, file.signature]]))),
  };
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
  const gateMoved = (type: string) => isRecordType(type) && (partitionOf(type)?.gatedBy ?? []).some((gate) => changed.has(gate.type));
  const files = Object.keys(current.records).filter((file) => previous.records[file] === current.records[file] && !gateMoved(typeNameOf(file)));
  const types = recordTypes.filter((type) => !changed.has(type) && !gateMoved(type));
  return { files: new Set(files), types: new Set(types) };
}

/** A rebuild's plan: the data as the previous build had it, and what to make of each route from each. */
export interface RebuildPlan {
  readonly before: Dataset;
  readonly plans: ReadonlyMap<string, RoutePlan>;
  readonly plansBefore: ReadonlyMap<string, RoutePlan>;
  /** Records changed, per type (added, removed or different): their ids. */
  readonly changed: ReadonlyMap<RecordType, ReadonlySet<string>>;
}

/** A build made whole, and why; a patch of the previous build, and its plan; or the files to read besides before it can be planned. */
export type RebuildChoice =
  | { readonly kind: 'full'; readonly reason: string }
  | { readonly kind: 'patch'; readonly plan: RebuildPlan }
  | { readonly kind: 'more'; readonly files: ReadonlySet<string> };

export interface RebuildInputs {
  readonly buildsRoot: string;
  readonly basis: RebuildBasis | undefined;
  readonly current: RebuildBasis;
  readonly loaded: LoadedData;
  readonly dataset: ValidatedDataset;
  readonly routes: readonly Route[];
  /** The previous build's partition map, if it saved one. */
  readonly partitions?: PartitionMap | undefined;
  /** The record files of partitioned types the build did not read (plan/readPlan.ts), with their bytes. */
  readonly unread?: ReadonlyMap<string, Buffer>;
}

/** Ids searched for in the unread files at most: beyond, every file is read. */
const searchedIdsAtMost = 2_000;

/**
 * The unread files that may hold a record the changes collide with: one with the id of a record
 * added (a duplicate), or one referring to a record removed. Found by the id's bytes in quotes,
 * which any record holding it as a value has; a file found is read, and the checks of the records
 * then say whether it is a problem. All of them when there are too many ids to search for.
 */
function collidingFiles(changed: ReadonlyMap<RecordType, Changed>, unread: ReadonlyMap<string, Buffer>): ReadonlySet<string> {
  const searches: { readonly type: RecordType; readonly id: string }[] = [];
  for (const [type, { before, after }] of changed) {
    const was = new Set(before.map((record) => record.id));
    const now = new Set(after.map((record) => record.id));
    for (const id of now) if (!was.has(id)) searches.push({ type, id });
    for (const id of was)
      if (!now.has(id))
        for (const referring of recordTypes)
          if (recordDefinitions[referring].references.some((reference) => reference.to === type)) searches.push({ type: referring, id });
  }
  if (searches.length > searchedIdsAtMost) return new Set(unread.keys());
  const found = new Set<string>();
  for (const { type, id } of searches) {
    const quoted = Buffer.from(JSON.stringify(id));
    for (const [file, bytes] of unread) if (!found.has(file) && typeNameOf(file) === type && bytes.includes(quoted)) found.add(file);
  }
  return found;
}

/** Why the previous build's basis is not this one's, if it is not. */
export function otherBasis(basis: RebuildBasis | undefined, current: RebuildBasis): string | undefined {
  if (basis === undefined) return 'no previous build records its inputs';
  if (basis.codeVersion !== current.codeVersion) return "the generator's code changed";
  if (basis.settings !== current.settings) return 'data/build.json changed';
  if (basis.entriesPerShard !== current.entriesPerShard) return 'the entries per shard changed';
  return undefined;
}

/** The plan of a rebuild from the previous build, or why a full build is needed. */
export async function planRebuild({
  buildsRoot,
  basis,
  current,
  loaded,
  dataset,
  routes,
  partitions,
  unread = new Map(),
}: RebuildInputs): Promise<RebuildChoice> {
  const other = otherBasis(basis, current);
  if (other !== undefined || basis === undefined) return { kind: 'full', reason: other ?? 'no previous build records its inputs' };
  const previous = await previousData({ buildsRoot, basis, current, loaded, dataset });
  if (previous.kind === 'full') return previous;
  const { before, changed, readBefore, beforeFiles } = previous;
  const colliding = collidingFiles(changed, unread);
  if (colliding.size > 0) return { kind: 'more', files: colliding };
  // The map describes the previous build's files; of this build's, those whose SHA-256 is the same.
  const unreadFiles = new Set(unread.keys());
  const located = partitions && {
    byFile: dataset.byFile,
    map: partitions,
    sha256Of: (file: string) => current.records[file],
    unread: unreadFiles,
    wanted: new Set<string>(),
  };
  const locatedBefore = partitions && {
    ...{ byFile: beforeFiles, map: partitions, sha256Of: (file: string) => basis.records[file] },
    ...{ unread: unreadFiles, wanted: new Set<string>() },
  };
  const planned = planRoutes({ routes, dataset, before, changed, readBefore, located, locatedBefore });
  if (planned.kind !== 'planned') return planned;
  const ids = new Map([...changed].map(([type, { after, before: was }]) => [type, new Set([...after, ...was].map((record) => record.id))]));
  return { kind: 'patch', plan: { before, plans: planned.plans, plansBefore: planned.plansBefore, changed: ids } };
}

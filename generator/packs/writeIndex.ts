/**
 * The lookup index's writer, beside its format (contract/lookupIndex.ts): one entry point for a
 * build's bodies written whole (packed from the spill, or from a map of a small build) and for a
 * rebuild's patch of the previous build's index. Either way the index's head is written last.
 */
import { link, mkdir, readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import {
  encodeHead,
  encodeShardOf,
  lookupIndexFileName,
  lookupShardsDir,
  packFileOf,
  planShards,
  readLookupHead,
  readLookupShard,
  shardBitsFor,
  shardFileOf,
  type LookupShard,
  type ManifestHead,
  type ShardEntry,
} from '../../contract/lookupIndex.ts';
import { computeEtag, manifestFileName } from '../../contract/manifest.ts';
import type { Progress } from '../builds/progress.ts';
import { linkOrWrite, packShard, packSpill, packThreadsFor, type PackedShard } from './shards.ts';
import { SpilledBodies } from './spill.ts';

/** Where the bodies come from: all of them (spilled, or a small build's map), or a patch of the previous build. */
export type IndexSource =
  | {
      readonly bodies: ReadonlyMap<string, string> | SpilledBodies;
      /** The build dist points at now: its packs and shards are linked where unchanged. */
      readonly previousDir: string | undefined;
      /** Compare each file of the previous build before linking it (a forced build: see linkOrWrite). */
      readonly verifyLinks: boolean;
      readonly entriesPerShard: number | undefined;
      readonly packThreads: number | undefined;
      readonly progress: Progress;
    }
  | { readonly patch: BodyPatch; readonly entriesPerShard: number | undefined };

/** Writes the bodies' packs and the lookup index over them into `buildDir`, with manifest.json (the head as JSON), the index's head last. */
export function writeIndex(buildDir: string, head: ManifestHead, source: IndexSource): Promise<WrittenBodies> {
  return 'patch' in source ? patchBodies(buildDir, head, source.patch, source.entriesPerShard) : writeBodies(buildDir, head, source.bodies, source);
}

/** What writing the bodies came to: how many, and their bytes (each body counted under each of its paths). */
export interface WrittenBodies {
  readonly count: number;
  readonly bytes: number;
}

/**
 * Writes the bodies in packs and the lookup index over them (contract/lookupIndex.ts), one shard
 * at a time, and manifest.json, the index's head as JSON. Packs and shards are named by their content: one the previous build
 * (`previousDir`) already has is hard-linked from it, so a rebuild after a small data change writes
 * only the few packs and shards whose bodies changed. Nothing here holds an object per body: a
 * build of millions of bodies spends its time packing, not collecting garbage.
 */
async function writeBodies(
  buildDir: string,
  head: ManifestHead,
  bodies: ReadonlyMap<string, string> | SpilledBodies,
  { previousDir, verifyLinks, entriesPerShard, packThreads, progress }: Exclude<IndexSource, { readonly patch: BodyPatch }>,
): Promise<WrittenBodies> {
  await mkdir(path.join(buildDir, lookupShardsDir), { recursive: true });
  const directory: ShardEntry[] = [];
  let count = 0;
  let bytes = 0;
  const placed = (shard: PackedShard): void => {
    directory[shard.number] = shard.entry;
    count += shard.count;
    bytes += shard.bytes;
    progress.advance();
  };
  const target = { buildDir, previousDir, verifyLinks };
  const shardBits = bodies instanceof SpilledBodies ? bodies.shardBits(entriesPerShard) : shardBitsFor(bodies.size, entriesPerShard);
  progress.stage('write', 2 ** shardBits, 'shards');
  if (bodies instanceof SpilledBodies) await packSpill(bodies.seal(), shardBits, target, packThreads ?? packThreadsFor(shardBits), placed);
  else for (const [number, shardBodies] of mapShards(bodies, entriesPerShard)) placed(await packShard(target, shardBits, number, shardBodies));
  // manifest.json: the head, for people and tools (the bodies' entries are in the index's shards).
  await writeFile(path.join(buildDir, manifestFileName), `${JSON.stringify(head)}\n`);
  // Last: the head names every shard, each already in place.
  await writeFile(path.join(buildDir, lookupIndexFileName), encodeHead(head, shardBits, directory));
  return { count, bytes };
}

/** Each shard's bodies by path, in shard order, from a map of them. */
function* mapShards(bodies: ReadonlyMap<string, string>, entriesPerShard: number | undefined): Generator<readonly [number, ReadonlyMap<string, Buffer>]> {
  const plan = planShards(bodies.keys(), entriesPerShard);
  for (const [number, paths] of plan.shards.entries()) yield [number, new Map(paths.map((file) => [file, Buffer.from(bodies.get(file) ?? '', 'utf8')]))];
}

/**
 * What a rebuild changes in the previous build's bodies: each path's new body, or undefined where
 * the path is gone. Every other body is the previous build's.
 */
export interface BodyPatch {
  /** The build the patch applies to (its packs, shards and summary). */
  readonly previousDir: string;
  readonly changes: ReadonlyMap<string, string | undefined>;
  /** The previous build's bodies and their bytes (its summary's), which the changes adjust. */
  readonly files: number;
  readonly bytes: number;
}

/**
 * A patch the previous build cannot take: the bodies grew or shrank past a power of two of shards,
 * or a file of it the patch needs is unreadable or not what its name says. The build writes every
 * body instead; the message says why.
 */
export class PatchNotApplicable extends Error {}

/** `read`'s result, or PatchNotApplicable naming what of the previous build could not be read. */
async function fromPrevious<T>(what: string, read: () => Promise<T>): Promise<T> {
  try {
    return await read();
  } catch (error) {
    throw new PatchNotApplicable(`the previous build's ${what} cannot be read (${(error as Error).message})`);
  }
}

/**
 * Writes the previous build's index with `patch` applied: the shards its changed paths fall in are
 * encoded again from the previous packs' bytes and the new bodies; every other shard and pack is
 * hard-linked as it is, unread. The head and manifest.json are written as writeBodies writes them.
 */
async function patchBodies(buildDir: string, head: ManifestHead, patch: BodyPatch, perShard: number | undefined): Promise<WrittenBodies> {
  const { previousDir, changes } = patch;
  const previous = await fromPrevious('index head', () => readLookupHead(previousDir));
  const byShard = new Map<number, string[]>();
  for (const file of changes.keys()) {
    const number = previous.shardOf(file);
    const paths = byShard.get(number);
    if (paths) paths.push(file);
    else byShard.set(number, [file]);
  }
  // First what the touched shards held, to count the entries: a patch past a power of two of
  // shards is written whole by the caller.
  const touched = new Map<number, LookupShard>();
  let count = patch.files;
  let bytes = patch.bytes;
  for (const [number, paths] of byShard) {
    const shard = await fromPrevious(`index shard ${number}`, () => readLookupShard(previousDir, previous, number));
    touched.set(number, shard);
    for (const file of paths) {
      const before = shard.find(file);
      const body = changes.get(file);
      if (before) {
        count--;
        bytes -= before.size;
      }
      if (body !== undefined) {
        count++;
        bytes += Buffer.byteLength(body);
      }
    }
  }
  if (shardBitsFor(count, perShard) !== previous.shardBits) throw new PatchNotApplicable('the bodies grew or shrank past a power of two of index shards');
  await mkdir(path.join(buildDir, lookupShardsDir), { recursive: true });
  const place = (file: string, bytes: Buffer): Promise<void> => linkOrWrite(path.join(previousDir, file), path.join(buildDir, file), bytes);
  const directory: ShardEntry[] = [...previous.shards];
  for (const [number, shard] of touched) {
    const pack = await fromPrevious(`pack ${shard.pack}`, async () => {
      const bytes = await readFile(path.join(previousDir, shard.pack));
      if (computeEtag(bytes) !== shard.packEtag) throw new Error('its bytes are not those its name says');
      return bytes;
    });
    const paths = new Set<string>();
    for (const [file] of shard.entries()) paths.add(file);
    for (const file of byShard.get(number) ?? []) {
      if (changes.get(file) === undefined) paths.delete(file);
      else paths.add(file);
    }
    const bodyOf = (file: string): Buffer => {
      const body = changes.get(file);
      if (body !== undefined) return Buffer.from(body, 'utf8');
      const entry = shard.find(file);
      if (entry === undefined) throw new Error(`${file}: neither changed nor in the previous build's shard ${number}`);
      return pack.subarray(entry.offset, entry.offset + entry.size);
    };
    const encoded = encodeShardOf([...paths].sort(), previous.shardBits, number, bodyOf);
    await Promise.all([place(packFileOf(encoded.pack.etag), encoded.pack.bytes), place(shardFileOf(encoded.entry.etag), encoded.bytes)]);
    directory[number] = encoded.entry;
  }
  // Every other shard and its pack as they are (the head names both).
  for (const [number, entry] of directory.entries()) {
    if (touched.has(number)) continue;
    for (const file of [shardFileOf(entry.etag), packFileOf(entry.packEtag)]) {
      await link(path.join(previousDir, file), path.join(buildDir, file)).catch((error: NodeJS.ErrnoException) => {
        if (error.code !== 'EEXIST') throw error;
      });
    }
  }
  await writeFile(path.join(buildDir, manifestFileName), `${JSON.stringify(head)}\n`);
  await writeFile(path.join(buildDir, lookupIndexFileName), encodeHead(head, previous.shardBits, directory));
  return { count, bytes };
}

/**
 * Packing a build's shards: each shard's bodies encoded into its pack and index file
 * (contract/lookupIndex.ts) and placed in the build, hard-linked from the previous build where it
 * already has those bytes.
 *
 * A full build's bodies wait in the spill (spill.ts) until all are made; packing them is then
 * independent work per shard: hashing every body, laying out the pages, writing gigabytes. A large
 * build packs in worker threads, one per core (at most four), each reading its own buckets of the
 * spill (../builds/threads.ts). They share nothing with the thread that made the bodies, whose heap still holds the
 * records: their collections stay small, and the cores that sat idle while the bodies were made
 * (that is one thread's work) all pack.
 */
import { link, readFile, writeFile } from 'node:fs/promises';
import { availableParallelism } from 'node:os';
import path from 'node:path';
import { startThread, type ThreadTaskName } from '../builds/threads.ts';
import { encodeShardOf, packFileOf, shardFileOf, type ShardEntry } from '../../contract/lookupIndex.ts';
import { readGroupOf, spilledShards } from './spill.ts';

/**
 * `target` as a hard link to `source` (a file of an earlier build named for the same bytes), or
 * written with `bytes` when there is none, or it is gone, or on another file system. With `verify`
 * (a forced build), also when it does not hold exactly `bytes`: a file damaged on the disk (bit
 * rot, a stray write) keeps its name, and linked unread it would be carried into every later build;
 * written afresh, `npm run build -- --force` repairs it. Any other build links unread: reading
 * every pack of the world's previous build costs its full build about 5 s.
 */
export async function linkOrWrite(source: string | undefined, target: string, bytes: Buffer, verify = false): Promise<void> {
  const same =
    source !== undefined &&
    (!verify ||
      (await readFile(source).then(
        (held) => held.equals(bytes),
        () => false,
      )));
  const linked =
    same &&
    (await link(source, target).then(
      () => true,
      () => false,
    ));
  if (!linked) await writeFile(target, bytes);
}

/** Where shards are placed: the build being written, and the previous one to link from (its files compared first with `verifyLinks`). */
export interface PackTarget {
  readonly buildDir: string;
  readonly previousDir: string | undefined;
  readonly verifyLinks?: boolean;
}

/** A shard packed and placed: its entry in the head's directory, its bodies and their bytes. */
export interface PackedShard {
  readonly number: number;
  readonly entry: ShardEntry;
  readonly count: number;
  readonly bytes: number;
}

/** Packs shard `number` of 2^shardBits (`bodies` by path) and places its two files. */
export async function packShard(
  { buildDir, previousDir, verifyLinks = false }: PackTarget,
  shardBits: number,
  number: number,
  bodies: ReadonlyMap<string, Buffer>,
): Promise<PackedShard> {
  const paths = [...bodies.keys()].sort();
  const { pack, bytes: shard, entry } = encodeShardOf(paths, shardBits, number, (file) => bodies.get(file) as Buffer);
  const place = (file: string, bytes: Buffer): Promise<void> =>
    linkOrWrite(previousDir === undefined ? undefined : path.join(previousDir, file), path.join(buildDir, file), bytes, verifyLinks);
  await Promise.all([place(packFileOf(pack.etag), pack.bytes), place(shardFileOf(entry.etag), shard)]);
  let bytes = 0;
  for (const { size } of pack.entries.values()) bytes += size;
  return { number, entry, count: pack.entries.size, bytes };
}

/** One thread's part of a sealed spill: the shards whose read group falls to it. */
export interface PackPart extends PackTarget {
  readonly spillDir: string;
  readonly shardBits: number;
  readonly part: number;
  readonly parts: number;
}

/** Packs one part of a sealed spill, telling `done` of each shard as it is placed. */
export async function packPart(part: PackPart, done: (shard: PackedShard) => void): Promise<void> {
  const wanted = (number: number): boolean => readGroupOf(number, part.shardBits) % part.parts === part.part;
  for (const [number, bodies] of spilledShards(part.spillDir, part.shardBits, wanted)) done(await packShard(part, part.shardBits, number, bodies));
}

/** Threads a build of 2^shardBits shards packs in: none (this one) for a small build, else one per core, at most four. */
export function packThreadsFor(shardBits: number): number {
  return shardBits < 8 ? 0 : Math.min(4, availableParallelism());
}

/**
 * Packs every shard of the sealed spill in `spillDir`, in `threads` worker threads (none: in this
 * one), telling `done` of each shard as it is placed. Rejects with the first thread's error.
 */
export async function packSpill(spillDir: string, shardBits: number, target: PackTarget, threads: number, done: (shard: PackedShard) => void): Promise<void> {
  if (threads === 0) return packPart({ ...target, spillDir, shardBits, part: 0, parts: 1 }, done);
  const task: ThreadTaskName = { module: new URL(import.meta.url), name: 'packPart' };
  const running = Array.from({ length: threads }, (_, part) =>
    startThread<PackPart, void, PackedShard>(task, { ...target, spillDir, shardBits, part, parts: threads }, done),
  );
  try {
    await Promise.all(running.map((thread) => thread.result));
  } finally {
    // One thread failing stops the others: the build fails as a whole.
    await Promise.all(running.map((thread) => thread.terminate()));
  }
}

/**
 * Reading a body store as the lookup handler does (waiting for the index shards a find needs), and
 * a build's bodies as its lookup index lists them and its packs hold them.
 */
import { mkdir, readFile, realpath, rm, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { encodeLookupIndex, lookupIndexFileName, lookupShardsDir, readLookupHead, readLookupShard, type PackedEntry } from '../../contract/lookupIndex.ts';
import { manifestHeadSchema, manifestFileName, type Manifest } from '../../contract/manifest.ts';
import { type Lookup, whenIndexed } from '../../proxy/store/indexReader.ts';
import type { BodyStore } from '../../proxy/store/store.ts';

/** `store.find`, waiting for the shards it needs as proxy/http/lookups.ts does. */
export async function findSettled(store: BodyStore, routePath: string, keys: readonly string[]): Promise<Lookup | undefined> {
  return whenIndexed(() => store.find(routePath, keys));
}

/** Every body file of a store with its entry, read shard by shard. */
export async function allLookups(store: BodyStore): Promise<Lookup[]> {
  const lookups: Lookup[] = [];
  for await (const lookup of store.lookups()) lookups.push(lookup);
  return lookups;
}

/** A body of a build on disk as the build wrote it: its pack (relative to the build), its range in it, and its bytes. */
export interface PackedBody {
  readonly pack: string;
  readonly offset: number;
  readonly size: number;
  readonly etag: string;
  readonly bytes: Buffer;
  /** The Range header that asks for it. */
  readonly range: string;
}

/** Where `file` (`addressmanagement/api/…/key.json`) is in the build `distDir` links to; undefined if the build has no such body. */
export async function packedBody(distDir: string, file: string): Promise<PackedBody | undefined> {
  const buildDir = await realpath(distDir);
  const head = await readLookupHead(buildDir);
  const shard = await readLookupShard(buildDir, head, head.shardOf(file));
  const entry = shard.find(file);
  if (entry === undefined) return undefined;
  const bytes = (await readFile(path.join(buildDir, entry.pack))).subarray(entry.offset, entry.offset + entry.size);
  return { pack: entry.pack, offset: entry.offset, size: entry.size, etag: entry.etag, bytes, range: `bytes=${entry.offset}-${entry.offset + entry.size - 1}` };
}

/** Every body file of the build `distDir` links to, with its entry, in the index's order: by shard, then by path. */
export async function* lookupEntries(distDir: string): AsyncGenerator<readonly [file: string, entry: PackedEntry]> {
  const buildDir = await realpath(distDir);
  const head = await readLookupHead(buildDir);
  for (let number = 0; number < head.shards.length; number++) yield* (await readLookupShard(buildDir, head, number)).entries();
}

/**
 * The manifest of the build `distDir` links to, whole: the head of its lookup index (what
 * manifest.json holds too), checked against the contract, and every body's entry from the shards.
 */
export async function readBuildManifest(distDir: string): Promise<Manifest> {
  const head = manifestHeadSchema.parse((await readLookupHead(await realpath(distDir))).manifestHead());
  const files: Manifest['files'] = {};
  for await (const [file, { size, etag }] of lookupEntries(distDir)) files[file] = { size, etag };
  return { ...head, files };
}

/**
 * Rewrites the lookup index and packs of the build `distDir` links to in shards of `perShard`
 * entries or fewer on average, as a build of millions of bodies is split; the number of shards.
 */
export async function reshardBuild(distDir: string, perShard: number): Promise<number> {
  const buildDir = await realpath(distDir);
  const head = manifestHeadSchema.parse(JSON.parse(await readFile(path.join(buildDir, manifestFileName), 'utf8')));
  const bodies = new Map<string, Buffer>();
  for await (const [file, { pack, offset, size }] of lookupEntries(buildDir)) {
    bodies.set(file, (await readFile(path.join(buildDir, pack))).subarray(offset, offset + size));
  }
  const index = encodeLookupIndex(head, bodies, perShard);
  await rm(path.join(buildDir, lookupShardsDir), { recursive: true });
  await mkdir(path.join(buildDir, lookupShardsDir));
  for (const [file, bytes] of index.files) await writeFile(path.join(buildDir, file), bytes);
  await writeFile(path.join(buildDir, lookupIndexFileName), index.head);
  return [...index.files.keys()].filter((file) => file.endsWith('.idx')).length;
}

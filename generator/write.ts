/**
 * Write: every body, public file and download into a fresh build directory, the index's head last, then one
 * atomic swap.
 *
 * `dist` is a symbolic link to `.dist-builds/<buildId>/` (contract/builds.ts). A new build is
 * written beside the old one and the link is replaced with rename(2), which is atomic: a reader
 * (the proxy, nginx) sees the old build or the new one, never a half-written mix, and a failed
 * build leaves `dist` untouched. The origin's pointer (`builds/current.json`) is the build's own
 * `build.json` read through that link, so the same rename moves it: no crash can leave the two
 * naming different builds.
 *
 * The bodies are written in packs, a pack and an index shard per few thousand bodies
 * (contract/lookupIndex.ts). A pack or shard the previous build already holds (its name is its
 * content's hash) is hard-linked from it instead of written again: a rebuild after a small data
 * change writes only the packs and shards its bodies fall in. Within a pack, a body found under
 * several keys (a country by id, by code and by each of its names) is stored once.
 *
 * Whole builds are kept (KEEP_BUILDS, for change lists and rollbacks), and so is any build a proxy
 * reading from this disk has named in `.dist-builds/.readers/`; everything else is pruned.
 */
import { hostname } from 'node:os';
import { link, lstat, mkdir, readdir, readFile, readlink, realpath, rename, rm, symlink, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { buildIdFileName, buildsRootOf, processStartOf, readerLeaseSchema, readersDirOf } from '../contract/builds.ts';
import { isProcessAlive } from './builds/lock.ts';
import {
  encodeHead,
  encodeShardOf,
  readLookupHead,
  readLookupShard,
  shardBitsFor,
  type LookupShard,
  lookupIndexFileName,
  lookupShardsDir,
  packFileOf,
  planShards,
  shardFileOf,
  type ManifestHead,
  type ShardEntry,
} from '../contract/lookupIndex.ts';
import { computeEtag, currentBuildFile, manifestFileName, type CurrentBuild, type Manifest } from '../contract/manifest.ts';
import { SpilledBodies } from './packs/spill.ts';
import { linkOrWrite, packShard, packSpill, packThreadsFor, type PackedShard } from './packs/shards.ts';
import { silentProgress, type Progress } from './builds/progress.ts';
import type { RebuildBasis } from './rebuild.ts';
import { summaryFileName, type BuildSummaryFile } from './builds/summary.ts';

/** A file served as it is, without a token (the OpenAPI document, the docs page): its bytes and type. */
export interface PublicFile {
  readonly bytes: Buffer;
  readonly contentType: string;
}

/** A file served with a token outside the lookups (an export, a change list): its bytes, or a file holding them to link. */
export interface DownloadFile {
  readonly bytes: Buffer;
  readonly contentType: string;
  /** A file of an earlier build with exactly these bytes: hard-linked instead of written. */
  readonly linkFrom?: string;
}

export interface WrittenBuild {
  readonly buildDir: string;
  readonly files: number;
  readonly bytes: number;
}

export { buildsRootOf };

/** What writing the bodies came to: how many, and their bytes (each body counted under each of its paths). */
interface WrittenBodies {
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
  {
    previousDir,
    verifyLinks,
    entriesPerShard,
    packThreads,
    progress,
  }: {
    readonly previousDir: string | undefined;
    /** Compare each file of the previous build before linking it (a forced build: see linkOrWrite). */
    readonly verifyLinks: boolean;
    readonly entriesPerShard: number | undefined;
    readonly packThreads: number | undefined;
    readonly progress: Progress;
  },
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

async function writePublicFiles(buildDir: string, publicFiles: ReadonlyMap<string, PublicFile>): Promise<Manifest['public']> {
  const entries: Manifest['public'] = {};
  for (const file of [...publicFiles.keys()].sort()) {
    const { bytes, contentType } = publicFiles.get(file) as PublicFile;
    await mkdir(path.join(buildDir, path.dirname(file)), { recursive: true });
    await writeFile(path.join(buildDir, file), bytes);
    entries[file] = { size: bytes.length, etag: computeEtag(bytes), contentType };
  }
  return entries;
}

async function writeDownloads(buildDir: string, downloads: ReadonlyMap<string, DownloadFile>): Promise<Manifest['downloads']> {
  const entries: Manifest['downloads'] = {};
  for (const file of [...downloads.keys()].sort()) {
    const { bytes, contentType, linkFrom } = downloads.get(file) as DownloadFile;
    const target = path.join(buildDir, file);
    await mkdir(path.dirname(target), { recursive: true });
    await linkOrWrite(linkFrom, target, bytes);
    entries[file] = { size: bytes.length, etag: computeEtag(bytes), contentType };
  }
  return entries;
}

async function currentTarget(distDir: string): Promise<string | undefined> {
  const stats = await lstat(distDir).catch(() => undefined);
  if (!stats) return undefined;
  if (stats.isSymbolicLink()) return path.resolve(path.dirname(distDir), await readlink(distDir));
  // A plain directory from elsewhere (a copy, an older layout): moved aside once, then linked.
  const movedAside = path.join(buildsRootOf(distDir), `moved-aside-${Date.now()}`);
  await rename(distDir, movedAside);
  return movedAside;
}

/** The pointer's name inside the builds root, which an origin serves as `builds/`. */
const currentBuildName = path.basename(currentBuildFile);

/** A build's own id file: the content the origin's pointer answers while it is current. */
export function buildIdFile(buildId: string): string {
  const pointer: CurrentBuild = { buildId };
  return `${JSON.stringify(pointer)}\n`;
}

/**
 * Makes `<buildsRoot>/current.json` the fixed link to `dist/build.json` (served as
 * `builds/current.json`), replacing a file or link of another kind atomically; a link already right
 * is left alone. It never changes with a build: moving `dist` moves what it names.
 */
export async function linkPointer(distDir: string): Promise<void> {
  const buildsRoot = buildsRootOf(distDir);
  const pointer = path.join(buildsRoot, currentBuildName);
  const target = path.join('..', path.basename(path.resolve(distDir)), buildIdFileName);
  if ((await readlink(pointer).catch(() => undefined)) === target) return;
  const fresh = `${pointer}.${process.pid}.partial`;
  await rm(fresh, { force: true });
  await symlink(target, fresh);
  await rename(fresh, pointer);
}

/**
 * For a build made before builds carried their id file: writes it, then the pointer link. A no-op
 * when both are there.
 */
export async function repairPointer(distDir: string, buildId: string): Promise<void> {
  const idFile = path.join(distDir, buildIdFileName);
  if ((await readFile(idFile, 'utf8').catch(() => undefined)) !== buildIdFile(buildId)) await writeFile(idFile, buildIdFile(buildId));
  await linkPointer(distDir);
}

/** Points `distDir` at `buildDir` atomically: a new link is made beside it and renamed over it. */
export async function swapLink(distDir: string, buildDir: string): Promise<void> {
  const link = `${distDir}.swap-${process.pid}`;
  await rm(link, { force: true });
  await symlink(path.relative(path.dirname(distDir), buildDir), link, 'dir');
  await rename(link, distDir);
}

/**
 * The build directories proxies on this disk read now (their leases), the leases of processes
 * gone from this host removed on the way (a process is the one its lease names only if it started
 * when the lease says). A lease of another host is trusted as it is.
 */
export async function leasedBuilds(buildsRoot: string): Promise<Set<string>> {
  const readers = readersDirOf(buildsRoot);
  const leased = new Set<string>();
  for (const name of await readdir(readers).catch(() => [] as string[])) {
    const file = path.join(readers, name);
    const lease = readerLeaseSchema.safeParse(await readFile(file, 'utf8').then(JSON.parse, () => undefined));
    if (!lease.success) continue;
    // A process of this host that is gone, or whose id another process has since been given.
    const { pid, started } = lease.data;
    if (lease.data.host === hostname() && (!isProcessAlive(pid) || (started !== undefined && processStartOf(pid) !== started))) {
      await rm(file, { force: true });
      continue;
    }
    leased.add(path.resolve(lease.data.buildDir));
  }
  return leased;
}

/**
 * Removes every build and leftover but the builds in `keep`, those a proxy holds a lease on, and
 * the pointer, the leases and the lock.
 */
export async function pruneBuilds(buildsRoot: string, keep: readonly (string | undefined)[]): Promise<string[]> {
  const leased = await leasedBuilds(buildsRoot);
  const removed: string[] = [];
  for (const entry of await readdir(buildsRoot)) {
    const full = path.join(buildsRoot, entry);
    if (keep.includes(full) || leased.has(full) || entry === currentBuildName || entry.startsWith('.')) continue;
    await rm(full, { recursive: true, force: true });
    removed.push(entry);
  }
  return removed;
}

export async function writeDist(
  distDir: string,
  bodies: ReadonlyMap<string, string> | SpilledBodies,
  manifest: Omit<Manifest, 'files' | 'public' | 'downloads'>,
  publicFiles: ReadonlyMap<string, PublicFile> = new Map(),
  downloads: ReadonlyMap<string, DownloadFile> = new Map(),
  {
    keep = [],
    entriesPerShard,
    packThreads,
    patch,
    basis,
    progress = silentProgress,
    verifyLinks = false,
  }: {
    /** Older builds kept whole (their directories), besides the new one and the one it replaces. */
    readonly keep?: readonly string[];
    /** Bodies per shard of the lookup index (contract/lookupIndex.ts), on average at most. */
    readonly entriesPerShard?: number | undefined;
    /** Worker threads that pack spilled bodies (0: this thread); by default packs/shards.ts packThreadsFor. */
    readonly packThreads?: number | undefined;
    /** The previous build's bodies with these changes, instead of `bodies`. */
    readonly patch?: BodyPatch | undefined;
    /** What the next build starts from (rebuild.ts), kept in the summary. */
    readonly basis?: RebuildBasis | undefined;
    /** Told as each shard is written. */
    readonly progress?: Progress;
    /** Compare each pack and shard of the previous build with the bytes it stands for before linking it (a forced build). */
    readonly verifyLinks?: boolean;
  } = {},
): Promise<WrittenBuild> {
  const absoluteDist = path.resolve(distDir);
  const buildsRoot = buildsRootOf(absoluteDist);
  const buildDir = path.join(buildsRoot, manifest.buildId);
  const partialDir = `${buildDir}.partial`;
  await mkdir(partialDir, { recursive: true });
  let written: WrittenBodies;
  // The build dist points at now: its packs and shards are linked where unchanged.
  const previousDir = await realpath(absoluteDist).catch(() => undefined);
  try {
    const publicEntries = await writePublicFiles(partialDir, publicFiles);
    const downloadEntries = await writeDownloads(partialDir, downloads);
    const head = { ...manifest, public: publicEntries, downloads: downloadEntries };
    written = patch
      ? await patchBodies(partialDir, head, patch, entriesPerShard)
      : await writeBodies(partialDir, head, bodies, { previousDir, verifyLinks, entriesPerShard, packThreads, progress });
    const summary: BuildSummaryFile = {
      inputsVersion: manifest.inputsVersion,
      buildId: manifest.buildId,
      dataVersion: manifest.dataVersion,
      counts: manifest.counts,
      ambiguous: manifest.ambiguous.length,
      files: written.count,
      bytes: written.bytes,
      ...(basis ? { rebuild: basis } : {}),
    };
    await writeFile(path.join(partialDir, summaryFileName), `${JSON.stringify(summary, null, 2)}\n`);
    await writeFile(path.join(partialDir, buildIdFileName), buildIdFile(manifest.buildId));
    await rename(partialDir, buildDir);
  } catch (error) {
    await rm(partialDir, { recursive: true, force: true });
    throw error;
  }
  const previous = await currentTarget(absoluteDist);
  await linkPointer(absoluteDist);
  await swapLink(absoluteDist, buildDir);
  await pruneBuilds(buildsRoot, [buildDir, previous, ...keep]);
  return { buildDir, files: written.count, bytes: written.bytes };
}

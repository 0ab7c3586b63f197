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
 * The bodies are written in packs, a pack and an index shard per few thousand bodies, by
 * packs/writeIndex.ts beside their format (contract/lookupIndex.ts). A pack or shard the previous build already holds (its name is its
 * content's hash) is hard-linked from it instead of written again: a rebuild after a small data
 * change writes only the packs and shards its bodies fall in. Within a pack, a body found under
 * several keys (a country by id, by code and by each of its names) is stored once.
 *
 * Whole builds are kept (KEEP_BUILDS, for change lists and rollbacks), and so is any build a proxy
 * reading from this disk has named in `.dist-builds/.readers/`; everything else is pruned.
 */
import { hostname } from 'node:os';
import { lstat, mkdir, readdir, readFile, readlink, realpath, rename, rm, symlink, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { buildIdFileName, buildsRootOf, processStartOf, readerLeaseSchema, readersDirOf } from '../contract/builds.ts';
import { isProcessAlive } from './builds/lock.ts';
import { computeEtag, currentBuildFile, type CurrentBuild, type Manifest } from '../contract/manifest.ts';
import type { SpilledBodies } from './packs/spill.ts';
import { linkOrWrite } from './packs/shards.ts';
import { writeIndex, type BodyPatch, type WrittenBodies } from './packs/writeIndex.ts';
import { silentProgress, type Progress } from './builds/progress.ts';
import type { RebuildBasis } from './rebuild.ts';
import { summaryFileName, type BuildSummaryFile } from './builds/summary.ts';
import { writePartitionMap, type PartitionMap } from './plan/partitionMapFile.ts';

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
  // A plain directory from elsewhere (a copy of a build): moved aside once, then linked.
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
 * The current build's id file and the pointer link made right, whatever left them wrong (a copy
 * of the builds folder that turned the link into a file). A no-op when both are right.
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
    partitions,
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
    /** Where the partitioned types' records lie (plan/partitionMap.ts), kept beside the summary for the next build. */
    readonly partitions?: PartitionMap | undefined;
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
    written = await writeIndex(
      partialDir,
      head,
      patch ? { patch, entriesPerShard } : { bodies, previousDir, verifyLinks, entriesPerShard, packThreads, progress },
    );
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
    if (partitions) await writePartitionMap(partialDir, partitions);
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

/**
 * Write: every body and public file into a fresh build directory, the manifest last, then one
 * atomic swap.
 *
 * `dist` is a symbolic link to `.dist-builds/<buildId>/`. A new build is written beside the old one
 * and the link is replaced with rename(2), which is atomic: a reader (the proxy, nginx) sees the
 * old build or the new one, never a half-written mix, and a failed build leaves `dist` untouched.
 * The previous build is kept so that a proxy still reading it is not cut off.
 *
 * A body the previous build already holds with the same ETag is hard-linked from it instead of
 * written again: a rebuild after a small data change writes only what changed. Within a build, a
 * body already written under another key (a country by id, by code and by each of its names) is a
 * hard link to it: one copy on disk.
 *
 * Builds older than the previous one are removed, except the `exports/` of those the build keeps
 * for its change lists (changes.ts): a few megabytes each, mostly hard links to one another.
 */
import { link, lstat, mkdir, readdir, readlink, realpath, rename, rm, symlink, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { computeEtag, currentBuildFile, manifestFileName, type CurrentBuild, type Manifest } from '../contract/manifest.ts';
import { summaryFileName, type BuildSummaryFile } from './summary.ts';

/** Files written at once: enough to keep the disk busy without exhausting file descriptors. */
const writeConcurrency = 64;

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

/** Where the builds behind a dist link live: `dist` → `.dist-builds/`. */
export function buildsRootOf(distDir: string): string {
  const absolute = path.resolve(distDir);
  return path.join(path.dirname(absolute), `.${path.basename(absolute)}-builds`);
}

/** The build the dist link points at now, whose unchanged bodies a new build links to. */
interface PreviousBuild {
  readonly dir: string;
  readonly files: Manifest['files'];
}

async function writeBodies(buildDir: string, bodies: ReadonlyMap<string, string>, previous: PreviousBuild | undefined): Promise<Manifest['files']> {
  const directories = new Set([...bodies.keys()].map((file) => path.dirname(file)));
  for (const directory of [...directories].sort()) await mkdir(path.join(buildDir, directory), { recursive: true });

  const files: Manifest['files'] = {};
  const queue = [...bodies.keys()].sort();
  for (const file of queue) files[file] = { size: 0, etag: '""' }; // keeps the manifest's keys sorted
  /** The first file of this build written with each body, by ETag: later files with that body link to it. */
  const firstWithBody = new Map<string, Promise<string | undefined>>();
  const linkTo = (source: string, target: string): Promise<boolean> =>
    link(source, target).then(
      () => true,
      () => false, // another file system, a file removed by hand: written instead
    );
  let next = 0;
  const worker = async (): Promise<void> => {
    while (next < queue.length) {
      const file = queue[next++] as string;
      const body = Buffer.from(bodies.get(file) ?? '', 'utf8');
      const etag = computeEtag(body);
      const target = path.join(buildDir, file);
      files[file] = { size: body.length, etag };
      const first = firstWithBody.get(etag);
      if (first !== undefined) {
        const source = await first;
        if (source !== undefined && (await linkTo(source, target))) continue;
        await writeFile(target, body);
        continue;
      }
      const written = (async (): Promise<string | undefined> => {
        const linked = previous?.files[file]?.etag === etag && (await linkTo(path.join(previous.dir, file), target));
        if (!linked) await writeFile(target, body);
        return target;
      })();
      firstWithBody.set(
        etag,
        written.catch(() => undefined),
      );
      await written;
    }
  };
  await Promise.all(Array.from({ length: writeConcurrency }, worker));
  return files;
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
    const linked =
      linkFrom !== undefined &&
      (await link(linkFrom, target).then(
        () => true,
        () => false,
      ));
    if (!linked) await writeFile(target, bytes);
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

/**
 * Names the build being served in `<buildsRoot>/current.json` (served as `builds/current.json`),
 * written beside and renamed over the old one: a build-scoped origin switches when this changes.
 */
async function writeCurrentBuild(buildsRoot: string, buildId: string): Promise<void> {
  const pointer: CurrentBuild = { buildId };
  const partial = path.join(buildsRoot, `.${currentBuildName}.${process.pid}.partial`);
  await writeFile(partial, `${JSON.stringify(pointer)}\n`);
  await rename(partial, path.join(buildsRoot, currentBuildName));
}

/** Points `distDir` at `buildDir` atomically: a new link is made beside it and renamed over it. */
async function swapLink(distDir: string, buildDir: string): Promise<void> {
  const link = `${distDir}.swap-${process.pid}`;
  await rm(link, { force: true });
  await symlink(path.relative(path.dirname(distDir), buildDir), link, 'dir');
  await rename(link, distDir);
}

/**
 * Removes builds other than the current and the previous one, and leftovers of failed builds; of
 * the builds in `keepExports`, everything but their `exports/`.
 */
async function pruneBuilds(buildsRoot: string, keep: readonly (string | undefined)[], keepExports: readonly string[]): Promise<void> {
  for (const entry of await readdir(buildsRoot)) {
    const full = path.join(buildsRoot, entry);
    if (keep.includes(full) || entry === currentBuildName) continue;
    if (!keepExports.includes(full)) {
      await rm(full, { recursive: true, force: true });
      continue;
    }
    for (const part of await readdir(full)) if (part !== 'exports') await rm(path.join(full, part), { recursive: true, force: true });
  }
}

export async function writeDist(
  distDir: string,
  bodies: ReadonlyMap<string, string>,
  manifest: Omit<Manifest, 'files' | 'public' | 'downloads'>,
  publicFiles: ReadonlyMap<string, PublicFile> = new Map(),
  previousManifest?: Manifest,
  downloads: ReadonlyMap<string, DownloadFile> = new Map(),
  /** Older builds whose exports are kept (their directories); the previous build is kept whole anyway. */
  keepExports: readonly string[] = [],
): Promise<WrittenBuild> {
  const absoluteDist = path.resolve(distDir);
  const buildsRoot = buildsRootOf(absoluteDist);
  const buildDir = path.join(buildsRoot, manifest.buildId);
  const partialDir = `${buildDir}.partial`;
  await mkdir(partialDir, { recursive: true });
  let files: Manifest['files'];
  const previousDir = previousManifest ? await realpath(absoluteDist).catch(() => undefined) : undefined;
  const linkable = previousManifest && previousDir ? { dir: previousDir, files: previousManifest.files } : undefined;
  try {
    files = await writeBodies(partialDir, bodies, linkable);
    const publicEntries = await writePublicFiles(partialDir, publicFiles);
    const downloadEntries = await writeDownloads(partialDir, downloads);
    await writeFile(path.join(partialDir, manifestFileName), `${JSON.stringify({ ...manifest, files, public: publicEntries, downloads: downloadEntries })}\n`);
    const summary: BuildSummaryFile = {
      inputsVersion: manifest.inputsVersion,
      buildId: manifest.buildId,
      dataVersion: manifest.dataVersion,
      counts: manifest.counts,
      ambiguous: manifest.ambiguous.length,
      files: bodies.size,
      bytes: Object.values(files).reduce((sum, entry) => sum + entry.size, 0),
    };
    await writeFile(path.join(partialDir, summaryFileName), `${JSON.stringify(summary, null, 2)}\n`);
    await rename(partialDir, buildDir);
  } catch (error) {
    await rm(partialDir, { recursive: true, force: true });
    throw error;
  }
  const previous = await currentTarget(absoluteDist);
  await swapLink(absoluteDist, buildDir);
  await writeCurrentBuild(buildsRoot, manifest.buildId);
  await pruneBuilds(buildsRoot, [buildDir, previous], keepExports);
  return { buildDir, files: bodies.size, bytes: Object.values(files).reduce((sum, entry) => sum + entry.size, 0) };
}

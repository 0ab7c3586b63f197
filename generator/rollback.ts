/**
 * `npm run rollback [-- <buildId>]`: serves a kept build again. The dist link (local proxies,
 * nginx) and the origin's pointer (`builds/current.json`, which is read through the link) move in
 * one rename; `npm run upload` then publishes the same build to a bucket.
 *
 *   tsx generator/rollback.ts [<buildId>] [--dist dist]
 *
 * Without a build id, the build made before the current one. A build is checked before it is
 * activated: its lookup index must read and every file it names must be there at its size, so a
 * rollback never switches to a build that would answer 503. It holds the build lock (builds/lock.ts),
 * so it never races a build. The next `npm run build` builds from data/ again, as after any build.
 */
import { readdir, readFile, realpath, stat } from 'node:fs/promises';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { parseArgs } from 'node:util';
import { buildIdFileName, buildsRootOf, isBuildDirName } from '../contract/builds.ts';
import { LookupHead, LookupShard, lookupIndexFileName, shardFileOf } from '../contract/lookupIndex.ts';
import { manifestHeadSchema } from '../contract/manifest.ts';
import { describeBuildFailure } from './build.ts';
import { withBuildLock } from './builds/lock.ts';
import { readExportsIndex } from './exports/exports.ts';
import { RollbackError } from './records/errors.ts';
import { compareCodePoints } from './records/ordering.ts';
import { buildIdFile, linkPointer, swapLink } from './write.ts';

export interface RollbackResult {
  readonly from: string | undefined;
  readonly to: string;
}

/** The builds kept beside a dist link, oldest first (by when each was built, as its exports index says; else by id). */
export async function keptBuildIds(distDir: string): Promise<string[]> {
  const buildsRoot = buildsRootOf(distDir);
  const ids = (await readdir(buildsRoot).catch(() => [] as string[])).filter(isBuildDirName);
  const builtAt = new Map(await Promise.all(ids.map(async (id) => [id, (await readExportsIndex(path.join(buildsRoot, id)))?.builtAt ?? id] as const)));
  const when = (id: string): string => builtAt.get(id) ?? id;
  return ids.sort((a, b) => compareCodePoints(when(a), when(b)) || compareCodePoints(a, b));
}

/**
 * Problems that keep a build from being served: its lookup index's head (of this build format),
 * its id file, every shard it names at its size, every pack a shard names long enough for the
 * bodies it holds, and every public file and download at its size.
 */
async function checkBuild(buildDir: string): Promise<string[]> {
  const indexFile = path.join(buildDir, lookupIndexFileName);
  const bytes = await readFile(indexFile).catch(() => undefined);
  if (bytes === undefined) return [`${buildDir} has no ${lookupIndexFileName}: it is not a whole build`];
  let head: LookupHead;
  let manifest: ReturnType<typeof manifestHeadSchema.safeParse>;
  try {
    head = new LookupHead(bytes);
    manifest = manifestHeadSchema.safeParse(head.manifestHead());
  } catch (error) {
    return [`${indexFile} is not a lookup index of npm run build: ${(error as Error).message}`];
  }
  if (!manifest.success) return [`${indexFile} does not hold a manifest of npm run build`];
  const listed: [string, { size: number; atLeast?: boolean }][] = [
    ...head.shards.map((shard): [string, { size: number }] => [shardFileOf(shard.etag), shard]),
    ...Object.entries(manifest.data.public),
    ...Object.entries(manifest.data.downloads),
  ];
  const problems: string[] = [];
  // The origin's pointer reads the build's id file through the dist link.
  const idFile = await readFile(path.join(buildDir, buildIdFileName), 'utf8').catch(() => undefined);
  if (idFile !== buildIdFile(path.basename(buildDir))) problems.push(`${buildIdFileName} is missing or names another build`);
  // Each shard read for the packs it names: how long each must be for the bodies in it.
  for (const [number, shard] of head.shards.entries()) {
    const shardBytes = await readFile(path.join(buildDir, shardFileOf(shard.etag))).catch(() => undefined);
    if (shardBytes === undefined || shardBytes.length !== shard.size) continue; // reported below
    try {
      const opened = LookupShard.over(shardBytes, head.shardBits, number, shard);
      let end = 0;
      for (const [, entry] of opened.entries()) end = Math.max(end, entry.offset + entry.size);
      listed.push([opened.pack, { size: end, atLeast: true }]);
    } catch (error) {
      problems.push(`${shardFileOf(shard.etag)} is not a shard of npm run build: ${(error as Error).message}`);
    }
  }
  const concurrency = 64;
  let next = 0;
  const worker = async (): Promise<void> => {
    while (next < listed.length && problems.length < 20) {
      const [file, entry] = listed[next++] as [string, { size: number; atLeast?: boolean }];
      const size = await stat(path.join(buildDir, file)).then(
        (stats) => stats.size,
        () => undefined,
      );
      if (size === undefined) problems.push(`${file} is missing`);
      else if (entry.atLeast ? size < entry.size : size !== entry.size)
        problems.push(`${file} is ${size} bytes, the build says ${entry.atLeast ? 'at least ' : ''}${entry.size}`);
    }
  };
  await Promise.all(Array.from({ length: concurrency }, worker));
  return problems;
}

/** Activates a kept build (the one before the current, when none is named) for the dist link and the origin's pointer together. */
export async function rollback(distDir: string, buildId?: string): Promise<RollbackResult> {
  const buildsRoot = buildsRootOf(distDir);
  return withBuildLock(buildsRoot, 'rollback', async () => {
    const current = await realpath(distDir).then(
      (dir) => path.basename(dir),
      () => undefined,
    );
    const kept = await keptBuildIds(distDir);
    const position = current === undefined ? -1 : kept.indexOf(current);
    const target = buildId ?? (position > 0 ? kept[position - 1] : undefined);
    if (target === undefined) {
      throw new RollbackError([`no build older than ${current ?? 'the current one'} is kept beside ${distDir}: kept are ${kept.join(', ') || 'none'}`]);
    }
    if (!kept.includes(target)) {
      throw new RollbackError([`build ${target} is not kept beside ${distDir}: kept are ${kept.join(', ') || 'none'} (KEEP_BUILDS sets how many)`]);
    }
    const buildDir = path.join(buildsRoot, target);
    const problems = await checkBuild(buildDir);
    if (problems.length > 0) throw new RollbackError([`build ${target} cannot be served, so it was not activated:`, ...problems]);
    await linkPointer(distDir);
    await swapLink(path.resolve(distDir), buildDir);
    return { from: current, to: target };
  });
}

async function main(): Promise<void> {
  const { values, positionals } = parseArgs({
    options: { dist: { type: 'string', default: process.env.DIST_DIR || 'dist' } },
    allowPositionals: true,
  });
  if (positionals.length > 1) throw new RollbackError(['usage: npm run rollback [-- <buildId>] [--dist DIR]']);
  const { from, to } = await rollback(values.dist, positionals[0]);
  if (from === to) {
    console.log(`${values.dist} already serves build ${to}`);
    return;
  }
  console.log(`${values.dist} now serves build ${to} (was ${from ?? 'none'}); builds/current.json names it`);
  console.log('  proxies reading the disk switch at once, those reading an origin within 10 s; npm run upload publishes it to a bucket');
  console.log(`  kept builds: ${(await keptBuildIds(values.dist)).join(', ')}`);
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  main().catch((error: unknown) => {
    console.error(describeBuildFailure(error));
    process.exitCode = 1;
  });
}

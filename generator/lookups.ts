/**
 * `npm run lookups`: every body file of a build, one JSON line each (`{"path","size","etag"}`), in
 * the lookup index's order: by shard, then by path within a shard. manifest.json holds the build's
 * head; this is the list of its bodies. One shard is read and written out before the next is read,
 * so a build of millions of bodies is listed in the memory of one shard.
 *
 *   npm run --silent lookups -- [--dist dist] [--prefix addressmanagement/api/district/]
 *
 * `--prefix` keeps the paths that start with it (a body's path is its route's path without the
 * leading slash, then its keys: `financemanagement/api/currency/getbycode/try.json`).
 */
import { once } from 'node:events';
import { realpath } from 'node:fs/promises';
import type { Writable } from 'node:stream';
import { pathToFileURL } from 'node:url';
import { parseArgs } from 'node:util';
import { lookupIndexFileName, readLookupHead, readLookupShard, type LookupHead } from '../contract/lookupIndex.ts';

export interface LookupsOptions {
  /** The dist link, or a build directory. */
  readonly dist: string;
  /** Only the bodies whose path starts with it. */
  readonly prefix?: string | undefined;
}

const usage = 'usage: npm run lookups -- [--dist DIR] [--prefix PATH]';

/** A build that cannot be listed: one line saying why. */
class LookupsError extends Error {}

async function openHead(dist: string): Promise<{ buildDir: string; head: LookupHead }> {
  const buildDir = await realpath(dist).catch(() => {
    throw new LookupsError(`--dist ${dist}: no build there; run npm run build first`);
  });
  const head = await readLookupHead(buildDir).catch((error: unknown) => {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') {
      throw new LookupsError(`${buildDir} has no ${lookupIndexFileName}: build it again with this version (npm run build -- --force)`);
    }
    throw new LookupsError(`${buildDir}/${lookupIndexFileName} is not a lookup index of npm run build: ${(error as Error).message}`);
  });
  return { buildDir, head };
}

/** Writes the bodies of a build to `out`, one JSON line each, a shard at a time; how many it wrote. */
export async function writeLookups(options: LookupsOptions, out: Writable): Promise<number> {
  const { buildDir, head } = await openHead(options.dist);
  const prefix = options.prefix ?? '';
  let written = 0;
  for (let number = 0; number < head.shards.length; number++) {
    const shard = await readLookupShard(buildDir, head, number).catch((error: unknown) => {
      throw new LookupsError(
        `${buildDir}: shard ${number} of its index cannot be read (${(error as Error).message}); build it again (npm run build -- --force)`,
      );
    });
    let lines = '';
    for (const [file, { size, etag }] of shard.entries()) {
      if (!file.startsWith(prefix)) continue;
      lines += `${JSON.stringify({ path: file, size, etag })}\n`;
      written++;
    }
    // Waiting for the reader before the next shard keeps one shard in memory, however slow it reads.
    if (lines !== '' && !out.write(lines)) await once(out, 'drain');
  }
  return written;
}

async function main(): Promise<void> {
  let values: { dist: string; prefix?: string | undefined };
  try {
    ({ values } = parseArgs({ options: { dist: { type: 'string', default: process.env.DIST_DIR || 'dist' }, prefix: { type: 'string' } } }));
  } catch (error) {
    process.stderr.write(`npm run lookups: ${(error as Error).message}\n${usage}\n`);
    process.exitCode = 2;
    return;
  }
  await writeLookups(values, process.stdout);
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  main().catch((error: unknown) => {
    // A reader that stops early (`| head`) has all it wanted.
    if ((error as NodeJS.ErrnoException).code === 'EPIPE') return;
    console.error(error instanceof LookupsError ? `npm run lookups: ${error.message}` : error);
    process.exitCode = 1;
  });
}

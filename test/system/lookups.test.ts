/**
 * `npm run lookups` lists a build's bodies as its lookup index holds them: one JSON line per body,
 * `{"path","size","etag"}`, in the index's order, shard after shard. The fixture build is
 * re-indexed in shards of 16 entries, so that the listing crosses shards as a large build's does.
 */
import { execFile } from 'node:child_process';
import { realpath } from 'node:fs/promises';
import path from 'node:path';
import { Writable } from 'node:stream';
import { promisify } from 'node:util';
import { beforeAll, describe, expect, it } from 'vitest';
import { readLookupHead } from '../../contract/lookupIndex.ts';
import { computeEtag } from '../../contract/manifest.ts';
import { writeLookups } from '../../generator/lookups.ts';
import { buildFixture, repoRoot, tempDir } from '../support/service.ts';
import { lookupEntries, packedBody, reshardBuild } from '../support/store.ts';

const run = promisify(execFile);
const tsx = path.join(repoRoot, 'node_modules/.bin/tsx');

interface Listed {
  readonly path: string;
  readonly size: number;
  readonly etag: string;
}

async function lookups(args: readonly string[]): Promise<{ listed: Listed[]; stderr: string }> {
  const { stdout, stderr } = await run(tsx, [path.join(repoRoot, 'generator/lookups.ts'), ...args]);
  return {
    listed: stdout
      .split('\n')
      .filter((line) => line !== '')
      .map((line) => JSON.parse(line) as Listed),
    stderr,
  };
}

describe('npm run lookups', () => {
  let distDir: string;
  let shards: number;
  /** Every body the index lists, in its order. */
  const indexed: Listed[] = [];
  beforeAll(async () => {
    distDir = await buildFixture();
    shards = await reshardBuild(distDir, 16);
    for await (const [file, { size, etag }] of lookupEntries(distDir)) indexed.push({ path: file, size, etag });
  });

  it('prints one line per body of the build, its path, size and ETag, in the order of the index, shard after shard', async () => {
    expect(shards).toBeGreaterThan(1);
    const { listed, stderr } = await lookups(['--dist', distDir]);
    expect(stderr).toBe('');
    expect(listed.length).toBeGreaterThan(100);
    expect(listed).toEqual(indexed);
  });

  it("prints each body's entry as its pack holds the body: that many bytes, with that ETag", async () => {
    const { listed } = await lookups(['--dist', distDir]);
    for (const { path: file, size, etag } of listed) {
      const body = await packedBody(distDir, file);
      expect(body?.bytes.length, file).toBe(size);
      expect(body && computeEtag(body.bytes), file).toBe(etag);
    }
  });

  it('writes a shard at a time, and the next only once a slow reader has taken the last', async () => {
    const head = await readLookupHead(await realpath(distDir));
    const chunks: { shards: Set<number>; queued: number; length: number }[] = [];
    const slowReader = new Writable({
      highWaterMark: 1,
      write(chunk: Buffer, _encoding, done) {
        const paths = chunk
          .toString('utf8')
          .trimEnd()
          .split('\n')
          .map((line) => (JSON.parse(line) as Listed).path);
        chunks.push({ shards: new Set(paths.map((file) => head.shardOf(file))), queued: this.writableLength, length: chunk.length });
        setTimeout(done, 5);
      },
    });
    expect(await writeLookups({ dist: distDir }, slowReader)).toBe(indexed.length);
    expect(chunks).toHaveLength(head.shards.filter((shard) => shard.count > 0).length);
    for (const { shards: of, queued, length } of chunks) {
      expect(of.size).toBe(1);
      expect(queued).toBe(length); // nothing behind it
    }
  });

  it('with --prefix, prints only the bodies whose path starts with it', async () => {
    const prefix = 'addressmanagement/api/district/';
    const { listed } = await lookups(['--dist', distDir, '--prefix', prefix]);
    expect(listed.length).toBeGreaterThan(0);
    expect(listed).toEqual(indexed.filter((entry) => entry.path.startsWith(prefix)));
    expect((await lookups(['--dist', distDir, '--prefix', 'nowhere/'])).listed).toEqual([]);
  });

  it('says in one line that there is no build, with exit status 1; an unknown option with its usage, with 2', async () => {
    const missing = path.join(await tempDir(), 'dist');
    const failure = await lookups(['--dist', missing]).catch((error: unknown) => error);
    expect(failure).toMatchObject({ code: 1, stdout: '', stderr: `npm run lookups: --dist ${missing}: no build there; run npm run build first\n` });
    const misused = await lookups(['--dist', distDir, '--prefx', 'x']).catch((error: unknown) => error);
    expect(misused).toMatchObject({ code: 2, stdout: '', stderr: expect.stringContaining('usage: npm run lookups') });
  });
});

/**
 * The body cache (proxy/store/store.ts, proxy/store/loadingCache.ts) under pressure, and reading a build's lookup index (proxy/store/manifestIndex.ts).
 * What every body store must do is test/system/bodyStores.test.ts.
 */
import { readdir, readFile, realpath, rm, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { encodeLookupIndex } from '../../contract/lookupIndex.ts';
import { createShardCache, findLookup, IndexPending, LookupIndex, ManifestError, readManifest, whenIndexed } from '../../proxy/store/manifestIndex.ts';
import { createBodyCache, openLocalStore } from '../../proxy/store/store.ts';
import { buildFixture } from '../support/service.ts';

/** A load that answers after a few milliseconds, like a fetch from the origin. */
function slowLoad(fill: number, bytes: number, delayMs: number): () => Promise<Buffer> {
  return () => new Promise((resolve) => setTimeout(() => resolve(Buffer.alloc(bytes, fill)), delayMs));
}

describe('body cache', () => {
  it('gives every concurrent miss its own body when the loads in flight overflow the cache', async () => {
    const cache = createBodyCache(1000);
    const bodies = await Promise.all(Array.from({ length: 50 }, (_, index) => cache.load(`etag-${index}`, slowLoad(index, 300, 2 + (index % 7)))));
    bodies.forEach((body, index) => {
      expect(body.length, `body ${index}`).toBe(300);
      expect(body[0], `body ${index}`).toBe(index);
    });
    expect(cache.calculatedSize).toBeLessThanOrEqual(1000);
  });

  it('serves a body larger than the whole cache without keeping it', async () => {
    const cache = createBodyCache(1000);
    const body = await cache.load('etag-large', slowLoad(7, 5000, 1));
    expect(body.length).toBe(5000);
    expect(cache.get('etag-large')).toBeUndefined();
  });

  it('loads a body once for concurrent callers, then answers from memory', async () => {
    const cache = createBodyCache(1000);
    let loads = 0;
    const load = (): Promise<Buffer> => {
      loads++;
      return slowLoad(1, 10, 5)();
    };
    await Promise.all(Array.from({ length: 5 }, () => cache.load('etag-shared', load)));
    expect(cache.get('etag-shared')?.length).toBe(10);
    expect(loads).toBe(1);
    expect(cache.loading).toBe(0);
  });

  it('does not keep a failed load: every caller waiting on it gets the error, the next miss loads again', async () => {
    const cache = createBodyCache(1000);
    let loads = 0;
    const failing = (): Promise<Buffer> => {
      loads++;
      return new Promise((_, reject) => setTimeout(() => reject(new Error('origin reset')), 5));
    };
    const waiting = await Promise.allSettled(Array.from({ length: 3 }, () => cache.load('etag-flaky', failing)));
    expect(waiting.map((result) => result.status)).toEqual(['rejected', 'rejected', 'rejected']);
    expect(loads).toBe(1);
    expect(cache.get('etag-flaky')).toBeUndefined();
    expect(cache.loading).toBe(0);
    const body = await cache.load('etag-flaky', slowLoad(3, 10, 1));
    expect(body[0]).toBe(3);
    expect(cache.get('etag-flaky')).toBe(body);
  });

  it('turns a loader that throws before returning a promise into a rejection', async () => {
    const cache = createBodyCache(1000);
    const throwing = (): Promise<Buffer> => {
      throw new Error('no such file');
    };
    await expect(cache.load('etag-throws', throwing)).rejects.toThrow('no such file');
    expect(cache.loading).toBe(0);
  });
});

describe('a build without its lookup index', () => {
  it('is refused, saying which file is missing and how to make it', async () => {
    const distDir = await buildFixture();
    await rm(path.join(await realpath(distDir), 'lookups.idx'));
    await expect(openLocalStore(distDir)).rejects.toThrow(/lookups\.idx is missing: run "npm run build" first/);
  });

  it('is refused when given manifest.json in its place, saying what the proxy reads', async () => {
    const distDir = await buildFixture();
    const manifest = await readFile(path.join(distDir, 'manifest.json'));
    expect(() => readManifest(manifest, 'the index')).toThrow(
      'the index is not a lookup index written by npm run build: it is JSON, as manifest.json is; a proxy serves a build from its lookups.idx',
    );
  });
});

/** Waits for the shard a find needs, as the lookup handler does, and finds again. */
async function findWaiting(index: LookupIndex, file: string): Promise<ReturnType<LookupIndex['find']>> {
  return whenIndexed(() => index.find(file));
}

describe('reading a lookup index', () => {
  /** The fixture build's head with `count` body files of one route, in shards of 1,000: the shards by file, and the reads counted. */
  async function largeIndex(count: number, cacheBytes = 64 * 1024 * 1024) {
    const { manifest } = await openLocalStore(await buildFixture());
    const bodies = new Map<string, Buffer>();
    for (let number = 0; number < count; number++) {
      bodies.set(`addressmanagement/api/neighborhood/getbyid/${number.toString(16).padStart(32, '0')}.json`, Buffer.from(`{"n":${number}}`));
    }
    const encoded = encodeLookupIndex(manifest, bodies, 1_000);
    const files = encoded.entries;
    const reads: string[] = [];
    const read = async (file: string): Promise<Buffer> => {
      reads.push(file);
      return encoded.files.get(file) as Buffer;
    };
    const { manifest: head, head: opened } = readManifest(encoded.head, 'the large index');
    const cache = createShardCache(cacheBytes);
    return { index: new LookupIndex(opened, cache, read, 'the large index'), reads, files, manifest, head, cache, encoded };
  }

  it('reads a shard only when a lookup needs it, checks it once, and answers from memory after', async () => {
    const { index, reads, files, manifest, head } = await largeIndex(60_000);
    expect(head).toEqual(manifest);
    expect(index.count).toBe(60_000);
    expect(index.shards).toHaveLength(64);
    expect(reads).toEqual([]);
    const file = `addressmanagement/api/neighborhood/getbyid/${'0'.repeat(31)}a.json`;
    expect(() => index.find(file)).toThrow(IndexPending);
    const tenth = files[file];
    expect(await findWaiting(index, file)).toMatchObject(tenth ?? {});
    expect(reads).toHaveLength(1);
    expect(findLookup(index, '/addressmanagement/api/neighborhood/getbyid', [`${'0'.repeat(31)}a`])?.entry).toMatchObject(tenth ?? {});
    expect(reads).toHaveLength(1);
    expect(await findWaiting(index, `addressmanagement/api/neighborhood/getbyid/${'f'.repeat(32)}.json`)).toBeUndefined();
    const listed: Record<string, unknown> = {};
    for await (const { file: listedFile, entry } of index.entries()) listed[listedFile] = { size: entry.size, etag: entry.etag };
    expect(listed).toEqual(files);
    expect(await index.lookupAt(59_999)).toBeDefined();
    expect(await index.lookupAt(60_000)).toBeUndefined();
  });

  it('holds no more of the index than its cache allows, however many shards a build has', async () => {
    const { index, cache, encoded } = await largeIndex(60_000, 200_000);
    const largest = Math.max(...[...encoded.files].filter(([file]) => file.endsWith('.idx')).map(([, bytes]) => bytes.length));
    expect(largest * 64).toBeGreaterThan(200_000 * 10);
    let listed = 0;
    for await (const _lookup of index.entries()) listed++;
    expect(listed).toBe(60_000);
    expect(cache.calculatedSize).toBeLessThanOrEqual(200_000);
  });

  it.each([
    ['bytes that are no index', () => Buffer.from('RDLX and more bytes'), 'it does not start with RDLI'],
    ['an index cut short', (index: Buffer) => index.subarray(0, 40), 'its head runs past its end'],
    ['a head that is no manifest', (index: Buffer) => index.fill(0x20, 12, 20), 'its head is not JSON'],
  ])('refuses %s, saying what is wrong', async (_what, damage, message) => {
    const { manifest } = await openLocalStore(await buildFixture());
    const bytes = damage(encodeLookupIndex(manifest, new Map([['addressmanagement/api/country/getall.json', Buffer.from('[]')]])).head);
    expect(() => readManifest(bytes, 'the index')).toThrow(`the index is not a lookup index written by npm run build: ${message}`);
    expect(() => readManifest(bytes, 'the index')).toThrow(ManifestError);
  });

  it.each([
    [
      'a path outside the build',
      'addressmanagement/api/country/getbyid/../../../../etc/passwd.json',
      '"addressmanagement/api/country/getbyid/../../../../etc/passwd.json" is not a body file\'s path',
    ],
    ['a path that is no body file', 'openapi.json', '"openapi.json" is not a body file\'s path'],
  ])('refuses a shard with %s before any lookup uses it, saying what is wrong', async (_what, file, message) => {
    const { manifest } = await openLocalStore(await buildFixture());
    const encoded = encodeLookupIndex(manifest, new Map([[file, Buffer.from('{}')]]));
    const { head } = readManifest(encoded.head, 'the index');
    const index = new LookupIndex(head, createShardCache(), async (shardFile) => encoded.files.get(shardFile) as Buffer, 'the index');
    const refused = findWaiting(index, file);
    await expect(refused).rejects.toThrow(ManifestError);
    await expect(refused).rejects.toThrow(`is not a shard of a lookup index written by npm run build: ${message}`);
  });

  it('refuses a shard file whose bytes are not those its head lists: a lookup needing it fails, the build stays served', async () => {
    const distDir = await buildFixture();
    const buildDir = await realpath(distDir);
    const [shard] = (await readdir(path.join(buildDir, 'lookups'))).filter((name) => name.endsWith('.idx'));
    const shardFile = path.join(buildDir, 'lookups', shard as string);
    const bytes = await readFile(shardFile);
    bytes.writeUInt32LE(bytes.readUInt32LE(bytes.length - 4) ^ 1, bytes.length - 4);
    await rm(shardFile);
    await writeFile(shardFile, bytes);
    const store = await openLocalStore(distDir);
    const pending = (() => {
      try {
        store.find('/addressmanagement/api/country/getall', []);
      } catch (error) {
        return error;
      }
      return undefined;
    })();
    expect(pending).toBeInstanceOf(IndexPending);
    await expect((pending as IndexPending).loaded).rejects.toMatchObject({
      code: 'ERR_BODY_UNREADABLE',
      message: expect.stringContaining('is not the one its head lists'),
    });
  });
});

/**
 * The body cache (proxy/store/store.ts, proxy/store/loadingCache.ts) under pressure, and reading a build's lookup index (proxy/store/indexReader.ts).
 * What every body store must do is test/system/bodyStores.test.ts.
 */
import { readFile, realpath, rm, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { encodeLookupIndex, packFileOf, pageBytes, readFromBytes, shardFileOf, type PackedEntry } from '../../contract/lookupIndex.ts';
import { findLookup, IndexPending, LookupIndex, IndexError, openIndexHead, whenIndexed, type Lookup, type ShardSource } from '../../proxy/store/indexReader.ts';
import { createBodyCache, openLocalStore, type StoreError } from '../../proxy/store/store.ts';
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
    expect(() => openIndexHead(manifest, 'the index')).toThrow(
      'the index is not a lookup index written by npm run build: it is JSON, as manifest.json is; a proxy serves a build from its lookups.idx',
    );
  });
});

/** Waits for the shard a find needs, as the lookup handler does, and finds again. */
async function findWaiting(index: LookupIndex, file: string): Promise<ReturnType<LookupIndex['find']>> {
  return whenIndexed(() => index.find(file));
}

/** Reads of shard files, each its file and length. */
type Reads = { file: string; length: number }[];

/**
 * Shard files from bytes in memory, every positional read counted. `fetched` set: files are at hand
 * only once fetched, as an origin's are.
 */
function countingSource(files: ReadonlyMap<string, Buffer>, reads: Reads, { fetched }: { fetched?: Set<string> } = {}): ShardSource {
  const bytesOf = (file: string): Buffer => files.get(file) as Buffer;
  return {
    open: (file) => {
      if (fetched && !fetched.has(file)) return undefined;
      const read = readFromBytes(bytesOf(file));
      return {
        read: (target, position) => {
          reads.push({ file, length: target.length });
          return read(target, position);
        },
        lasting: true,
      };
    },
    fetch: async (file) => void fetched?.add(file),
    readWhole: async (file) => bytesOf(file),
  };
}

describe('reading a lookup index', () => {
  /** The fixture build's head with `count` body files of one route, in shards of 1,000: the index over counted reads. */
  async function largeIndex(count: number, options: { fetched?: Set<string> } = {}) {
    const { manifest } = await openLocalStore(await buildFixture());
    const bodies = new Map<string, Buffer>();
    for (let number = 0; number < count; number++) {
      bodies.set(`addressmanagement/api/neighborhood/getbyid/${number.toString(16).padStart(32, '0')}.json`, Buffer.from(`{"n":${number}}`));
    }
    const encoded = encodeLookupIndex(manifest, bodies, 1_000);
    const reads: Reads = [];
    const { manifest: head, head: opened } = openIndexHead(encoded.head, 'the large index');
    return {
      index: new LookupIndex(opened, countingSource(encoded.files, reads, options), 'the large index'),
      reads,
      files: encoded.entries,
      manifest,
      head,
      encoded,
    };
  }

  it('finds an entry with one read of a page of its shard, whatever the shard holds, and lists the build a shard at a time', async () => {
    const { index, reads, files, manifest, head, encoded } = await largeIndex(60_000);
    expect(head).toEqual(manifest);
    expect(index.count).toBe(60_000);
    expect(index.shards).toHaveLength(64);
    expect(reads).toEqual([]);
    const shardBytes = Math.min(...[...encoded.files].filter(([file]) => file.endsWith('.idx')).map(([, bytes]) => bytes.length));
    expect(shardBytes).toBeGreaterThan(20 * pageBytes);
    for (const number of [10, 4_321, 59_999]) {
      const key = number.toString(16).padStart(32, '0');
      const file = `addressmanagement/api/neighborhood/getbyid/${key}.json`;
      reads.length = 0;
      expect(findLookup(index, '/addressmanagement/api/neighborhood/getbyid', [key])?.entry).toMatchObject(files[file] ?? {});
      // The header once, when a shard is first opened; then one page, rarely the next.
      const pages = reads.filter((read) => read.length === pageBytes);
      expect(reads.length - pages.length).toBeLessThanOrEqual(1);
      expect(pages.length).toBeGreaterThanOrEqual(1);
      expect(pages.length).toBeLessThanOrEqual(2);
    }
    reads.length = 0;
    expect(index.find(`addressmanagement/api/neighborhood/getbyid/${'f'.repeat(32)}.json`)).toBeUndefined();
    expect(reads.reduce((sum, read) => sum + read.length, 0)).toBeLessThanOrEqual(2 * pageBytes + 300);
    const listed: Record<string, unknown> = {};
    for await (const { file: listedFile, entry } of index.entries()) listed[listedFile] = { size: entry.size, etag: entry.etag };
    expect(listed).toEqual(files);
    expect(await index.lookupAt(59_999)).toBeDefined();
    expect(await index.lookupAt(60_000)).toBeUndefined();
  });

  it('waits for a shard that must be fetched first, then finds in place', async () => {
    const fetched = new Set<string>();
    const { index, files } = await largeIndex(5_000, { fetched });
    const file = `addressmanagement/api/neighborhood/getbyid/${'0'.repeat(31)}a.json`;
    expect(() => index.find(file)).toThrow(IndexPending);
    expect(await findWaiting(index, file)).toMatchObject(files[file] ?? {});
    expect(fetched.size).toBe(1);
    expect(index.find(file)).toMatchObject(files[file] ?? {});
  });

  it.each([
    ['bytes that are no index', () => Buffer.from('RDLX and more bytes'), 'it does not start with RDLI'],
    ['an index cut short', (index: Buffer) => index.subarray(0, 40), 'its head runs past its end'],
    ['a head that is no manifest', (index: Buffer) => index.fill(0x20, 12, 20), 'its head is not JSON'],
  ])('refuses %s, saying what is wrong', async (_what, damage, message) => {
    const { manifest } = await openLocalStore(await buildFixture());
    const bytes = damage(encodeLookupIndex(manifest, new Map([['addressmanagement/api/country/getall.json', Buffer.from('[]')]])).head);
    expect(() => openIndexHead(bytes, 'the index')).toThrow(`the index is not a lookup index written by npm run build: ${message}`);
    expect(() => openIndexHead(bytes, 'the index')).toThrow(IndexError);
  });

  it.each([
    [
      'a path outside the build',
      'addressmanagement/api/country/getbyid/../../../../etc/passwd.json',
      '"addressmanagement/api/country/getbyid/../../../../etc/passwd.json" is not a body file\'s path',
    ],
    ['a path that is no body file', 'openapi.json', '"openapi.json" is not a body file\'s path'],
  ])('never reads a file a shard with %s names: its entries point into the pack the head names, and a listing refuses it', async (_what, file, message) => {
    const { manifest } = await openLocalStore(await buildFixture());
    const encoded = encodeLookupIndex(manifest, new Map([[file, Buffer.from('{}')]]));
    const { head } = openIndexHead(encoded.head, 'the index');
    const index = new LookupIndex(head, countingSource(encoded.files, []), 'the index');
    expect(index.find(file)).toMatchObject({ pack: packFileOf(head.shards[0]?.packEtag ?? '') });
    const listing = index.shard(0);
    await expect(listing).rejects.toThrow(IndexError);
    await expect(listing).rejects.toThrow(`is not a shard of a lookup index written by npm run build: ${message}`);
  });

  it('never serves a body whose bytes changed in its pack: a 503 with Retry-After, naming the pack and the repair', async () => {
    const distDir = await buildFixture();
    const buildDir = await realpath(distDir);
    const found = (await openLocalStore(distDir)).find('/addressmanagement/api/region/getall', []) as Lookup;
    const entry = found.entry as PackedEntry;
    // One byte flipped in place, the pack's size and name kept: bit rot, a stray write.
    const packPath = path.join(buildDir, entry.pack);
    const pack = await readFile(packPath);
    pack[entry.offset + 1] = (pack[entry.offset + 1] as number) ^ 0x01;
    await rm(packPath);
    await writeFile(packPath, pack);
    const store = await openLocalStore(distDir);
    const failure = await Promise.resolve(store.read(found.file, entry)).then(
      () => undefined,
      (error: unknown) => error as StoreError,
    );
    expect(failure).toMatchObject({ code: 'ERR_BODY_UNREADABLE', headers: { 'Retry-After': expect.stringMatching(/^\d+$/) } });
    const cause = (failure?.cause as Error | undefined)?.message ?? '';
    expect(cause).toContain(packPath);
    expect(cause).toContain('npm run build -- --force');
    // Asked again, it is refused again: a damaged body is never kept.
    await expect(Promise.resolve(store.read(found.file, entry))).rejects.toMatchObject({ code: 'ERR_BODY_UNREADABLE' });
  });

  it('never serves a body its damaged shard misplaces: the lookup fails with a 503 code, the build stays served', async () => {
    const distDir = await buildFixture();
    const buildDir = await realpath(distDir);
    const store = await openLocalStore(distDir);
    const found = store.find('/addressmanagement/api/country/getall', []);
    expect(found).toBeDefined();
    const { entry } = found as Lookup;
    const { head } = openIndexHead(await readFile(path.join(buildDir, 'lookups.idx')), 'the index');
    const shardFile = path.join(buildDir, shardFileOf(head.shards[head.shardOf(found?.file ?? '')]?.etag ?? ''));
    const bytes = await readFile(shardFile);
    // The entry's offset in the pack moved by one byte: its bytes no longer hash to its ETag.
    const at = bytes.indexOf(Buffer.from(found?.file ?? '', 'latin1')) + (found?.file.length ?? 0);
    bytes.writeUInt32LE(bytes.readUInt32LE(at + 4) + 1, at + 4);
    await rm(shardFile);
    await writeFile(shardFile, bytes);
    const damaged = await openLocalStore(distDir);
    const misplaced = damaged.find('/addressmanagement/api/country/getall', []) as Lookup;
    expect(misplaced.entry.etag).toBe(entry.etag);
    await expect(Promise.resolve(damaged.read(misplaced.file, misplaced.entry))).rejects.toMatchObject({ code: 'ERR_BODY_UNREADABLE' });
    await expect(collect(damaged.lookups())).rejects.toMatchObject({
      code: 'ERR_BODY_UNREADABLE',
      message: expect.stringContaining('is not the one its head lists'),
    });
  });
});

async function collect<T>(items: AsyncIterable<T>): Promise<T[]> {
  const all: T[] = [];
  for await (const item of items) all.push(item);
  return all;
}

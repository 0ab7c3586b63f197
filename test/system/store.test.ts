/**
 * The body cache (proxy/store/store.ts, proxy/store/loadingCache.ts) under pressure, and reading a manifest (proxy/store/manifestIndex.ts).
 * What every body store must do is test/system/bodyStores.test.ts.
 */
import { realpath, rm } from 'node:fs/promises';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import type { Manifest } from '../../contract/manifest.ts';
import { findLookup, lookupsOf, ManifestError, readManifest } from '../../proxy/store/manifestIndex.ts';
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

describe('a build made before builds carried a lookup index', () => {
  it('is served from its manifest.json, the same lookups found', async () => {
    const distDir = await buildFixture();
    const current = await openLocalStore(distDir);
    await rm(path.join(await realpath(distDir), 'lookups.idx'));
    const older = await openLocalStore(distDir);
    expect(older.manifest).toEqual(current.manifest);
    expect([...older.lookups()]).toEqual([...current.lookups()]);
    expect(older.find('/financemanagement/api/currency/getbycode', ['try'])).toEqual(current.find('/financemanagement/api/currency/getbycode', ['try']));
  });
});

describe('reading a manifest', () => {
  /** The fixture build's manifest with `count` body files of one route: as large as the real one at 66,000. */
  async function largeManifest(count: number): Promise<{ bytes: Buffer; manifest: Manifest }> {
    const { manifest } = await openLocalStore(await buildFixture());
    const files: Manifest['files'] = {};
    for (let number = 0; number < count; number++) {
      files[`addressmanagement/api/neighborhood/getbyid/${number.toString(16).padStart(32, '0')}.json`] = { size: 100 + number, etag: `"etag${number}"` };
    }
    const large = { ...manifest, files };
    return { bytes: Buffer.from(JSON.stringify(large)), manifest: large };
  }

  it('lets other work run while it parses, checks and indexes 60,000 body files', async () => {
    const { bytes, manifest } = await largeManifest(60_000);
    let turns = 0;
    let reading = true;
    const turn = (): void => {
      turns++;
      if (reading) setImmediate(turn);
    };
    setImmediate(turn);
    const opened = await readManifest(bytes, 'the large manifest');
    reading = false;
    // Parsed on another thread, then checked and indexed 2,000 files a turn: at least 29 turns.
    expect(turns).toBeGreaterThanOrEqual(29);
    const { files, ...head } = manifest;
    expect(opened.manifest).toEqual(head);
    expect(Object.fromEntries([...lookupsOf(opened.index)].map(({ file, entry }) => [file, entry]))).toEqual(files);
    expect(opened.index.count).toBe(60_000);
    expect(findLookup(opened.index, '/addressmanagement/api/neighborhood/getbyid', [`${'0'.repeat(31)}a`])?.entry).toEqual({ size: 110, etag: '"etag10"' });
  });

  it.each([
    ['not JSON', Buffer.from('{"buildId": '), 'it is not JSON'],
    ['a path outside the build', null, '"addressmanagement/api/country/getbyid/../../../../etc/passwd.json" is not a body file\'s path'],
    ['an entry with another field', null, 'must be {"size": <bytes>, "etag": "<tag>"}'],
    ['a negative size', null, 'size: Too small'],
  ])('refuses %s, saying what is wrong', async (what, given, message) => {
    const { manifest } = await openLocalStore(await buildFixture());
    const files: Record<string, unknown> = {
      'a path outside the build': { 'addressmanagement/api/country/getbyid/../../../../etc/passwd.json': { size: 1, etag: '"x"' } },
      'an entry with another field': { 'addressmanagement/api/country/getall.json': { size: 1, etag: '"x"', path: '/etc/passwd' } },
      'a negative size': { 'addressmanagement/api/country/getall.json': { size: -1, etag: '"x"' } },
    };
    const bytes = given ?? Buffer.from(JSON.stringify({ ...manifest, files: files[what] }));
    await expect(readManifest(bytes, 'the manifest')).rejects.toThrow(
      new RegExp(`^the manifest is not a manifest written by npm run build: .*${message.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}`),
    );
    await expect(readManifest(Buffer.from(bytes), 'the manifest')).rejects.toBeInstanceOf(ManifestError);
  });
});

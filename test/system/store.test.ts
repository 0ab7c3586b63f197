/**
 * The body cache (proxy/store/store.ts, proxy/store/loadingCache.ts) under pressure, and reading a build's lookup index (proxy/store/manifestIndex.ts).
 * What every body store must do is test/system/bodyStores.test.ts.
 */
import { readFile, realpath, rm } from 'node:fs/promises';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { encodeLookupIndex } from '../../contract/lookupIndex.ts';
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

describe('a build without its lookup index', () => {
  it('is refused, saying which file is missing and how to make it', async () => {
    const distDir = await buildFixture();
    await rm(path.join(await realpath(distDir), 'lookups.idx'));
    await expect(openLocalStore(distDir)).rejects.toThrow(/lookups\.idx is missing: run "npm run build" first/);
  });

  it('is refused when given manifest.json in its place, saying what the proxy reads', async () => {
    const distDir = await buildFixture();
    const manifest = await readFile(path.join(distDir, 'manifest.json'));
    await expect(readManifest(manifest, 'the index')).rejects.toThrow(
      'the index is not a lookup index written by npm run build: it is JSON, as manifest.json is; a proxy serves a build from its lookups.idx',
    );
  });
});

describe('reading a lookup index', () => {
  /** The fixture build's index with `count` body files of one route: as large as the real one at 66,000. */
  async function largeIndex(count: number): Promise<{ bytes: Buffer; manifest: Manifest }> {
    const { manifest } = await openLocalStore(await buildFixture());
    const files: Manifest['files'] = {};
    for (let number = 0; number < count; number++) {
      files[`addressmanagement/api/neighborhood/getbyid/${number.toString(16).padStart(32, '0')}.json`] = { size: 100 + number, etag: `"etag${number}"` };
    }
    return { bytes: encodeLookupIndex(manifest, files), manifest: { ...manifest, files } };
  }

  it('lets other work run while it checks 60,000 body files', async () => {
    const { bytes, manifest } = await largeIndex(60_000);
    let turns = 0;
    let reading = true;
    const turn = (): void => {
      turns++;
      if (reading) setImmediate(turn);
    };
    setImmediate(turn);
    const opened = await readManifest(bytes, 'the large index');
    reading = false;
    // Checked 2,000 files a turn: at least 29 turns.
    expect(turns).toBeGreaterThanOrEqual(29);
    const { files, ...head } = manifest;
    expect(opened.manifest).toEqual(head);
    expect(Object.fromEntries([...lookupsOf(opened.index)].map(({ file, entry }) => [file, entry]))).toEqual(files);
    expect(opened.index.count).toBe(60_000);
    expect(findLookup(opened.index, '/addressmanagement/api/neighborhood/getbyid', [`${'0'.repeat(31)}a`])?.entry).toEqual({ size: 110, etag: '"etag10"' });
  });

  it.each([
    ['bytes that are no index', () => Buffer.from('RDLX and more bytes'), 'it does not start with RDLI'],
    ['an index cut short', (index: Buffer) => index.subarray(0, 40), 'its head runs past its end'],
    ['a head that is no manifest', (index: Buffer) => index.fill(0x20, 12, 20), 'its head is not JSON'],
    [
      'a path outside the build',
      () => 'addressmanagement/api/country/getbyid/../../../../etc/passwd.json',
      '"addressmanagement/api/country/getbyid/../../../../etc/passwd.json" is not a body file\'s path',
    ],
    ['a path that is no body file', () => 'openapi.json', '"openapi.json" is not a body file\'s path'],
  ])('refuses %s, saying what is wrong', async (_what, damage, message) => {
    const { manifest } = await openLocalStore(await buildFixture());
    const changed = damage(encodeLookupIndex(manifest, { 'addressmanagement/api/country/getall.json': { size: 1, etag: '"x"' } }));
    const bytes = typeof changed === 'string' ? encodeLookupIndex(manifest, { [changed]: { size: 1, etag: '"x"' } }) : changed;
    await expect(readManifest(bytes, 'the index')).rejects.toThrow(`the index is not a lookup index written by npm run build: ${message}`);
    await expect(readManifest(bytes, 'the index')).rejects.toBeInstanceOf(ManifestError);
  });
});

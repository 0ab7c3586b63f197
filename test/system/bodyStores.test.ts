/**
 * One contract, every body store: the same suite runs against the local store (a build on disk)
 * and the origin store (the same build behind a static HTTP origin), as the request path relies
 * on either one in the same way (proxy/store/store.ts BodyStore).
 */
import { readFile, realpath, rm } from 'node:fs/promises';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { bodyPath, findRoute } from '../../contract/routes.ts';
import type { PackedEntry } from '../../contract/lookupIndex.ts';
import { computeEtag, manifestHeadSchema, type ManifestEntry } from '../../contract/manifest.ts';
import { createOriginClient, openOriginStore } from '../../proxy/store/origin.ts';
import { noOriginCopy } from '../../proxy/store/originCopy.ts';
import { createStoreCaches, openLocalStore, StoreError, type BodyStore } from '../../proxy/store/store.ts';
import { buildFixture } from '../support/service.ts';
import { allLookups, findSettled, readBuildManifest } from '../support/store.ts';

/** A plain static host over a build: every file as it is, 404 for anything else. */
async function startStaticOrigin(distDir: string): Promise<{ url: URL; close: () => Promise<void> }> {
  const root = await realpath(distDir);
  const server = http.createServer((request, response) => {
    const pathname = decodeURIComponent((request.url ?? '/').split('?')[0] ?? '/');
    readFile(path.join(root, path.normalize(pathname)))
      .then((body) => response.writeHead(200, { 'Content-Length': body.length }).end(body))
      .catch(() => response.writeHead(404).end());
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: new URL(`http://127.0.0.1:${port}/`),
    close: () => new Promise((done) => server.close(() => done())),
  };
}

interface OpenedStore {
  readonly store: BodyStore;
  /** The build directory the store's bodies come from. */
  readonly buildDir: string;
  /** The code a read of a body missing from the build fails with. */
  readonly missingBodyCode: string;
}

/** A body's bytes as the build wrote them: its slice of its pack. */
async function packedBody(buildDir: string, entry: ManifestEntry | PackedEntry): Promise<Buffer> {
  expect(entry).toHaveProperty('pack');
  const { pack, offset, size } = entry as PackedEntry;
  return (await readFile(path.join(buildDir, pack))).subarray(offset, offset + size);
}

const closers: (() => Promise<void>)[] = [];
afterAll(async () => {
  for (const close of closers) await close();
});

const stores: [string, () => Promise<OpenedStore>][] = [
  [
    'local store (a build on disk)',
    async () => {
      const distDir = await buildFixture();
      return { store: await openLocalStore(distDir, createStoreCaches()), buildDir: await realpath(distDir), missingBodyCode: 'ERR_BODY_UNREADABLE' };
    },
  ],
  [
    'origin store (the build behind a static origin)',
    async () => {
      const distDir = await buildFixture();
      const origin = await startStaticOrigin(distDir);
      const client = await createOriginClient({ url: origin.url, header: undefined });
      closers.push(async () => {
        await client.close();
        await origin.close();
      });
      return {
        store: await openOriginStore(client, createStoreCaches(), noOriginCopy),
        buildDir: await realpath(distDir),
        // A pack is named by its content: one gone from an origin that serves dist/ as it is
        // means the origin has moved to another build (origin.ts, checkNamedByContent).
        missingBodyCode: 'ERR_ORIGIN_SWITCHING',
      };
    },
  ],
];

describe.each(stores)('%s', (_name, open) => {
  const opened = open();

  it('holds the manifest of the build it serves: manifest.json, and every body the index on disk lists', async () => {
    const { store, buildDir } = await opened;
    const head = manifestHeadSchema.parse(JSON.parse(await readFile(path.join(buildDir, 'manifest.json'), 'utf8')));
    expect(store.manifest).toEqual(head);
    expect(store.manifest).not.toHaveProperty('files'); // the index holds them, once
    const onDisk = await readBuildManifest(buildDir);
    expect(Object.fromEntries((await allLookups(store)).map(({ file, entry }) => [file, { size: entry.size, etag: entry.etag }]))).toEqual(onDisk.files);
  });

  it('finds every body by its route and keys, and reads its exact bytes, then holds them in memory', async () => {
    const { store, buildDir } = await opened;
    const files = (await allLookups(store)).map(({ file, entry }) => [file, entry] as const);
    expect(files.length).toBeGreaterThan(100);
    for (const [file, entry] of files) {
      const segments = file.replace(/\.json$/, '').split('/');
      const route = findRoute(`/${segments.slice(0, 4).join('/')}`);
      expect(route, file).toBeDefined();
      if (!route) continue;
      expect(bodyPath(route, segments.slice(4)), file).toBe(file);
      expect(await findSettled(store, route.path, segments.slice(4)), file).toEqual({ file, entry });
      const body = await store.read(file, entry);
      expect(body.equals(await packedBody(buildDir, entry)), file).toBe(true);
      expect(computeEtag(body), file).toBe(entry.etag);
      expect(store.cached(entry)?.equals(body), file).toBe(true);
    }
  });

  it('finds nothing for a key or an operation the build does not have', async () => {
    const { store } = await opened;
    expect(await findSettled(store, '/addressmanagement/api/country/getbyalpha2code', ['zz'])).toBeUndefined();
    expect(await findSettled(store, '/addressmanagement/api/country/nosuchoperation', ['tr'])).toBeUndefined();
  });

  it('reads the public files (the OpenAPI document, the docs page) as the build wrote them', async () => {
    const { store, buildDir } = await opened;
    for (const file of ['openapi.json', 'docs/index.html']) {
      const entry = store.manifest.public[file];
      expect(entry, file).toBeDefined();
      if (!entry) continue;
      expect((await store.read(file, entry)).equals(await readFile(path.join(buildDir, file))), file).toBe(true);
    }
  });

  it('a body the manifest lists but the build has lost is a StoreError with its code, never a crash or other bytes', async () => {
    const { store, buildDir, missingBodyCode } = await open(); // its own build: this test damages it
    const file = 'addressmanagement/api/country/getbyalpha2code/tr.json';
    const entry = (await findSettled(store, '/addressmanagement/api/country/getbyalpha2code', ['tr']))?.entry;
    expect(entry).toBeDefined();
    if (!entry) return;
    // Its pack, which holds its bytes.
    await rm(path.join(buildDir, (entry as PackedEntry).pack));
    const failure = await Promise.resolve(store.read(file, entry)).catch((error: unknown) => error);
    expect(failure).toBeInstanceOf(StoreError);
    expect(failure).toMatchObject({ code: missingBodyCode });
  });
});

describe('a local store', () => {
  it('keeps each body it reads while its cache has room', async () => {
    const store = await openLocalStore(await buildFixture(), createStoreCaches());
    const found = await findSettled(store, '/addressmanagement/api/country/getbyalpha2code', ['de']);
    expect(found).toBeDefined();
    if (!found) return;
    const body = await store.read(found.file, found.entry);
    expect(store.cached(found.entry)?.equals(body)).toBe(true);
  });

  it('once its cache is full, keeps a body only when it is asked for again: a body asked for once pushes none out', async () => {
    const caches = createStoreCaches(16 * 1024);
    const store = await openLocalStore(await buildFixture(), caches);
    const lookups = (await allLookups(store)).filter(({ entry }) => entry.size < 1024);
    // A body of its own: identical bodies (a country by id and by code) share a tag, and a place in the cache.
    const target = lookups.find(({ entry }) => lookups.filter((other) => other.entry.etag === entry.etag).length === 1);
    const others = lookups.filter((lookup) => lookup !== target);
    expect(target).toBeDefined();
    if (!target) return;
    // Fill the cache with other bodies, each read twice (so kept once the cache is full).
    for (const { file, entry } of others) {
      if (!caches.bodies.hasRoomFor(target.entry.size)) break;
      await store.read(file, entry);
      await store.read(file, entry);
    }
    expect(caches.bodies.hasRoomFor(target.entry.size)).toBe(false);
    const first = await store.read(target.file, target.entry);
    expect(store.cached(target.entry)).toBeUndefined();
    const second = await store.read(target.file, target.entry);
    expect(second.equals(first)).toBe(true);
    expect(store.cached(target.entry)?.equals(first)).toBe(true);
  });
});

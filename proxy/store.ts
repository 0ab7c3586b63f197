/**
 * Body files. The manifest says what exists (loaded once per build); bodies come from a bounded
 * in-memory cache keyed by their ETag, which is a hash of their content: an entry can never be
 * stale, identical bodies (a country by id, by code and by name) share one buffer, and a new build
 * keeps every body it did not change warm. Concurrent misses for one body share one read.
 */
import { readFile, realpath } from 'node:fs/promises';
import path from 'node:path';
import { LRUCache } from 'lru-cache';
import { manifestFileName, manifestSchema, type Manifest, type ManifestEntry } from './manifest.ts';

/** Enough for every small body and the popular large ones; far below a worker's memory budget. */
export const defaultCacheBytes = 64 * 1024 * 1024;

export class StoreError extends Error {
  override name = 'StoreError';
}

export interface BodyStore {
  readonly manifest: Manifest;
  /** Where the bodies come from, for logs: a build directory or an origin URL. */
  readonly source: string;
  /** The body of a route's lookup by its normalised keys (keys.ts): undefined means no such key exists. */
  find(routePath: string, keys: readonly string[]): Lookup | undefined;
  /** The body's bytes if they are in memory now: the synchronous fast path. */
  cached(entry: ManifestEntry): Buffer | undefined;
  /** The body's bytes; only call for a file the manifest lists. May throw an ApiError (origin mode). */
  read(file: string, entry: ManifestEntry): Promise<Buffer>;
}

/** A body file and its manifest entry. */
export interface Lookup {
  readonly file: string;
  readonly entry: ManifestEntry;
}

/** The manifest's body files by route path, then by their keys joined with `/` (routes.ts bodyPath, read backwards). */
export type LookupIndex = ReadonlyMap<string, ReadonlyMap<string, Lookup>>;

/**
 * Indexes the body files once per build, so that a request finds its body by the route (a constant
 * string) and its short key in a small map, instead of building the file's path and finding it
 * among every file of the build. Every body path is `<area>/api/<record>/<operation>[/<key>…].json`.
 */
export function indexLookups(manifest: Manifest): LookupIndex {
  const index = new Map<string, Map<string, Lookup>>();
  for (const [file, entry] of Object.entries(manifest.files)) {
    const segments = file.slice(0, -'.json'.length).split('/');
    const routePath = `/${segments.slice(0, 4).join('/')}`;
    let byKey = index.get(routePath);
    if (!byKey) index.set(routePath, (byKey = new Map()));
    byKey.set(segments.slice(4).join('/'), { file, entry });
  }
  return index;
}

/** Finds a lookup in an index: one key as it is, several joined as in the body's path. */
export function findLookup(index: LookupIndex, routePath: string, keys: readonly string[]): Lookup | undefined {
  return index.get(routePath)?.get(keys.length === 1 ? (keys[0] as string) : keys.join('/'));
}

/** Bodies by ETag; a miss runs the loader the caller passes as the fetch context. */
export type BodyCache = LRUCache<string, Buffer, () => Promise<Buffer>>;

/**
 * One cache per process, shared by every build it serves. A load still in flight when other bodies
 * push it out of the cache is not aborted (lru-cache's default): its caller still gets the body,
 * which then may or may not stay cached. Without this a small cache under load answered a miss with
 * "evicted" errors.
 */
export function createBodyCache(maxBytes = defaultCacheBytes): BodyCache {
  return new LRUCache<string, Buffer, () => Promise<Buffer>>({
    maxSize: maxBytes,
    sizeCalculation: (body) => Math.max(body.length, 1),
    fetchMethod: (_etag, _stale, { context: load }) => load(),
    ignoreFetchAbort: true,
  });
}

export function parseManifest(text: string, where: string): Manifest {
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    throw new StoreError(`${where} is not JSON: is it a manifest written by npm run build?`);
  }
  const parsed = manifestSchema.safeParse(json);
  if (!parsed.success) throw new StoreError(`${where} is not a valid manifest: ${parsed.error.issues[0]?.message}`);
  return parsed.data;
}

/** A store over a build on the local disk, `distDir` resolved once to the build it links to. */
export async function openLocalStore(distDir: string, cache: BodyCache = createBodyCache()): Promise<BodyStore> {
  // The build directory behind the dist link, so that a rebuild does not change files under us.
  const buildDir = await realpath(distDir).catch(() => {
    throw new StoreError(`${distDir} does not exist: run "npm run build" first, or set DIST_DIR`);
  });
  const text = await readFile(path.join(buildDir, manifestFileName), 'utf8').catch(() => {
    throw new StoreError(`${path.join(distDir, manifestFileName)} is missing: run "npm run build" first`);
  });
  const manifest = parseManifest(text, path.join(buildDir, manifestFileName));
  const index = indexLookups(manifest);
  return {
    manifest,
    source: buildDir,
    find: (routePath, keys) => findLookup(index, routePath, keys),
    cached: (entry) => cache.get(entry.etag),
    read: async (file, entry) => {
      const body = await cache.fetch(entry.etag, { context: () => readFile(path.join(buildDir, file)) });
      if (!body) throw new StoreError(`${file} is listed in the manifest but could not be read`);
      return body;
    },
  };
}

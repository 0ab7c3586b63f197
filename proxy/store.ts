/**
 * Body files: the manifest says what exists (loaded once, at start), a bounded in-memory cache
 * holds what was read, and concurrent misses for one file share one read.
 */
import { readFile, realpath } from 'node:fs/promises';
import path from 'node:path';
import { LRUCache } from 'lru-cache';
import { manifestFileName, manifestSchema, type Manifest, type ManifestEntry } from './manifest.ts';

/** Enough for every small body and the popular large ones; far below a worker's memory budget. */
const cacheBytes = 64 * 1024 * 1024;

export class StoreError extends Error {
  override name = 'StoreError';
}

export interface BodyStore {
  readonly manifest: Manifest;
  /** The body file's manifest entry: undefined means no such lookup key exists. */
  entry(file: string): ManifestEntry | undefined;
  /** The body's bytes; only call for a file the manifest lists. */
  read(file: string): Promise<Buffer>;
}

export async function openStore(distDir: string): Promise<BodyStore> {
  // The build directory behind the dist link, so that a rebuild does not change files under us.
  const buildDir = await realpath(distDir).catch(() => {
    throw new StoreError(`${distDir} does not exist: run "npm run build" first, or set DIST_DIR`);
  });
  const manifestPath = path.join(buildDir, manifestFileName);
  const text = await readFile(manifestPath, 'utf8').catch(() => {
    throw new StoreError(`${path.join(distDir, manifestFileName)} is missing: run "npm run build" first`);
  });
  const parsed = manifestSchema.safeParse(JSON.parse(text));
  if (!parsed.success) throw new StoreError(`${manifestPath} is not a valid manifest: ${parsed.error.issues[0]?.message}`);
  const manifest = parsed.data;
  const files = new Map(Object.entries(manifest.files));

  const cache = new LRUCache<string, Buffer>({
    maxSize: cacheBytes,
    sizeCalculation: (body) => Math.max(body.length, 1),
    fetchMethod: (file) => readFile(path.join(buildDir, file)),
  });

  return {
    manifest,
    entry: (file) => files.get(file),
    read: async (file) => {
      const body = await cache.fetch(file);
      if (!body) throw new StoreError(`${file} is listed in the manifest but could not be read`);
      return body;
    },
  };
}

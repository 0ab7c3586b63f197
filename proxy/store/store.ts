/**
 * Body files. The lookup index says what exists (its head read once per build, its shards read in
 * place: indexReader.ts); a body is one read of its pack, kept in a bounded in-memory cache
 * (once it is full, only bodies asked for again) keyed by its ETag, which is a hash of its
 * content: an entry can never be stale, identical bodies (a country by id, by code and by name)
 * share one buffer, and a new build keeps every body it did not change warm. On a local build both
 * reads are synchronous preads (buildFiles.ts).
 */
import { readFile, realpath } from 'node:fs/promises';
import path from 'node:path';
import { ServiceError, type ErrorCode } from '../../contract/errors.ts';
import { lookupIndexFileName, type PackedEntry } from '../../contract/lookupIndex.ts';
import { computeEtag, type ManifestEntry } from '../../contract/manifest.ts';
import { createShardCache, findLookup, LookupIndex, openIndexHead, type Lookup, type ShardCache, type ShardSource } from './indexReader.ts';
import type { ManifestHead } from '../../contract/lookupIndex.ts';
import { BuildFiles } from './buildFiles.ts';
import { defaultBodyCacheMb } from '../config/config.ts';
import { LoadingCache } from './loadingCache.ts';
import { Doorkeeper } from './doorkeeper.ts';

export const defaultCacheBytes = defaultBodyCacheMb * 1024 * 1024;

/** What the body store names: a build missing, a manifest or a body that cannot be had. */
export type StoreErrorCode = Extract<ErrorCode, 'ERR_DIST_MISSING' | 'ERR_MANIFEST_INVALID' | 'ERR_BODY_UNREADABLE' | `ERR_ORIGIN_${string}`>;

export class StoreError extends ServiceError {
  constructor(code: StoreErrorCode, message: string, headers: Readonly<Record<string, string>> = {}, options?: ErrorOptions) {
    super(code, message, headers, options);
  }
}

export interface BodyStore {
  readonly manifest: ManifestHead;
  /** Where the bodies come from, for logs: a build directory or an origin URL. */
  readonly source: string;
  /** Body files in the build. */
  readonly bodyCount: number;
  /**
   * The body of a route's lookup by its normalised keys (contract/keys.ts): undefined means no
   * such key exists. Throws IndexPending (indexReader.ts) while the part of the index that
   * knows must be fetched (an origin's): wait for it and ask again.
   */
  find(routePath: string, keys: readonly string[]): Lookup | undefined;
  /** Every body file with its entry (the manifest's `files`), read from the index a shard at a time. */
  lookups(): AsyncIterable<Lookup>;
  /** Body file `position` (0 to bodyCount − 1) in the index's order: for sampling a build. */
  lookupAt(position: number): Promise<Lookup | undefined>;
  /** The body's bytes if they are in memory now: the synchronous fast path. */
  cached(entry: ManifestEntry): Buffer | undefined;
  /**
   * The bytes of a body (from its pack, by the entry the index gave) or of a public file or a
   * download (by its path); only call for what the build lists. The bytes themselves where they
   * are at hand (a local build's body: one pread), else a promise of them. Never throws: a body
   * that cannot be had is a promise rejected with a StoreError.
   */
  read(file: string, entry: ManifestEntry | PackedEntry): Buffer | Promise<Buffer>;
  /** Lets go of the build's open files once it is no longer served (requests still on it are answered). */
  close(): void;
}

/** Whether an entry is a lookup's body, in a pack. */
export function isPacked(entry: ManifestEntry | PackedEntry): entry is PackedEntry {
  return 'pack' in entry;
}

/**
 * Distinct bodies within which a body offered to a full cache must be asked for again to be kept
 * (doorkeeper.ts): a body read once is served and let go; the page cache keeps its pages.
 */
export const bodyAdmissionWindow = 65_536;

/** Bodies by ETag; a miss runs the loader its caller passes, once for every caller waiting on it. */
export type BodyCache = LoadingCache<Buffer>;

/**
 * One cache per process, shared by every build it serves. A load still in flight when other bodies
 * push it out of the cache is not cancelled: its callers still get the body, which then may or may
 * not stay cached. Without this a small cache under load answered a miss with "evicted" errors.
 */
export function createBodyCache(maxBytes = defaultCacheBytes): BodyCache {
  return new LoadingCache<Buffer>(maxBytes, (body) => body.length, new Doorkeeper(bodyAdmissionWindow));
}

/** The caches of a process, shared by every build it serves: bodies and lookup index shards, each by ETag. */
export interface StoreCaches {
  readonly bodies: BodyCache;
  readonly shards: ShardCache;
}

export function createStoreCaches(bodyBytes?: number, shardBytes?: number): StoreCaches {
  return { bodies: createBodyCache(bodyBytes), shards: createShardCache(shardBytes) };
}

/** Retry-After of a body that cannot be read from the disk: a repair takes an operator's rebuild. */
const damagedRetrySeconds = '30';

/** A store over a build on the local disk, `distDir` resolved once to the build it links to. */
export async function openLocalStore(distDir: string, { bodies: cache }: StoreCaches = createStoreCaches()): Promise<BodyStore> {
  // The build directory behind the dist link, so that a rebuild does not change files under us.
  const buildDir = await realpath(distDir).catch(() => {
    throw new StoreError('ERR_DIST_MISSING', `${distDir} does not exist: run "npm run build" first, or set DIST_DIR`);
  });
  const indexFile = path.join(buildDir, lookupIndexFileName);
  const bytes = await readFile(indexFile).catch(() => {
    throw new StoreError('ERR_DIST_MISSING', `${path.join(distDir, lookupIndexFileName)} is missing: run "npm run build" first`);
  });
  const files = new BuildFiles(buildDir);
  const unreadableShard = (file: string, problem: string, cause?: unknown) =>
    new StoreError('ERR_BODY_UNREADABLE', `${path.join(buildDir, file)}, a shard of the lookup index, ${problem}`, {}, { cause });
  const source: ShardSource = {
    open: (file) => {
      try {
        return { read: files.reader(file), lasting: true };
      } catch (error) {
        throw unreadableShard(file, 'could not be opened', error);
      }
    },
    fetch: () => Promise.resolve(),
    readWhole: async (file, entry) => {
      const shard = await readFile(path.join(buildDir, file)).catch((error: unknown) => {
        throw unreadableShard(file, 'could not be read', error);
      });
      // The name is the content's hash: a shard replaced or damaged on the disk is refused, not listed from.
      if (shard.length !== entry.size || computeEtag(shard) !== entry.etag) throw unreadableShard(file, 'is not the one its head lists');
      return shard;
    },
  };
  const { manifest, head } = openIndexHead(bytes, indexFile);
  const index = new LookupIndex(head, source, indexFile);
  /**
   * A body read from its pack in place, and checked against its ETag before it is kept or sent: a
   * pack damaged on the disk costs its lookups a 503, never a body served under another's tag.
   * It is offered to the cache, which keeps it while it has room, then only from its second
   * request on: once the cache is full, a body asked for once pushes out none asked for more.
   */
  const readPacked = (file: string, entry: PackedEntry): Buffer => {
    const body = Buffer.allocUnsafe(entry.size);
    if (files.read(entry.pack, body, entry.offset) !== entry.size) throw new Error(`${entry.pack} ends before byte ${entry.offset + entry.size}`);
    if (computeEtag(body) !== entry.etag) {
      throw new Error(
        `${file}: its bytes in ${path.join(buildDir, entry.pack)} do not hash to its ETag: the pack is damaged on the disk; \`npm run build -- --force\` writes it afresh`,
      );
    }
    cache.offer(entry.etag, body);
    return body;
  };
  return {
    manifest,
    source: buildDir,
    bodyCount: index.count,
    find: (routePath, keys) => findLookup(index, routePath, keys),
    lookups: () => index.entries(),
    lookupAt: (position) => index.lookupAt(position),
    cached: (entry) => cache.get(entry.etag),
    read: (file, entry) => {
      // Another proxy, or this one after a repair, may answer it: a retry in a while, not at once.
      const unreadable = (cause?: unknown) =>
        new StoreError('ERR_BODY_UNREADABLE', `${file} is listed in the manifest but could not be read`, { 'Retry-After': damagedRetrySeconds }, { cause });
      if (isPacked(entry)) {
        try {
          return cache.get(entry.etag) ?? readPacked(file, entry);
        } catch (error) {
          return Promise.reject(unreadable(error));
        }
      }
      return cache
        .load(entry.etag, () => readFile(path.join(buildDir, file)))
        .catch((error: unknown) => {
          throw unreadable(error);
        });
    },
    close: () => files.close(),
  };
}

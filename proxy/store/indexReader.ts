/**
 * A build's manifest and the index a request finds its body in, read in place.
 *
 * A build's lookup index (contract/lookupIndex.ts) is a head, read when a build is opened, and
 * shards, on-disk hash tables in 4 KB pages. A lookup reads the one page of its shard its path's
 * hash names with a positional read (pread(2) on a local build), so what a worker holds does not
 * grow with the build or with the keys asked: the operating system's page cache, shared by every
 * worker, is the cache. A shard's header is checked against the head when it is first opened; an entry is used
 * only if it holds the very path asked for and a strong ETag, and its pack is the one the head
 * names: no index, not even one tampered with, can make the proxy read outside the build.
 * manifest.json, the head as JSON, is for people and tools: the proxy never reads it.
 *
 * `find` is synchronous. Only a shard that must first be fetched (an origin's, not yet in the local
 * copy) makes it throw an `IndexPending` carrying the fetch: the lookup waits for it and resolves
 * again (proxy/http/lookups.ts).
 */
import {
  LookupHead,
  LookupShard,
  isLookupIndex,
  shardFileOf,
  type ManifestHead,
  type PackedEntry,
  type PositionalRead,
  type ShardEntry,
} from '../../contract/lookupIndex.ts';
import { manifestHeadSchema, missingDownloads, type ManifestEntry } from '../../contract/manifest.ts';
import type { z } from 'zod';
import { ServiceError } from '../../contract/errors.ts';
import { defaultIndexCacheMb } from '../config/config.ts';
import { LoadingCache } from './loadingCache.ts';

/** A body file and its entry: its size and ETag, and, for a lookup's body, where in a pack its bytes are. */
export interface Lookup {
  readonly file: string;
  readonly entry: ManifestEntry | PackedEntry;
}

/** A manifest and the head of its lookup index: `new LookupIndex(head, …)` serves from it. */
export interface OpenedIndex {
  readonly manifest: ManifestHead;
  readonly head: LookupHead;
}

/** A manifest that cannot be served from: not JSON, or not what the generator writes. */
export class IndexError extends ServiceError {
  constructor(message: string) {
    super('ERR_MANIFEST_INVALID', message);
  }
}

/**
 * A shard of the index must be fetched before the lookup can read it: the lookup waits for
 * `loaded` (which rejects with the StoreError that says why the shard cannot be had) and resolves
 * again. Not a failure: nothing answers a client with it.
 */
export class IndexPending extends Error {
  constructor(readonly loaded: Promise<unknown>) {
    super('a shard of the lookup index is being fetched');
  }
}

/**
 * Shard fetches one lookup may wait for: more than any lookup reads (a search its scope and about
 * twice the logarithm of its query's length, a holiday lookup the one in its answer's language). A
 * fetched shard stays at hand in the origin's local copy, so only a copy that cannot be written together
 * with an index cache too small for the load, pushing shards out before they are used, runs out.
 */
const indexWaits = 64;

/**
 * `attempt`'s answer, attempted again each time it throws IndexPending once the shard it waits for
 * is fetched: synchronous whenever every shard it needs is at hand (always, on a local build).
 */
export function whenIndexed<T>(attempt: () => T | Promise<T>, waits = 0): T | Promise<T> {
  try {
    return attempt();
  } catch (error) {
    if (!(error instanceof IndexPending)) throw error;
    if (waits >= indexWaits) {
      throw new ServiceError(
        'ERR_BODY_UNREADABLE',
        'The lookup index cache (INDEX_CACHE_MB) is too small for this load and ORIGIN_CACHE_DIR cannot be written: the shards this lookup needs were pushed out before it could use them.',
      );
    }
    return error.loaded.then(() => whenIndexed(attempt, waits + 1));
  }
}

/** Index shards' bytes kept in memory per process, by ETag, where no file of theirs is at hand (an origin without a local copy). */
export type ShardCache = LoadingCache<Buffer>;

export function createShardCache(maxBytes = defaultIndexCacheMb * 1024 * 1024): ShardCache {
  return new LoadingCache<Buffer>(maxBytes, (bytes) => bytes.length);
}

/** A shard file opened for positional reads: `lasting` when it stays readable (a file), not bytes a cache may drop. */
export interface OpenedShard {
  readonly read: PositionalRead;
  readonly lasting: boolean;
}

/** Where a build's shard files are, and how the index reads them. */
export interface ShardSource {
  /**
   * Shard file `file` (listed as `entry`) opened for positional reads, or undefined when it must
   * be fetched first (`fetch`). Throws a StoreError when it cannot be had.
   */
  open(file: string, entry: ShardEntry): OpenedShard | undefined;
  /** Brings shard file `file` at hand for `open`; rejects with the StoreError that says why it cannot. */
  fetch(file: string, entry: ShardEntry): Promise<void>;
  /** The whole shard file, checked against its size and ETag: for listing a build's bodies. */
  readWhole(file: string, entry: ShardEntry): Promise<Buffer>;
}

/**
 * A body file's path as the generator writes it: `<area>/api/<record>/<operation>[/<key>…].json`,
 * with no `.` or `..` segment.
 */
const bodyFilePattern = /^[a-z]+\/api\/[a-z]+\/[a-z0-9]+(?:\/(?!\.\.?\/)[^/]+)*\.json$/;
const etagPattern = /^"[A-Za-z0-9_-]+"$/;

function describeIssue(issue: { readonly path: readonly PropertyKey[]; readonly message: string } | undefined): string {
  return issue ? `${issue.path.map(String).join('.') || 'the manifest'}: ${issue.message}` : 'an unknown problem';
}

/**
 * The body files of a build, found by their path. A lookup reads one page of its shard
 * (contract/lookupIndex.ts), never the whole shard: a shard is opened once, its header
 * checked against the head, and read in place from then on.
 */
export class LookupIndex {
  /** Body files in the build. */
  readonly count: number;
  readonly #head: LookupHead;
  readonly #source: ShardSource;
  readonly #where: string;
  /** Shards opened over files, by number. */
  readonly #opened: (LookupShard | undefined)[];

  constructor(head: LookupHead, source: ShardSource, where: string) {
    this.count = head.count;
    this.#head = head;
    this.#source = source;
    this.#where = where;
    this.#opened = new Array(head.shards.length);
  }

  /** The shards as the head lists them. */
  get shards(): readonly ShardEntry[] {
    return this.#head.shards;
  }

  /**
   * The entry of body file `file`, or undefined. Throws IndexPending when its shard must be fetched
   * first (an origin's, not yet in the local copy), IndexError when its shard is not the one the
   * head lists.
   */
  find(file: string): PackedEntry | undefined {
    const number = this.#head.shardOf(file);
    const shard = this.#opened[number] ?? this.#open(number);
    if (shard !== undefined) return shard.find(file);
    const entry = this.#head.shards[number] as ShardEntry;
    throw new IndexPending(this.#source.fetch(shardFileOf(entry.etag), entry));
  }

  #open(number: number): LookupShard | undefined {
    const entry = this.#head.shards[number] as ShardEntry;
    const file = shardFileOf(entry.etag);
    const opened = this.#source.open(file, entry);
    if (opened === undefined) return undefined;
    let shard: LookupShard;
    try {
      shard = new LookupShard(opened.read, this.#head.shardBits, number, entry);
    } catch (error) {
      throw new IndexError(`${this.#where}: ${file} is not a shard of a lookup index written by npm run build: ${(error as Error).message}`);
    }
    if (opened.lasting) this.#opened[number] = shard;
    return shard;
  }

  /** Shard `number` read whole and checked: every path and ETag. */
  async shard(number: number): Promise<LookupShard> {
    const entry = this.#head.shards[number];
    if (entry === undefined) throw new RangeError(`no shard ${number}`);
    const file = shardFileOf(entry.etag);
    return checkShard(await this.#source.readWhole(file, entry), this.#head.shardBits, number, entry, `${this.#where}: ${file}`);
  }

  /** Every body file with its entry, a shard at a time (`only` picks the shards read). */
  async *entries(only: (shard: ShardEntry) => boolean | Promise<boolean> = () => true): AsyncGenerator<Lookup> {
    for (const [number, entry] of this.#head.shards.entries()) {
      if (entry.count === 0 || !(await only(entry))) continue;
      const shard = await this.shard(number);
      for (const [file, found] of shard.entries()) yield { file, entry: found };
    }
  }

  /** Entry `position` (0 to count − 1) in the order of the shards: for sampling a build. */
  async lookupAt(position: number): Promise<Lookup | undefined> {
    let before = 0;
    for (const [number, entry] of this.#head.shards.entries()) {
      if (position < before + entry.count) {
        const found = (await this.shard(number)).entryAt(position - before);
        return found === undefined ? undefined : { file: found[0], entry: found[1] };
      }
      before += entry.count;
    }
    return undefined;
  }
}

/** A shard's bytes opened and every path and ETag checked (`where` names it in errors). */
function checkShard(bytes: Buffer, shardBits: number, number: number, listed: ShardEntry, where: string): LookupShard {
  const invalid = (problem: string): IndexError => new IndexError(`${where} is not a shard of a lookup index written by npm run build: ${problem}`);
  let shard: LookupShard;
  try {
    shard = LookupShard.over(bytes, shardBits, number, listed);
  } catch (error) {
    throw invalid((error as Error).message);
  }
  for (let entryNumber = 0; entryNumber < shard.count; entryNumber++) {
    const found = shard.entryAt(entryNumber);
    if (found === undefined) throw invalid(`entry ${entryNumber} lies outside the shard`);
    const [file, entry] = found;
    if (!bodyFilePattern.test(file)) throw invalid(`${JSON.stringify(file.slice(0, 200))} is not a body file's path`);
    if (!etagPattern.test(entry.etag)) throw invalid(`${file}: ${JSON.stringify(entry.etag)} is not a strong ETag`);
  }
  return shard;
}

/** The first bytes of a JSON object: a manifest.json given where a lookup index belongs. */
const jsonStart = /^\s*\{/;

/** Checks a build's lookup index head and opens it (`where` names it in errors). */
export function openIndexHead(bytes: Uint8Array, where: string): OpenedIndex {
  const invalid = (problem: string): IndexError => new IndexError(`${where} is not a lookup index written by npm run build: ${problem}`);
  const buffer = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  if (!isLookupIndex(buffer) && jsonStart.test(buffer.toString('latin1', 0, Math.min(buffer.length, 64)))) {
    throw invalid('it is JSON, as manifest.json is; a proxy serves a build from its lookups.idx');
  }
  let head: LookupHead;
  try {
    head = new LookupHead(buffer);
  } catch (error) {
    throw invalid((error as Error).message);
  }
  for (const [number, shard] of head.shards.entries())
    for (const etag of [shard.etag, shard.packEtag])
      if (!etagPattern.test(etag)) throw invalid(`shard ${number}: ${JSON.stringify(etag)} is not a strong ETag`);
  let parsedHead: unknown;
  try {
    parsedHead = JSON.parse(head.headBytes().toString('utf8'));
  } catch {
    throw invalid('its head is not JSON');
  }
  const parsed = servedHeadSchema.safeParse(parsedHead);
  if (!parsed.success) throw invalid(describeIssue(parsed.error.issues[0]));
  const missing = missingDownloads(parsed.data);
  if (missing.length > 0) throw invalid(`its downloads lack ${missing.join(', ')}, which it names`);
  return { manifest: withAmbiguousOnDemand(parsed.data, head, invalid), head };
}

/** The head a proxy checks at start: all but the ambiguous lookups, which it reads when first asked. */
const servedHeadSchema = manifestHeadSchema.omit({ ambiguous: true });

/**
 * The manifest with its `ambiguous` read on first use: a world build lists tens of thousands, a
 * tenth of a worker's start to parse, and only a lookup of an ambiguous name needs them. Their
 * bytes were checked against their SHA-256 when the head was opened, so they are what the
 * generator wrote; they are checked against the schema all the same.
 */
function withAmbiguousOnDemand(head: z.infer<typeof servedHeadSchema>, index: LookupHead, invalid: (problem: string) => IndexError): ManifestHead {
  let ambiguous: ManifestHead['ambiguous'] | undefined;
  return Object.defineProperty(head, 'ambiguous', {
    enumerable: true,
    get(): ManifestHead['ambiguous'] {
      if (ambiguous === undefined) {
        const parsed = manifestHeadSchema.shape.ambiguous.safeParse(JSON.parse(index.ambiguousBytes().toString('utf8')));
        if (!parsed.success) throw invalid(`its ambiguous lookups: ${parsed.error.issues[0]?.message}`);
        ambiguous = parsed.data;
      }
      return ambiguous;
    },
  }) as ManifestHead;
}

/** A body file's path from its route path and key: the generator's bodyPath, for a key already joined. */
function fileOf(routePath: string, key: string): string {
  return key === '' ? `${routePath.slice(1)}.json` : `${routePath.slice(1)}/${key}.json`;
}

/** Finds a lookup in an index: one key as it is, several joined as in the body's path. Throws IndexPending as `find` does. */
export function findLookup(index: LookupIndex, routePath: string, keys: readonly string[]): Lookup | undefined {
  const file = fileOf(routePath, keys.length === 1 ? (keys[0] as string) : keys.join('/'));
  const entry = index.find(file);
  return entry && { file, entry };
}

/**
 * A build's manifest and the index a request finds its body in, read on demand.
 *
 * A build's lookup index (contract/lookupIndex.ts) is a head, read when a build is opened, and
 * shards, each read the first time a lookup needs it and then kept in a cache bounded in bytes
 * and shared by every build a process serves (a shard is named and cached by its content's hash,
 * so a shard a rebuild left unchanged stays warm). A shard's paths and ETags are checked when it
 * is read, before any of its entries is used: no index, not even one tampered with, can make the
 * proxy read outside the build. manifest.json, the head as JSON, is for people and tools: the
 * proxy never reads it.
 *
 * `find` answers synchronously from a shard in memory; when the shard is not, it throws an
 * `IndexPending` carrying the shard's load, and the lookup waits for it and resolves again
 * (proxy/http/lookups.ts). No request blocks on the disk, and the request path stays synchronous
 * wherever the shard is warm.
 */
import { LookupHead, LookupShard, isLookupIndex, shardFileOf, type PackedEntry, type ShardEntry } from '../../contract/lookupIndex.ts';
import { manifestHeadSchema, type Manifest, type ManifestEntry } from '../../contract/manifest.ts';
import { ServiceError } from '../../contract/errors.ts';
import { defaultIndexCacheMb } from '../config/config.ts';
import { LoadingCache } from './loadingCache.ts';

/** A body file and its entry: its size and ETag, and, for a lookup's body, where in a pack its bytes are. */
export interface Lookup {
  readonly file: string;
  readonly entry: ManifestEntry | PackedEntry;
}

/** The manifest as a proxy keeps it: everything but the list of body files, which the index holds. */
export type ServedManifest = Omit<Manifest, 'files'>;

/** A manifest and the head of its lookup index: `new LookupIndex(head, …)` serves from it. */
export interface OpenedManifest {
  readonly manifest: ServedManifest;
  readonly head: LookupHead;
}

/** A manifest that cannot be served from: not JSON, or not what the generator writes. */
export class ManifestError extends ServiceError {
  constructor(message: string) {
    super('ERR_MANIFEST_INVALID', message);
  }
}

/**
 * A shard of the index is not in memory: the lookup waits for `loaded` (which rejects with the
 * StoreError that says why the shard cannot be had) and resolves again. Not a failure: nothing
 * answers a client with it.
 */
export class IndexPending extends Error {
  constructor(readonly loaded: Promise<unknown>) {
    super('a shard of the lookup index is being read');
  }
}

/**
 * Index shards one lookup may wait for: more than any lookup reads (a search reads three, a
 * holiday lookup one per language of its country), so only an index cache too small for the load,
 * pushing shards out before they are used, runs out.
 */
const indexWaits = 32;

/**
 * `attempt`'s answer, attempted again each time it throws IndexPending once the shard it waits for
 * is read: synchronous while every shard it needs is in memory.
 */
export function whenIndexed<T>(attempt: () => T | Promise<T>, waits = 0): T | Promise<T> {
  try {
    return attempt();
  } catch (error) {
    if (!(error instanceof IndexPending)) throw error;
    if (waits >= indexWaits) {
      throw new ServiceError(
        'ERR_BODY_UNREADABLE',
        'The lookup index cache (INDEX_CACHE_MB) is too small for this load: the shards this lookup needs were pushed out before it could use them.',
      );
    }
    return error.loaded.then(() => whenIndexed(attempt, waits + 1));
  }
}

/** Index shards kept in memory per process, by ETag: shared by every build it serves. */
export type ShardCache = LoadingCache<LookupShard>;

export function createShardCache(maxBytes = defaultIndexCacheMb * 1024 * 1024): ShardCache {
  return new LoadingCache<LookupShard>(maxBytes, (shard) => shard.size);
}

/** Reads a shard file's bytes (checked against its size and ETag) from where the build is. */
export type ShardReader = (file: string, entry: ManifestEntry) => Promise<Buffer>;

/**
 * A body file's path as the generator writes it: `<area>/api/<record>/<operation>[/<key>…].json`,
 * with no `.` or `..` segment.
 */
const bodyFilePattern = /^[a-z]+\/api\/[a-z]+\/[a-z0-9]+(?:\/(?!\.\.?\/)[^/]+)*\.json$/;
const etagPattern = /^"[A-Za-z0-9_-]+"$/;

function describeIssue(issue: { readonly path: readonly PropertyKey[]; readonly message: string } | undefined): string {
  return issue ? `${issue.path.map(String).join('.') || 'the manifest'}: ${issue.message}` : 'an unknown problem';
}

/** The body files of a build, found by their path; shards are read as lookups need them. */
export class LookupIndex {
  /** Body files in the build. */
  readonly count: number;
  readonly #head: LookupHead;
  readonly #cache: ShardCache;
  readonly #read: ShardReader;
  readonly #where: string;

  constructor(head: LookupHead, cache: ShardCache, read: ShardReader, where: string) {
    this.count = head.count;
    this.#head = head;
    this.#cache = cache;
    this.#read = read;
    this.#where = where;
  }

  /** The shards as the head lists them. */
  get shards(): readonly ShardEntry[] {
    return this.#head.shards;
  }

  /** The entry of body file `file`, or undefined; throws IndexPending when its shard is not in memory. */
  find(file: string): PackedEntry | undefined {
    const number = this.#head.shardOf(file);
    const entry = this.#head.shards[number] as ShardEntry;
    const shard = this.#cache.get(entry.etag);
    if (shard !== undefined) return shard.find(file);
    throw new IndexPending(this.shard(number));
  }

  /** Shard `number`, from the cache or read and checked. */
  shard(number: number): Promise<LookupShard> {
    const entry = this.#head.shards[number];
    if (entry === undefined) return Promise.reject(new RangeError(`no shard ${number}`));
    return this.#cache.load(entry.etag, async () => {
      const file = shardFileOf(entry.etag);
      return checkShard(await this.#read(file, entry), this.#head.shardBits, number, `${this.#where}: ${file}`);
    });
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
        const shard = await this.shard(number);
        const file = shard.pathAt(position - before);
        const found = shard.entryAt(position - before);
        return file === undefined || found === undefined ? undefined : { file, entry: found };
      }
      before += entry.count;
    }
    return undefined;
  }
}

/** A shard's bytes opened and every path and ETag checked (`where` names it in errors). */
function checkShard(bytes: Buffer, shardBits: number, number: number, where: string): LookupShard {
  const invalid = (problem: string): ManifestError => new ManifestError(`${where} is not a shard of a lookup index written by npm run build: ${problem}`);
  let shard: LookupShard;
  try {
    shard = new LookupShard(bytes, shardBits, number);
  } catch (error) {
    throw invalid((error as Error).message);
  }
  if (!etagPattern.test(shard.packEtag)) throw invalid(`its pack's ${JSON.stringify(shard.packEtag)} is not a strong ETag`);
  for (let entryNumber = 0; entryNumber < shard.count; entryNumber++) {
    const file = shard.pathAt(entryNumber);
    const entry = shard.entryAt(entryNumber);
    if (file === undefined || entry === undefined) throw invalid(`entry ${entryNumber} lies outside the shard`);
    if (!bodyFilePattern.test(file)) throw invalid(`${JSON.stringify(file.slice(0, 200))} is not a body file's path`);
    if (!etagPattern.test(entry.etag)) throw invalid(`${file}: ${JSON.stringify(entry.etag)} is not a strong ETag`);
  }
  return shard;
}

/** The first bytes of a JSON object: a manifest.json given where a lookup index belongs. */
const jsonStart = /^\s*\{/;

/** Checks a build's lookup index head and opens it (`where` names it in errors). */
export function readManifest(bytes: Uint8Array, where: string): OpenedManifest {
  const invalid = (problem: string): ManifestError => new ManifestError(`${where} is not a lookup index written by npm run build: ${problem}`);
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
    if (!etagPattern.test(shard.etag)) throw invalid(`shard ${number}: ${JSON.stringify(shard.etag)} is not a strong ETag`);
  let parsedHead: unknown;
  try {
    parsedHead = JSON.parse(head.headBytes().toString('utf8'));
  } catch {
    throw invalid('its head is not JSON');
  }
  const parsed = manifestHeadSchema.safeParse(parsedHead);
  if (!parsed.success) throw invalid(describeIssue(parsed.error.issues[0]));
  return { manifest: parsed.data, head };
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

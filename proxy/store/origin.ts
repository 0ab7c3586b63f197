/**
 * Origin mode: bodies come from a static host (nginx, a bucket behind a CDN) instead of the local
 * disk. The origin is treated as unreliable: undici with keep-alive and connect, header and body
 * timeouts; one retry when a kept-alive connection turns out reset; every failure mapped to a
 * clear 502 or 504. Bodies are cached by their content hash (store.ts), so they never go stale;
 * what is revalidated with the origin's ETag is the manifest, which says which bodies are current.
 * The public files (the OpenAPI document, the docs page) take the same path as bodies: fetched
 * whole, checked against the manifest's hash, cached, then answered as local mode answers them.
 * A private bucket (s3.ts) is the same origin with every request signed.
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { buildScopedPath, computeEtag, currentBuildFile, currentBuildSchema, type ManifestEntry } from '../../contract/manifest.ts';
import { lookupIndexFileName, lookupShardsDir, readFromBytes, type PackedEntry } from '../../contract/lookupIndex.ts';
import { ServiceError } from '../../contract/errors.ts';
import { BuildFiles } from './buildFiles.ts';
import { findLookup, LookupIndex, openIndexHead, type OpenedShard, type ShardCache, type ShardSource } from './indexReader.ts';
import { bodyName, type OriginCopy } from './originCopy.ts';
import { isPacked, StoreError, type BodyStore, type StoreCaches } from './store.ts';
import { noMetrics, type Metrics } from '../observe/metrics.ts';
import { s3ErrorCode, s3ErrorHint, signedHeaders, type S3Bucket } from './s3.ts';
import { encodeKeyPath } from './sigv4.ts';

export interface OriginSettings {
  readonly url: URL;
  /** Sent with every origin request, so a private origin can refuse everyone else. */
  readonly header: readonly [name: string, value: string] | undefined;
  /** A private bucket: every request SigV4-signed for it. */
  readonly s3?: S3Bucket | undefined;
}

/**
 * Milliseconds to connect, to receive the headers, between two pieces of a body, and for the whole
 * fetch: an origin that drips a byte at a time never trips the timeout between pieces, and the
 * deadline ends it. The deadline is below HAProxy's `timeout server` (15 s, deploy/haproxy.cfg),
 * so that a client gets this proxy's 504 rather than a cut connection.
 */
export interface OriginTimeouts {
  readonly connect: number;
  readonly headers: number;
  readonly body: number;
  readonly total: number;
}

export const originTimeouts: OriginTimeouts = { connect: 2_000, headers: 5_000, body: 10_000, total: 12_000 };

/**
 * How much of an answer is read: at most `bytes` of a 200 or 206; past them, `cut` stops reading
 * and keeps the first `bytes` (the head of a whole pack sent without regard to Range), else the
 * answer is refused. Nothing is read past the limit either way: the connection is closed.
 */
export interface AnswerLimit {
  readonly bytes: number;
  readonly cut: boolean;
}

/** Files an origin store remembers as refused until their Retry-After: a bound, not a working size. */
const maxRefusedFiles = 10_000;

/** The most of a refusal's body read (an S3 error document, an error page): enough for its error code. */
const refusalBytes = 64 * 1024;
/** The most a file of no listed size may hold: the head of a build's lookup index (5.3 MB for the world), the pointer. */
export const unlistedFileBytes = 64 * 1024 * 1024;

export interface OriginStore extends BodyStore {
  /** The origin's own ETag for the root manifest, for the next conditional request (unused for a build-scoped origin). */
  readonly manifestTag: string | undefined;
  /** Where the build's files are on the origin: `builds/<buildId>/`, or '' for an origin that is a copy of dist/. */
  readonly bodyBase: string;
}

interface OriginResponse {
  readonly status: number;
  readonly etag: string | undefined;
  readonly body: Buffer;
  /** A refusal's S3 error code (`SignatureDoesNotMatch` …), when the origin is a bucket. */
  readonly code?: string | undefined;
}

/** `403`, or `403 (SignatureDoesNotMatch)` from a bucket: what a message says the origin answered. */
function answered({ status, code }: OriginResponse): string {
  return code === undefined ? String(status) : `${status} (${code})`;
}

/** What the origin answered for `file` and what that most likely means (a bucket's refusal says), else `advice`. */
function originAnswer(response: OriginResponse, file: string, advice: string): string {
  return `The data origin answered ${answered(response)} for ${file}: ${s3ErrorHint(response.code) ?? advice}`;
}

/**
 * An answer's body read piece by piece up to `limit`: whole when it fits; its first `limit.bytes`
 * when it is longer and `limit.cut` allows; else undefined, refused as soon as it is known to be
 * longer (by its Content-Length, or once a byte past the limit arrives). The rest is never read:
 * the body is destroyed, which closes its connection.
 */
async function readAtMost(
  body: AsyncIterable<Buffer> & { destroy(error?: Error): unknown },
  limit: AnswerLimit,
  contentLength: string | string[] | undefined,
): Promise<Buffer | undefined> {
  const declared = typeof contentLength === 'string' ? Number(contentLength) : Number.NaN;
  if (!limit.cut && declared > limit.bytes) {
    body.destroy();
    return undefined;
  }
  const pieces: Buffer[] = [];
  let length = 0;
  for await (const piece of body) {
    if (length + piece.length <= limit.bytes) {
      pieces.push(piece);
      length += piece.length;
      if (!(limit.cut && length === limit.bytes)) continue;
    } else if (limit.cut) {
      pieces.push(piece.subarray(0, limit.bytes - length));
      length = limit.bytes;
    }
    body.destroy();
    return length === limit.bytes && limit.cut ? Buffer.concat(pieces, length) : undefined;
  }
  return Buffer.concat(pieces, length);
}

/**
 * What a failed fetch of `file` tells a client: past the whole deadline (`totalMs`, when it was what
 * stopped the fetch), past one of undici's own, or no answer at all.
 */
function failureOf(
  error: unknown,
  file: string,
  totalMs: number | undefined,
  timeoutErrors: readonly (abstract new (...args: never[]) => Error)[],
): StoreError {
  if (totalMs !== undefined) return new StoreError('ERR_ORIGIN_TIMEOUT', `The data origin did not send ${file} within ${totalMs} ms; retry shortly.`);
  if (timeoutErrors.some((type) => error instanceof type)) {
    return new StoreError('ERR_ORIGIN_TIMEOUT', `The data origin did not answer in time (${(error as Error).message}); retry shortly.`);
  }
  return new StoreError(
    'ERR_ORIGIN_UNREACHABLE',
    `The data origin is unreachable (${(error as { code?: string }).code ?? (error as Error).message}); retry shortly.`,
  );
}

/** Where one origin's requests go: its keep-alive agent, its S3 signing settings if a bucket, its origin and base path. */
interface OriginTarget {
  readonly agent: import('undici').Agent;
  readonly s3: OriginSettings['s3'];
  readonly origin: string;
  readonly basePath: string;
}

/** One request for `file` from the origin, its answer read no further than `limitOf` its status allows. */
async function fetchOnce(
  { agent, s3, origin, basePath }: OriginTarget,
  { file, headers, limitOf, signal }: { file: string; headers: Record<string, string>; limitOf: (status: number) => AnswerLimit; signal: AbortSignal },
): Promise<OriginResponse> {
  // Encoded as S3 signs paths; the same path to nginx, which decodes it.
  const path = `${basePath}${encodeKeyPath(file)}`;
  // Signed per attempt: the signature holds the time, and S3 refuses one 15 minutes old.
  const sent = s3 ? { ...headers, ...signedHeaders(s3, { method: 'GET', url: new URL(path, origin) }) } : headers;
  // The agent asked with the origin and path (undici's request() would parse a URL per fetch, a
  // twelfth of the cold origin's garbage); it never follows redirects: a redirecting origin is a
  // misconfigured one.
  const response = await agent.request({ origin, path, method: 'GET', headers: sent, signal });
  const status = response.statusCode;
  const limit = status === 200 || status === 206 ? limitOf(status) : { bytes: refusalBytes, cut: true };
  const body = await readAtMost(response.body, limit, response.headers['content-length']);
  if (body === undefined) {
    throw new StoreError(
      'ERR_ORIGIN_ANSWER',
      `The data origin answered ${status} for ${file} with more than the ${limit.bytes} bytes this build lists for it: refused unread; is it serving another build, or ignoring Range?`,
    );
  }
  const etag = response.headers.etag;
  const code = s3 && status >= 400 ? s3ErrorCode(body) : undefined;
  return { status, etag: typeof etag === 'string' ? etag : undefined, body, code };
}

/**
 * One origin: a keep-alive agent, the request wrapper, and the mapping of failures to statuses.
 * undici is loaded here, not at start: a proxy serving a local build never needs it, and loading it
 * is a tenth of a worker's start.
 */
export async function createOriginClient(
  settings: OriginSettings,
  timeouts: OriginTimeouts = originTimeouts,
  metrics: Metrics = noMetrics,
  now: () => number = Date.now,
) {
  const { Agent, errors } = await import('undici');
  const timeoutErrors = [errors.ConnectTimeoutError, errors.HeadersTimeoutError, errors.BodyTimeoutError];
  const isReset = (error: unknown): boolean => {
    const code = (error as { code?: string }).code;
    return error instanceof errors.SocketError || code === 'ECONNRESET' || code === 'EPIPE';
  };
  const agent = new Agent({ connect: { timeout: timeouts.connect }, headersTimeout: timeouts.headers, bodyTimeout: timeouts.body, keepAliveTimeout: 30_000 });
  const base = settings.url.href.endsWith('/') ? settings.url.href : `${settings.url.href}/`;

  /** Why the origin last refused this proxy (401 or 403: a wrong secret or key), until it answers again. */
  let refusal: string | undefined;

  const { origin } = settings.url;
  const basePath = new URL(base).pathname;

  const target: OriginTarget = { agent, s3: settings.s3, origin, basePath };
  const once = (file: string, headers: Record<string, string>, limitOf: (status: number) => AnswerLimit, signal: AbortSignal) =>
    fetchOnce(target, { file, headers, limitOf, signal });

  /**
   * `file` from the origin, its answer read no further than `limit` says for its status (a body's
   * range: its size; a listed file: its size; else unlistedFileBytes), within the deadline.
   */
  const fetchFile = async (
    file: string,
    extra: Record<string, string> = {},
    limit: (status: number) => AnswerLimit = () => ({ bytes: unlistedFileBytes, cut: false }),
  ): Promise<OriginResponse> => {
    const headers = settings.header ? { [settings.header[0]]: settings.header[1], ...extra } : extra;
    const signal = AbortSignal.timeout(timeouts.total);
    try {
      let answer: OriginResponse;
      try {
        answer = await once(file, headers, limit, signal);
      } catch (error) {
        if (!isReset(error)) throw error;
        answer = await once(file, headers, limit, signal); // a kept-alive connection the origin had closed: once more
      }
      metrics.originFetch(answer.status === 200 || answer.status === 206 || answer.status === 304 ? 'ok' : `status-${answer.status}`);
      if (answer.status === 401 || answer.status === 403) refusal = originAnswer(answer, file, 'is ORIGIN_HEADER the secret it expects?');
      else if (answer.status < 500) refusal = undefined;
      return answer;
    } catch (error) {
      if (error instanceof StoreError) {
        metrics.originFetch(error.code);
        throw error;
      }
      const failure = failureOf(error, file, signal.aborted ? timeouts.total : undefined, timeoutErrors);
      metrics.originFetch(failure.code);
      throw failure;
    }
  };

  // The clock the stores of this origin read (Retry-After memories): a test's own.
  return { base, fetchFile, now, refusal: (): string | undefined => refusal, close: () => agent.close() };
}

export type OriginClient = Awaited<ReturnType<typeof createOriginClient>>;

/**
 * The origin's current build. A build-scoped origin (one that serves `builds/current.json`, see
 * contract/manifest.ts) is asked which build is current, and that build's manifest and bodies are
 * read under `builds/<buildId>/`: URLs that never change meaning, so a cache in between may keep
 * them forever and only the pointer is revalidated. An origin without the pointer (404) is read as
 * a plain copy of `dist/`, its manifest at the root, asked for conditionally. The same build
 * (the pointer naming it, or a 304 for the root manifest) returns `previous` itself. A new manifest is kept in the local copy, so that a worker can start from it while the
 * origin is down (openSavedOriginStore).
 */
export async function openOriginStore(origin: OriginClient, caches: StoreCaches, copy: OriginCopy, previous?: OriginStore): Promise<OriginStore> {
  // The pointer is a few dozen bytes: asked for whole each time and compared by the build it names,
  // not by the origin's ETag: nginx's is the modification second and size (two builds written within
  // one second would look alike), a bucket's an MD5 of the object, not the manifest's SHA-256.
  const pointer = await origin.fetchFile(currentBuildFile);
  if (pointer.status === 200) {
    const { buildId } = readPointer(pointer.body);
    if (previous?.bodyBase && previous.manifest.buildId === buildId) return previous;
    const { response, file } = await fetchIndex(origin, (name) => buildScopedPath(buildId, name));
    if (response.status !== 200) {
      throw new StoreError('ERR_ORIGIN_ANSWER', originAnswer(response, file, `is the build ${currentBuildFile} names there?`));
    }
    const fetched = { bytes: response.body, where: `the origin's ${file}`, manifestTag: undefined, scoped: true };
    const store = await openFetchedManifest(fetched, { origin, caches, copy });
    if (store.manifest.buildId !== buildId) {
      throw new StoreError('ERR_MANIFEST_INVALID', `The data origin's ${file} is the manifest of build ${store.manifest.buildId}, not of ${buildId}.`);
    }
    if (previous) await spotCheck(store);
    return store;
  }
  if (pointer.status !== 404) {
    throw new StoreError('ERR_ORIGIN_ANSWER', originAnswer(pointer, currentBuildFile, 'is it serving a build of npm run build?'));
  }
  const conditional = previous?.manifestTag && !previous.bodyBase ? { 'If-None-Match': previous.manifestTag } : {};
  const { response, file } = await fetchIndex(origin, (name) => name, conditional);
  if (response.status === 304 && previous) return previous;
  if (response.status !== 200) {
    throw new StoreError('ERR_ORIGIN_ANSWER', originAnswer(response, file, 'is it serving a build of npm run build?'));
  }
  const fetched = { bytes: response.body, where: `the origin's ${file}`, manifestTag: response.etag, scoped: false };
  const store = await openFetchedManifest(fetched, { origin, caches, copy });
  if (previous) await spotCheck(store);
  return store;
}

/** Bodies fetched from a build before a proxy serves from it: its first, its last and evenly between. */
export const spotCheckedBodies = 16;

/**
 * Reads a few of a build's bodies, and the index shards that list them, from the origin (into the
 * caches, each checked against its hash) before a proxy switches to it: a build whose pointer was written before its bodies (an
 * upload cut short, a copy tool that ignores order) is refused, and the proxy keeps the build it
 * serves. A proxy starting has no build to keep: it serves what the origin holds, and a body the
 * origin lacks is a 503 that says so.
 */
async function spotCheck(store: OriginStore): Promise<void> {
  const count = store.bodyCount;
  if (count === 0) return;
  const picks = new Set(Array.from({ length: spotCheckedBodies }, (_, index) => Math.round((index * (count - 1)) / (spotCheckedBodies - 1))));
  const incomplete = (what: string) => (error: unknown) => {
    const reason = error instanceof ServiceError ? error.message : String(error);
    throw new StoreError(
      'ERR_ORIGIN_INCOMPLETE',
      `The data origin's build ${store.manifest.buildId} is not whole: reading ${what} failed (${reason}). Not serving from it; the next poll tries again.`,
      {},
      { cause: error },
    );
  };
  for (const position of picks) {
    // Reading the entry reads its shard of the index: a shard missing is the same fault.
    const lookup = await store.lookupAt(position).catch(incomplete('its lookup index'));
    if (lookup === undefined) continue;
    const { file, entry } = lookup;
    await Promise.resolve(store.read(file, entry)).catch(incomplete(file));
  }
}

/**
 * A build's lookup index from the origin (`lookups.idx`, contract/lookupIndex.ts). `pathOf` places
 * a file name on the origin; `extra` are the request's conditional headers.
 */
async function fetchIndex(
  origin: OriginClient,
  pathOf: (name: string) => string,
  extra: Record<string, string> = {},
): Promise<{ response: OriginResponse; file: string }> {
  const file = pathOf(lookupIndexFileName);
  return { response: await origin.fetchFile(file, extra), file };
}

/** The build a pointer names, or the failure that says the pointer is not one. */
function readPointer(bytes: Buffer): { buildId: string } {
  let parsed: unknown;
  try {
    parsed = JSON.parse(bytes.toString('utf8'));
  } catch {
    parsed = undefined;
  }
  const pointer = currentBuildSchema.safeParse(parsed);
  if (!pointer.success) {
    throw new StoreError('ERR_MANIFEST_INVALID', `The data origin's ${currentBuildFile} is not {"buildId": "<build id>"} as npm run build writes it.`);
  }
  return pointer.data;
}

/** What a store of the origin's bodies is made of: the origin, the caches and the local copy. */
interface OriginParts {
  readonly origin: OriginClient;
  readonly caches: StoreCaches;
  readonly copy: OriginCopy;
}

/** A manifest's bytes as fetched or saved: where they come from (for messages), the origin's ETag of them, whether the build is scoped. */
interface ManifestBytes {
  readonly bytes: Buffer;
  readonly where: string;
  readonly manifestTag: string | undefined;
  readonly scoped: boolean;
}

/** A manifest just fetched: opened, then kept in the local copy with what revalidates it and whether its build is scoped. */
async function openFetchedManifest(fetched: ManifestBytes, parts: OriginParts): Promise<OriginStore> {
  // openIndexHead takes the bytes over, so the copy keeps its own.
  const saved = { bytes: Buffer.from(fetched.bytes), originTag: fetched.manifestTag, scoped: fetched.scoped };
  const { store, index } = storeFromManifest(fetched, parts);
  const { copy } = parts;
  void copy.saveManifest(saved);
  void keptEtags(store, index, copy).then(
    (keep) => copy.prune(keep),
    () => undefined,
  );
  return store;
}

/** The build the local copy last saved, or undefined when it holds none: for a start while the origin is down. */
export async function openSavedOriginStore(origin: OriginClient, caches: StoreCaches, copy: OriginCopy): Promise<OriginStore | undefined> {
  const saved = await copy.readManifest();
  if (!saved) return undefined;
  const where = "the saved copy of the origin's index";
  return storeFromManifest({ bytes: saved.bytes, where, manifestTag: saved.originTag, scoped: saved.scoped }, { origin, caches, copy }).store;
}

/**
 * What the saved copy keeps of a build: its index shards, public files and downloads, and the
 * bodies listed in the shards the copy holds. A body is only ever fetched through its shard, which
 * is saved first, so this is every body of the build the copy can have; reading the shards from
 * the copy alone, it costs the origin nothing however large the build.
 */
async function keptEtags({ manifest }: OriginStore, index: LookupIndex, copy: OriginCopy): Promise<Set<string>> {
  const etags = new Set<string>();
  for (const shard of index.shards) etags.add(shard.etag);
  for (const entry of Object.values(manifest.public)) etags.add(entry.etag);
  for (const entry of Object.values(manifest.downloads)) etags.add(entry.etag);
  for await (const { entry } of index.entries((shard) => copy.holds(shard.etag))) etags.add(entry.etag);
  return etags;
}

/**
 * An origin's shards, read in place from the local copy once fetched: a shard is fetched whole from
 * the origin the first time a lookup needs it, checked against its ETag and saved in the copy
 * (ORIGIN_CACHE_DIR); from then on its lookups are positional reads of that file, as on a local
 * build. A saved file is checked again once, when first opened. Until the copy holds it (or where
 * there is no copy), the shard is read from its bytes in memory, kept in the index cache
 * (INDEX_CACHE_MB).
 */
function originShards(copy: OriginCopy, memory: ShardCache, load: (file: string, entry: ManifestEntry) => Promise<Buffer>): ShardSource & { close(): void } {
  const files = copy.filesDir === undefined ? undefined : new BuildFiles(copy.filesDir);
  const saved = (etag: string): OpenedShard | undefined => {
    const name = bodyName(etag);
    if (files === undefined || copy.filesDir === undefined || name === undefined) return undefined;
    try {
      if (computeEtag(readFileSync(path.join(copy.filesDir, name))) !== etag) return undefined;
      return { read: files.reader(name), lasting: true };
    } catch {
      return undefined; // not saved yet: fetched, then read from memory
    }
  };
  return {
    open: (_file, entry) => {
      const bytes = memory.get(entry.etag);
      return saved(entry.etag) ?? (bytes === undefined ? undefined : { read: readFromBytes(bytes), lasting: false });
    },
    fetch: (file, entry) => memory.load(entry.etag, () => load(file, entry)).then(() => undefined),
    readWhole: (file, entry) => memory.load(entry.etag, () => load(file, entry)),
    close: () => files?.close(),
  };
}

function storeFromManifest(
  { bytes, where, manifestTag, scoped }: ManifestBytes,
  { origin, caches, copy }: OriginParts,
): { store: OriginStore; index: LookupIndex } {
  const { bodies: cache, shards } = caches;
  const { manifest, head } = openIndexHead(bytes, where);
  const bodyBase = scoped ? buildScopedPath(manifest.buildId, '') : '';

  // A file the origin failed to give with a Retry-After (damaged there, missing, a build being
  // switched) is refused again until that time has passed, without asking the origin: a client
  // repeating its request costs the origin one fetch per interval, not one per request.
  const refused = new Map<string, { readonly until: number; readonly error: StoreError }>();
  const load = async (file: string, entry: ManifestEntry | PackedEntry): Promise<Buffer> => {
    const known = refused.get(entry.etag);
    if (known !== undefined && known.until > origin.now()) throw known.error;
    try {
      return await loadOnce(file, entry);
    } catch (error) {
      const seconds = error instanceof StoreError ? Number(error.headers['Retry-After']) : Number.NaN;
      if (seconds > 0) {
        if (refused.size >= maxRefusedFiles) refused.clear();
        refused.set(entry.etag, { until: origin.now() + seconds * 1000, error: error as StoreError });
      }
      throw error;
    }
  };
  // Nothing reaches the client before the whole file is in and its hash checked: an origin that
  // resets or stalls halfway costs a 502 or 504 envelope, never a cut or hanging response. The
  // local copy is asked first (its bodies are checked against their ETag as well).
  const loadOnce = async (file: string, entry: ManifestEntry | PackedEntry): Promise<Buffer> => {
    const { etag } = entry;
    const kept = await copy.readBody(etag);
    if (kept) return kept;
    let body: Buffer;
    if (isPacked(entry)) {
      // A lookup's body: its bytes in its pack, asked for as a range.
      // Its size from a 206; from a 200 (an origin that ignores Range), the pack up to its end, no further.
      const response = await origin.fetchFile(`${bodyBase}${entry.pack}`, { Range: `bytes=${entry.offset}-${entry.offset + entry.size - 1}` }, (status) =>
        status === 206 ? { bytes: entry.size, cut: false } : { bytes: entry.offset + entry.size, cut: true },
      );
      checkNamedByContent(response, scoped);
      body = sliceOf(entry, response, scoped);
      checkBody(etag, { ...response, status: 200, body }, scoped);
    } else {
      const response = await origin.fetchFile(`${bodyBase}${file}`, {}, () => ({ bytes: entry.size, cut: false }));
      if (file.startsWith(`${lookupShardsDir}/`)) checkNamedByContent(response, scoped);
      body = response.body;
      if (Object.hasOwn(manifest.public, file)) checkPublicFile(file, etag, response);
      else checkBody(etag, response, scoped);
    }
    void copy.saveBody(etag, body);
    return body;
  };
  const shardSource = originShards(copy, shards, load);
  const index = new LookupIndex(head, shardSource, where);

  const store: OriginStore = {
    manifest,
    source: `${origin.base}${bodyBase}`,
    manifestTag,
    bodyBase,
    bodyCount: index.count,
    find: (routePath, keys) => findLookup(index, routePath, keys),
    lookups: () => index.entries(),
    lookupAt: (position) => index.lookupAt(position),
    cached: (entry) => cache.get(entry.etag),
    read: (file, entry) => cache.load(entry.etag, () => load(file, entry)),
    close: () => shardSource.close(),
  };
  return { store, index };
}

/**
 * A pack or an index shard the origin does not have, at the root layout: it is named by its
 * content, and the build it belongs to was whole when this proxy switched to it (spotCheck), so
 * the origin has moved to another build since. The proxy's next poll follows it; until then, a
 * 503 that says so. (Under `builds/<buildId>/` a build never changes: a file missing there is one
 * the origin lacks, checkBody's 503.)
 */
function checkNamedByContent(response: OriginResponse, scoped: boolean): void {
  if (response.status === 404 && !scoped)
    throw new StoreError('ERR_ORIGIN_SWITCHING', 'The data origin is switching builds: retry shortly.', { 'Retry-After': '1' });
}

/**
 * A body's bytes from the answer to its range of a pack: a 206 with them, or a 200 with the whole
 * pack from an origin that ignores ranges. Any other answer is checked (and refused) as a body.
 */
function sliceOf(entry: PackedEntry, response: OriginResponse, scoped: boolean): Buffer {
  if (response.status === 206) return response.body;
  if (response.status === 200 && response.body.length >= entry.offset + entry.size) return response.body.subarray(entry.offset, entry.offset + entry.size);
  if (response.status === 416) throw new StoreError('ERR_ORIGIN_SWITCHING', 'The data origin is switching builds: retry shortly.', { 'Retry-After': '1' });
  checkBody(entry.etag, response, scoped);
  return response.body;
}

function checkBody(etag: string, response: OriginResponse, scoped: boolean): void {
  const { status, body } = response;
  // The manifest lists it, so the record exists: a 404 from the origin is the origin's fault (a
  // build not wholly uploaded, a file removed), never "no such record".
  if (status === 404) {
    throw new StoreError('ERR_ORIGIN_NO_BODY', "The data origin lacks this lookup's body although its build lists it: retry shortly.", {
      'Retry-After': '5',
    });
  }
  if (status !== 200) throw new StoreError('ERR_ORIGIN_ANSWER', `The data origin answered ${answered(response)} for a body: retry shortly.`);
  if (computeEtag(body) === etag) return;
  // Never served as another body. Under builds/<buildId>/ a build's files never change: bytes that
  // do not hash to the ETag are a damaged copy there. At the root, the origin may also have moved
  // to a newer build than this manifest.
  if (scoped) {
    throw new StoreError(
      'ERR_ORIGIN_ANSWER',
      "The data origin's copy of this lookup's body is damaged (its bytes do not hash to its ETag): retry shortly; its operators should upload the build again.",
      { 'Retry-After': '5' },
    );
  }
  throw new StoreError(
    'ERR_ORIGIN_SWITCHING',
    "The data origin sent bytes that do not hash to this lookup's ETag: it is switching builds, or its copy is damaged; retry shortly.",
    { 'Retry-After': '1' },
  );
}

/**
 * A public file as the origin answered it, checked like a body. Its bytes must hash to the
 * manifest's ETag: an origin serving a damaged or foreign copy is refused with a 502 rather than
 * passed on. The origin's error page is never passed on either: the client gets the envelope.
 */
function checkPublicFile(file: string, etag: string, response: OriginResponse): void {
  const { status, body } = response;
  if (status === 404)
    throw new StoreError('ERR_ORIGIN_NO_BODY', `The data origin lacks /${file} although its build lists it: retry shortly.`, { 'Retry-After': '5' });
  if (status !== 200) throw new StoreError('ERR_ORIGIN_ANSWER', `The data origin answered ${answered(response)} for /${file}: retry shortly.`);
  if (computeEtag(body) !== etag) {
    throw new StoreError(
      'ERR_ORIGIN_ANSWER',
      `The data origin's /${file} does not match the build this service serves (its hash differs from the manifest's): the origin may be switching builds or serving a damaged copy; retry shortly.`,
    );
  }
}

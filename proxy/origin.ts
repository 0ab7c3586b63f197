/**
 * Origin mode: bodies come from a static host (nginx, a bucket behind a CDN) instead of the local
 * disk. The origin is treated as unreliable: undici with keep-alive and connect, header and body
 * timeouts; one retry when a kept-alive connection turns out reset; every failure mapped to a
 * clear 502 or 504. Bodies are cached by their content hash (store.ts), so they never go stale;
 * what is revalidated with the origin's ETag is the manifest, which says which bodies are current.
 * The public files (the OpenAPI document, the docs page) take the same path as bodies: fetched
 * whole, checked against the manifest's hash, cached, then answered as local mode answers them.
 */
import { Agent, errors, request } from 'undici';
import { computeEtag, manifestFileName } from '../contract/manifest.ts';
import { findLookup, lookupsOf, readManifest } from './manifestIndex.ts';
import type { OriginCopy } from './originCopy.ts';
import { StoreError, type BodyCache, type BodyStore } from './store.ts';
import { noMetrics, type Metrics } from './metrics.ts';

export interface OriginSettings {
  readonly url: URL;
  /** Sent with every origin request, so a private origin can refuse everyone else. */
  readonly header: readonly [name: string, value: string] | undefined;
}

/** Milliseconds to connect, to receive the headers, and between two pieces of a body. */
export interface OriginTimeouts {
  readonly connect: number;
  readonly headers: number;
  readonly body: number;
}

export const originTimeouts: OriginTimeouts = { connect: 2_000, headers: 5_000, body: 10_000 };

export interface OriginStore extends BodyStore {
  /** The origin's own ETag for the manifest, for the next conditional request. */
  readonly manifestTag: string | undefined;
}

interface OriginResponse {
  readonly status: number;
  readonly etag: string | undefined;
  readonly body: Buffer;
}

const timeoutErrors = [errors.ConnectTimeoutError, errors.HeadersTimeoutError, errors.BodyTimeoutError];

function isReset(error: unknown): boolean {
  const code = (error as { code?: string }).code;
  return error instanceof errors.SocketError || code === 'ECONNRESET' || code === 'EPIPE';
}

/** One origin: a keep-alive agent, the request wrapper, and the mapping of failures to statuses. */
export function createOriginClient(settings: OriginSettings, timeouts: OriginTimeouts = originTimeouts, metrics: Metrics = noMetrics) {
  const agent = new Agent({
    connect: { timeout: timeouts.connect },
    headersTimeout: timeouts.headers,
    bodyTimeout: timeouts.body,
    keepAliveTimeout: 30_000,
  });
  const base = settings.url.href.endsWith('/') ? settings.url.href : `${settings.url.href}/`;

  const once = async (file: string, headers: Record<string, string>): Promise<OriginResponse> => {
    // undici's request() never follows redirects: a redirecting origin is a misconfigured one.
    const response = await request(new URL(file, base), { dispatcher: agent, headers });
    const body = Buffer.from(await response.body.arrayBuffer());
    const etag = response.headers.etag;
    return { status: response.statusCode, etag: typeof etag === 'string' ? etag : undefined, body };
  };

  const fetchFile = async (file: string, extra: Record<string, string> = {}): Promise<OriginResponse> => {
    const headers = settings.header ? { [settings.header[0]]: settings.header[1], ...extra } : extra;
    try {
      let answered: OriginResponse;
      try {
        answered = await once(file, headers);
      } catch (error) {
        if (!isReset(error)) throw error;
        answered = await once(file, headers); // a kept-alive connection the origin had closed: once more
      }
      metrics.originFetch(answered.status === 200 || answered.status === 304 ? 'ok' : `status-${answered.status}`);
      return answered;
    } catch (error) {
      const failure = timeoutErrors.some((type) => error instanceof type)
        ? new StoreError('ERR_ORIGIN_TIMEOUT', `The data origin did not answer in time (${(error as Error).message}); retry shortly.`)
        : new StoreError(
            'ERR_ORIGIN_UNREACHABLE',
            `The data origin is unreachable (${(error as { code?: string }).code ?? (error as Error).message}); retry shortly.`,
          );
      metrics.originFetch(failure.code);
      throw failure;
    }
  };

  return { base, fetchFile, close: () => agent.close() };
}

export type OriginClient = ReturnType<typeof createOriginClient>;

/**
 * The origin's current build. With `previous`, the manifest is asked for conditionally: an
 * unchanged manifest (304) returns `previous` itself. A new manifest is kept in the local copy, so
 * that a worker can start from it while the origin is down (openSavedOriginStore).
 */
export async function openOriginStore(origin: OriginClient, cache: BodyCache, copy: OriginCopy, previous?: OriginStore): Promise<OriginStore> {
  const conditional = previous?.manifestTag ? { 'If-None-Match': previous.manifestTag } : {};
  const response = await origin.fetchFile(manifestFileName, conditional);
  if (response.status === 304 && previous) return previous;
  if (response.status !== 200) {
    throw new StoreError('ERR_ORIGIN_ANSWER', `The data origin answered ${response.status} for ${manifestFileName}: is it serving a build of npm run build?`);
  }
  // readManifest takes the bytes over, so the copy keeps its own.
  const saved = { bytes: Buffer.from(response.body), originTag: response.etag };
  const store = await storeFromManifest(response.body, `the origin's ${manifestFileName}`, response.etag, origin, cache, copy);
  void copy.saveManifest(saved);
  void copy.prune(etagsOf(store));
  return store;
}

/** The build the local copy last saved, or undefined when it holds none: for a start while the origin is down. */
export async function openSavedOriginStore(origin: OriginClient, cache: BodyCache, copy: OriginCopy): Promise<OriginStore | undefined> {
  const saved = await copy.readManifest();
  if (!saved) return undefined;
  return storeFromManifest(saved.bytes, `the saved copy of the origin's ${manifestFileName}`, saved.originTag, origin, cache, copy);
}

/** The ETags of every file a store's build lists: what its saved copy keeps. */
function etagsOf({ manifest, lookups }: Pick<BodyStore, 'manifest' | 'lookups'>): Set<string> {
  const etags = new Set<string>();
  for (const { entry } of lookups()) etags.add(entry.etag);
  for (const entry of Object.values(manifest.public)) etags.add(entry.etag);
  for (const entry of Object.values(manifest.downloads)) etags.add(entry.etag);
  return etags;
}

async function storeFromManifest(
  bytes: Buffer,
  where: string,
  manifestTag: string | undefined,
  origin: OriginClient,
  cache: BodyCache,
  copy: OriginCopy,
): Promise<OriginStore> {
  const { manifest, index } = await readManifest(bytes, where);

  // Nothing reaches the client before the whole file is in and its hash checked: an origin that
  // resets or stalls halfway costs a 502 or 504 envelope, never a cut or hanging response. The
  // local copy is asked first (its bodies are checked against their ETag as well).
  const load = async (file: string, etag: string): Promise<Buffer> => {
    const kept = await copy.readBody(etag);
    if (kept) return kept;
    const { status, body } = await origin.fetchFile(file);
    if (Object.hasOwn(manifest.public, file)) checkPublicFile(file, etag, status, body);
    else checkBody(etag, status, body);
    void copy.saveBody(etag, body);
    return body;
  };

  return {
    manifest,
    source: origin.base,
    manifestTag,
    find: (routePath, keys) => findLookup(index, routePath, keys),
    lookups: () => lookupsOf(index),
    cached: (entry) => cache.get(entry.etag),
    read: async (file, entry) => {
      const body = await cache.fetch(entry.etag, { context: () => load(file, entry.etag) });
      if (!body) throw new StoreError('ERR_ORIGIN_ANSWER', 'The data origin returned no body: retry shortly.');
      return body;
    },
  };
}

function checkBody(etag: string, status: number, body: Buffer): void {
  if (status === 404) throw new StoreError('ERR_ORIGIN_NO_BODY', 'The data origin has no body for this lookup: it may be switching builds; retry shortly.');
  if (status !== 200) throw new StoreError('ERR_ORIGIN_ANSWER', `The data origin answered ${status} for a body: retry shortly.`);
  // The origin may already serve a newer build than this manifest: never serve a body as another.
  if (computeEtag(body) !== etag) throw new StoreError('ERR_ORIGIN_SWITCHING', 'The data origin is switching builds: retry shortly.', { 'Retry-After': '1' });
}

/**
 * A public file as the origin answered it, checked like a body. Its bytes must hash to the
 * manifest's ETag: an origin serving a damaged or foreign copy is refused with a 502 rather than
 * passed on. The origin's error page is never passed on either: the client gets the envelope.
 */
function checkPublicFile(file: string, etag: string, status: number, body: Buffer): void {
  if (status === 404) throw new StoreError('ERR_ORIGIN_NO_BODY', `The data origin has no /${file}: it may be switching builds; retry shortly.`);
  if (status !== 200) throw new StoreError('ERR_ORIGIN_ANSWER', `The data origin answered ${status} for /${file}: retry shortly.`);
  if (computeEtag(body) !== etag) {
    throw new StoreError(
      'ERR_ORIGIN_ANSWER',
      `The data origin's /${file} does not match the build this service serves (its hash differs from the manifest's): the origin may be switching builds or serving a damaged copy; retry shortly.`,
    );
  }
}

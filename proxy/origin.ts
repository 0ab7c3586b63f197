/**
 * Origin mode: bodies come from a static host (nginx, a bucket behind a CDN) instead of the local
 * disk. The origin is treated as unreliable: undici with keep-alive and connect, header and body
 * timeouts; one retry when a kept-alive connection turns out reset; every failure mapped to a
 * clear 502 or 504. Bodies are cached by their content hash (store.ts), so they never go stale;
 * what is revalidated with the origin's ETag is the manifest, which says which bodies are current.
 */
import type { IncomingMessage } from 'node:http';
import httpProxy from 'http-proxy';
import { Agent, errors, request } from 'undici';
import { ApiError } from './envelope.ts';
import { computeEtag, manifestFileName, type Manifest } from './manifest.ts';
import { publicCacheControl, type PassThrough } from './server.ts';
import { findLookup, indexLookups, parseManifest, type BodyCache, type BodyStore } from './store.ts';

export interface OriginSettings {
  readonly url: URL;
  /** Sent with every origin request, so a private origin can refuse everyone else. */
  readonly header: readonly [name: string, value: string] | undefined;
}

export const originTimeouts = { connect: 2_000, headers: 5_000, body: 10_000 } as const;

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
export function createOriginClient(settings: OriginSettings) {
  const agent = new Agent({
    connect: { timeout: originTimeouts.connect },
    headersTimeout: originTimeouts.headers,
    bodyTimeout: originTimeouts.body,
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
      try {
        return await once(file, headers);
      } catch (error) {
        if (!isReset(error)) throw error;
        return await once(file, headers); // a kept-alive connection the origin had closed: once more
      }
    } catch (error) {
      if (timeoutErrors.some((type) => error instanceof type)) {
        throw new ApiError(504, `The data origin did not answer in time (${(error as Error).message}); retry shortly.`);
      }
      throw new ApiError(502, `The data origin is unreachable (${(error as { code?: string }).code ?? (error as Error).message}); retry shortly.`);
    }
  };

  return { base, fetchFile, close: () => agent.close() };
}

export type OriginClient = ReturnType<typeof createOriginClient>;

/**
 * The origin's current build. With `previous`, the manifest is asked for conditionally: an
 * unchanged manifest (304) returns `previous` itself.
 */
export async function openOriginStore(origin: OriginClient, cache: BodyCache, previous?: OriginStore): Promise<OriginStore> {
  const conditional = previous?.manifestTag ? { 'If-None-Match': previous.manifestTag } : {};
  const response = await origin.fetchFile(manifestFileName, conditional);
  if (response.status === 304 && previous) return previous;
  if (response.status !== 200) {
    throw new ApiError(502, `The data origin answered ${response.status} for ${manifestFileName}: is it serving a build of npm run build?`);
  }
  const manifest: Manifest = parseManifest(response.body.toString('utf8'), `the origin's ${manifestFileName}`);
  const index = indexLookups(manifest);

  const load = async (file: string, etag: string): Promise<Buffer> => {
    const { status, body } = await origin.fetchFile(file);
    if (status === 404) throw new ApiError(404, 'The data origin has no body for this lookup: it may be switching builds; retry shortly.');
    if (status !== 200) throw new ApiError(502, `The data origin answered ${status} for a body: retry shortly.`);
    // The origin may already serve a newer build than this manifest: never serve a body as another.
    if (computeEtag(body) !== etag) throw new ApiError(503, 'The data origin is switching builds: retry shortly.', { 'Retry-After': '1' });
    return body;
  };

  return {
    manifest,
    source: origin.base,
    manifestTag: response.etag,
    find: (routePath, keys) => findLookup(index, routePath, keys),
    cached: (entry) => cache.get(entry.etag),
    read: async (file, entry) => {
      const body = await cache.fetch(entry.etag, { context: () => load(file, entry.etag) });
      if (!body) throw new ApiError(502, 'The data origin returned no body: retry shortly.');
      return body;
    },
  };
}

/**
 * Origin mode streams the public files (the OpenAPI document, the docs page's assets) straight
 * from the origin with http-proxy: plain pass-through, no envelope, no cache of ours. Only files
 * the manifest lists as public reach it (server.ts), under their exact path; the client's
 * Authorization and Cookie headers are not forwarded.
 */
export function createPassThrough(settings: OriginSettings): PassThrough {
  const proxy = httpProxy.createProxyServer({
    target: settings.url.href,
    changeOrigin: true,
    proxyTimeout: originTimeouts.body,
    headers: settings.header ? { [settings.header[0]]: settings.header[1] } : {},
    // The origin's answer is looked at before anything reaches the client: see below.
    selfHandleResponse: true,
  });
  const failures = new WeakMap<IncomingMessage, (error: ApiError) => void>();
  proxy.on('proxyRes', (originResponse, request, response) => {
    const status = originResponse.statusCode ?? 502;
    if (status !== 200 && status !== 304) {
      // An origin's error page is never passed on (nor cached): the client gets the envelope.
      originResponse.resume();
      failures.get(request)?.(
        status === 404
          ? new ApiError(404, 'The data origin has no such file: it may be switching builds; retry shortly.')
          : new ApiError(502, `The data origin answered ${status}; retry shortly.`),
      );
      return;
    }
    for (const name of passedHeaders) {
      const value = originResponse.headers[name];
      if (value !== undefined) response.setHeader(name, value);
    }
    // Public files carry the same caching policy in both modes, whatever the origin says.
    response.setHeader('Cache-Control', publicCacheControl);
    response.writeHead(status);
    originResponse.pipe(response);
  });
  return (request, response, file, fail) => {
    delete request.headers.authorization;
    delete request.headers.cookie;
    request.url = `/${file}`;
    failures.set(request, fail);
    proxy.web(request, response, {}, (error: NodeJS.ErrnoException) => {
      const timedOut = error.code === 'ETIMEDOUT' || error.code === 'ESOCKETTIMEDOUT';
      fail(
        timedOut
          ? new ApiError(504, 'The data origin did not answer in time; retry shortly.')
          : new ApiError(502, `The data origin is unreachable (${error.code ?? error.message}); retry shortly.`),
      );
    });
  };
}

/** What a public file's response takes from the origin's; the rest is ours. */
const passedHeaders = ['content-type', 'content-length', 'content-encoding', 'etag', 'last-modified', 'vary'];

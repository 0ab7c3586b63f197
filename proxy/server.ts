/**
 * The request path: method → auth → route → parameters → key → body → envelope → response.
 * Node's http only; every failure becomes an ApiError rendered by sendFailure.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { LRUCache } from 'lru-cache';
import { authorize, type Authenticate } from './auth.ts';
import type { Config } from './config.ts';
import { encodeResponse, type EncodedBody } from './compression.ts';
import { allowedMethods, guardEdge, methodNotAllowed, refuseMalformed, watchExchange } from './edge.ts';
import { ApiError, cutEcho, newGlobalId, successHead, successTail, wrapFailure, wrapSuccess } from './envelope.ts';
import { expectedForms, normaliseKey } from './keys.ts';
import type { Logger } from './log.ts';
import { chooseEncoding, corsHeaders, matchesIfNoneMatch, noCorsHeaders, preflightHeaders, type CorsPolicy } from './negotiation.ts';
import { findRoute, recordLabels, type Route } from './routes.ts';
import type { Lookup } from './manifestIndex.ts';
import type { BodyStore } from './store.ts';

const jsonType = 'application/json; charset=utf-8';
/**
 * Responses are token-gated, so no shared cache may keep them (`private`); a client may reuse one
 * for a minute, then revalidates with If-None-Match and usually gets a bodiless 304.
 */
export const cacheControl = 'private, max-age=60';
/** The OpenAPI document and the docs page are public and change only with a build. */
export const publicCacheControl = 'public, max-age=300';

export interface ServerDependencies {
  /** The build to answer from: looked up per request, so a new build takes over at once. */
  readonly store: () => BodyStore;
  readonly authenticate: Authenticate;
  readonly scopes: Config['auth']['scopes'];
  readonly cors: CorsPolicy;
  readonly log: Logger;
}

function echo(value: string): string {
  return JSON.stringify(cutEcho(value));
}

/**
 * Query parameters by lower-cased name, as ASP.NET-style clients send `countryid` or `CountryId`.
 * A query with nothing to decode (no `%`, no `+`: nearly all of them) is split by hand; any other
 * goes through URLSearchParams, so values always decode exactly as the WHATWG URL standard says.
 */
export function collectParams(query: string): Map<string, string[]> {
  const params = new Map<string, string[]>();
  if (query.includes('%') || query.includes('+')) {
    for (const [name, value] of new URLSearchParams(query)) addParam(params, name, value);
    return params;
  }
  for (const pair of query.split('&')) {
    if (pair === '') continue;
    const equals = pair.indexOf('=');
    if (equals === -1) addParam(params, pair, '');
    else addParam(params, pair.slice(0, equals), pair.slice(equals + 1));
  }
  return params;
}

function addParam(params: Map<string, string[]>, name: string, value: string): void {
  const key = name.toLowerCase();
  const values = params.get(key);
  if (values) values.push(value);
  else params.set(key, [value]);
}

interface ResolvedKeys {
  readonly keys: string[];
  /** The values as the client wrote them, for messages. */
  readonly given: string[];
}

/** The route's keys from the query, or the ApiError that says which parameter is wrong and how. */
function resolveKeys(route: Route, query: string, store: BodyStore): ResolvedKeys {
  const params = collectParams(query);
  const given: string[] = [];
  const keys = route.params.map((param) => {
    const values = params.get(param.name.toLowerCase()) ?? [];
    const expected = expectedForms[param.kind];
    if (values.length === 0) throw new ApiError(400, `Missing query parameter ${param.name}: expected ${expected}.`);
    if (values.length > 1) {
      throw new ApiError(400, `Query parameter ${param.name} is given ${values.length} times: give it once, as ${expected}.`);
    }
    const raw = values[0] ?? '';
    const result = normaliseKey(param.kind, raw);
    if (!result.ok) throw new ApiError(400, `Query parameter ${param.name} is ${echo(raw)}: expected ${result.expected}.`);
    if (param.kind === 'year') {
      const { first, last } = store.manifest.holidayYears;
      const year = Number(result.key);
      if (year < first || year > last) {
        throw new ApiError(404, `${param.name} ${year} is outside the years this service holds: ${first} to ${last}.`);
      }
    }
    given.push(raw);
    return result.key;
  });
  return { keys, given };
}

function notFoundMessage(route: Route, given: readonly string[]): string {
  const [first] = route.params;
  if (route.parent && first) {
    return `No ${recordLabels[route.parent.record]} has ${route.parent.field} ${echo(given[0] ?? '')}.`;
  }
  const criteria = route.params.map((param, position) => `${param.name} ${echo(given[position] ?? '')}`).join(' and ');
  return `No ${recordLabels[route.record]} has ${criteria}.`;
}

function send(response: http.ServerResponse, method: string, status: number, headers: http.OutgoingHttpHeaders, body: Buffer): void {
  response.writeHead(status, { 'Content-Type': jsonType, 'Content-Length': body.length, ...headers });
  response.end(method === 'HEAD' ? undefined : body);
}

/**
 * A 200 in pieces, never copied into one buffer: Node corks the socket for the tick, so the
 * headers and every piece leave in one writev (and a string first piece joins the header block).
 */
function sendEncoded(response: http.ServerResponse, method: string, contentType: string, headers: http.OutgoingHttpHeaders, { chunks, length, coding }: EncodedBody): void {
  // The request's own headers object, completed here rather than copied.
  headers['Content-Type'] = contentType;
  headers['Content-Length'] = length;
  if (coding !== 'identity') headers['Content-Encoding'] = coding;
  response.writeHead(200, headers);
  if (method === 'HEAD') return void response.end();
  const last = chunks.length - 1;
  for (let index = 0; index < last; index++) response.write(chunks[index]);
  response.end(chunks[last]);
}

/** Service endpoints, without a token: liveness for orchestrators, readiness for load balancers. */
function answerProbe(pathname: string, deps: ServerDependencies): Record<string, unknown> | undefined {
  if (pathname === '/healthz') return { status: 'live' };
  if (pathname === '/readyz') return { status: 'ready', buildId: deps.store().manifest.buildId };
  return undefined;
}

/** The public file a path names (`/docs` is `docs/index.html`); undefined for every other path. */
function publicFileOf(pathname: string): string | undefined {
  if (pathname === '/openapi.json') return 'openapi.json';
  if (pathname === '/docs' || pathname === '/docs/') return 'docs/index.html';
  return pathname.startsWith('/docs/') ? pathname.slice(1) : undefined;
}

/**
 * The OpenAPI document and the docs page: as they are, no token, cacheable by anyone. Read through
 * the store in both modes, so origin mode answers only a whole file whose hash matches the manifest.
 */
async function answerPublicFile(
  request: http.IncomingMessage,
  response: http.ServerResponse,
  file: string,
  common: Record<string, string>,
  deps: ServerDependencies,
): Promise<void> {
  const method = request.method ?? 'GET';
  const store = deps.store();
  const entry = store.manifest.public[file];
  if (!entry) throw new ApiError(404, `No file at ${echo(`/${file}`)}: the documentation is at /docs and /openapi.json.`);
  const headers: http.OutgoingHttpHeaders = { ETag: entry.etag, 'Cache-Control': publicCacheControl, Vary: 'Accept-Encoding', ...common };
  if (matchesIfNoneMatch(request.headers['if-none-match'], entry.etag)) {
    response.writeHead(304, headers);
    response.end();
    return;
  }
  const wanted = method === 'GET' ? chooseEncoding(request.headers['accept-encoding']) : 'identity';
  sendEncoded(response, method, entry.contentType, headers, await encodeResponse('', await store.read(file, entry), '', entry.etag, wanted));
}

/** What /meta tells an authenticated client about the build it is talking to. */
function describeBuild(store: BodyStore): Record<string, unknown> {
  const { buildId, builtAt, dataVersion, counts, holidayYears } = store.manifest;
  return { buildId, builtAt, dataVersion, counts, holidayYears };
}

/**
 * Runs `next` on a value now, or when its promise settles. The request path awaits nothing that is
 * already there: an API key, a cached JWT, a cached body and an identity or stitched-gzip response
 * are all answered synchronously, without a microtask in between.
 */
function then<T>(value: T | Promise<T>, next: (value: T) => void | Promise<void>): void | Promise<void> {
  return value instanceof Promise ? value.then(next) : next(value);
}

/** What every response carries besides its own headers: its request id, and CORS where allowed. */
function commonHeaders(globalId: string, cors: Readonly<Record<string, string>>): Record<string, string> {
  return { 'X-Request-Id': globalId, ...cors };
}

/** `addressmanagement` or `financemanagement`: what a scope guards. */
function areaOf(route: Route): string {
  return route.path.slice(1, route.path.indexOf('/', 1));
}

interface ResolvedTarget {
  readonly route: Route;
  readonly found: Lookup;
}

/** Targets longer than this are resolved every time (no client of this API sends one). */
const maxRememberedTarget = 512;
const rememberedTargets = 10_000;

/**
 * Request targets (path and query, exactly as sent) already resolved against the current build:
 * a repeated request skips parsing, normalising and finding its body. Only lookups that found a
 * body are remembered; any error is worked out again each time. A new build forgets them all.
 */
export class TargetMemo {
  #store: BodyStore | undefined;
  readonly #targets = new LRUCache<string, ResolvedTarget>({ max: rememberedTargets });

  /** What `target` resolved to in `store`, if it was remembered; a new store forgets every target. */
  get(store: BodyStore, target: string): ResolvedTarget | undefined {
    if (store === this.#store) return this.#targets.get(target);
    this.#targets.clear();
    this.#store = store;
    return undefined;
  }

  /** Remembers what `target` resolved to in the store last passed to get(). */
  remember(target: string, resolved: ResolvedTarget): ResolvedTarget {
    if (target.length <= maxRememberedTarget) this.#targets.set(target, resolved);
    return resolved;
  }
}

function answer(
  request: http.IncomingMessage,
  response: http.ServerResponse,
  globalId: string,
  pathname: string,
  query: string,
  deps: ServerDependencies,
  targets: TargetMemo,
): void | Promise<void> {
  const method = request.method ?? 'GET';
  const cors = corsHeaders(deps.cors, request.headers.origin);
  if (method === 'OPTIONS') {
    response.writeHead(204, { Allow: allowedMethods, ...commonHeaders(globalId, cors), ...preflightHeaders(deps.cors, request.headers.origin) });
    response.end();
    return;
  }
  if (method !== 'GET' && method !== 'HEAD') {
    throw methodNotAllowed(method);
  }
  const probe = answerProbe(pathname, deps);
  if (probe) return send(response, method, 200, { 'Cache-Control': 'no-store', ...commonHeaders(globalId, cors) }, wrapSuccess(globalId, Buffer.from(JSON.stringify(probe))));
  const publicFile = publicFileOf(pathname);
  if (publicFile) return answerPublicFile(request, response, publicFile, commonHeaders(globalId, cors), deps);
  return then(deps.authenticate(request.headers.authorization), (principal) => {
    const store = deps.store();
    if (pathname === '/meta') {
      return send(response, method, 200, { 'Cache-Control': 'no-store', ...commonHeaders(globalId, cors) }, wrapSuccess(globalId, Buffer.from(JSON.stringify(describeBuild(store)))));
    }
    const target = request.url ?? pathname;
    let resolved = targets.get(store, target);
    if (resolved) {
      authorize(principal, areaOf(resolved.route), deps.scopes);
    } else {
      const route = findRoute(pathname);
      if (!route) {
        throw new ApiError(404, `No operation at ${echo(pathname)}: paths look like /addressmanagement/api/country/getall (see the README).`);
      }
      // The scope first: a token without it learns nothing about the keys it sent.
      authorize(principal, areaOf(route), deps.scopes);
      const { keys, given } = resolveKeys(route, query, store);
      const found = store.find(route.path, keys);
      if (!found) throw new ApiError(404, notFoundMessage(route, given));
      resolved = targets.remember(target, { route, found });
    }
    const { file, entry } = resolved.found;

    // Built in one literal (this is every lookup's path); the CORS headers added only when there are any.
    const headers: http.OutgoingHttpHeaders = {
      ETag: entry.etag,
      'Cache-Control': cacheControl,
      'X-Data-Version': store.manifest.dataVersion,
      Vary: deps.cors.origins === '*' ? 'Accept-Encoding' : 'Accept-Encoding, Origin',
      'X-Request-Id': globalId,
    };
    if (cors !== noCorsHeaders) Object.assign(headers, cors);
    if (matchesIfNoneMatch(request.headers['if-none-match'], entry.etag)) {
      response.writeHead(304, headers);
      response.end();
      return;
    }
    const encoding = method === 'GET' ? chooseEncoding(request.headers['accept-encoding']) : 'identity';
    return then(store.cached(entry) ?? store.read(file, entry), (body) =>
      then(encodeResponse(successHead(globalId), body, successTail, entry.etag, encoding), (encoded) => sendEncoded(response, method, jsonType, headers, encoded)),
    );
  });
}

/** The one place a failure is written: the envelope, its status, and headers that say why. */
function sendFailure(response: http.ServerResponse, method: string, globalId: string, origin: string | undefined, error: ApiError, deps: ServerDependencies): void {
  const headers = { 'Cache-Control': 'no-store', 'X-Request-Id': globalId, ...corsHeaders(deps.cors, origin), ...error.headers };
  send(response, method, error.status, headers, wrapFailure(globalId, error.message));
}

/** Any failure of a request: an ApiError as it says, anything else logged and answered 503. */
function fail(request: http.IncomingMessage, response: http.ServerResponse, globalId: string, error: unknown, deps: ServerDependencies): void {
  const method = request.method ?? 'GET';
  if (error instanceof ApiError) return sendFailure(response, method, globalId, request.headers.origin, error, deps);
  // Not a client's doing: a body file that vanished, a disk error. Logged, and answered 503.
  deps.log.error({ globalId, error: (error as Error).message, stack: (error as Error).stack }, 'request failed');
  if (response.headersSent) return void response.destroy();
  sendFailure(response, method, globalId, request.headers.origin, new ApiError(503, 'The data is temporarily unavailable: retry shortly.'), deps);
}

export function createRequestListener(deps: ServerDependencies): http.RequestListener {
  // Decided once: with request lines off, no request pays for a listener or a clock read.
  const logRequests = deps.log.isLevelEnabled('info');
  const targets = new TargetMemo();
  return (request, response) => {
    const globalId = newGlobalId();
    // The target is split by hand: `new URL` would read `//host/x` as another host's `/x`.
    const target = request.url ?? '/';
    const queryStart = target.indexOf('?');
    const pathname = queryStart === -1 ? target : target.slice(0, queryStart);
    const query = queryStart === -1 ? '' : target.slice(queryStart + 1);
    if (logRequests) {
      const started = performance.now();
      response.once('close', () => {
        deps.log.info({ method: request.method, path: target, status: response.statusCode, ms: Math.round((performance.now() - started) * 100) / 100, globalId });
      });
    }
    watchExchange(request, response);
    try {
      refuseMalformed(request);
      answer(request, response, globalId, pathname, query, deps, targets)?.catch((error: unknown) => fail(request, response, globalId, error, deps));
    } catch (error) {
      fail(request, response, globalId, error, deps);
    }
  };
}

export interface ClientTimeouts {
  readonly headersMs: number;
  readonly requestMs: number;
  readonly keepAliveMs: number;
  readonly checkEveryMs: number;
  /** How long a refused client that does not close its side may stay silent before it is cut off. */
  readonly lingerMs?: number;
}

/** Slow clients are cut off: headers within 10 s, a whole request within 30 s (checked every second). */
export const clientTimeouts = { headersMs: 10_000, requestMs: 30_000, keepAliveMs: 5_000, checkEveryMs: 1_000, lingerMs: 5_000 } as const satisfies ClientTimeouts;
/** In-flight requests get this long to finish on SIGTERM before their connections are closed. */
export const shutdownGraceMs = 10_000;

export interface RunningServer {
  readonly server: http.Server;
  readonly url: string;
  /** Stops accepting connections, lets in-flight requests finish (up to the grace period), then resolves. */
  close(): Promise<void>;
}

export function startServer(deps: ServerDependencies, port: number, host: string, timeouts: ClientTimeouts = clientTimeouts): Promise<RunningServer> {
  const listener = createRequestListener(deps);
  const server = http.createServer(
    {
      requestTimeout: timeouts.requestMs,
      headersTimeout: timeouts.headersMs,
      connectionsCheckingInterval: timeouts.checkEveryMs,
      // Whatever NODE_OPTIONS says: a lenient parser is a request-smuggling vector.
      insecureHTTPParser: false,
      // Host is checked by refuseMalformed, which answers with the envelope rather than Node's bare 400.
      requireHostHeader: false,
    },
    listener,
  );
  server.keepAliveTimeout = timeouts.keepAliveMs;
  guardEdge(server, listener, { headersMs: timeouts.headersMs, requestMs: timeouts.requestMs, lingerMs: timeouts.lingerMs ?? clientTimeouts.lingerMs });
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => {
      const address = server.address() as AddressInfo;
      const shownHost = address.family === 'IPv6' ? `[${address.address}]` : address.address;
      resolve({
        server,
        url: `http://${shownHost}:${address.port}`,
        close: () =>
          new Promise((done) => {
            const force = setTimeout(() => server.closeAllConnections(), shutdownGraceMs);
            force.unref();
            server.close(() => {
              clearTimeout(force);
              done();
            });
            server.closeIdleConnections();
          }),
      });
    });
  });
}

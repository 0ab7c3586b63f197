/**
 * The request path: method → probe or public file → auth → route → parameters → key → body →
 * envelope → response. Every failure goes to sendFailure (failure.ts), the one place that answers
 * one.
 */
import type http from 'node:http';
import { newGlobalId, successHead, successTail, wrapSuccess } from '../../contract/envelope.ts';
import { ServiceError } from '../../contract/errors.ts';
import { allowedMethods, cacheControl, jsonType, noStore, varyOf } from '../../contract/http.ts';
import { findRoute, routeParts, routes, type Route } from '../../contract/routes.ts';
import type { Admission } from '../auth/admission.ts';
import { authorize } from '../auth/authenticate.ts';
import type { Config } from '../config/config.ts';
import { codingOf, encodeResponse } from './compression.ts';
import { requestLineWriter, type Logger } from '../observe/log.ts';
import { noMetrics, type Metrics } from '../observe/metrics.ts';
import { chooseEncoding, codedEtag, corsHeaders, matchesIfNoneMatch, noCorsHeaders, preflightHeaders, type CorsPolicy } from './negotiation.ts';
import type { Lookup } from '../store/manifestIndex.ts';
import type { RateLimitFields } from '../auth/rateLimits.ts';
import type { BodyStore } from '../store/store.ts';
import { methodNotAllowed, refuseMalformed, watchExchange } from './edge.ts';
import { sendFailure } from './failure.ts';
import { answerExport, resolveDownload } from './downloads.ts';
import { describeBuild, probeBody } from './probes.ts';
import { answerPublicFile, publicFileOf } from './publicFiles.ts';
import { chooseByAcceptLanguage, resolveLanguage } from './languages.ts';
import { echo, notFound, resolveKeys } from './query.ts';
import { commonHeaders, send, sendEncoded, sendNotModified, whenReady } from './respond.ts';
import { TargetMemo } from './targets.ts';
import { requestIdsOf, traceOf, type RequestIds } from './tracing.ts';

export interface ServerDependencies {
  /** The build to answer from: looked up per request, so a new build takes over at once. */
  readonly store: () => BodyStore;
  /** The token check and the rate limits. */
  readonly admission: Admission;
  readonly scopes: Config['auth']['scopes'];
  readonly cors: CorsPolicy;
  readonly log: Logger;
  /** Counted per request when METRICS_PORT is set; noMetrics otherwise. */
  readonly metrics: Metrics;
  /** Why /readyz should answer 503 (live.ts), or undefined when ready. */
  readonly notReady?: () => string | undefined;
}

/** `addressmanagement` or `financemanagement`, what a scope guards: worked out once per route. */
const areas = new Map(routes.map((route) => [route, routeParts(route).area]));
const areaOf = (route: Route): string => areas.get(route) ?? routeParts(route).area;

/** What the listener works out once: the targets it has resolved, and the Vary of its answers. */
interface ListenerState {
  readonly targets: TargetMemo;
  readonly lookupVary: string;
  /** The Vary of a lookup whose names come in several languages: Accept-Language may choose them. */
  readonly languageVary: string;
  readonly publicVary: string;
  /** True once the process has begun to stop (RunningServer.drain). */
  readonly draining: () => boolean;
}

function answer(
  request: http.IncomingMessage,
  response: http.ServerResponse,
  ids: RequestIds,
  pathname: string,
  query: string,
  deps: ServerDependencies,
  state: ListenerState,
): void | Promise<void> {
  const { globalId, requestId } = ids;
  const { targets, publicVary } = state;
  const method = request.method ?? 'GET';
  const cors = corsHeaders(deps.cors, request.headers.origin);
  if (method === 'OPTIONS') {
    response.writeHead(204, {
      Allow: allowedMethods,
      ...commonHeaders(requestId, cors),
      ...preflightHeaders(deps.cors, request.headers.origin, request.headers['access-control-request-headers']),
    });
    response.end();
    return;
  }
  if (method !== 'GET' && method !== 'HEAD') {
    throw methodNotAllowed(method);
  }
  // Stopping comes first: a proxy on its way out is not ready, whatever its origin says.
  const unready = pathname === '/readyz' && !state.draining() ? deps.notReady?.() : undefined;
  if (unready !== undefined) throw new ServiceError('ERR_NOT_READY', `Not ready: ${unready}`);
  const probe = probeBody(pathname, deps.store, state.draining());
  if (probe)
    return send(
      response,
      method,
      200,
      { 'Cache-Control': noStore, ...commonHeaders(requestId, cors) },
      wrapSuccess(globalId, Buffer.from(JSON.stringify(probe))),
    );
  const publicFile = publicFileOf(pathname);
  if (publicFile) return answerPublicFile(request, response, publicFile, { ...commonHeaders(requestId, cors), Vary: publicVary }, deps.store());
  return whenReady(deps.admission.authenticate(request), (principal) => {
    const store = deps.store();
    if (pathname === '/meta') {
      return whenReady(deps.admission.admit(principal), (limits) =>
        send(
          response,
          method,
          200,
          { 'Cache-Control': noStore, ...commonHeaders(requestId, cors), ...limits },
          wrapSuccess(globalId, Buffer.from(JSON.stringify(describeBuild(store)))),
        ),
      );
    }
    const target = request.url ?? pathname;
    let resolved = targets.get(store, target);
    if (resolved) {
      authorize(principal, areaOf(resolved.route), deps.scopes);
    } else {
      const route = findRoute(pathname);
      if (!route) {
        const download = resolveDownload(pathname, query, store, principal, deps.scopes);
        if (download) {
          return whenReady(deps.admission.admit(principal), (limits) =>
            download.kind === 'file'
              ? answerExport(request, response, ids, cors, deps.cors, store, download, limits)
              : answerLookup(request, response, ids, cors, store, download.lookup, limits, state, deps),
          );
        }
        throw new ServiceError(
          'ERR_NO_OPERATION',
          `No operation at ${echo(pathname)}: paths look like /addressmanagement/api/country/getall (every operation is listed at /docs).`,
        );
      }
      // The scope first: a token without it learns nothing about the keys it sent.
      authorize(principal, areaOf(route), deps.scopes);
      const { keys, given, params } = resolveKeys(route, query, store);
      const found = store.find(route.path, keys);
      if (!found) throw notFound(route, given);
      resolved = targets.remember(target, route.languages ? resolveLanguage(route, route.languages, params, keys, found, store) : { route, found });
    }
    const lookup = resolved;
    return whenReady(deps.admission.admit(principal), (limits) => {
      // Chosen once the request is let in: a refused one costs no header parsing.
      const answered = lookup.languages ? chooseByAcceptLanguage(request.headers['accept-language'], lookup.languages) : undefined;
      const language: Language | undefined = lookup.route.languages ? { tag: answered?.tag ?? lookup.language } : undefined;
      return answerLookup(request, response, ids, cors, store, answered?.found ?? lookup.found, limits, state, deps, language);
    });
  });
}

/** What the envelope adds to a body, in bytes: the same for every response (a globalId is a UUID). */
const envelopeBytes = successHead(newGlobalId()).length + successTail.length;

/** A lookup whose names come in several languages: the language of its answer, where it has names. */
interface Language {
  readonly tag: string | undefined;
}

/** A lookup's answer once it is let in: 304, or the body in the envelope, encoded as asked. */
function answerLookup(
  request: http.IncomingMessage,
  response: http.ServerResponse,
  { globalId, requestId }: RequestIds,
  cors: Readonly<Record<string, string>>,
  store: BodyStore,
  { file, entry }: Lookup,
  limits: RateLimitFields | undefined,
  { lookupVary, languageVary }: ListenerState,
  deps: ServerDependencies,
  language?: Language,
): void | Promise<void> {
  const method = request.method ?? 'GET';
  // Built in one literal (this is every lookup's path), one shape with a budget and one without;
  // the CORS headers added only when there are any.
  const headers: http.OutgoingHttpHeaders =
    limits === undefined
      ? { ETag: entry.etag, 'Cache-Control': cacheControl, 'X-Data-Version': store.manifest.dataVersion, Vary: lookupVary, 'X-Request-Id': requestId }
      : {
          ETag: entry.etag,
          'Cache-Control': cacheControl,
          'X-Data-Version': store.manifest.dataVersion,
          Vary: lookupVary,
          'X-Request-Id': requestId,
          'RateLimit-Policy': limits['RateLimit-Policy'],
          RateLimit: limits.RateLimit,
        };
  if (cors !== noCorsHeaders) Object.assign(headers, cors);
  if (language) {
    headers.Vary = languageVary;
    if (language.tag !== undefined) headers['Content-Language'] = language.tag;
  }
  const encoding = method === 'GET' ? chooseEncoding(request.headers['accept-encoding']) : 'identity';
  if (matchesIfNoneMatch(request.headers['if-none-match'], entry.etag)) {
    headers.ETag = codedEtag(entry.etag, codingOf(encoding, envelopeBytes + entry.size));
    return sendNotModified(response, headers);
  }
  const cached = store.cached(entry);
  deps.metrics.bodyCache(cached !== undefined);
  return whenReady(cached ?? store.read(file, entry), (body) =>
    whenReady(encodeResponse(successHead(globalId), body, successTail, entry.etag, encoding), (encoded) =>
      sendEncoded(response, method, jsonType, headers, encoded),
    ),
  );
}

const arrival = Symbol('arrival');
const countedPath = Symbol('countedPath');
const exchangeIds = Symbol('exchangeIds');
/** A response whose answer is counted for /metrics, or logged, when it finishes: what that needs, kept on it. */
type WatchedResponse = http.ServerResponse & { [arrival]: number; [countedPath]: string; [exchangeIds]: RequestIds };

export function createRequestListener(deps: ServerDependencies, draining: () => boolean = () => false): http.RequestListener {
  // Decided once: with request lines off, no request pays for a listener or a clock read.
  const logRequests = deps.log.isLevelEnabled('info');
  const countRequests = deps.metrics !== noMetrics;
  // One shared listener each, reading what is kept on the response: no closure per request.
  function countAnswer(this: WatchedResponse): void {
    deps.metrics.request(this[countedPath], this.statusCode, (performance.now() - this[arrival]) / 1000);
  }
  const writeRequestLine = requestLineWriter(deps.log);
  function logAnswer(this: WatchedResponse): void {
    const request = this.req;
    const { globalId, requestId } = this[exchangeIds];
    const trace = traceOf(request.headers.traceparent);
    writeRequestLine({
      method: request.method ?? 'GET',
      path: request.url ?? '/',
      // Behind a load balancer named in TRUSTED_PROXIES, the client it forwarded, not its own address.
      client: deps.admission.clientAddress(request),
      status: this.statusCode,
      ms: Math.round((performance.now() - this[arrival]) * 100) / 100,
      globalId,
      requestId: requestId === globalId ? undefined : requestId,
      traceId: trace?.traceId,
      parentId: trace?.parentId,
    });
  }
  const corsVariesByOrigin = deps.cors.origins !== '*';
  const state: ListenerState = {
    targets: new TargetMemo(),
    lookupVary: varyOf('lookup', corsVariesByOrigin),
    languageVary: varyOf('language', corsVariesByOrigin),
    publicVary: varyOf('public', corsVariesByOrigin),
    draining,
  };
  return (request, response) => {
    const ids = requestIdsOf(request.headers['x-request-id']);
    // The target is split by hand: `new URL` would read `//host/x` as another host's `/x`.
    const target = request.url ?? '/';
    const queryStart = target.indexOf('?');
    const pathname = queryStart === -1 ? target : target.slice(0, queryStart);
    const query = queryStart === -1 ? '' : target.slice(queryStart + 1);
    if (countRequests || logRequests) {
      (response as WatchedResponse)[arrival] = performance.now();
      if (countRequests) {
        (response as WatchedResponse)[countedPath] = pathname;
        response.on('finish', countAnswer);
      }
      if (logRequests) {
        (response as WatchedResponse)[exchangeIds] = ids;
        response.on('close', logAnswer);
      }
    }
    watchExchange(request, response);
    // Stopping: each connection closes after its answer, so that its client reconnects, through a
    // load balancer to another process, instead of sending more on a connection about to close.
    if (draining()) response.setHeader('Connection', 'close');
    try {
      refuseMalformed(request);
      answer(request, response, ids, pathname, query, deps, state)?.catch((error: unknown) => fail(request, response, ids, error, deps));
    } catch (error) {
      fail(request, response, ids, error, deps);
    }
  };
}

function fail(request: http.IncomingMessage, response: http.ServerResponse, ids: RequestIds, error: unknown, deps: ServerDependencies): void {
  sendFailure(request, response, ids, error, corsHeaders(deps.cors, request.headers.origin), deps.log, deps.metrics);
}

/**
 * The request path: an Exchange per request (exchange.ts), then the one handler its method and
 * path name: a preflight, a probe, a public file or a calendar file without a token; /meta, a download or a lookup
 * with one. Every failure goes to the exchange's fail (failure.ts), the one place that answers one.
 */
import type http from 'node:http';
import { varyOf } from '../../contract/http.ts';
import { checkOrigin } from '../auth/authenticate.ts';
import { requestLineWriter } from '../observe/log.ts';
import { FailureLines } from '../observe/failureLines.ts';
import { noMetrics } from '../observe/metrics.ts';
import { answerCalendar, isCalendarRequest } from './calendars.ts';
import { answerDownload, isDownload } from './downloads.ts';
import { methodNotAllowed, refuseMalformed, watchExchange } from './edge.ts';
import { Exchange, type ListenerContext, type ServerDependencies } from './exchange.ts';
import { answerLookup } from './lookups.ts';
import { answerMeta } from './meta.ts';
import { answerPreflight } from './preflight.ts';
import { answerProbe, isProbe } from './probes.ts';
import { answerPublicFile, publicFileOf } from './publicFiles.ts';
import { whenReady } from './respond.ts';
import { TargetMemo } from './targets.ts';
import { traceOf } from './tracing.ts';

/** Which handler answers: by method, then by path; a token is checked before any handler that needs one. */
function answer(exchange: Exchange): void | Promise<void> {
  const { method, pathname } = exchange;
  if (method === 'OPTIONS') return answerPreflight(exchange);
  if (method !== 'GET' && method !== 'HEAD') throw methodNotAllowed(method);
  if (isProbe(pathname)) return answerProbe(exchange);
  if (publicFileOf(pathname) !== undefined) return answerPublicFile(exchange);
  if (isCalendarRequest(pathname, exchange.query)) return answerCalendar(exchange);
  return whenReady(exchange.context.admission.authenticate(exchange.request), (principal) => {
    checkOrigin(principal, exchange.request.headers.origin);
    exchange.principal = principal;
    if (pathname === '/meta') return answerMeta(exchange);
    return isDownload(pathname) ? answerDownload(exchange) : answerLookup(exchange);
  });
}

const exchangeOf = Symbol('exchange');
/** A response whose answer is counted for /metrics, or logged, when it finishes: its exchange kept on it. */
type WatchedResponse = http.ServerResponse & { [exchangeOf]: Exchange };

export function createRequestListener(deps: ServerDependencies, draining: () => boolean = () => false): http.RequestListener {
  // Decided once: with request lines off, no request pays for a listener or a clock read.
  const logRequests = deps.log.isLevelEnabled('info');
  const countRequests = deps.metrics !== noMetrics;
  // One shared listener each, reading the exchange kept on the response: no closure per request.
  function countAnswer(this: WatchedResponse): void {
    const exchange = this[exchangeOf];
    deps.metrics.request(exchange.pathname, this.statusCode, (performance.now() - exchange.arrival) / 1000);
  }
  const writeRequestLine = requestLineWriter(deps.log);
  function logAnswer(this: WatchedResponse): void {
    const { request, ids, arrival } = this[exchangeOf];
    const trace = traceOf(request.headers.traceparent);
    writeRequestLine({
      method: request.method ?? 'GET',
      path: request.url ?? '/',
      // Behind a load balancer named in TRUSTED_PROXIES, the client it forwarded, not its own address.
      client: deps.admission.clientAddress(request),
      status: this.statusCode,
      ms: Math.round((performance.now() - arrival) * 100) / 100,
      globalId: ids.globalId,
      requestId: ids.requestId === ids.globalId ? undefined : ids.requestId,
      traceId: trace?.traceId,
      parentId: trace?.parentId,
    });
  }
  const corsVariesByOrigin = deps.cors.origins !== '*';
  // An answer to a token varies by Origin too where a key is bound to origins.
  const tokenVariesByOrigin = corsVariesByOrigin || deps.admission.variesByOrigin;
  const context: ListenerContext = {
    ...deps,
    targets: new TargetMemo(),
    lookupVary: varyOf('lookup', tokenVariesByOrigin),
    languageVary: varyOf('language', tokenVariesByOrigin),
    publicVary: varyOf('public', corsVariesByOrigin),
    calendarVary: varyOf('calendar', corsVariesByOrigin),
    downloadVary: varyOf('download', tokenVariesByOrigin),
    draining,
    failureLines: new FailureLines(),
  };
  return (request, response) => {
    const exchange = new Exchange(request, response, context);
    if (countRequests || logRequests) {
      exchange.arrival = performance.now();
      (response as WatchedResponse)[exchangeOf] = exchange;
      if (countRequests) response.on('finish', countAnswer);
      if (logRequests) response.on('close', logAnswer);
    }
    watchExchange(request, response);
    // Stopping: each connection closes after its answer, so that its client reconnects, through a
    // load balancer to another process, instead of sending more on a connection about to close.
    if (draining()) response.setHeader('Connection', 'close');
    try {
      refuseMalformed(request);
      answer(exchange)?.catch((error: unknown) => exchange.fail(error));
    } catch (error) {
      exchange.fail(error);
    }
  };
}

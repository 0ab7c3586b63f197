/**
 * One request and its answer, made once per request: its ids, its path and query, its CORS
 * headers, who its token speaks for and its budget once known, and how it is answered (send) or
 * refused (fail). Every handler takes one and nothing else.
 */
import type http from 'node:http';
import { ServiceError } from '../../contract/errors.ts';
import type { FailureLines } from '../observe/failureLines.ts';
import type { Admission } from '../auth/admission.ts';
import { authorize } from '../auth/authenticate.ts';
import type { Principal } from '../auth/principal.ts';
import type { RateLimitFields } from '../auth/rateLimits.ts';
import type { Config } from '../config/config.ts';
import type { Logger } from '../observe/log.ts';
import type { Metrics } from '../observe/metrics.ts';
import type { BodyStore } from '../store/store.ts';
import type { EncodedBody } from './compression.ts';
import { sendFailure } from './failure.ts';
import { corsHeaders, type CorsPolicy } from './negotiation.ts';
import { commonHeaders, send, sendEncoded, sendNotModified } from './respond.ts';
import type { TargetMemo } from './targets.ts';
import { requestIdsOf, type RequestIds } from './tracing.ts';

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

/** What the listener holds for every request: its dependencies, and what it works out once. */
export interface ListenerContext extends ServerDependencies {
  /** The request targets already resolved against the current build. */
  readonly targets: TargetMemo;
  /** The Vary of each kind of answer (contract/http.ts varyOf), with Origin when CORS allows only some. */
  readonly lookupVary: string;
  /** The Vary of a lookup whose names come in several languages: Accept-Language may choose them. */
  readonly languageVary: string;
  readonly publicVary: string;
  readonly calendarVary: string;
  readonly downloadVary: string;
  /** True once the process has begun to stop (RunningServer.drain). */
  readonly draining: () => boolean;
  /** Which failure lines this listener writes: one per kind and interval (observe/failureLines.ts). */
  readonly failureLines: FailureLines;
}

/** What answers a request: one per kind (probes, public files, meta, downloads, lookups), each in its module. */
export type Handler = (exchange: Exchange) => void | Promise<void>;

export class Exchange {
  // Every field is assigned in the constructor, in one order, and none is declared as a class
  // field: plain stores give each exchange one shape at once, which class fields (defined one by
  // one before the constructor runs) cost more to build, on every request.
  declare readonly request: http.IncomingMessage;
  declare readonly response: http.ServerResponse;
  declare readonly context: ListenerContext;
  declare readonly method: string;
  /** The envelope's globalId and the response's X-Request-Id. */
  declare readonly ids: RequestIds;
  /** The request target as sent, split at its first `?` (never parsed as a URL: `//host/x` stays a path). */
  declare readonly pathname: string;
  declare readonly query: string;
  /** The CORS headers this request's Origin earns; the shared empty object when it earns none. */
  declare readonly cors: Readonly<Record<string, string>>;
  /** When the request arrived (performance.now()), where it is counted or logged; 0 otherwise. */
  declare arrival: number;
  /** Who the token speaks for, once the listener has authenticated it. */
  declare principal: Principal | undefined;
  /** The RateLimit fields of the token's budget, once admitted; undefined when there is no budget. */
  declare limits: RateLimitFields | undefined;

  constructor(request: http.IncomingMessage, response: http.ServerResponse, context: ListenerContext) {
    this.request = request;
    this.response = response;
    this.context = context;
    this.method = request.method ?? 'GET';
    this.ids = requestIdsOf(request.headers['x-request-id']);
    const target = request.url ?? '/';
    const queryStart = target.indexOf('?');
    this.pathname = queryStart === -1 ? target : target.slice(0, queryStart);
    this.query = queryStart === -1 ? '' : target.slice(queryStart + 1);
    this.cors = corsHeaders(context.cors, request.headers.origin);
    this.arrival = 0;
    this.principal = undefined;
    this.limits = undefined;
  }

  /** The authenticated principal; a handler that needs one runs only after the listener has set it. */
  caller(): Principal {
    if (this.principal === undefined) throw new ServiceError('ERR_AUTH_REQUIRED', 'This needs a token: send Authorization: Bearer <token>.');
    return this.principal;
  }

  /** Refuses (403) a token whose scopes do not cover `area` (`addressmanagement` or `financemanagement`). */
  authorize(area: string): void {
    authorize(this.caller(), area, this.context.scopes);
  }

  /** Counts the request against its token's budget, keeping the RateLimit fields, or refuses it (429). */
  admit(): void {
    this.limits = this.context.admission.admit(this.caller());
  }

  /** What every response carries besides its own headers: the request id, and CORS where allowed. */
  commonHeaders(): Record<string, string> {
    return commonHeaders(this.ids.requestId, this.cors);
  }

  /** A whole envelope (or any small JSON body), without its bytes for HEAD. */
  send(status: number, headers: http.OutgoingHttpHeaders, body: Buffer): void {
    send(this.response, this.method, status, headers, body);
  }

  /** A 200 as compression.ts encoded it; `headers` is completed in place. */
  sendEncoded(contentType: string, headers: http.OutgoingHttpHeaders, encoded: EncodedBody): void {
    sendEncoded(this.response, this.method, contentType, headers, encoded);
  }

  /** A bodiless 304. */
  sendNotModified(headers: http.OutgoingHttpHeaders): void {
    sendNotModified(this.response, headers);
  }

  /** The failure's status and envelope (failure.ts), or a cut connection once the answer is under way. */
  fail(error: unknown): void {
    sendFailure(this, error);
  }
}

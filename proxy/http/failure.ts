/**
 * The one place a failure becomes an answer: its code's status, the envelope, the code itself
 * (X-Error-Code) and headers that say why. Every failure on the request path arrives here, as a ServiceError (contract/errors.ts)
 * or as anything else thrown, which is not a client's doing and is answered 503.
 */
import http from 'node:http';
import { errorCodeHeader, errorOutcomes, shownCode } from '../../contract/errorCodes.ts';
import { ServiceError, type ErrorCode } from '../../contract/errors.ts';
import { newGlobalId, wrapFailure } from '../../contract/envelope.ts';
import { jsonType, noStore } from '../../contract/http.ts';
import type { FailureLines } from '../observe/failureLines.ts';
import type { Logger } from '../observe/log.ts';
import type { Metrics } from '../observe/metrics.ts';
import { send } from './respond.ts';
import type { RequestIds } from './tracing.ts';

const unavailable = 'The data is temporarily unavailable: retry shortly.';

/** The failures counted as refused tokens (refdata_auth_failures_total). */
const authFailureCodes: ReadonlySet<ErrorCode> = new Set([
  'ERR_AUTH_REQUIRED',
  'ERR_AUTH_MALFORMED',
  'ERR_TOKEN_INVALID',
  'ERR_TOKEN_UNVERIFIABLE',
  'ERR_SCOPE_MISSING',
  'ERR_KEY_ORIGIN',
]);

interface Answer {
  readonly status: number;
  readonly message: string;
  /** The failure's own headers and its code's (contract/errorCodes.ts). */
  readonly headers: Readonly<Record<string, string>>;
}

const unforeseen: Answer = { status: 503, message: unavailable, headers: { [errorCodeHeader]: 'ERR_UNAVAILABLE' } };

/** What a client is told about `error`: a ServiceError as its code says (contract/errorCodes.ts), anything else 503. */
function answerFor(error: unknown): Answer {
  if (!(error instanceof ServiceError)) return unforeseen;
  const { status, shown } = errorOutcomes[error.code];
  return { status, message: shown ? error.message : unavailable, headers: { ...error.headers, [errorCodeHeader]: shownCode(error.code) } };
}

/** The request a failure answers: what sendFailure reads of it (an Exchange, exchange.ts). */
export interface FailedRequest {
  readonly response: http.ServerResponse;
  readonly method: string;
  readonly ids: RequestIds;
  /** The CORS headers its Origin earns: a script may read the refusal too. */
  readonly cors: Readonly<Record<string, string>>;
  readonly context: { readonly log: Logger; readonly metrics: Metrics; readonly failureLines: FailureLines };
}

/**
 * Any failure of a request, answered in the envelope with `no-store`. A server-side failure (5xx)
 * is counted (refdata_failures_total) and logged once per kind and interval (failureLines.ts), with
 * how many of its kind were left out since: an unforeseen one, a fault of the service's own, as an
 * error with its stack; a known one (the origin down, a damaged body, keys unverifiable) as a
 * warning with its cause and no stack, since a client can repeat it at will. A response already
 * under way cannot change its status: its connection is cut, so the client sees a truncated
 * answer, never a wrong one.
 */
export function sendFailure(
  { response, method, ids: { globalId, requestId }, cors, context: { log, metrics, failureLines } }: FailedRequest,
  error: unknown,
): void {
  const answer = answerFor(error);
  if (error instanceof ServiceError && authFailureCodes.has(error.code)) metrics.authFailure(error.code);
  if (!(error instanceof ServiceError)) {
    metrics.failure('ERR_UNAVAILABLE');
    const thrown = error as Error | undefined;
    const suppressed = failureLines.take(`unforeseen ${thrown?.name} ${thrown?.stack?.split('\n', 2)[1]?.trim()}`);
    if (suppressed !== undefined)
      log.error({ globalId, error: thrown?.message, stack: thrown?.stack, ...(suppressed > 0 ? { suppressed } : {}) }, 'request failed');
  } else if (answer.status >= 500 && error.code !== 'ERR_STOPPING') {
    // A stopping process's 503 on /readyz is what it means to say, not a failure.
    metrics.failure(error.code);
    const suppressed = failureLines.take(error.code);
    const cause = error.cause instanceof Error ? error.cause.message : undefined;
    if (suppressed !== undefined)
      log.warn(
        { globalId, code: error.code, error: error.message, ...(cause === undefined ? {} : { cause }), ...(suppressed > 0 ? { suppressed } : {}) },
        'request failed',
      );
  }
  if (response.headersSent) return void response.destroy();
  const headers = { 'Cache-Control': noStore, 'X-Request-Id': requestId, ...cors, ...answer.headers };
  send(response, method, answer.status, headers, wrapFailure(globalId, answer.message));
}

/**
 * A refusal as bytes, for a socket Node's HTTP machinery has let go of (a request its parser
 * refused): the status line, the headers and the envelope; the connection closes after it.
 */
export function renderRawFailure(error: ServiceError, extraHeaders: Readonly<Record<string, string>>): string {
  const globalId = newGlobalId();
  const { status, message, headers: own } = answerFor(error);
  const body = wrapFailure(globalId, message);
  const headers = {
    'Content-Type': jsonType,
    'Content-Length': String(body.length),
    'Cache-Control': noStore,
    'X-Request-Id': globalId,
    ...own,
    ...extraHeaders,
  };
  const lines = Object.entries(headers).map(([name, value]) => `${name}: ${value}\r\n`);
  return `HTTP/1.1 ${status} ${http.STATUS_CODES[status] ?? ''}\r\n${lines.join('')}\r\n${body.toString()}`;
}

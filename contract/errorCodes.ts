/**
 * What a client sees of a failure: its status, whether its message may be shown, and the code it
 * carries in the `X-Error-Code` response header (the envelope is the specification's and stays as
 * it is). The proxy answers by this table (proxy/http/failure.ts); the OpenAPI document and
 * docs/api.md list it. The codes a client can see are a public contract: a client branches on them,
 * not on the wording of a message, so one is renamed or removed only with a CHANGELOG entry
 * (test/unit/errorCodes.test.ts holds the published list).
 */
import type { ErrorCode } from './errors.ts';

/** The response header that carries a failure's code. */
export const errorCodeHeader = 'X-Error-Code';

export interface ErrorOutcome {
  readonly status: number;
  /** Whether the failure's message may be shown. One not shown names files or settings of the server: the client is told only that the data is unavailable, and sees the code ERR_UNAVAILABLE. */
  readonly shown: boolean;
  /** What the code means to a client, and what it can do about it. */
  readonly meaning: string;
}

export const errorOutcomes: Readonly<Record<ErrorCode, ErrorOutcome>> = {
  ERR_REQUEST_MALFORMED: {
    status: 400,
    shown: true,
    meaning: 'The request is not well-formed HTTP: its request line, a header or its framing. Fix the client.',
  },
  ERR_REQUEST_TIMEOUT: { status: 408, shown: true, meaning: 'The request headers (10 s) or the whole request (30 s) did not arrive in time. Retry.' },
  ERR_REQUEST_TOO_LARGE: {
    status: 431,
    shown: true,
    meaning: 'The request line and headers are larger than 16 KiB. Send fewer or shorter headers, or a shorter URL.',
  },
  ERR_HTTP_VERSION: { status: 505, shown: true, meaning: 'An HTTP version the service does not speak (HTTP/2 and later). Send HTTP/1.1.' },
  ERR_EXPECTATION: { status: 417, shown: true, meaning: 'An Expect header other than 100-continue.' },
  ERR_METHOD_NOT_ALLOWED: {
    status: 405,
    shown: true,
    meaning: 'A method other than GET, HEAD or OPTIONS: the service only reads. The Allow header lists the methods.',
  },
  ERR_AUTH_REQUIRED: { status: 401, shown: true, meaning: 'No token: send `Authorization: Bearer <API key or JWT>`.' },
  ERR_AUTH_MALFORMED: { status: 400, shown: true, meaning: 'The Authorization header is not one bearer token of the right form.' },
  ERR_TOKEN_INVALID: {
    status: 401,
    shown: true,
    meaning:
      'The token is not an API key the service knows, or a JWT that is expired, not yet valid, for another audience or badly signed. The message and WWW-Authenticate say which.',
  },
  ERR_TOKEN_UNVERIFIABLE: {
    status: 503,
    shown: true,
    meaning: "The identity provider's signing keys could not be fetched to check a JWT. Retry; an API key does not depend on them.",
  },
  ERR_SCOPE_MISSING: { status: 403, shown: true, meaning: 'The token is valid but lacks the scope of this area (finance or address).' },
  ERR_KEY_ORIGIN: {
    status: 403,
    shown: true,
    meaning:
      'The key is bound to the web pages of other sites (or the request has no Origin): call from one of the sites its operator listed, or use a key for servers.',
  },
  ERR_RATE_LIMITED: {
    status: 429,
    shown: true,
    meaning: "The token's (or the address's) request budget is spent. Retry after Retry-After seconds; RateLimit says the budget.",
  },
  ERR_NO_OPERATION: { status: 404, shown: true, meaning: 'No operation at this path. The message lists the operations of the resource; /docs lists them all.' },
  ERR_NO_FILE: { status: 404, shown: true, meaning: 'No such public file, export or change list.' },
  ERR_PARAM_MISSING: { status: 400, shown: true, meaning: 'A required query parameter is missing. The message names it.' },
  ERR_PARAM_REPEATED: { status: 400, shown: true, meaning: 'A query parameter is given more than once.' },
  ERR_PARAMS_TOO_MANY: { status: 400, shown: true, meaning: 'More query parameters than the operation takes.' },
  ERR_PARAM_UNKNOWN: {
    status: 400,
    shown: true,
    meaning: 'A query parameter an operation answered without a token (a calendar) does not take. The message lists those it takes.',
  },
  ERR_PARAM_INVALID: {
    status: 400,
    shown: true,
    meaning: 'A query parameter is not of its form (a UUID, a code, a year, a name of at most 200 characters, an IBAN …). The message says what the form is.',
  },
  ERR_LANGUAGE_UNAVAILABLE: {
    status: 400,
    shown: true,
    meaning: 'The language asked for a holiday lookup is not one its names come in. The message lists those that are.',
  },
  ERR_YEAR_OUT_OF_RANGE: { status: 404, shown: true, meaning: "The year is outside the years this build holds (/meta's holidayYears)." },
  ERR_NOT_FOUND: { status: 404, shown: true, meaning: 'No record has this value. The message names the value and the operation that lists the valid ones.' },
  ERR_RANGE_NOT_SATISFIABLE: { status: 416, shown: true, meaning: 'A Range outside the export file.' },
  ERR_DIST_MISSING: { status: 503, shown: false, meaning: 'No build to serve yet.' },
  ERR_MANIFEST_INVALID: { status: 503, shown: false, meaning: "The build's index is not as the generator writes it." },
  ERR_BODY_UNREADABLE: { status: 503, shown: false, meaning: 'A body file could not be read.' },
  ERR_ORIGIN_TIMEOUT: { status: 504, shown: true, meaning: 'The data origin did not answer in time. Retry shortly.' },
  ERR_ORIGIN_UNREACHABLE: { status: 502, shown: true, meaning: 'The data origin could not be reached. Retry shortly.' },
  ERR_ORIGIN_ANSWER: { status: 502, shown: true, meaning: 'The data origin answered something other than the body. Retry shortly.' },
  ERR_ORIGIN_NO_BODY: { status: 503, shown: true, meaning: 'The data origin lacks a body its build lists. Retry after Retry-After.' },
  ERR_ORIGIN_INCOMPLETE: { status: 503, shown: true, meaning: 'The data origin sent a body cut short. Retry shortly.' },
  ERR_ORIGIN_SWITCHING: { status: 503, shown: true, meaning: 'The data origin is switching builds. Retry after Retry-After.' },
  ERR_NOT_READY: { status: 503, shown: true, meaning: 'This process has no build loaded yet (/readyz).' },
  ERR_STOPPING: { status: 503, shown: true, meaning: 'This process is stopping (/readyz); the load balancer sends requests elsewhere.' },
  ERR_CONFIG: { status: 503, shown: false, meaning: 'The configuration is invalid (a start-up error).' },
  ERR_LISTEN: { status: 503, shown: false, meaning: 'The service could not listen on its port (a start-up error).' },
  ERR_IMPORT: { status: 503, shown: false, meaning: 'The data import failed (npm run data:import).' },
  ERR_BUILD: { status: 503, shown: false, meaning: 'The build failed (npm run build).' },
  ERR_RENDER: { status: 503, shown: false, meaning: 'A deploy configuration could not be rendered.' },
  ERR_USAGE: { status: 503, shown: false, meaning: "A tool's command line is wrong." },
  ERR_UNAVAILABLE: {
    status: 503,
    shown: false,
    meaning: 'The data is temporarily unavailable, for a reason on the server side that the client cannot act on. Retry shortly.',
  },
};

/** The code a client is shown for a failure of `code`: its own, or ERR_UNAVAILABLE where its message is not shown. */
export function shownCode(code: ErrorCode): ErrorCode {
  return errorOutcomes[code].shown ? code : 'ERR_UNAVAILABLE';
}

/** Every code a client can see, in the table's order, with its status and meaning: those whose message is shown, and ERR_UNAVAILABLE. */
export function clientErrorCodes(): { readonly code: ErrorCode; readonly status: number; readonly meaning: string }[] {
  return (Object.entries(errorOutcomes) as [ErrorCode, ErrorOutcome][])
    .filter(([code]) => shownCode(code) === code)
    .map(([code, { status, meaning }]) => ({ code, status, meaning }));
}

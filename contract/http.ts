/**
 * The HTTP facts both sides state: what the proxy sends, and what the generator documents in
 * openapi.json. Each is written here once.
 */

/** The methods the service answers (Allow, Access-Control-Allow-Methods). */
export const allowedMethods = 'GET, HEAD, OPTIONS';

/** Every envelope, success or failure. */
export const jsonType = 'application/json; charset=utf-8';

/**
 * Lookups are token-gated, so no shared cache may keep them (`private`); a client may reuse one
 * for a minute, then revalidates with If-None-Match and usually gets a bodiless 304.
 */
export const cacheControl = 'private, max-age=60';
/** The OpenAPI document and the docs page are public and change only with a build. */
export const publicCacheControl = 'public, max-age=300';
/** Failures, probes and /meta: never kept. */
export const noStore = 'no-store';

/**
 * Vary (RFC 9110 §12.5.5): every request header that changes an answer, so that no cache (a
 * browser's included) reuses one answer for another request. A lookup's answer depends on the
 * token (a request without one, or with a wrong one, is refused), on the coding the client
 * accepts, and, when CORS allows only some origins, on the Origin; a holiday or special-day
 * lookup's also on Accept-Language, which chooses its names' language when the query does not.
 */
export function varyOf(answer: 'lookup' | 'language' | 'public' | 'calendar' | 'download', corsVariesByOrigin: boolean): string {
  // A download (an export file) is sent as it is, whatever codings the client accepts; a calendar
  // file is public (no token), its names' language chosen like a holiday lookup's.
  const headers =
    answer === 'public' || answer === 'calendar' ? ['Accept-Encoding'] : answer === 'download' ? ['Authorization'] : ['Authorization', 'Accept-Encoding'];
  if (answer === 'language' || answer === 'calendar') headers.push('Accept-Language');
  if (corsVariesByOrigin) headers.push('Origin');
  return headers.join(', ');
}

/**
 * The public files' security headers: no content sniffing, and for the docs page a Content
 * Security Policy that lets it load only its own files (Swagger UI's scripts and styles under
 * /docs/, its data: icons) and call only this service.
 */
export const publicFileSecurityHeaders = { 'X-Content-Type-Options': 'nosniff' } as const;
export const docsPageSecurityHeaders = {
  'X-Content-Type-Options': 'nosniff',
  'Content-Security-Policy':
    "default-src 'self'; script-src 'self'; style-src 'self' 'unsafe-inline'; img-src 'self' data:; connect-src 'self'; object-src 'none'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'",
  'Referrer-Policy': 'no-referrer',
} as const;

/** The RFC 6750 realm of every Bearer challenge (WWW-Authenticate). */
export const realm = 'reference-data';

export interface ClientTimeouts {
  readonly headersMs: number;
  readonly requestMs: number;
  readonly keepAliveMs: number;
  readonly checkEveryMs: number;
  /** How long a refused client that does not close its side may stay silent before it is cut off. */
  readonly lingerMs?: number;
}

/** Slow clients are cut off: headers within 10 s, a whole request within 30 s (checked every second). */
export const clientTimeouts = {
  headersMs: 10_000,
  requestMs: 30_000,
  keepAliveMs: 5_000,
  checkEveryMs: 1_000,
  lingerMs: 5_000,
} as const satisfies ClientTimeouts;
/** In-flight requests get this long to finish on SIGTERM before their connections are closed. */
export const shutdownGraceMs = 10_000;

/**
 * Conditional requests (RFC 9110 §13.1.2), content codings (§12.5.3) and CORS (Fetch standard):
 * small pure functions of request headers, so the request path stays a sequence of lookups.
 */
import { allowedMethods } from '../contract/http.ts';

/** If-None-Match uses weak comparison: `W/"x"` matches `"x"`; `*` matches any current body. */
export function matchesIfNoneMatch(header: string | undefined, etag: string): boolean {
  if (header === undefined) return false;
  if (header.trim() === '*') return true;
  for (const candidate of header.split(',')) {
    const tag = candidate.trim();
    if ((tag.startsWith('W/') ? tag.slice(2) : tag) === etag) return true;
  }
  return false;
}

export type ContentCoding = 'br' | 'gzip' | 'identity';

/**
 * gzip when the client takes it at least as gladly as brotli (both are stitched from the body's
 * cached compression, see compression.ts, and ours are about the same size), else brotli, else
 * none; an explicit `q=0` refuses a coding.
 */
export function chooseEncoding(header: string | undefined): ContentCoding {
  if (!header) return 'identity';
  const accepted = new Map<string, number>();
  for (const part of header.toLowerCase().split(',')) {
    const [coding = '', ...parameters] = part.trim().split(';');
    const q = parameters.map((parameter) => /^\s*q=([0-9.]+)\s*$/.exec(parameter)?.[1]).find((value) => value !== undefined);
    accepted.set(coding.trim(), q === undefined ? 1 : Number(q));
  }
  const weight = (coding: string): number => accepted.get(coding) ?? accepted.get('*') ?? 0;
  const gzipWeight = weight('gzip');
  const brotliWeight = weight('br');
  if (gzipWeight > 0 && gzipWeight >= brotliWeight) return 'gzip';
  if (brotliWeight > 0) return 'br';
  return 'identity';
}

export interface CorsPolicy {
  /** `*`, or the exact origins allowed. */
  readonly origins: '*' | ReadonlySet<string>;
}

/** Headers a browser may read from a response, besides the CORS-safelisted ones. */
const exposedHeaders = 'ETag, X-Request-Id, X-Data-Version';
/** Preflights are cached by browsers for a day (Chromium caps it at two hours). */
export const preflightMaxAgeSeconds = 86_400;

/** What corsHeaders answers for a request without an allowed Origin: nothing to add, one shared object. */
export const noCorsHeaders: Readonly<Record<string, string>> = Object.freeze({});

/** The CORS headers for a response to `origin`, or none when the origin is not allowed. */
export function corsHeaders(policy: CorsPolicy, origin: string | undefined): Readonly<Record<string, string>> {
  if (origin === undefined) return noCorsHeaders;
  if (policy.origins === '*') return { 'Access-Control-Allow-Origin': '*', 'Access-Control-Expose-Headers': exposedHeaders };
  if (!policy.origins.has(origin)) return noCorsHeaders;
  return { 'Access-Control-Allow-Origin': origin, 'Access-Control-Expose-Headers': exposedHeaders };
}

/** The answer to a preflight: no token needed; Authorization and If-None-Match allowed. */
export function preflightHeaders(policy: CorsPolicy, origin: string | undefined): Record<string, string> {
  const allowed = corsHeaders(policy, origin);
  if (!allowed['Access-Control-Allow-Origin']) return allowed;
  return {
    ...allowed,
    'Access-Control-Allow-Methods': allowedMethods,
    'Access-Control-Allow-Headers': 'Authorization, If-None-Match',
    'Access-Control-Max-Age': String(preflightMaxAgeSeconds),
  };
}

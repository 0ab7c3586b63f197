/**
 * Conditional requests (RFC 9110 §13.1.2), content codings (§12.5.3) and CORS (Fetch standard):
 * small pure functions of request headers, so the request path stays a sequence of lookups.
 */
import { allowedMethods } from '../../contract/http.ts';
import { HeaderMemo } from './headerMemo.ts';

/**
 * How much of a list header is read (Accept-Encoding, If-None-Match): its first 16 elements within
 * its first 1,024 characters. A client sends one to five; the rest of a longer header is ignored,
 * so that a long one costs what a short one does.
 */
export const listHeaderBounds = { elements: 16, characters: 1024 } as const;

/** The first elements of a list header, within listHeaderBounds. */
function boundedElements(header: string): string[] {
  return header.slice(0, listHeaderBounds.characters).split(',', listHeaderBounds.elements);
}

/**
 * If-None-Match uses weak comparison: `W/"x"` matches `"x"`; `*` matches any current body. The tag
 * of a body matches in any of its content codings (codedEtag): each is the same content.
 */
export function matchesIfNoneMatch(header: string | undefined, etag: string): boolean {
  if (header === undefined) return false;
  if (header.trim() === '*') return true;
  for (const candidate of boundedElements(header)) {
    const trimmed = candidate.trim();
    const tag = trimmed.startsWith('W/') ? trimmed.slice(2) : trimmed;
    if (tag === etag) return true;
    if (tag.length === etag.length + codingSuffixLength && tag.startsWith(etag.slice(0, -1)) && codedSuffixes.has(tag.slice(etag.length - 1))) return true;
  }
  return false;
}

/** What a coded representation's tag ends with: its coding before the closing quote. */
const codedSuffixes = new Set(['-gz"', '-br"']);
const codingSuffixLength = 3;

/**
 * The strong ETag of a body in a content coding (RFC 9110 §8.8.3: representations that differ in
 * their coding must not share one): `"<tag>-gz"` for gzip, `"<tag>-br"` for brotli, the body's own
 * for identity.
 */
export function codedEtag(etag: string, coding: ContentCoding): string {
  return coding === 'identity' ? etag : `${etag.slice(0, -1)}-${coding === 'gzip' ? 'gz' : 'br'}"`;
}

export type ContentCoding = 'br' | 'gzip' | 'identity';

/**
 * gzip when the client takes it at least as gladly as brotli (both are stitched from the body's
 * cached compression, see compression.ts, and ours are about the same size), else brotli, else
 * none; an explicit `q=0` refuses a coding.
 */
export function chooseEncoding(header: string | undefined): ContentCoding {
  return header ? chosenEncodings.get(header) : 'identity';
}

/**
 * Clients send a handful of distinct Accept-Encoding values ("gzip, deflate, br, zstd" from every
 * browser): each is parsed once (about 0.8 µs, 5 % of a request), at most 256 of them kept.
 */
const chosenEncodings = new HeaderMemo(listHeaderBounds.characters, 256, parseAcceptEncoding);

function parseAcceptEncoding(header: string): ContentCoding {
  const accepted = new Map<string, number>();
  for (const part of boundedElements(header)) {
    const [coding = '', ...parameters] = part.trim().toLowerCase().split(';');
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

/**
 * Headers a script may read from a response, besides the CORS-safelisted ones (Content-Language is
 * one): the validator, the request id, the data version, a failure's code, the token challenge,
 * when to retry, the rate limit, how many records an ambiguous name names, and what a script
 * resuming an export download needs (its range and file name).
 */
const exposedHeaders =
  'ETag, X-Request-Id, X-Data-Version, X-Error-Code, WWW-Authenticate, Retry-After, RateLimit, RateLimit-Policy, X-Ambiguous-Matches, Accept-Ranges, Content-Range, Content-Disposition';

/**
 * The request headers a preflight allows when it names none (Access-Control-Request-Headers absent
 * or unreadable): the token, revalidation, resuming an export download (a Range with more than one
 * range is not CORS-safelisted), and what tracing and error-reporting libraries add.
 */
const defaultAllowedHeaders =
  'Authorization, If-None-Match, If-Range, Range, Cache-Control, Content-Type, X-Request-Id, traceparent, tracestate, baggage, sentry-trace';
/** A comma-separated list of header names (RFC 9110 §5.6.2 tokens), at most 2 KB: what may be echoed. */
const headerNameList = /^[!#$%&'*+.^_`|~0-9A-Za-z-]+(?:[ \t]*,[ \t]*[!#$%&'*+.^_`|~0-9A-Za-z-]+)*$/;
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

/**
 * The answer to a preflight, no token needed, as the `cors` package gives it: the request headers
 * the browser asks for are allowed as asked (a list of header names only; anything else gets the
 * default list), so tracing and monitoring headers never make a request fail. The answer varies
 * with what was asked, and with the Origin when only some are allowed.
 */
export function preflightHeaders(policy: CorsPolicy, origin: string | undefined, requestedHeaders: string | undefined): Record<string, string> {
  const allowed = corsHeaders(policy, origin);
  const vary = policy.origins === '*' ? 'Access-Control-Request-Headers' : 'Origin, Access-Control-Request-Headers';
  if (!allowed['Access-Control-Allow-Origin']) return { Vary: vary };
  const requested = requestedHeaders?.trim();
  return {
    ...allowed,
    'Access-Control-Allow-Methods': allowedMethods,
    'Access-Control-Allow-Headers': requested && requested.length <= 2048 && headerNameList.test(requested) ? requested : defaultAllowedHeaders,
    'Access-Control-Max-Age': String(preflightMaxAgeSeconds),
    Vary: vary,
  };
}

/**
 * Bearer tokens (RFC 6750): API keys and JWTs, then the area's scope.
 *
 * An accepted token is remembered by the token itself, however its header was spelled (`Bearer`
 * in any case, any number of spaces): an API key for good, a JWT until the earlier of its expiry
 * and a short TTL. A repeated token then costs one map lookup instead of a hash (API keys) or a
 * signature check (JWTs). A failed token is never remembered, so a guess always takes the full
 * path: its SHA-256 compared with every key in constant time (apiKeys.ts). Whether a token is
 * remembered says only whether it is exactly one that was accepted, nothing about how close a
 * guess came.
 *
 * The check comes in three steps, so that admission.ts can put only the costly one behind the
 * budget of invalid tokens: the token from the header (tokenOf), what is known of it at the cost
 * of a lookup or a hash (recognise: a remembered token or an API key), and the JWT check (verify).
 */
import { LRUCache } from 'lru-cache';
import { loadApiKeys, sha256, type ApiKeyTable } from './apiKeys.ts';
import type { Config } from '../config/config.ts';
import { cutEcho } from '../../contract/envelope.ts';
import { ServiceError } from '../../contract/errors.ts';
import { createJwtVerifier, type JwtVerifier } from './jwt.ts';
import { challenge, type Principal } from './principal.ts';

/** Checks the Authorization header: the principal, or a ServiceError with the RFC 6750 challenge. */
export interface Authenticate {
  (authorization: string | undefined): Principal | Promise<Principal>;
  /** The token of a Bearer header; throws 401 without one, 400 for a header that is not `Bearer <token>`. */
  tokenOf(authorization: string | undefined): string;
  /** The principal of a token remembered or an API key, at the cost of a lookup or a hash; undefined for any other. */
  recognise(token: string): Principal | undefined;
  /** Verifies a token recognise() does not know, as a JWT; throws ERR_TOKEN_INVALID for anything else. */
  verify(token: string): Principal | Promise<Principal>;
  /** The principal of a token accepted before and still trusted, checking nothing; undefined otherwise. */
  remembered(token: string): Principal | undefined;
  /** remembered() for a header written as nearly every client writes it (`Bearer <token>`): no pattern run. */
  rememberedHeader(authorization: string | undefined): Principal | undefined;
  /** The API keys with a request budget of their own (`rate=`), by budgetKey. */
  readonly ownBudgets: ApiKeyTable['ownBudgets'];
  /** Whether any API key is bound to web origins. */
  readonly originBound: boolean;
}

export interface AuthOptions {
  readonly auth: Config['auth'];
  /** Extra accepted keys (the development key). */
  readonly extraKeys?: readonly string[];
  /** The clock, for tests that freeze it. */
  readonly now?: () => number;
}

/** How long a verified JWT is trusted without a new signature check: revocation takes effect within it. */
export const verifiedTokenTtlMs = 60_000;
/** Remembered JWTs: at most this many, and this many bytes of them (a header may be up to 16 KB). */
export const acceptedTokenCount = 10_000;
const acceptedTokenBytes = 8 * 1024 * 1024;

/** RFC 6750 §2.1: `Bearer` (any case), one space or more, then a b64token. */
const bearerPattern = /^Bearer +([A-Za-z0-9\-._~+/]+=*) *$/i;
const jwtShape = /^[A-Za-z0-9_-]*\.[A-Za-z0-9_-]*\.[A-Za-z0-9_-]*$/;
/** The header as nearly every client writes it: `Bearer ` and the token. */
const usualPrefix = 'Bearer ';

export async function createAuthenticator({ auth, extraKeys = [], now = Date.now }: AuthOptions): Promise<Authenticate> {
  const apiKeys: ApiKeyTable = await loadApiKeys([...auth.apiKeys, ...extraKeys], auth.apiKeysFile);
  const jwt: JwtVerifier | undefined = auth.jwt ? await createJwtVerifier(auth.jwt) : undefined;
  // Verified JWTs, each until the earlier of its expiry and verifiedTokenTtlMs.
  const acceptedJwts = new LRUCache<string, { principal: Principal; until: number }>({
    max: acceptedTokenCount,
    maxSize: acceptedTokenBytes,
    sizeCalculation: (_value, token) => token.length + 64,
  });
  // Accepted API keys in a plain map: they are trusted for good, so an LRU's bookkeeping buys
  // nothing on the path of every request; there are no more entries than keys configured.
  const acceptedKeys = new Map<string, Principal>();

  const remembered = (token: string): Principal | undefined => {
    const key = acceptedKeys.get(token);
    if (key) return key;
    const known = acceptedJwts.get(token);
    return known && known.until > now() ? known.principal : undefined;
  };

  const tokenOf = (authorization: string | undefined): string => {
    if (authorization === undefined || authorization.trim() === '') {
      // RFC 6750 §3.1: a request without credentials gets the challenge and no error code.
      throw new ServiceError('ERR_AUTH_REQUIRED', 'Authorization required: send the header "Authorization: Bearer <token>".', challenge());
    }
    const token = bearerPattern.exec(authorization.trim())?.[1];
    if (!token) {
      throw new ServiceError(
        'ERR_AUTH_MALFORMED',
        'Malformed Authorization header: expected "Bearer <token>" with the token in one piece.',
        challenge('invalid_request', 'expected Bearer <token>'),
      );
    }
    return token;
  };

  const recognise = (token: string): Principal | undefined => {
    const known = remembered(token);
    if (known) return known;
    const apiKey = apiKeys.match(sha256(token));
    if (apiKey) acceptedKeys.set(token, apiKey);
    return apiKey;
  };

  const verify = (token: string): Principal | Promise<Principal> => {
    if (jwt && jwtShape.test(token)) {
      const time = now();
      return jwt.verify(token, new Date(time)).then((principal) => {
        acceptedJwts.set(token, { principal, until: Math.min(principal.expiresAt ?? Infinity, time + verifiedTokenTtlMs) });
        return principal;
      });
    }
    throw new ServiceError(
      'ERR_TOKEN_INVALID',
      `The bearer token is not valid: it is not one of the accepted keys${jwt ? ', nor a JWT' : ''}.`,
      challenge('invalid_token', 'the token is not valid'),
    );
  };

  const rememberedHeader = (authorization: string | undefined): Principal | undefined =>
    authorization?.startsWith(usualPrefix) ? remembered(authorization.slice(usualPrefix.length)) : undefined;

  const authenticate = (authorization: string | undefined): Principal | Promise<Principal> => {
    const known = rememberedHeader(authorization);
    if (known) return known;
    const token = tokenOf(authorization);
    return recognise(token) ?? verify(token);
  };
  return Object.assign(authenticate, {
    tokenOf,
    recognise,
    verify,
    remembered,
    rememberedHeader,
    ownBudgets: apiKeys.ownBudgets,
    originBound: apiKeys.originBound,
  });
}

/**
 * Refuses (403) a key bound to web origins on a request from any other. A browser names the page's
 * origin in Origin on every cross-origin request and a script cannot change it, so another site's
 * page cannot use a key copied from this one; a client outside a browser can send any Origin, which
 * is why such a key also has a budget of its own (docs/authentication.md).
 */
export function checkOrigin(principal: Principal, origin: string | undefined): void {
  if (principal.origins === undefined || (origin !== undefined && principal.origins.has(origin))) return;
  throw new ServiceError(
    'ERR_KEY_ORIGIN',
    origin === undefined
      ? 'This key is for web pages of the sites its operator listed, and this request has no Origin header (a browser sends one on every cross-origin request): call from one of those pages, or use a key for servers.'
      : `This key is for web pages of the sites its operator listed, and ${cutEcho(origin)} is not one of them: call from one of those sites, or ask the operator to list this one.`,
  );
}

/** The scope the route's area requires, if any: a token without it gets 403 (RFC 6750 §3.1). */
export function authorize(principal: Principal, area: string, scopes: Config['auth']['scopes']): void {
  const required = scopes[area as keyof typeof scopes];
  if (required === undefined || principal.scopes === 'any' || principal.scopes.has(required)) return;
  throw new ServiceError(
    'ERR_SCOPE_MISSING',
    `The token lacks the scope ${required}, which ${area} operations require.`,
    challenge('insufficient_scope', undefined, required),
  );
}

/**
 * Bearer tokens (RFC 6750): API keys and JWTs, then the area's scope.
 *
 * An accepted Authorization header is remembered, as it was sent: an API key for good, a JWT until
 * the earlier of its expiry and a short TTL. A repeated header then costs one map lookup instead of
 * a hash (API keys) or a signature check (JWTs). A failed token is never remembered, so a guess
 * always takes the full path: its SHA-256 compared with every key in constant time (apiKeys.ts).
 * Whether a header is remembered says only whether it is exactly one that was accepted, nothing
 * about how close a guess came.
 */
import { LRUCache } from 'lru-cache';
import { loadApiKeys, sha256, type ApiKeyTable } from './apiKeys.ts';
import type { Config } from '../config.ts';
import { ServiceError } from '../../contract/errors.ts';
import { createJwtVerifier, type JwtVerifier } from './jwt.ts';
import { challenge, type Principal } from './principal.ts';

/** Checks the Authorization header: the principal, or a ServiceError with the RFC 6750 challenge. */
export interface Authenticate {
  (authorization: string | undefined): Principal | Promise<Principal>;
  /** The principal of a header accepted before and still trusted, checking nothing; undefined otherwise. */
  remembered(authorization: string | undefined): Principal | undefined;
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
/** Remembered headers: at most this many, and this many bytes of them (a header may be up to 16 KB). */
export const acceptedHeaderCount = 10_000;
const acceptedHeaderBytes = 8 * 1024 * 1024;

/** RFC 6750 §2.1: `Bearer` (any case), one space or more, then a b64token. */
const bearerPattern = /^Bearer +([A-Za-z0-9\-._~+/]+=*) *$/i;
const jwtShape = /^[A-Za-z0-9_-]*\.[A-Za-z0-9_-]*\.[A-Za-z0-9_-]*$/;

export async function createAuthenticator({ auth, extraKeys = [], now = Date.now }: AuthOptions): Promise<Authenticate> {
  const apiKeys: ApiKeyTable = await loadApiKeys([...auth.apiKeys, ...extraKeys], auth.apiKeysFile);
  const jwt: JwtVerifier | undefined = auth.jwt ? await createJwtVerifier(auth.jwt) : undefined;
  // Verified JWTs, each until the earlier of its expiry and verifiedTokenTtlMs.
  const accepted = new LRUCache<string, { principal: Principal; until: number }>({
    max: acceptedHeaderCount,
    maxSize: acceptedHeaderBytes,
    sizeCalculation: (_value, header) => header.length + 64,
  });

  const verifyJwt = (verifier: JwtVerifier, token: string, authorization: string, time: number): Promise<Principal> =>
    verifier.verify(token, new Date(time)).then((principal) => {
      accepted.set(authorization, { principal, until: Math.min(principal.expiresAt ?? Infinity, time + verifiedTokenTtlMs) });
      return principal;
    });

  // Accepted API key headers in a plain map: they are trusted for good, so the LRU's bookkeeping buys
  // nothing on the path of every request. Bounded like the LRU; when full, it starts again empty.
  const acceptedKeys = new Map<string, Principal>();
  let acceptedKeyBytes = 0;
  const rememberKey = (authorization: string, principal: Principal): void => {
    if (acceptedKeys.size >= acceptedHeaderCount || acceptedKeyBytes + authorization.length > acceptedHeaderBytes) {
      acceptedKeys.clear();
      acceptedKeyBytes = 0;
    }
    acceptedKeys.set(authorization, principal);
    acceptedKeyBytes += authorization.length;
  };

  const remembered = (authorization: string | undefined): Principal | undefined => {
    if (authorization === undefined) return undefined;
    const key = acceptedKeys.get(authorization);
    if (key) return key;
    const known = accepted.get(authorization);
    return known && known.until > now() ? known.principal : undefined;
  };

  const authenticate = (authorization: string | undefined): Principal | Promise<Principal> => {
    const known = remembered(authorization);
    if (known) return known;
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
    const apiKey = apiKeys.match(sha256(token));
    if (apiKey) {
      rememberKey(authorization, apiKey);
      return apiKey;
    }
    if (jwt && jwtShape.test(token)) return verifyJwt(jwt, token, authorization, now());
    throw new ServiceError(
      'ERR_TOKEN_INVALID',
      `The bearer token is not valid: it is not one of the accepted keys${jwt ? ', nor a JWT' : ''}.`,
      challenge('invalid_token', 'the token is not valid'),
    );
  };
  return Object.assign(authenticate, { remembered });
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

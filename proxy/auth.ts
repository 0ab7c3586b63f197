/**
 * Bearer tokens (RFC 6750). This first cut accepts the API keys from API_KEYS; every comparison
 * goes through fixed-length SHA-256 digests and timingSafeEqual, and every key is compared, so the
 * time taken says nothing about how close a guess was or which key matched.
 */
import { createHash, timingSafeEqual } from 'node:crypto';
import { ApiError } from './envelope.ts';

export const realm = 'reference-data';

/** RFC 6750 §2.1: `Bearer` (any case), one space or more, then a b64token. */
const bearerPattern = /^Bearer +([A-Za-z0-9\-._~+/]+=*) *$/i;

/** Rejects the request by throwing an ApiError; returns when the token is accepted. */
export type Authenticate = (authorization: string | undefined) => void;

function challenge(error?: string, description?: string): Record<string, string> {
  const parts = [`realm="${realm}"`];
  if (error) parts.push(`error="${error}"`);
  if (description) parts.push(`error_description="${description}"`);
  return { 'WWW-Authenticate': `Bearer ${parts.join(', ')}` };
}

function digest(token: string): Buffer {
  return createHash('sha256').update(token).digest();
}

export function createApiKeyAuthenticator(apiKeys: readonly string[]): Authenticate {
  const accepted = apiKeys.map(digest);
  return (authorization) => {
    if (authorization === undefined || authorization.trim() === '') {
      // RFC 6750 §3.1: a request without credentials gets the challenge and no error code.
      throw new ApiError(401, 'Authorization required: send the header "Authorization: Bearer <token>".', challenge());
    }
    const match = bearerPattern.exec(authorization.trim());
    if (!match?.[1]) {
      throw new ApiError(
        400,
        'Malformed Authorization header: expected "Bearer <token>" with the token in one piece.',
        challenge('invalid_request', 'expected Bearer <token>'),
      );
    }
    const presented = digest(match[1]);
    let found = false;
    for (const key of accepted) found = timingSafeEqual(presented, key) || found;
    if (!found) {
      throw new ApiError(
        401,
        'The bearer token is not valid: check that it is one of the keys this service accepts.',
        challenge('invalid_token', 'the token is not valid'),
      );
    }
  };
}

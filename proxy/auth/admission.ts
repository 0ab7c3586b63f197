/**
 * Who is let in, and how often: the token check (authenticate.ts) behind the per-address budget of
 * invalid tokens, and the per-token budget of requests (rateLimits.ts).
 *
 * An address that has spent its budget of invalid tokens is answered 429 without any token check,
 * so guessing stops there, except for a header this service accepted before (a remembered one),
 * which still passes: clients behind the same NAT or proxy keep working. Only invalid tokens are
 * counted (ERR_TOKEN_INVALID): a request without a token or with a malformed header cannot be a
 * guess, and a key set that cannot be fetched is not the client's doing.
 */
import type http from 'node:http';
import type { BlockList } from 'node:net';
import { ServiceError } from '../../contract/errors.ts';
import type { Config } from '../config.ts';
import { addressBucketOf, clientAddressOf } from '../http/clientAddress.ts';
import { addressBlocked, SharedLimiter, tokenBudgetSpent, type RateLimitFields, type Share, type ShareMessage, type Standing } from '../rateLimits.ts';
import type { Authenticate } from './authenticate.ts';
import type { Principal } from './principal.ts';

/** No budgets at all: every token check as authenticate.ts makes it, nothing counted. */
export const noLimits: Config['limits'] = { perToken: undefined, authFailures: undefined, trustedProxies: undefined };

export interface Admission {
  /** The principal of the request's token, or a ServiceError: 401 or 400, or 429 for an address out of budget. */
  authenticate(request: http.IncomingMessage): Principal | Promise<Principal>;
  /**
   * Counts a request against the principal's budget: nothing to add when there is no budget (no
   * promise either), the RateLimit fields to send, or a 429 ServiceError.
   */
  admit(principal: Principal): undefined | Promise<RateLimitFields>;
  /** Counts another worker counted (relayed by the primary). */
  absorb(message: ShareMessage): void;
  /** The client's address as the budgets see it: the peer's, or the one TRUSTED_PROXIES forwarded. */
  clientAddress(request: http.IncomingMessage): string;
}

/** A refusal with the RateLimit fields of the address's standing added. */
function withStanding(error: ServiceError, standing: Standing): ServiceError {
  return new ServiceError(error.code, error.message, { ...error.headers, ...standing.headers }, { cause: error.cause });
}

export function createAdmission(authenticate: Authenticate, limits: Config['limits'], share: Share | undefined): Admission {
  const perToken = limits.perToken && new SharedLimiter('token', limits.perToken, share);
  const failures = limits.authFailures && new SharedLimiter('failedauth', limits.authFailures, share);
  const trusted: BlockList | undefined = limits.trustedProxies;
  const refuseToken = (standing: Standing): never => {
    throw tokenBudgetSpent(standing, (perToken as SharedLimiter).budget);
  };

  const checkCounted = (failed: SharedLimiter, authorization: string | undefined, address: string): Promise<Principal> =>
    failed.peek(address).then((standing) => {
      if (!standing.allowed) throw addressBlocked(standing, failed.budget);
      // Through a promise, so a synchronous refusal is caught like a JWT's asynchronous one.
      return Promise.resolve()
        .then(() => authenticate(authorization))
        .catch((error: unknown) => {
          if (!(error instanceof ServiceError) || error.code !== 'ERR_TOKEN_INVALID') throw error;
          return failed.consume(address).then((after) => {
            throw withStanding(error, after);
          });
        });
    });

  return {
    authenticate(request) {
      const authorization = request.headers.authorization;
      if (failures === undefined) return authenticate(authorization);
      return authenticate.remembered(authorization) ?? checkCounted(failures, authorization, addressBucketOf(clientAddressOf(request, trusted)));
    },
    admit(principal) {
      if (perToken === undefined) return undefined;
      return perToken.admit(principal.subject, refuseToken);
    },
    absorb({ rateLimitShare: { policy, counts } }) {
      (policy === 'token' ? perToken : failures)?.absorb(counts);
    },
    clientAddress: (request) => clientAddressOf(request, trusted),
  };
}

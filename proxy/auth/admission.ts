/**
 * Who is let in, and how often: the token check (authenticate.ts) with its costly step behind the
 * per-address budget of invalid tokens (checkGate.ts), and the per-token budget of requests
 * (rateLimits.ts).
 *
 * A token accepted before (by this worker or, in a cluster, by another) and every API key, valid
 * or not, are decided before the budget is consulted: a remembered token or a key's hash costs
 * less than a refusal, so a client with a valid key or token is never locked out by what others at
 * its address send. Only the rest (JWTs not yet seen, and the verdict that a token is neither a key
 * nor a JWT) is counted against the address: an address that has spent its budget gets 429 without
 * the check. Only invalid tokens stay counted (ERR_TOKEN_INVALID): a request without a token or
 * with a malformed header cannot be a guess, and a key set that cannot be fetched is not the
 * client's doing.
 */
import type http from 'node:http';
import type { BlockList } from 'node:net';
import { ServiceError } from '../../contract/errors.ts';
import type { Config } from '../config/config.ts';
import { addressBucketOf, clientAddressOf } from './clientAddress.ts';
import { addressBlocked, anonymousBudgetSpent, isShareMessage, SharedLimiter, tokenBudgetSpent, type RateLimitFields, type Standing } from './rateLimits.ts';
import type { Authenticate } from './authenticate.ts';
import { ClusterFailureCounter, isKnownTokenMessage, KnownTokens, LocalFailureCounter, type FailureCounter } from './checkGate.ts';
import type { Principal } from './principal.ts';

/** No budgets at all: every token check as authenticate.ts makes it, nothing counted. */
export const noLimits: Config['limits'] = { perToken: undefined, authFailures: undefined, anonymous: undefined, trustedProxies: undefined };

/** A cluster worker's channel to its primary (process.send), for the budgets the workers share. */
export type PrimaryLink = (message: object) => void;

export interface Admission {
  /** The principal of the request's token, or a ServiceError: 401 or 400, or 429 for an address out of budget. */
  authenticate(request: http.IncomingMessage): Principal | Promise<Principal>;
  /**
   * Counts a request against the principal's budget: nothing to add when there is no budget, the
   * RateLimit fields to send, or a thrown 429 ServiceError.
   */
  admit(principal: Principal): RateLimitFields | undefined;
  /**
   * Counts a request without a token (a calendar) against its client address's budget
   * (ANONYMOUS_LIMIT, IPv6 by its /64): nothing when there is no budget, else a thrown 429.
   */
  admitAnonymous(request: http.IncomingMessage): void;
  /** A message from the primary: counts, replies and known tokens of the other workers. */
  receive(message: unknown): void;
  /** The client's address as the budgets see it: the peer's, or the one TRUSTED_PROXIES forwarded. */
  clientAddress(request: http.IncomingMessage): string;
  /**
   * Whether an answer to a token depends on the request's Origin: some key is bound to web origins.
   * A browser may then not reuse one origin's answer for a page of another (Vary: Origin), since a
   * browser's cache is shared by the origins of one site.
   */
  readonly variesByOrigin: boolean;
}

/** A refusal with the RateLimit fields of the address's standing added. */
function withStanding(error: ServiceError, standing: Standing): ServiceError {
  return new ServiceError(error.code, error.message, { ...error.headers, ...standing.headers }, { cause: error.cause });
}

export function createAdmission(
  authenticate: Authenticate,
  limits: Config['limits'],
  primary: PrimaryLink | undefined,
  now: () => number = Date.now,
): Admission {
  const perToken = limits.perToken && new SharedLimiter('token', limits.perToken, primary);
  // A key with a budget of its own (`rate=`) counts against it instead, under the policy `key`.
  const ownLimiters = new Map([...authenticate.ownBudgets].map(([budgetKey, budget]) => [budgetKey, new SharedLimiter('key', budget, primary)]));
  const trusted: BlockList | undefined = limits.trustedProxies;
  const failureBudget = limits.authFailures;
  const failures: FailureCounter | undefined =
    failureBudget && (primary ? new ClusterFailureCounter(failureBudget, primary, now) : new LocalFailureCounter(failureBudget, undefined, now));
  const known = new KnownTokens(primary, now);
  const anonymous = limits.anonymous && new SharedLimiter('anonymous', limits.anonymous, primary);
  const refuseToken = (standing: Standing): never => {
    throw tokenBudgetSpent(standing, (perToken as SharedLimiter).budget);
  };

  /** The check of a token nothing cheaper decided, counted against the address unless the token is known. */
  const gated = (counter: FailureCounter, token: string, request: http.IncomingMessage): Promise<Principal> => {
    const digest = KnownTokens.digestOf(token);
    const verify = (): Promise<Principal> => Promise.resolve().then(() => authenticate.verify(token));
    if (known.has(digest)) return verify();
    return Promise.resolve(counter.reserve(clientAddressOf(request, trusted))).then(({ standing, key }) => {
      if (!standing.allowed) throw addressBlocked(standing, failureBudget as NonNullable<typeof failureBudget>);
      return verify().then(
        (principal) => {
          counter.refund(key);
          known.add(digest, principal.expiresAt ?? Number.MAX_SAFE_INTEGER);
          return principal;
        },
        (error: unknown) => {
          if (error instanceof ServiceError && error.code === 'ERR_TOKEN_INVALID') throw withStanding(error, standing);
          counter.refund(key);
          throw error;
        },
      );
    });
  };

  return {
    authenticate(request) {
      const authorization = request.headers.authorization;
      if (failures === undefined) return authenticate(authorization);
      const remembered = authenticate.rememberedHeader(authorization);
      if (remembered) return remembered;
      const token = authenticate.tokenOf(authorization);
      return authenticate.recognise(token) ?? gated(failures, token, request);
    },
    admit(principal) {
      const own = principal.budget && ownLimiters.get(principal.budgetKey);
      if (own)
        return own.admit(principal.budgetKey, (standing) => {
          throw tokenBudgetSpent(standing, own.budget);
        });
      if (perToken === undefined) return undefined;
      return perToken.admit(principal.budgetKey, refuseToken);
    },
    admitAnonymous(request) {
      if (anonymous === undefined) return;
      anonymous.admit(addressBucketOf(clientAddressOf(request, trusted), 64), (standing) => {
        throw anonymousBudgetSpent(standing, anonymous.budget);
      });
    },
    receive(message) {
      if (isShareMessage(message)) {
        const { policy, counts } = message.rateLimitShare;
        if (policy === 'token') perToken?.absorb(counts);
        else if (policy === 'anonymous') anonymous?.absorb(counts);
        else if (policy === 'key') for (const count of counts) ownLimiters.get(count[0])?.absorb([count]);
      } else if (isKnownTokenMessage(message)) known.absorb(message);
      else if (failures instanceof ClusterFailureCounter) failures.receive(message);
    },
    clientAddress: (request) => clientAddressOf(request, trusted),
    variesByOrigin: authenticate.originBound,
  };
}

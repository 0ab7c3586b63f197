/**
 * Rate limits: a budget of requests per token (RATE_LIMIT) and a budget of invalid tokens per
 * client address (AUTH_FAILURE_LIMIT), counted by rate-limiter-flexible's RateLimiterMemory in
 * fixed windows, answered with 429, Retry-After and the IETF RateLimit fields
 * (draft-ietf-httpapi-ratelimit-headers-10 §3–§4: `RateLimit-Policy: "token";q=600;w=60`,
 * `RateLimit: "token";r=599;t=42`).
 *
 * Shared across cluster workers without a round trip per request: each worker decides from its own
 * counters and tells the others what it counted through the primary (supervisor.ts), which relays
 * it to every other serving worker; they add it as a penalty. A worker tells at once, before its
 * answer is written, for its first 20 messages a second; past that it batches, one message every
 * 20 ms. So under a light load the workers agree exactly, under a heavy one to within the last 20 ms
 * of requests, and a worker just started begins at zero. (The library's own RateLimiterCluster asks
 * the primary on every request instead: a message each way per request, through one process.)
 */
import { RateLimiterMemory, RateLimiterRes } from 'rate-limiter-flexible';
import { ServiceError } from '../contract/errors.ts';
import type { Budget } from './config.ts';

/** The policies, by the names the RateLimit fields give them. */
export type PolicyName = 'token' | 'failedauth';

/** What one worker counted, for the others: [key, points] pairs of one policy. */
export interface ShareMessage {
  readonly rateLimitShare: { readonly policy: PolicyName; readonly counts: readonly (readonly [string, number])[] };
}

export function isShareMessage(message: unknown): message is ShareMessage {
  const share = (message as Partial<ShareMessage> | null)?.rateLimitShare;
  return typeof share === 'object' && share !== null && (share.policy === 'token' || share.policy === 'failedauth') && Array.isArray(share.counts);
}

/** Where a worker's counts go: process.send in a cluster worker, nowhere in a lone process. */
export type Share = (message: ShareMessage) => void;

/** The IETF fields of a standing, always in this shape (one hidden class for every response's headers). */
export interface RateLimitFields {
  readonly 'RateLimit-Policy': string;
  readonly RateLimit: string;
}

/** The state of a key's budget after a request. */
export interface Standing {
  readonly allowed: boolean;
  /** Requests left in the window. */
  readonly remaining: number;
  /** Whole seconds until the window ends (at least 1 while it is running). */
  readonly resetSeconds: number;
  /** The RateLimit and RateLimit-Policy fields of this standing. */
  readonly headers: RateLimitFields;
}

/**
 * Counts go out at once, up to this many messages per policy a second (so a worker at a lighter load
 * than that is never behind the others); beyond it, in one message every flushSpacingMs: at most
 * 70 messages a second per worker through the primary, however heavy the load.
 */
const immediateSharesPerSecond = 20;
const flushSpacingMs = 20;

/** One budget, one policy: counted here, shared with the other workers. */
export class SharedLimiter {
  readonly #limiter: RateLimiterMemory;
  readonly #policyField: string;
  readonly #pending = new Map<string, number>();
  #flushScheduled = false;
  /** Messages that may still go out at once in the second that began at #creditSince. */
  #credit = 0;
  #creditSince = -Infinity;

  constructor(
    readonly policy: PolicyName,
    readonly budget: Budget,
    private readonly share: Share | undefined,
  ) {
    this.#limiter = new RateLimiterMemory({ points: budget.points, duration: budget.seconds, keyPrefix: '' });
    this.#policyField = `"${policy}";q=${budget.points};w=${budget.seconds}`;
  }

  /** Counts one request for `key`: allowed while the window's budget lasts. */
  consume(key: string): Promise<Standing> {
    this.#note(key, 1);
    return this.#limiter.consume(key, 1).then(
      (result) => this.#standing(true, result),
      (result: unknown) => this.#standing(false, refusal(result)),
    );
  }

  /** consume() for every request of a token: the RateLimit fields when allowed; when not, whatever `refuse` throws. */
  admit(key: string, refuse: (standing: Standing) => never): Promise<RateLimitFields> {
    this.#note(key, 1);
    return this.#limiter.consume(key, 1).then(
      (result) => this.#standing(true, result).headers,
      (result: unknown) => refuse(this.#standing(false, refusal(result))),
    );
  }

  /** The key's standing without counting: whether its budget is used up. */
  peek(key: string): Promise<Standing> {
    return this.#limiter.get(key).then((result) => (result === null ? this.#fresh() : this.#standing(result.consumedPoints < this.budget.points, result)));
  }

  /** What the other workers counted, added to this worker's counters. */
  absorb(counts: readonly (readonly [string, number])[]): void {
    for (const [key, points] of counts) {
      if (typeof key !== 'string' || !Number.isSafeInteger(points) || points <= 0) continue;
      void this.#limiter.penalty(key, points);
    }
  }

  #fresh(): Standing {
    return this.#standing(true, new RateLimiterRes(this.budget.points, this.budget.seconds * 1000, 0, true));
  }

  #standing(allowed: boolean, result: RateLimiterRes): Standing {
    const remaining = Math.max(0, this.budget.points - result.consumedPoints);
    const resetSeconds = Math.max(1, Math.ceil(result.msBeforeNext / 1000));
    return {
      allowed,
      remaining,
      resetSeconds,
      headers: { 'RateLimit-Policy': this.#policyField, RateLimit: `"${this.policy}";r=${remaining};t=${resetSeconds}` },
    };
  }

  #note(key: string, points: number): void {
    if (this.share === undefined) return;
    this.#pending.set(key, (this.#pending.get(key) ?? 0) + points);
    if (this.#flushScheduled) return;
    const now = performance.now();
    if (now - this.#creditSince >= 1000) {
      this.#credit = immediateSharesPerSecond;
      this.#creditSince = now;
    }
    // Sent before the answer is written: the other workers know before the client's next request can reach them.
    if (this.#credit > 0) {
      this.#credit--;
      this.#flush();
      return;
    }
    this.#flushScheduled = true;
    setTimeout(() => this.#flush(), flushSpacingMs).unref();
  }

  #flush(): void {
    this.#flushScheduled = false;
    if (this.#pending.size === 0) return;
    const counts = [...this.#pending];
    this.#pending.clear();
    this.share?.({ rateLimitShare: { policy: this.policy, counts } });
  }
}

/** The library rejects with the key's state when the budget is spent; anything else is a fault. */
function refusal(result: unknown): RateLimiterRes {
  if (result instanceof RateLimiterRes) return result;
  throw result;
}

/** The 429 of a token whose budget is used up. */
export function tokenBudgetSpent(standing: Standing, budget: Budget): ServiceError {
  return new ServiceError(
    'ERR_RATE_LIMITED',
    `Too many requests with this token: its budget is ${budget.points} per ${budget.seconds} s. Retry in ${standing.resetSeconds} s (Retry-After), or ask the service's operators for a larger budget.`,
    { 'Retry-After': String(standing.resetSeconds), ...standing.headers },
  );
}

/** The 429 of an address that sent too many invalid tokens. */
export function addressBlocked(standing: Standing, budget: Budget): ServiceError {
  return new ServiceError(
    'ERR_RATE_LIMITED',
    `Too many invalid tokens from this address: at most ${budget.points} per ${budget.seconds} s are checked. Retry in ${standing.resetSeconds} s (Retry-After) with a valid token; a token this service accepted before is still answered.`,
    { 'Retry-After': String(standing.resetSeconds), ...standing.headers },
  );
}

/**
 * Rate limits: a budget of requests per token (RATE_LIMIT) and a budget of invalid tokens per
 * client address (AUTH_FAILURE_LIMIT), counted in fixed windows (auth/windowCounter.ts), answered
 * with 429, Retry-After and the IETF RateLimit fields (draft-ietf-httpapi-ratelimit-headers-10
 * §3–§4: `RateLimit-Policy: "token";q=600;w=60`, `RateLimit: "token";r=599;t=42`).
 *
 * The per-token budget is on every request's path, so it is shared across cluster workers without
 * a round trip: each worker decides from its own counters and tells the others what it counted
 * through the primary (supervisor.ts), which relays it to every other serving worker. A worker
 * tells at once, before its answer is written, for its first 20 messages a second; past that it
 * batches, one message every 20 ms. So under a light load the workers agree exactly, under a heavy
 * one to within the last 20 ms of requests, and a worker just started begins at zero. The budget of
 * invalid tokens is off that path and is counted by the primary alone (auth/checkGate.ts).
 */
import { ServiceError } from '../../contract/errors.ts';
import type { Budget } from '../config/config.ts';
import { WindowCounter, type Window } from './windowCounter.ts';

/** The policies, by the names the RateLimit fields give them: RATE_LIMIT's, a key's own (`rate=`), AUTH_FAILURE_LIMIT's, ANONYMOUS_LIMIT's. */
export type PolicyName = 'token' | 'key' | 'failedauth' | 'anonymous';

/** What one worker counted, for the others: [key, points] pairs of one policy. */
export interface ShareMessage {
  readonly rateLimitShare: { readonly policy: PolicyName; readonly counts: readonly (readonly [string, number])[] };
}

export function isShareMessage(message: unknown): message is ShareMessage {
  const share = (message as Partial<ShareMessage> | null)?.rateLimitShare;
  return (
    typeof share === 'object' &&
    share !== null &&
    (share.policy === 'token' || share.policy === 'key' || share.policy === 'failedauth' || share.policy === 'anonymous') &&
    Array.isArray(share.counts)
  );
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

/**
 * Tokens whose budgets are counted at once: a token's window is kept while it is among the most
 * recently used this many. Every token is a valid one (a budget is counted after the token check),
 * so only a service with more clients than this within one window forgets a window early.
 */
export const tokenWindows = 50_000;

/** The standing of a budget from a key's window: allowed while the count is within the budget. */
export function standingOf(policy: PolicyName, budget: Budget, window: Window, now: number, field = policyField(policy, budget)): Standing {
  const remaining = Math.max(0, budget.points - window.count);
  const resetSeconds = Math.max(1, Math.ceil((window.resetAt - now) / 1000));
  return {
    allowed: window.count <= budget.points,
    remaining,
    resetSeconds,
    headers: { 'RateLimit-Policy': field, RateLimit: `"${policy}";r=${remaining};t=${resetSeconds}` },
  };
}

/** `"token";q=600;w=60`: the RateLimit-Policy field of a budget. */
export function policyField(policy: PolicyName, budget: Budget): string {
  return `"${policy}";q=${budget.points};w=${budget.seconds}`;
}

/** One budget, one policy: counted here, shared with the other workers. */
export class SharedLimiter {
  readonly #counter: WindowCounter;
  readonly #field: string;
  readonly #pending = new Map<string, number>();
  #flushScheduled = false;
  /** Messages that may still go out at once in the second that began at #creditSince. */
  #credit = 0;
  #creditSince = -Infinity;

  constructor(
    readonly policy: PolicyName,
    readonly budget: Budget,
    private readonly share: Share | undefined,
    capacity = tokenWindows,
    private readonly now: () => number = Date.now,
  ) {
    this.#counter = new WindowCounter(budget, capacity, now);
    this.#field = policyField(policy, budget);
  }

  /** How many keys the limiter holds now. */
  get size(): number {
    return this.#counter.size;
  }

  /** Counts one request for `key`: allowed while the window's budget lasts. */
  consume(key: string): Standing {
    this.#note(key, 1);
    return standingOf(this.policy, this.budget, this.#counter.add(key, 1), this.now(), this.#field);
  }

  /** consume() for every request of a token: the RateLimit fields when allowed; when not, whatever `refuse` throws. */
  admit(key: string, refuse: (standing: Standing) => never): RateLimitFields {
    const standing = this.consume(key);
    return standing.allowed ? standing.headers : refuse(standing);
  }

  /** The key's standing without counting: whether its budget is used up. */
  peek(key: string): Standing {
    const window = this.#counter.peek(key);
    return { ...standingOf(this.policy, this.budget, window, this.now(), this.#field), allowed: window.count < this.budget.points };
  }

  /** What the other workers counted, added to this worker's counters. */
  absorb(counts: readonly (readonly [string, number])[]): void {
    for (const [key, points] of counts) {
      if (typeof key !== 'string' || !Number.isSafeInteger(points) || points <= 0) continue;
      this.#counter.add(key, points);
    }
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

/** The 429 of an address that sent too many requests without a token. */
export function anonymousBudgetSpent(standing: Standing, budget: Budget): ServiceError {
  return new ServiceError(
    'ERR_RATE_LIMITED',
    `Too many requests without a token from this address: at most ${budget.points} per ${budget.seconds} s. Retry in ${standing.resetSeconds} s (Retry-After); a calendar app needs far fewer, and lookups with a token are not counted here.`,
    { 'Retry-After': String(standing.resetSeconds), ...standing.headers },
  );
}

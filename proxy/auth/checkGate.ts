/**
 * The budget of invalid tokens per client address (AUTH_FAILURE_LIMIT), as a gate in front of the
 * one check that costs: a JWT's signature, and the verdict on a token no key matches. API keys and
 * tokens accepted before never reach it (admission.ts), so a client with a valid token is never
 * locked out by what others at its address send.
 *
 * A check is counted before it runs and the count taken back when the token turns out good (or
 * cannot be verified for the service's own reasons): concurrent checks cannot overrun the budget.
 * In a cluster the counts are kept by the primary alone, asked once per gated check (a message
 * each way, off the path of every request with a known token), so the budget is exact across the
 * workers; a worker remembers an address found out of budget until its window ends, so a flood
 * from it costs no message at all. A token accepted by one worker is made known to the others
 * through the primary, so none of them gates it again.
 *
 * The counts are bounded (windowCounter.ts). IPv6 addresses are counted by their /64, and by their
 * /48 once the counter is more than half full: a flood stepping through a large block of addresses
 * then fills no more of it than a small one.
 */
import { LRUCache } from 'lru-cache';
import type { Budget } from '../config/config.ts';
import { addressBucketOf } from './clientAddress.ts';
import { standingOf, type Standing } from './rateLimits.ts';
import { sha256 } from './apiKeys.ts';
import { WindowCounter, type Window } from './windowCounter.ts';

/** Client addresses counted at once (about 200 bytes each). */
export const failedAuthWindows = 100_000;
/** Tokens accepted by any worker, remembered by their digest until they expire. */
const knownTokenCount = 50_000;
/** Addresses a worker remembers as out of budget, so that their checks cost no message. */
const blockedAddressCount = 10_000;
/** A primary that has not answered in this time is not waited for: the check runs ungated (it is still a full check). */
const replyTimeoutMs = 2_000;

/** A gated check counted: the standing after it, and the key to take it back under. */
export interface Reservation {
  readonly standing: Standing;
  readonly key: string;
}

/** Where the counts of failed checks are kept: in this process, or in the primary. */
export interface FailureCounter {
  /** Counts one check for the address; the standing after it says whether the check may run. */
  reserve(address: string): Reservation | Promise<Reservation>;
  /** Takes back a check that did not fail (the token was good, or could not be verified). */
  refund(key: string): void;
}

/** The counts in this process: a lone process's, or the primary's for its workers. */
export class LocalFailureCounter implements FailureCounter {
  readonly #counter: WindowCounter;

  constructor(
    readonly budget: Budget,
    readonly capacity = failedAuthWindows,
    private readonly now: () => number = Date.now,
  ) {
    this.#counter = new WindowCounter(budget, capacity, now);
  }

  get size(): number {
    return this.#counter.size;
  }

  /** Counts one check for the address: the key it was counted under and its window after. */
  count(address: string): { readonly key: string; readonly window: Window } {
    const key = addressBucketOf(address, this.#counter.size > this.capacity / 2 ? 48 : 64);
    return { key, window: this.#counter.add(key, 1) };
  }

  reserve(address: string): Reservation {
    const { key, window } = this.count(address);
    return { key, standing: standingOf('failedauth', this.budget, window, this.now()) };
  }

  refund(key: string): void {
    this.#counter.add(key, -1);
  }
}

/** What a worker asks the primary, and what the primary answers. */
export interface GateRequest {
  readonly authGate: { readonly id: number; readonly address: string } | { readonly refund: string };
}
export interface GateReply {
  readonly authGateReply: { readonly id: number; readonly key: string; readonly count: number; readonly resetAt: number };
}
/** A token one worker accepted, for the others (relayed by the primary). */
export interface KnownTokenMessage {
  readonly knownToken: { readonly digest: string; readonly until: number };
}

export function isGateRequest(message: unknown): message is GateRequest {
  const request = (message as Partial<GateRequest> | null)?.authGate;
  return (
    typeof request === 'object' &&
    request !== null &&
    (typeof (request as { address?: unknown }).address === 'string' || typeof (request as { refund?: unknown }).refund === 'string')
  );
}

function isGateReply(message: unknown): message is GateReply {
  const reply = (message as Partial<GateReply> | null)?.authGateReply;
  return typeof reply === 'object' && reply !== null && typeof reply.id === 'number';
}

export function isKnownTokenMessage(message: unknown): message is KnownTokenMessage {
  const known = (message as Partial<KnownTokenMessage> | null)?.knownToken;
  return typeof known === 'object' && known !== null && typeof known.digest === 'string' && typeof known.until === 'number';
}

/** The primary's side: answers its workers' requests from one counter. */
export function answerGateRequests(budget: Budget, now: () => number = Date.now): (request: GateRequest, reply: (answer: GateReply) => void) => void {
  const counter = new LocalFailureCounter(budget, failedAuthWindows, now);
  return ({ authGate }, reply) => {
    if ('refund' in authGate) return counter.refund(authGate.refund);
    if (typeof authGate.id !== 'number') return;
    const { key, window } = counter.count(authGate.address);
    reply({ authGateReply: { id: authGate.id, key, count: window.count, resetAt: window.resetAt } });
  };
}

/** A worker's side: asks the primary through `send`, which answers through `receive`. */
export class ClusterFailureCounter implements FailureCounter {
  readonly #waiting = new Map<number, (reservation: Reservation, resetAt: number) => void>();
  /** Addresses out of budget: the key they are counted under and when their window ends, kept until then. */
  readonly #blocked = new LRUCache<string, { readonly key: string; readonly resetAt: number }>({ max: blockedAddressCount });
  #nextId = 0;

  constructor(
    readonly budget: Budget,
    private readonly send: (request: GateRequest) => void,
    private readonly now: () => number = Date.now,
  ) {}

  reserve(address: string): Reservation | Promise<Reservation> {
    const blocked = this.#blocked.get(address);
    if (blocked !== undefined && blocked.resetAt > this.now()) return this.#reservation(blocked.key, this.budget.points + 1, blocked.resetAt);
    const id = this.#nextId++;
    return new Promise((resolve) => {
      const timer = setTimeout(() => {
        this.#waiting.delete(id);
        resolve(this.#reservation(address, 0, this.now() + this.budget.seconds * 1000));
      }, replyTimeoutMs);
      timer.unref();
      this.#waiting.set(id, (reservation, resetAt) => {
        clearTimeout(timer);
        if (!reservation.standing.allowed) this.#blocked.set(address, { key: reservation.key, resetAt });
        resolve(reservation);
      });
      this.send({ authGate: { id, address } });
    });
  }

  refund(key: string): void {
    this.send({ authGate: { refund: key } });
  }

  /** A reply of the primary's; anything else is ignored. */
  receive(message: unknown): void {
    if (!isGateReply(message)) return;
    const { id, key, count, resetAt } = message.authGateReply;
    const resolve = this.#waiting.get(id);
    if (resolve === undefined) return;
    this.#waiting.delete(id);
    resolve(this.#reservation(key, count, resetAt), resetAt);
  }

  #reservation(key: string, count: number, resetAt: number): Reservation {
    return { key, standing: standingOf('failedauth', this.budget, { count, resetAt }, this.now()) };
  }
}

/** Tokens accepted by this worker or another, by their digest, each until it expires or its trust runs out. */
export class KnownTokens {
  readonly #until = new LRUCache<string, number>({ max: knownTokenCount });

  constructor(
    private readonly share: ((message: KnownTokenMessage) => void) | undefined,
    private readonly now: () => number = Date.now,
  ) {}

  /** The digest a token is known by. */
  static digestOf(token: string): string {
    return sha256(token).toString('base64url');
  }

  has(digest: string): boolean {
    const until = this.#until.get(digest);
    return until !== undefined && until > this.now();
  }

  /** Notes a token this worker accepted, and tells the others. */
  add(digest: string, until: number): void {
    this.#until.set(digest, until);
    this.share?.({ knownToken: { digest, until } });
  }

  /** A token another worker accepted. */
  absorb({ knownToken: { digest, until } }: KnownTokenMessage): void {
    if (until > this.now()) this.#until.set(digest, until);
  }
}

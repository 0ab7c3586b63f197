/**
 * rateLimits.ts: a budget counted per key in fixed windows, shown in the IETF RateLimit fields, and
 * shared between workers by the counts each sends the others (here, two limiters wired directly).
 */
import { describe, expect, it } from 'vitest';
import { answerGateRequests, ClusterFailureCounter, isGateRequest, LocalFailureCounter } from '../../proxy/auth/checkGate.ts';
import { WindowCounter } from '../../proxy/auth/windowCounter.ts';
import { SharedLimiter, isShareMessage, type RateLimitFields, type ShareMessage } from '../../proxy/auth/rateLimits.ts';

describe('one limiter', () => {
  it('allows the budget, then refuses, with the policy, the remaining count and the reset in the RateLimit fields', async () => {
    const limiter = new SharedLimiter('token', { points: 3, seconds: 60 }, undefined);
    const standings = [];
    for (let count = 0; count < 5; count++) standings.push(await limiter.consume('client-a'));
    expect(standings.map((standing) => standing.allowed)).toEqual([true, true, true, false, false]);
    expect(standings.map((standing) => standing.remaining)).toEqual([2, 1, 0, 0, 0]);
    expect(standings[0]?.headers['RateLimit-Policy']).toBe('"token";q=3;w=60');
    expect(standings[0]?.headers.RateLimit).toMatch(/^"token";r=2;t=(60|59)$/);
    expect(standings[4]?.resetSeconds).toBeGreaterThanOrEqual(1);
    expect(standings[4]?.resetSeconds).toBeLessThanOrEqual(60);
  });

  it('counts each key apart, and peek counts nothing', async () => {
    const limiter = new SharedLimiter('failedauth', { points: 2, seconds: 60 }, undefined);
    await limiter.consume('a');
    await limiter.consume('a');
    expect((await limiter.peek('a')).allowed).toBe(false);
    expect((await limiter.peek('b')).allowed).toBe(true);
    expect((await limiter.peek('b')).remaining).toBe(2);
    expect((await limiter.consume('b')).remaining).toBe(1);
  });
});

describe('admitting a token', () => {
  const refuse = (): never => {
    throw new Error('refused');
  };

  it('gives the RateLimit fields counting down, then refuses through the given refusal', async () => {
    const limiter = new SharedLimiter('token', { points: 5, seconds: 60 }, undefined);
    const fields: RateLimitFields[] = [];
    for (let count = 0; count < 5; count++) fields.push(await limiter.admit('k', refuse));
    expect(fields.map((field) => field.RateLimit.replace(/;t=\d+$/, ''))).toEqual(['"token";r=4', '"token";r=3', '"token";r=2', '"token";r=1', '"token";r=0']);
    expect(fields[1]?.['RateLimit-Policy']).toBe('"token";q=5;w=60');
    expect(() => limiter.admit('k', refuse)).toThrow('refused');
  });

  it('counts what other workers counted', async () => {
    const limiter = new SharedLimiter('token', { points: 10, seconds: 60 }, undefined);
    await limiter.admit('k', refuse);
    limiter.absorb([['k', 7]]);
    expect((await limiter.admit('k', refuse)).RateLimit).toMatch(/^"token";r=1;/);
    expect((await limiter.admit('k', refuse)).RateLimit).toMatch(/^"token";r=0;/);
    expect(() => limiter.admit('k', refuse)).toThrow('refused');
  });
});

describe('limiters of two workers', () => {
  /** Two limiters of one budget, each one's counts delivered to the other, as the primary relays them. */
  function pair(points: number): { a: SharedLimiter; b: SharedLimiter; sent: ShareMessage[] } {
    const sent: ShareMessage[] = [];
    const budget = { points, seconds: 60 };
    const limiters: SharedLimiter[] = [];
    const relay = (from: number) => (message: ShareMessage) => {
      sent.push(message);
      limiters[1 - from]?.absorb(message.rateLimitShare.counts);
    };
    limiters.push(new SharedLimiter('token', budget, relay(0)), new SharedLimiter('token', budget, relay(1)));
    const [a, b] = limiters as [SharedLimiter, SharedLimiter];
    return { a, b, sent };
  }

  it('share one budget: what one worker allowed, the other counts before its next answer', async () => {
    const { a, b } = pair(4);
    const answers = [];
    for (const worker of [a, b, a, b, a, b]) answers.push((await worker.consume('shared-key')).allowed);
    expect(answers).toEqual([true, true, true, true, false, false]);
    expect((await a.peek('shared-key')).remaining).toBe(0);
    expect((await b.peek('shared-key')).remaining).toBe(0);
  });

  it('tells the other at once, up to 20 messages a second, then in batches', async () => {
    const { a, b, sent } = pair(1000);
    await a.consume('k1');
    // Sent before the answer could be written.
    expect(sent).toHaveLength(1);
    // 150 more in one turn of the event loop: 19 messages at once, then the rest in a batch when it is due.
    await Promise.all(Array.from({ length: 150 }, (_, index) => a.consume(index % 2 === 0 ? 'k1' : 'k2')));
    expect(sent).toHaveLength(20);
    await new Promise<void>((resolve) => {
      const check = setInterval(() => {
        const delivered = sent.flatMap((message) => message.rateLimitShare.counts).reduce((sum, [, points]) => sum + points, 0);
        if (delivered === 151) resolve(clearInterval(check));
      }, 1);
    });
    expect(sent).toHaveLength(21);
    // The batch holds the busy requests from the 20th (index 19, a k2) on: 66 of k2, 65 of k1.
    expect(sent[20]?.rateLimitShare.counts).toEqual([
      ['k2', 66],
      ['k1', 65],
    ]);
    expect((await b.peek('k1')).remaining).toBe(1000 - 76);
    expect((await b.peek('k2')).remaining).toBe(1000 - 75);
  });

  it('ignores counts that are not positive whole numbers', async () => {
    const limiter = new SharedLimiter('token', { points: 5, seconds: 60 }, undefined);
    limiter.absorb([
      ['k', -3],
      ['k', 1.5],
      ['k', Number.NaN],
    ]);
    expect((await limiter.peek('k')).remaining).toBe(5);
  });
});

describe('the share message', () => {
  it('is recognised by its shape only', () => {
    expect(isShareMessage({ rateLimitShare: { policy: 'token', counts: [] } })).toBe(true);
    expect(isShareMessage({ rateLimitShare: { policy: 'other', counts: [] } })).toBe(false);
    expect(isShareMessage({ listening: 'http://x' })).toBe(false);
    expect(isShareMessage(null)).toBe(false);
  });
});

describe('the counts in memory', () => {
  it('hold at most their capacity of keys, however many distinct keys come, forgetting the longest unused', () => {
    const counter = new WindowCounter({ points: 3, seconds: 60 }, 1000);
    for (let index = 0; index < 472_000; index++) counter.add(`key-${index}`, 1);
    expect(counter.size).toBe(1000);
    expect(counter.peek('key-471999').count).toBe(1);
    expect(counter.peek('key-0').count).toBe(0);
  });

  it('start a fresh window when the last one has ended, and never count below zero', () => {
    let time = 0;
    const counter = new WindowCounter({ points: 3, seconds: 60 }, 10, () => time);
    expect(counter.add('a', 1)).toEqual({ count: 1, resetAt: 60_000 });
    counter.add('a', -5);
    expect(counter.peek('a').count).toBe(0);
    counter.add('a', 2);
    time = 60_000;
    expect(counter.peek('a')).toEqual({ count: 0, resetAt: 120_000 });
    expect(counter.add('a', 1)).toEqual({ count: 1, resetAt: 120_000 });
  });

  it('of invalid tokens per address stay bounded under a flood of addresses, and count IPv6 by its /48 once half full', () => {
    const counter = new LocalFailureCounter({ points: 3, seconds: 60 }, 1000);
    for (let index = 0; index < 472_000; index++) counter.reserve(`10.${(index >> 16) & 0xff}.${(index >> 8) & 0xff}.${index & 0xff}`);
    expect(counter.size).toBe(1000);
    // Full: a sweep through one /48's /64s is one key, and it runs out of budget.
    const standings = Array.from({ length: 5 }, (_, index) => counter.reserve(`2001:db8:7:${index.toString(16)}::1`));
    expect(standings.map((reservation) => reservation.key)).toEqual(Array.from({ length: 5 }, () => '2001:db8:7::/48'));
    expect(standings.map((reservation) => reservation.standing.allowed)).toEqual([true, true, true, false, false]);
  });

  it('of invalid tokens per address take back a check that did not fail', () => {
    const counter = new LocalFailureCounter({ points: 2, seconds: 60 }, 100);
    const first = counter.reserve('192.0.2.1');
    counter.refund(first.key);
    expect(counter.reserve('192.0.2.1').standing.remaining).toBe(1);
    expect(counter.reserve('2001:db8:1:2::5').key).toBe('2001:db8:1:2::/64');
  });
});

describe('the budget of invalid tokens in a cluster', () => {
  /** Two workers' counters wired to one primary, as supervisor.ts wires them; `sent` counts the messages to it. */
  function cluster(points: number): { workers: ClusterFailureCounter[]; sent: () => number } {
    const answer = answerGateRequests({ points, seconds: 60 });
    let sent = 0;
    const workers: ClusterFailureCounter[] = [];
    for (let index = 0; index < 2; index++) {
      const worker: ClusterFailureCounter = new ClusterFailureCounter({ points, seconds: 60 }, (request) => {
        sent++;
        if (isGateRequest(request)) queueMicrotask(() => answer(request, (reply) => worker.receive(reply)));
      });
      workers.push(worker);
    }
    return { workers, sent: () => sent };
  }

  it('is counted by the primary alone: checks made at once on both workers never overrun it', async () => {
    const { workers } = cluster(3);
    const reservations = await Promise.all(Array.from({ length: 10 }, (_, index) => workers[index % 2]?.reserve('192.0.2.9')));
    expect(reservations.filter((reservation) => reservation?.standing.allowed)).toHaveLength(3);
  });

  it('costs no message for an address a worker found out of budget, until its window ends', async () => {
    const { workers, sent } = cluster(1);
    const [worker] = workers as [ClusterFailureCounter];
    expect((await worker.reserve('192.0.2.10')).standing.allowed).toBe(true);
    expect((await worker.reserve('192.0.2.10')).standing.allowed).toBe(false);
    const before = sent();
    for (let count = 0; count < 100; count++) expect((await worker.reserve('192.0.2.10')).standing.allowed).toBe(false);
    expect(sent()).toBe(before);
  });

  it('takes back a refunded check at the primary', async () => {
    const { workers } = cluster(1);
    const [first, second] = workers as [ClusterFailureCounter, ClusterFailureCounter];
    const reservation = await first.reserve('192.0.2.11');
    first.refund(reservation.key);
    expect((await second.reserve('192.0.2.11')).standing.allowed).toBe(true);
  });
});

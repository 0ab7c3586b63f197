/**
 * Rate limits as a client meets them: a token's budget (RATE_LIMIT) and an address's budget of
 * invalid tokens (AUTH_FAILURE_LIMIT), answered 429 with Retry-After and the RateLimit fields, and
 * one budget across the workers of a cluster.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunningService } from '../../proxy/service.ts';
import { startCluster } from '../support/cluster.ts';
import { buildFixture, startTestService, testKey } from '../support/service.ts';

const region = '/addressmanagement/api/region/getall';
const otherKey = 'other-key-0123456789abcdef';
const bearer = (token: string): Record<string, string> => ({ Authorization: `Bearer ${token}` });

interface Envelope {
  header: { isSuccess: boolean; message: string };
}

let distDir: string;
beforeAll(async () => {
  distDir = await buildFixture();
});

describe('a budget per token', () => {
  let service: RunningService;
  beforeAll(async () => {
    service = await startTestService(distDir, { API_KEYS: `${testKey},${otherKey}`, RATE_LIMIT: '3/60' });
  });
  afterAll(() => service.close());

  it('answers within the budget with the RateLimit fields counting down, then 429 with Retry-After and a message that says what to do', async () => {
    const url = `${service.running.url}${region}`;
    const remaining: string[] = [];
    for (let count = 0; count < 3; count++) {
      const response = await fetch(url, { headers: bearer(testKey) });
      expect(response.status).toBe(200);
      expect(response.headers.get('ratelimit-policy')).toBe('"token";q=3;w=60');
      remaining.push(response.headers.get('ratelimit')?.replace(/;t=\d+$/, '') ?? '');
    }
    expect(remaining).toEqual(['"token";r=2', '"token";r=1', '"token";r=0']);

    const refused = await fetch(url, { headers: bearer(testKey) });
    expect(refused.status).toBe(429);
    const retryAfter = Number(refused.headers.get('retry-after'));
    expect(retryAfter).toBeGreaterThanOrEqual(1);
    expect(retryAfter).toBeLessThanOrEqual(60);
    expect(refused.headers.get('ratelimit')).toBe(`"token";r=0;t=${retryAfter}`);
    expect(refused.headers.get('cache-control')).toBe('no-store');
    const envelope = (await refused.json()) as Envelope;
    expect(envelope.header.isSuccess).toBe(false);
    expect(envelope.header.message).toMatch(/Too many requests with this token: its budget is 3 per 60 s\. Retry in \d+ s/);
  });

  it('counts every operation and /meta against the same budget, and each token apart', async () => {
    const other = await fetch(`${service.running.url}/meta`, { headers: bearer(otherKey) });
    expect(other.status).toBe(200);
    expect(other.headers.get('ratelimit')).toMatch(/^"token";r=2;t=\d+$/);
    expect((await fetch(`${service.running.url}/meta`, { headers: bearer(testKey) })).status).toBe(429);
  });

  it('never counts a request that is refused before its token is known to be good', async () => {
    const before = (await fetch(`${service.running.url}${region}`, { headers: bearer(otherKey) })).headers.get('ratelimit');
    expect(before).toMatch(/^"token";r=1;/);
    expect((await fetch(`${service.running.url}${region}`)).status).toBe(401);
    expect((await fetch(`${service.running.url}${region}`, { headers: bearer('wrong-key-0123456789abcdef') })).status).toBe(401);
    const after = (await fetch(`${service.running.url}${region}`, { headers: bearer(otherKey) })).headers.get('ratelimit');
    expect(after).toMatch(/^"token";r=0;/);
  });
});

describe('a budget of invalid tokens per client address', () => {
  let service: RunningService;
  beforeAll(async () => {
    service = await startTestService(distDir, { API_KEYS: `${testKey},${otherKey}`, AUTH_FAILURE_LIMIT: '3/60', TRUSTED_PROXIES: '127.0.0.1, ::1' });
  });
  afterAll(() => service.close());

  const from = (client: string, token?: string): Record<string, string> => ({ 'X-Forwarded-For': client, ...(token ? bearer(token) : {}) });

  it('checks that many invalid tokens, then answers 429 without checking, while a token accepted before still passes', async () => {
    const url = `${service.running.url}${region}`;
    // Accepted once from this address, so remembered.
    expect((await fetch(url, { headers: from('198.51.100.1', testKey) })).status).toBe(200);
    const failures: string[] = [];
    for (let count = 0; count < 3; count++) {
      const response = await fetch(url, { headers: from('198.51.100.1', `guess-${count}-0123456789abcdef`) });
      expect(response.status).toBe(401);
      expect(response.headers.get('www-authenticate')).toContain('error="invalid_token"');
      failures.push(response.headers.get('ratelimit')?.replace(/;t=\d+$/, '') ?? '');
    }
    expect(failures).toEqual(['"failedauth";r=2', '"failedauth";r=1', '"failedauth";r=0']);

    const blocked = await fetch(url, { headers: from('198.51.100.1', 'guess-3-0123456789abcdef') });
    expect(blocked.status).toBe(429);
    expect(Number(blocked.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
    expect(((await blocked.json()) as Envelope).header.message).toMatch(/Too many invalid tokens from this address: at most 3 per 60 s/);
    // Even a good key is not checked from there, unless it was accepted before.
    expect((await fetch(url, { headers: from('198.51.100.1', otherKey) })).status).toBe(429);
    expect((await fetch(url, { headers: from('198.51.100.1', testKey) })).status).toBe(200);
    // Another client behind the same proxy has its own budget.
    expect((await fetch(url, { headers: from('198.51.100.2', otherKey) })).status).toBe(200);
  });

  it('does not count requests without a token or with a malformed header: they cannot be guesses', async () => {
    const url = `${service.running.url}${region}`;
    for (let count = 0; count < 5; count++) {
      expect((await fetch(url, { headers: from('198.51.100.3') })).status).toBe(401);
      expect((await fetch(url, { headers: { ...from('198.51.100.3'), Authorization: 'Basic abc' } })).status).toBe(400);
    }
    const first = await fetch(url, { headers: from('198.51.100.3', 'guess-0123456789abcdef') });
    expect(first.status).toBe(401);
    expect(first.headers.get('ratelimit')).toMatch(/^"failedauth";r=2;/);
  });
});

describe('without trusted proxies', () => {
  it('counts by the peer address, so a forged X-Forwarded-For buys no fresh budget', async () => {
    const service = await startTestService(distDir, { API_KEYS: testKey, AUTH_FAILURE_LIMIT: '2/60' });
    try {
      const url = `${service.running.url}${region}`;
      const statuses = [];
      for (let count = 0; count < 4; count++) {
        statuses.push((await fetch(url, { headers: { 'X-Forwarded-For': `198.51.100.${count}`, ...bearer(`guess-${count}-0123456789abcdef`) } })).status);
      }
      expect(statuses).toEqual([401, 401, 429, 429]);
    } finally {
      await service.close();
    }
  });
});

describe('a cluster', () => {
  it('keeps one budget per token across its workers', { timeout: 60_000 }, async () => {
    const cluster = await startCluster({ DIST_DIR: distDir, API_KEYS: testKey, WORKERS: '2', RATE_LIMIT: '10/60', LOG_LEVEL: 'info' });
    try {
      // Both workers listening: a worker still starting would begin at zero (README, Rate limits).
      await cluster.waitFor((output) => output.split('"event":"worker-listening"').length - 1 === 2);
      const statuses: number[] = [];
      // A new connection each time: the primary hands them to the workers in turn.
      for (let count = 0; count < 30; count++) {
        const response = await fetch(`${cluster.url}${region}`, { headers: { ...bearer(testKey), Connection: 'close' } });
        await response.arrayBuffer();
        statuses.push(response.status);
      }
      expect(statuses.filter((status) => status === 200)).toHaveLength(10);
      expect(statuses.slice(10).every((status) => status === 429)).toBe(true);
      // Both workers answered (each request line names its process), so the budget was shared, not one worker's own.
      const pids = new Set(
        cluster
          .output()
          .split('\n')
          .filter((line) => line.includes(`"path":"${region}"`))
          .map((line) => (JSON.parse(line) as { pid: number }).pid),
      );
      expect(pids.size).toBe(2);
    } finally {
      await cluster.stop();
    }
  });
});

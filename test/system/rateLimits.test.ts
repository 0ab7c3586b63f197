/**
 * Rate limits as a client meets them: a token's budget (RATE_LIMIT) and an address's budget of
 * invalid tokens (AUTH_FAILURE_LIMIT), answered 429 with Retry-After and the RateLimit fields, and
 * one budget across the workers of a cluster.
 */
import { randomUUID } from 'node:crypto';
import { SignJWT, type JWTPayload } from 'jose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunningService } from '../../proxy/service.ts';
import { startCluster } from '../support/cluster.ts';
import { buildFixture, startTestService, testKey } from '../support/service.ts';

const region = '/addressmanagement/api/region/getall';
const otherKey = 'other-key-0123456789abcdef';
const bearer = (token: string): Record<string, string> => ({ Authorization: `Bearer ${token}` });
const jwtSecret = 'a-shared-secret-of-at-least-32-bytes-for-hs256';
/** A JWT signed with jwtSecret, valid for ten minutes. */
const hs256 = (claims: JWTPayload): Promise<string> =>
  new SignJWT(claims).setProtectedHeader({ alg: 'HS256' }).setExpirationTime('10m').sign(new TextEncoder().encode(jwtSecret));

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

describe('budgets by kind of token', () => {
  let service: RunningService;
  beforeAll(async () => {
    service = await startTestService(distDir, { API_KEYS: testKey, JWT_SECRET: jwtSecret, RATE_LIMIT: '2/60' });
  });
  afterAll(() => service.close());

  const statuses = async (token: string, count: number): Promise<number[]> => {
    const seen: number[] = [];
    for (let index = 0; index < count; index++) seen.push((await fetch(`${service.running.url}${region}`, { headers: bearer(token) })).status);
    return seen;
  };

  it('keeps API keys and JWT subjects apart, whatever a JWT names as its subject', async () => {
    expect(await statuses(testKey, 3)).toEqual([200, 200, 429]);
    for (const sub of ['api key API_KEYS #1', 'key:API_KEYS #1', 'API_KEYS #1']) expect(await statuses(await hs256({ sub }), 2)).toEqual([200, 200]);
  });

  it('gives each JWT without a subject a budget of its own, and every token of one subject one budget', async () => {
    expect(await statuses(await hs256({ jti: randomUUID() }), 2)).toEqual([200, 200]);
    expect(await statuses(await hs256({ jti: randomUUID() }), 2)).toEqual([200, 200]);
    expect(await statuses(await hs256({ sub: 'one-client' }), 2)).toEqual([200, 200]);
    expect(await statuses(await hs256({ sub: 'one-client', jti: 'refreshed' }), 1)).toEqual([429]);
  });
});

describe('a budget of invalid tokens per client address', () => {
  let service: RunningService;
  beforeAll(async () => {
    service = await startTestService(distDir, {
      API_KEYS: `${testKey},${otherKey}`,
      JWT_SECRET: jwtSecret,
      AUTH_FAILURE_LIMIT: '3/60',
      TRUSTED_PROXIES: '127.0.0.1, ::1',
    });
  });
  afterAll(() => service.close());

  const from = (client: string, token?: string): Record<string, string> => ({ 'X-Forwarded-For': client, ...(token ? bearer(token) : {}) });

  it('checks that many invalid tokens, then answers 429 without checking, while API keys and tokens accepted before still pass', async () => {
    const url = `${service.running.url}${region}`;
    const jwt = await hs256({ sub: 'client-1' });
    // Accepted once from this address, so known.
    expect((await fetch(url, { headers: from('198.51.100.1', jwt) })).status).toBe(200);
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
    // A JWT not seen before is a signature check, which the address has no budget left for ...
    expect((await fetch(url, { headers: from('198.51.100.1', await hs256({ sub: 'client-2' })) })).status).toBe(429);
    // ... but an API key is a hash, checked before the budget: a key never seen from anywhere passes,
    expect((await fetch(url, { headers: from('198.51.100.1', otherKey) })).status).toBe(200);
    // and so does the token accepted before, in any spelling of the header.
    expect((await fetch(url, { headers: { ...from('198.51.100.1'), Authorization: `bEaReR   ${jwt}` } })).status).toBe(200);
    // Another client behind the same proxy has its own budget.
    expect((await fetch(url, { headers: from('198.51.100.2', await hs256({ sub: 'client-2' })) })).status).toBe(200);
  });

  it('counts an IPv6 client by its /64, one behind NAT64 by its IPv4 address, and takes ports off forwarded addresses', async () => {
    const url = `${service.running.url}${region}`;
    const spend = async (clients: readonly string[]): Promise<number[]> => {
      const statuses: number[] = [];
      for (const client of clients) statuses.push((await fetch(url, { headers: from(client, 'guess-0123456789abcdef') })).status);
      return statuses;
    };
    expect(await spend(['2001:db8:5:6::1', '[2001:db8:5:6::2]:443', '2001:db8:5:6:ffff::3', '2001:db8:5:6::4'])).toEqual([401, 401, 401, 429]);
    expect(await spend(['2001:db8:5:7::1'])).toEqual([401]);
    expect(await spend(['64:ff9b::c000:221', '192.0.2.33:5678', '64:ff9b:0:0:0:0:c000:221', '64:ff9b::192.0.2.33'])).toEqual([401, 401, 401, 429]);
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
  /** The pids of the workers that answered requests to `path` (each request line names its process). */
  const pidsAnswering = (output: string, client: string): Set<number> =>
    new Set(
      output
        .split('\n')
        .filter((line) => line.includes(`"client":"${client}"`))
        .map((line) => (JSON.parse(line) as { pid: number }).pid),
    );

  it('counts invalid tokens exactly across its workers, and never locks out a key or a token either worker accepted', { timeout: 60_000 }, async () => {
    const cluster = await startCluster({
      DIST_DIR: distDir,
      API_KEYS: `${testKey},${otherKey}`,
      JWT_SECRET: jwtSecret,
      WORKERS: '2',
      AUTH_FAILURE_LIMIT: '3/60',
      TRUSTED_PROXIES: '127.0.0.1',
      LOG_LEVEL: 'info',
    });
    try {
      await cluster.waitFor((output) => output.split('"event":"worker-listening"').length - 1 === 2);
      const get = async (client: string, token: string): Promise<number> => {
        // A new connection each time: the primary hands them to the workers in turn.
        const response = await fetch(`${cluster.url}${region}`, { headers: { ...bearer(token), 'X-Forwarded-For': client, Connection: 'close' } });
        await response.arrayBuffer();
        return response.status;
      };
      const jwt = await hs256({ sub: 'client-1' });
      expect(await get('198.51.100.7', jwt)).toBe(200);
      // Twenty guesses at once, each on its own connection, half to each worker: exactly the budget is checked.
      const guesses = await Promise.all(Array.from({ length: 20 }, (_, index) => get('198.51.100.7', `guess-${index}-0123456789abcdef`)));
      expect(guesses.filter((status) => status === 401)).toHaveLength(3);
      expect(guesses.filter((status) => status === 429)).toHaveLength(17);
      // The address is out of budget on both workers; the JWT accepted by one of them passes on both, every time,
      const accepted = await Promise.all(Array.from({ length: 10 }, () => get('198.51.100.7', jwt)));
      expect(accepted).toEqual(Array.from({ length: 10 }, () => 200));
      // and so does an API key neither worker has seen.
      const keys = await Promise.all(Array.from({ length: 10 }, () => get('198.51.100.7', otherKey)));
      expect(keys).toEqual(Array.from({ length: 10 }, () => 200));
      expect(pidsAnswering(cluster.output(), '198.51.100.7').size).toBe(2);
    } finally {
      await cluster.stop();
    }
  });

  it('keeps one budget per token across its workers', { timeout: 60_000 }, async () => {
    const cluster = await startCluster({ DIST_DIR: distDir, API_KEYS: testKey, WORKERS: '2', RATE_LIMIT: '10/60', LOG_LEVEL: 'info' });
    try {
      // Both workers listening: a worker still starting would begin at zero (docs/configuration.md, Rate limits).
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

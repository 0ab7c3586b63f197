/**
 * HAProxy in front of two proxies, for real: deploy/haproxy.cfg rendered by deploy/haproxy.ts as a
 * deployment renders it, and two proxies as `npm start` runs them (proxy/main.ts, each its own
 * process on its own port) over one build. Every response counted: the same bytes and ETags as
 * from one proxy directly, none lost when a proxy is killed or stopped under load.
 *
 * Without haproxy this file skips loudly, except under CI (process.env.CI), where it fails: .ci/run
 * installs haproxy, so a missing one is a broken CI, not a reason to test less.
 */
import { execFileSync } from 'node:child_process';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { renderHaproxyConfig } from '../../deploy/haproxy.ts';
import type { Manifest } from '../../contract/manifest.ts';
import { freePort } from '../support/programs.ts';
import { sampleUrlMix } from '../bench/urls.ts';
import { startCluster, type RunningCluster } from '../support/cluster.ts';
import { waitFor } from '../support/cache.ts';
import { haproxyBinary, startHaproxy, type Processes, type RunningHaproxy } from '../support/haproxy.ts';
import { buildFixture, testKey } from '../support/service.ts';
import { agentFrom, get, loadDuring, type Answer } from '../support/load.ts';
import { readBuildManifest } from '../support/store.ts';
import { reportMissing } from '../support/tools.ts';

/**
 * A UUID as X-Request-Id becomes the envelope's globalId instead of a fresh one, so that two
 * answers to the same lookup are the same bytes.
 */
const auth = { Authorization: `Bearer ${testKey}`, 'X-Request-Id': '0b6f6d1e-6b49-4f0e-9a57-4a8f3f1f2c11' };

interface LoadResult {
  readonly answered: number;
  /** Each request that did not get the expected 200 with the expected bytes: what it got instead. */
  readonly failures: string[];
}

/**
 * `total` requests through `url`, `concurrency` at a time, walking `lookups`; `afterAnswers` runs
 * once `at` of them have been answered, while the rest are still to come.
 */
async function requestLoop(
  url: string,
  lookups: readonly { path: string; answer: Answer }[],
  total: number,
  concurrency: number,
  at: number,
  afterAnswers: () => Promise<unknown>,
): Promise<LoadResult> {
  const agent = agentFrom('127.0.0.2');
  const failures: string[] = [];
  let next = 0;
  let answered = 0;
  let event: Promise<unknown> | undefined;
  const client = async (): Promise<void> => {
    while (next < total) {
      const { path: lookupPath, answer } = lookups[next++ % lookups.length] as (typeof lookups)[number];
      const got = await get(`${url}${lookupPath}`, agent, auth).catch((error: Error) => error);
      if (got instanceof Error) failures.push(`${lookupPath}: ${got.message}`);
      else if (got.status !== 200 || got.etag !== answer.etag || !got.body.equals(answer.body))
        failures.push(`${lookupPath}: ${got.status} ${got.body.toString().slice(0, 200)}`);
      if (++answered === at) event = afterAnswers();
    }
  };
  await Promise.all(Array.from({ length: concurrency }, client));
  await event;
  agent.destroy();
  return { answered, failures };
}

/** HAProxy's count of requests it sent again (wretr) and sent again to another proxy (wredis). */
async function retryCounts(haproxy: RunningHaproxy): Promise<{ retried: number; redispatched: number }> {
  const backend = (await haproxy.stats()).get('proxies/BACKEND');
  return { retried: Number(backend?.wretr), redispatched: Number(backend?.wredis) };
}

describe('deploy/haproxy.ts', () => {
  const valid = { listen: '0.0.0.0:80', servers: ['10.0.0.11:8080', '[fd00::12]:8080', '10.0.0.13:8080,weight=0'], statsSocket: '/run/haproxy/admin.sock' };

  it('renders every proxy as a checked server, IPv6 without brackets, with its weight when given', async () => {
    const config = await renderHaproxyConfig(valid);
    expect(config).toContain('bind 0.0.0.0:80');
    expect(config).toMatch(/^ {4}server p1 10\.0\.0\.11:8080$/m);
    expect(config).toMatch(/^ {4}server p2 fd00::12:8080$/m);
    expect(config).toMatch(/^ {4}server p3 10\.0\.0\.13:8080 weight 0$/m);
    expect(config).toContain('http-check send meth GET uri /readyz');
    expect(config).not.toMatch(/@[A-Z_]+@/);
  });

  it('refuses a host name, a missing port, no proxy, a proxy twice, a relative socket and an unknown log target, naming each', async () => {
    await expect(renderHaproxyConfig({ ...valid, listen: 'lb.example:80' })).rejects.toThrow(/--listen "lb.example:80": expected address:port/);
    await expect(renderHaproxyConfig({ ...valid, servers: ['10.0.0.11'] })).rejects.toThrow(/--server "10.0.0.11"/);
    await expect(renderHaproxyConfig({ ...valid, servers: [] })).rejects.toThrow(/no --server given/);
    await expect(renderHaproxyConfig({ ...valid, servers: ['10.0.0.11:8080', '10.0.0.11:8080,weight=2'] })).rejects.toThrow(/given twice/);
    for (const server of ['10.0.0.11:8080,weight=257', '10.0.0.11:8080,weight=-1', '10.0.0.11:8080,backup', '10.0.0.11:8080,weight=1,weight=2']) {
      await expect(renderHaproxyConfig({ ...valid, servers: [server] }), server).rejects.toThrow(/the only option is ,weight=N with N from 0/);
    }
    await expect(renderHaproxyConfig({ ...valid, statsSocket: 'admin.sock' })).rejects.toThrow(/--stats-socket "admin.sock": give an absolute path/);
    await expect(renderHaproxyConfig({ ...valid, log: 'syslog' })).rejects.toThrow(/--log "syslog"/);
  });
});

if (!haproxyBinary) {
  reportMissing(
    'test/system/haproxy.test.ts',
    'haproxy',
    'haproxy is not installed (apt-get install haproxy)',
    'The load balancer configuration (deploy/haproxy.cfg)',
  );
}

describe.skipIf(!haproxyBinary)('HAProxy in front of two proxies', () => {
  let manifest: Manifest;
  let settings: NodeJS.ProcessEnv;
  const ports: number[] = [];
  const proxies: RunningCluster[] = [];
  let haproxy: RunningHaproxy;
  /** Lookups sampled from the build, each with its answer from one proxy directly. */
  let expected: { path: string; answer: Answer }[];

  beforeAll(async () => {
    const distDir = await buildFixture();
    manifest = await readBuildManifest(distDir);
    // HAProxy reaches the proxies from 127.0.0.1; the clients below come from 127.0.0.2 and 127.0.0.3.
    settings = { DIST_DIR: distDir, API_KEYS: testKey, WORKERS: '1', TRUSTED_PROXIES: '127.0.0.1', AUTH_FAILURE_LIMIT: '2/60', LOG_LEVEL: 'info' };
    for (let index = 0; index < 2; index++) {
      ports.push(await freePort());
      proxies.push(await startCluster(settings, ports[index]));
    }
    haproxy = await startHaproxy(ports.map((port) => `127.0.0.1:${port}`));
    const direct = agentFrom('127.0.0.1');
    const paths = [...new Set(sampleUrlMix(manifest, 200, 15).lookups.map((lookup) => lookup.proxyPath))];
    expected = [];
    for (const lookupPath of paths) expected.push({ path: lookupPath, answer: await get(`${proxies[0]?.url}${lookupPath}`, direct, auth) });
    direct.destroy();
  });
  afterAll(async () => {
    await haproxy?.stop();
    await Promise.all(proxies.map((proxy) => proxy.stop()));
  });

  it('the rendered configuration is one haproxy -c accepts', () => {
    expect(execFileSync(haproxyBinary as string, ['-c', '-f', haproxy.configFile], { encoding: 'utf8' })).toMatch(/Configuration file is valid/);
  });

  it('with no proxy up, answers 503 itself in the envelope, with ERR_UNAVAILABLE and Retry-After, never cached', async () => {
    for (const server of ['p1', 'p2']) await haproxy.command(`disable server proxies/${server}`);
    try {
      const response = await fetch(`${haproxy.url}/addressmanagement/api/region/getall`, { headers: auth });
      expect(response.status).toBe(503);
      expect(response.headers.get('X-Error-Code')).toBe('ERR_UNAVAILABLE');
      expect(response.headers.get('Retry-After')).toBe('5');
      expect(response.headers.get('Cache-Control')).toBe('no-store');
      expect(response.headers.get('Content-Type')).toBe('application/json; charset=utf-8');
      const envelope = (await response.json()) as { header: { globalId: string; isSuccess: boolean; message: string }; body: unknown };
      expect(envelope).toEqual({
        header: { globalId: expect.stringMatching(/^[0-9a-f-]{36}$/), isSuccess: false, message: expect.stringContaining('retry') },
        body: null,
      });
    } finally {
      for (const server of ['p1', 'p2']) await haproxy.command(`enable server proxies/${server}`);
    }
    for (const server of ['p1', 'p2']) await haproxy.waitForServer(server, 'UP');
  });

  it('answers every sampled lookup with the same status, bytes and ETag as one proxy directly', async () => {
    expect(expected.length).toBeGreaterThan(20);
    const agent = agentFrom('127.0.0.2');
    for (const { path: lookupPath, answer } of expected) {
      expect(answer.status, lookupPath).toBe(200);
      const through = await get(`${haproxy.url}${lookupPath}`, agent, auth);
      expect({ path: lookupPath, status: through.status, etag: through.etag }).toEqual({ path: lookupPath, status: 200, etag: answer.etag });
      expect(through.body.equals(answer.body), lookupPath).toBe(true);
    }
    agent.destroy();
  });
  it('X-Forwarded-For: the proxies log the client, not HAProxy, and count invalid tokens per client; a forged entry is ignored', async () => {
    const loggedBefore = proxies.map((proxy) => proxy.output().length);
    const blocked = agentFrom('127.0.0.2');
    const other = agentFrom('127.0.0.3');
    const lookup = `${haproxy.url}${expected[0]?.path}`;
    const forged = { Authorization: 'Bearer not-a-valid-token-0123456789', 'X-Forwarded-For': '203.0.113.9' };
    // AUTH_FAILURE_LIMIT is 2 a minute per proxy: a few rounds spend 127.0.0.2's budget on both.
    const statuses: number[] = [];
    for (let attempt = 0; attempt < 8; attempt++) statuses.push((await get(lookup, blocked, forged)).status);
    expect(statuses.slice(0, 4)).toEqual([401, 401, 401, 401]);
    expect(statuses.slice(4)).toEqual([429, 429, 429, 429]);
    // Another client behind the same HAProxy has a budget of its own.
    expect((await get(lookup, other, forged)).status).toBe(401);
    expect((await get(lookup, other, auth)).status).toBe(200);
    blocked.destroy();
    other.destroy();

    // Each line is written once its answer has gone, and reaches this process a little later.
    const loggedSince = () =>
      proxies
        .flatMap((proxy, index) => proxy.output().slice(loggedBefore[index]).split('\n'))
        .filter((line) => line.startsWith('{'))
        .map((line) => JSON.parse(line) as { path?: string; client?: string; status?: number })
        .filter((entry) => entry.path === expected[0]?.path);
    await waitFor("the proxies' log lines of the 10 requests", () => loggedSince().length >= 10);
    await waitFor("HAProxy's log line of 127.0.0.3's request", () => /127\.0\.0\.3:\d+ \[/.test(haproxy.output()));
    const logged = loggedSince();
    // Not 127.0.0.1, HAProxy's address, nor 203.0.113.9, the entry the client forged.
    expect(new Set(logged.map((entry) => entry.client))).toEqual(new Set(['127.0.0.2', '127.0.0.3']));
    expect(logged.filter((entry) => entry.status === 429).every((entry) => entry.client === '127.0.0.2')).toBe(true);
    // HAProxy's own log line (httplog) starts with the client's address and port: waited for above.
  });

  it('one proxy killed (SIGKILL) under load: every request answered 200 with the right bytes; HAProxy sees it down, and routes to it again once restarted', async () => {
    const total = 1_200;
    const retriesBefore = await retryCounts(haproxy);
    const result = await requestLoop(haproxy.url, expected, total, 8, total / 4, () => (proxies[0] as RunningCluster).kill('SIGKILL'));
    const retries = await retryCounts(haproxy);
    console.log(
      `haproxy, p1 killed: ${result.answered} requests, ${result.failures.length} failed, ${retries.retried - retriesBefore.retried} retries, ${retries.redispatched - retriesBefore.redispatched} redispatches`,
    );
    expect(result).toEqual({ answered: total, failures: [] });
    await haproxy.waitForServer('p1', 'DOWN');

    proxies[0] = await startCluster(settings, ports[0]);
    await haproxy.waitForServer('p1', 'UP');
    const before = Number((await haproxy.stats()).get('proxies/p1')?.hrsp_2xx);
    const after = await requestLoop(haproxy.url, expected, 20, 1, 20, async () => {});
    expect(after).toEqual({ answered: 20, failures: [] });
    expect(Number((await haproxy.stats()).get('proxies/p1')?.hrsp_2xx)).toBeGreaterThanOrEqual(before + 10);
  }, 90_000);

  it('one proxy stopped (SIGTERM) under load, as in a rolling restart: every request answered 200 while it drains and exits; back once restarted', async () => {
    const retriesBefore = await retryCounts(haproxy);
    // The load lasts until the proxy has exited: through its drain, its closing and its exit.
    const result = await loadDuring(haproxy.url, expected, { concurrency: 8, warmUp: 300, maximum: 1_000_000, headers: auth }, async () => {
      expect(await (proxies[1] as RunningCluster).kill('SIGTERM')).toBe(0);
    });
    const retries = await retryCounts(haproxy);
    await haproxy.waitForServer('p2', 'DOWN');
    console.log(
      `haproxy, p2 stopped: ${result.answered} requests, ${result.failures.length} failed, ${retries.retried - retriesBefore.retried} retries, ${retries.redispatched - retriesBefore.redispatched} redispatches; ${haproxy.output().match(/proxies\/p2 is DOWN, reason: [^,]*(?:, code: \d+)?/)?.[0]}`,
    );
    expect({ failures: result.failures, underLoad: result.underLoad }).toEqual({ failures: [], underLoad: true });
    proxies[1] = await startCluster(settings, ports[1]);
    await haproxy.waitForServer('p2', 'UP');
  }, 90_000);

  // Last: it leaves HAProxy with the new configuration.
  it('reloaded under load with a proxy added and another weighted 0: every request answered 200, the old worker finishes its connections and exits, and the new configuration serves', async () => {
    ports.push(await freePort());
    proxies.push(await startCluster(settings, ports[2]));
    const [p1, p2, p3] = ports.map((port) => `127.0.0.1:${port}`);
    let before: Processes | undefined;
    let oldWorkerMs = 0;
    // The load lasts from before the reload until the old worker has exited.
    const result = await loadDuring(haproxy.url, expected, { concurrency: 8, warmUp: 300, maximum: 1_000_000, headers: auth }, async () => {
      before = await haproxy.reload([`${p1},weight=0`, `${p2}`, `${p3}`]);
      const reloaded = performance.now();
      await haproxy.waitForOldWorkers();
      oldWorkerMs = performance.now() - reloaded;
    });
    const after = await haproxy.processes();
    const retries = await retryCounts(haproxy);
    console.log(
      `haproxy reloaded: ${result.answered} requests, ${result.failures.length} failed${result.failures.length > 0 ? ` (${result.failures.slice(0, 3).join('; ')})` : ''}, ${retries.retried} retries and ${retries.redispatched} redispatches by the new worker; worker ${before?.workers} -> ${after.workers}, the old one gone ${Math.round(oldWorkerMs)} ms after the new one answered`,
    );
    expect({ failures: result.failures, underLoad: result.underLoad }).toEqual({ failures: [], underLoad: true });
    expect(after.workers.some((pid) => before?.workers.includes(pid))).toBe(false);

    // The new worker's counters start at the reload: p3 serves, p1 (weight 0) has had nothing since.
    expect(await requestLoop(haproxy.url, expected, 40, 4, 40, async () => {})).toEqual({ answered: 40, failures: [] });
    const rows = await haproxy.stats();
    expect(Number(rows.get('proxies/p3')?.hrsp_2xx)).toBeGreaterThan(0);
    expect({ weight: rows.get('proxies/p1')?.weight, answered: rows.get('proxies/p1')?.hrsp_2xx }).toEqual({ weight: '0', answered: '0' });
  }, 90_000);
});

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
import http from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { renderHaproxyConfig } from '../../deploy/haproxy.ts';
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import type { Manifest } from '../../contract/manifest.ts';
import { freePort } from '../bench/servers.ts';
import { sampleUrlMix } from '../bench/urls.ts';
import { startCluster, type RunningCluster } from '../support/cluster.ts';
import { haproxyBinary, startHaproxy, type RunningHaproxy } from '../support/haproxy.ts';
import { buildFixture, testKey } from '../support/service.ts';
import { reportMissing } from '../support/tools.ts';

/**
 * A UUID as X-Request-Id becomes the envelope's globalId instead of a fresh one, so that two
 * answers to the same lookup are the same bytes.
 */
const auth = { Authorization: `Bearer ${testKey}`, 'X-Request-Id': '0b6f6d1e-6b49-4f0e-9a57-4a8f3f1f2c11' };

interface Answer {
  readonly status: number;
  readonly etag: string | undefined;
  readonly body: Buffer;
}

/** One GET on a keep-alive agent, from `agent`'s local address; a failure to connect or a cut answer rejects. */
function get(url: string, agent: http.Agent, headers: Record<string, string> = auth): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const request = http.get(url, { agent, headers }, (response) => {
      const chunks: Buffer[] = [];
      response.on('data', (chunk: Buffer) => chunks.push(chunk));
      response.on('end', () => resolve({ status: response.statusCode ?? 0, etag: response.headers.etag, body: Buffer.concat(chunks) }));
      response.on('error', reject);
    });
    request.setTimeout(20_000, () => request.destroy(new Error(`no answer from ${url} within 20 s`)));
    request.on('error', reject);
  });
}

const agentFrom = (localAddress: string): http.Agent => new http.Agent({ keepAlive: true, localAddress });

describe('deploy/haproxy.ts', () => {
  const valid = { listen: '0.0.0.0:80', servers: ['10.0.0.11:8080', '[fd00::12]:8080'], statsSocket: '/run/haproxy/admin.sock' };

  it('renders every proxy as a checked server, IPv6 without brackets', async () => {
    const config = await renderHaproxyConfig(valid);
    expect(config).toContain('bind 0.0.0.0:80');
    expect(config).toContain('server p1 10.0.0.11:8080');
    expect(config).toContain('server p2 fd00::12:8080');
    expect(config).toContain('http-check send meth GET uri /readyz');
    expect(config).not.toMatch(/@[A-Z_]+@/);
  });

  it('refuses a host name, a missing port, no proxy, a proxy twice, a relative socket and an unknown log target, naming each', async () => {
    await expect(renderHaproxyConfig({ ...valid, listen: 'lb.example:80' })).rejects.toThrow(/--listen "lb.example:80": expected address:port/);
    await expect(renderHaproxyConfig({ ...valid, servers: ['10.0.0.11'] })).rejects.toThrow(/--server "10.0.0.11"/);
    await expect(renderHaproxyConfig({ ...valid, servers: [] })).rejects.toThrow(/no --server given/);
    await expect(renderHaproxyConfig({ ...valid, servers: ['10.0.0.11:8080', '10.0.0.11:8080'] })).rejects.toThrow(/given twice/);
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
    manifest = JSON.parse(await readFile(path.join(distDir, 'manifest.json'), 'utf8')) as Manifest;
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
    for (const lookupPath of paths) expected.push({ path: lookupPath, answer: await get(`${proxies[0]?.url}${lookupPath}`, direct) });
    direct.destroy();
  });
  afterAll(async () => {
    await haproxy?.stop();
    await Promise.all(proxies.map((proxy) => proxy.stop()));
  });

  it('the rendered configuration is one haproxy -c accepts', () => {
    expect(execFileSync(haproxyBinary as string, ['-c', '-f', haproxy.configFile], { encoding: 'utf8' })).toMatch(/Configuration file is valid/);
  });

  it('answers every sampled lookup with the same status, bytes and ETag as one proxy directly', async () => {
    expect(expected.length).toBeGreaterThan(20);
    const agent = agentFrom('127.0.0.2');
    for (const { path: lookupPath, answer } of expected) {
      expect(answer.status, lookupPath).toBe(200);
      const through = await get(`${haproxy.url}${lookupPath}`, agent);
      expect({ path: lookupPath, status: through.status, etag: through.etag }).toEqual({ path: lookupPath, status: 200, etag: answer.etag });
      expect(through.body.equals(answer.body), lookupPath).toBe(true);
    }
    agent.destroy();
  });
});

/**
 * The whole scale-out chain on loopback, as a deployment runs it: nginx over a build (deploy/nginx.ts)
 * -> Varnish (deploy/varnish.ts) -> two proxies in origin mode as `npm start` runs them -> HAProxy
 * (deploy/haproxy.ts). Every client response is counted while a proxy is killed, a new build is
 * published and nginx is stopped, and nginx's access log shows what reached the origin.
 *
 * Without nginx, varnishd or haproxy this file skips loudly, except under CI (process.env.CI), where
 * it fails: .ci/run installs all three.
 */
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildDist } from '../../generator/build.ts';
import { originPollMs } from '../../proxy/store/live.ts';
import { spotCheckedBodies } from '../../proxy/store/origin.ts';
import type { RunningService } from '../../proxy/service.ts';
import { freePort } from '../support/programs.ts';
import { sampleUrlMix } from '../bench/urls.ts';
import { startVarnish, varnishdBinary, waitFor, type RunningVarnish } from '../support/cache.ts';
import { nginxBinary, rawRequest, startNginx, type RunningNginx } from '../support/daemon.ts';
import { startCluster, type RunningCluster } from '../support/cluster.ts';
import { haproxyBinary, startHaproxy, type RunningHaproxy } from '../support/haproxy.ts';
import { agentFrom, get, loadDuring, type ExpectedLookup } from '../support/load.ts';
import { buildFixture, fixtureData, startTestService, tempDir, testKey } from '../support/service.ts';
import { packedBody, readBuildManifest } from '../support/store.ts';
import { reportMissing } from '../support/tools.ts';

const secretHeader = ['X-Origin-Secret', 'scaleout-test-secret-0123456789abcdef0123456789'] as const;
const originHeader = `${secretHeader[0]}: ${secretHeader[1]}`;
/** A UUID as X-Request-Id becomes the envelope's globalId, so that two answers to one lookup are the same bytes. */
const headers = { Authorization: `Bearer ${testKey}`, 'X-Request-Id': '3c0f5a52-8d1e-4b7a-9f61-2f4a8e6d9b10' };
/** Documented: a proxy sees a new build at its next poll of the pointer, which Varnish keeps for 1 s. */
const switchDeadlineMs = originPollMs + 1_000;
/** Room for two busy cores (a build, two proxies, nginx, Varnish and HAProxy share them). */
const busyMachineSlackMs = 4_000;
/** A download the chain is never asked for before nginx is stopped: a file Varnish never fetched. */
const neverFetched = '/exports/countryHoliday.ndjson.gz';

const missing = [!nginxBinary && 'nginx', !varnishdBinary && 'varnishd', !haproxyBinary && 'haproxy'].filter(Boolean);
if (missing.length > 0) {
  reportMissing(
    'test/system/scaleout.test.ts',
    missing.join(', '),
    `${missing.join(', ')} not installed: apt-get install -y nginx varnish haproxy`,
    'The whole chain (nginx -> Varnish -> proxies -> HAProxy) is',
  );
}

/** The build a proxy serves, as its readiness probe says. */
async function buildOf(port: number): Promise<string | undefined> {
  const reply = await rawRequest(port, '/readyz').catch(() => undefined);
  return reply?.status === 200 ? (JSON.parse(reply.body.toString()) as { body?: { buildId?: string } }).body?.buildId : undefined;
}

describe.skipIf(missing.length > 0)('nginx -> Varnish -> two proxies -> HAProxy, over the fixture build', () => {
  let distDir: string;
  let firstBuild: string;
  const nginxPrefix: string[] = [];
  let nginx: RunningNginx;
  let varnish: RunningVarnish;
  let local: RunningService;
  const ports: number[] = [];
  const settings: NodeJS.ProcessEnv[] = [];
  const proxies: RunningCluster[] = [];
  let haproxy: RunningHaproxy;
  let expected: ExpectedLookup[];
  /** A lookup the chain is never asked before nginx is stopped, and its body's file. */
  let neverAsked: string;
  let neverAskedFile: string;
  const figures: string[] = [];

  beforeAll(async () => {
    distDir = path.resolve(await buildFixture());
    const manifest = await readBuildManifest(distDir);
    firstBuild = manifest.buildId;
    nginxPrefix.push(`${await tempDir('refdata-nginx-')}/`);
    nginx = await startNginx(distDir, originHeader, undefined, nginxPrefix[0]);
    varnish = await startVarnish(`127.0.0.1:${nginx.port}`, originHeader, { [secretHeader[0]]: secretHeader[1] });
    for (let index = 0; index < 2; index++) {
      ports.push(await freePort());
      // No DIST_DIR: in origin mode a proxy reads nothing but what Varnish gives it, and its own copy.
      settings.push({
        API_KEYS: testKey,
        ORIGIN_URL: varnish.url,
        ORIGIN_HEADER: originHeader,
        ORIGIN_CACHE_DIR: await tempDir('refdata-origin-copy-'),
        WORKERS: '1',
        TRUSTED_PROXIES: '127.0.0.1',
      });
      proxies.push(await startCluster(settings[index] as NodeJS.ProcessEnv, ports[index]));
    }
    haproxy = await startHaproxy(ports.map((port) => `127.0.0.1:${port}`));
    // What the chain must answer: a local proxy over the same build, asked directly.
    local = await startTestService(distDir);
    const direct = agentFrom('127.0.0.1');
    const sample = sampleUrlMix(manifest, 200, 15).lookups;
    const paths = [...new Set(sample.map((lookup) => lookup.proxyPath))];
    expected = [];
    for (const lookupPath of paths) expected.push({ path: lookupPath, answer: await get(`${local.running.url}${lookupPath}`, direct, headers) });
    direct.destroy();
    // Other bytes, not merely another key with the same body: a proxy keeps bodies by their ETag;
    // nor one a proxy reads to check a build before it switches (origin.ts spotCheck).
    const files = Object.keys(manifest.files).sort();
    const spotChecked = Array.from({ length: spotCheckedBodies }, (_, index) => files[Math.round((index * (files.length - 1)) / (spotCheckedBodies - 1))]);
    const sampledBodies = new Set([...sample.map((lookup) => lookup.etag), ...spotChecked.map((file) => manifest.files[file ?? '']?.etag)]);
    const other = sampleUrlMix(manifest, 400, 16).lookups.find((lookup) => !sampledBodies.has(lookup.etag));
    if (!other) throw new Error('the fixture build has no lookup beyond the sampled ones');
    neverAsked = other.proxyPath;
    neverAskedFile = other.file;
  });
  afterAll(async () => {
    await haproxy?.stop();
    await Promise.all(proxies.map((proxy) => proxy.stop()));
    await local?.close();
    await varnish?.stop();
    await nginx?.stop();
    console.log(`scale-out chain, measured:\n  ${figures.join('\n  ')}`);
  });

  it('answers every sampled lookup with the same status, bytes and ETag as a local proxy', async () => {
    expect(expected.length).toBeGreaterThan(20);
    const agent = agentFrom('127.0.0.2');
    for (const { path: lookupPath, answer } of expected) {
      expect(answer.status, lookupPath).toBe(200);
      const through = await get(`${haproxy.url}${lookupPath}`, agent, headers);
      expect({ path: lookupPath, status: through.status, etag: through.etag }).toEqual({ path: lookupPath, status: 200, etag: answer.etag });
      expect(through.body.equals(answer.body), lookupPath).toBe(true);
    }
    agent.destroy();
    figures.push(`same bytes and ETag as a local proxy: ${expected.length} lookups`);
  });

  it('one proxy killed (SIGKILL) under load and started again: no client request fails', async () => {
    const result = await loadDuring(haproxy.url, expected, { concurrency: 8, warmUp: 200, maximum: 1_000_000, headers }, async () => {
      await (proxies[0] as RunningCluster).kill('SIGKILL');
      await haproxy.waitForServer('p1', 'DOWN');
      proxies[0] = await startCluster(settings[0] as NodeJS.ProcessEnv, ports[0]);
      await haproxy.waitForServer('p1', 'UP');
    });
    const backend = (await haproxy.stats()).get('proxies/BACKEND');
    figures.push(
      `p1 killed and restarted: ${result.answered} requests, ${result.failures.length} failed, ${backend?.wretr} retries, ${backend?.wredis} redispatches`,
    );
    expect(result.failures).toEqual([]);
    expect(result.underLoad).toBe(true);
  }, 60_000);

  it('a new build published under load: no client request fails, and every proxy serves it within the poll interval and the pointer TTL', async () => {
    let newBuild = '';
    let switchMs = 0;
    const result = await loadDuring(haproxy.url, expected, { concurrency: 4, warmUp: 100, maximum: 1_000_000, headers }, async () => {
      // The same data rebuilt: another build id and other paths on the origin, the same bytes for a client.
      newBuild = (await buildDist({ dataDir: fixtureData, distDir, force: true })).buildId;
      const published = Date.now();
      const deadline = published + switchDeadlineMs + busyMachineSlackMs;
      for (;;) {
        const builds = await Promise.all(ports.map(buildOf));
        if (builds.every((build) => build === newBuild)) break;
        if (Date.now() > deadline) throw new Error(`proxies on ${builds.join(', ')} ${deadline - published} ms after build ${newBuild} was published`);
        await new Promise((resolve) => setTimeout(resolve, 100));
      }
      switchMs = Date.now() - published;
    });
    figures.push(`new build under load: ${result.answered} requests, ${result.failures.length} failed, every proxy on it ${switchMs} ms after the build`);
    expect(newBuild).not.toBe(firstBuild);
    expect(result.failures).toEqual([]);
    expect(result.underLoad).toBe(true);
    expect(await nginx.requestedPaths()).toContain(`/builds/${newBuild}/lookups.idx`);
  }, 60_000);

  it('nginx stopped: every lookup made before is answered 200 with the same bytes, and one never made from the pack Varnish holds whole; a file never fetched is a 502; nginx back: answered', async () => {
    // Made once through the chain on the new build, so that they are "made before" on it.
    const agent = agentFrom('127.0.0.2');
    for (const { path: lookupPath } of expected) expect((await get(`${haproxy.url}${lookupPath}`, agent, headers)).status, lookupPath).toBe(200);
    // The lookup never made is a range of a pack Varnish fetched (whole) for those on this build.
    const neverAskedPack = `/builds/${await buildOf(ports[0] as number)}/${(await packedBody(distDir, neverAskedFile))?.pack}`;
    expect(await nginx.requestedPaths()).toContain(neverAskedPack);

    await nginx.stop();
    await waitFor("Varnish's probe to find nginx down", () => !varnish.originHealthy());
    const result = await loadDuring(haproxy.url, expected, { concurrency: 4, warmUp: 1_000, maximum: 1_000, headers }, async () => {});
    const neverMade = await get(`${haproxy.url}${neverAsked}`, agent, headers);
    const refused = await get(`${haproxy.url}${neverFetched}`, agent, headers);
    figures.push(
      `nginx stopped: ${result.answered} requests, ${result.failures.length} failed; a lookup never made: ${neverMade.status}; a file never fetched: ${refused.status}`,
    );
    expect(result.failures).toEqual([]);
    const neverMadeLocally = await get(`${local.running.url}${neverAsked}`, agent, headers);
    expect({ status: neverMade.status, etag: neverMade.etag }).toEqual({ status: 200, etag: neverMadeLocally.etag });
    expect(neverMade.body.equals(neverMadeLocally.body)).toBe(true);
    expect(refused.status).toBe(502);

    nginx = await startNginx(distDir, originHeader, nginx.port, nginxPrefix[0]);
    await waitFor("Varnish's probe to find nginx up", () => varnish.originHealthy());
    const recovered = await get(`${haproxy.url}${neverFetched}`, agent, headers);
    const fromLocal = await get(`${local.running.url}${neverFetched}`, agent, headers);
    expect({ status: recovered.status, etag: recovered.etag }).toEqual({ status: 200, etag: fromLocal.etag });
    expect(recovered.body.equals(fromLocal.body)).toBe(true);
    agent.destroy();
  }, 60_000);

  it('nginx was asked for each file of each build at most once, each pack whole, however many proxies asked', async () => {
    // The pointer is asked for on every poll, and / and /manifest.json are the readiness check and Varnish's probe.
    const bodies = (await nginx.requestedPaths()).filter((file) => file.startsWith('/builds/') && file !== '/builds/current.json');
    const twice = bodies.filter((file, index) => bodies.indexOf(file) !== index);
    const builds = new Set(bodies.map((file) => file.split('/')[2]));
    figures.push(`origin: ${bodies.length} requests for a build's files over ${builds.size} builds, ${twice.length} asked twice`);
    expect(twice).toEqual([]);
    expect(builds.size).toBe(2);
    // The proxies ask for each body as a range of its pack; Varnish asks nginx for the pack without
    // one (a 200, never a 206) and cuts the ranges from its copy. One pack per build in the fixture.
    const log = await readFile(path.join(nginxPrefix[0] as string, 'access.log'), 'utf8');
    const packs = [...log.matchAll(/"GET (\/builds\/\S+\.pack) HTTP\/[\d.]+" (\d{3}) /g)].map(([, file, status]) => ({ file, status }));
    expect(packs.map(({ status }) => status)).toEqual([...builds].map(() => '200'));
  });
});

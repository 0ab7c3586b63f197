/**
 * Varnish as the shared cache between the proxies and the nginx origin, for real: deploy/varnish.vcl
 * rendered by deploy/varnish.ts as a deployment renders it, a real varnishd and nginx on loopback,
 * and proxies in origin mode with ORIGIN_URL pointing at Varnish.
 *
 * Without varnishd or nginx this file skips loudly, except under CI (process.env.CI), where it
 * fails: .ci/run installs both.
 */
import { spawnSync } from 'node:child_process';
import { readFile, stat } from 'node:fs/promises';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { renderVarnishConfig, writeVarnishConfig } from '../../deploy/varnish.ts';
import { buildScopedPath, computeEtag, type Manifest } from '../../contract/manifest.ts';
import type { RunningService } from '../../proxy/service.ts';
import { startVarnish, varnishdBinary, waitFor, type RunningVarnish } from '../support/cache.ts';
import { nginxBinary, rawRequest, startNginx, type RunningNginx } from '../support/daemon.ts';
import { buildFixture, startTestService, tempDir, testKey } from '../support/service.ts';
import { reportMissing } from '../support/tools.ts';

const secretHeader = ['X-Origin-Secret', 'varnish-test-secret-0123456789abcdef0123456789'] as const;
const originHeader = `${secretHeader[0]}: ${secretHeader[1]}`;
const withSecret = { [secretHeader[0]]: secretHeader[1] };
const auth = { Authorization: `Bearer ${testKey}` };

const lookups = [
  '/financemanagement/api/currency/getbycode?code=try',
  '/addressmanagement/api/country/getall',
  '/addressmanagement/api/country/getbyname?name=T%C3%9CRK%C4%B0YE',
  '/addressmanagement/api/stateprovince/getbyname?name=ISTANBUL',
  '/financemanagement/api/bank/getbycode?code=010',
  '/financemanagement/api/currency/getall',
];
const neverAsked = '/addressmanagement/api/webdomain/getall';

interface Reply {
  readonly status: number;
  readonly body: unknown;
  readonly headers: Record<string, string | null>;
}

async function lookup(service: RunningService, target: string): Promise<Reply> {
  const response = await fetch(`${service.running.url}${target}`, { headers: auth });
  const envelope = (await response.json()) as { body: unknown };
  const headers = Object.fromEntries(['content-type', 'etag', 'cache-control', 'x-data-version'].map((name) => [name, response.headers.get(name)]));
  return { status: response.status, body: envelope.body, headers };
}

/** A proxy in origin mode reading through Varnish, with an empty memory cache and an empty ORIGIN_CACHE_DIR. */
const startProxy = (distDir: string, varnish: RunningVarnish): Promise<RunningService> =>
  startTestService(distDir, { API_KEYS: testKey, ORIGIN_URL: varnish.url, ORIGIN_HEADER: originHeader });

/** What nginx logged for bodies: not the pointer to the current build, which is asked for on every poll. */
const bodyPaths = (paths: readonly string[]): string[] => paths.filter((file) => !['/manifest.json', '/lookups.idx', '/builds/current.json'].includes(file));

if (!varnishdBinary || !nginxBinary) {
  reportMissing(
    'test/system/varnish.test.ts',
    varnishdBinary ? 'nginx' : 'varnishd',
    'varnishd or nginx is not installed: apt-get install -y varnish nginx',
    'The cache configuration (deploy/varnish.vcl) is',
  );
}

describe('deploy/varnish.ts renders deploy/varnish.vcl (no varnish needed)', () => {
  it("fills every placeholder with nginx's address and the proxies' secret, and refuses a weak secret or an address that is not one", async () => {
    const vcl = await renderVarnishConfig({ origin: '10.0.0.5:8081', originHeader });
    expect(vcl).not.toMatch(/@[A-Z_]+@/);
    expect(vcl).toContain('.host = "10.0.0.5";');
    expect(vcl).toContain('.port = "8081";');
    expect(vcl).toContain(`if (req.http.X-Origin-Secret != "${secretHeader[1]}") {`);
    expect(vcl).toContain(`"X-Origin-Secret: ${secretHeader[1]}"`);
    expect(await renderVarnishConfig({ origin: '[fd00::5]:8081', originHeader })).toContain('.host = "fd00::5";');
    await expect(renderVarnishConfig({ origin: '10.0.0.5:8081', originHeader: 'X-Origin-Secret: short' })).rejects.toThrow(/at least 32 characters/);
    await expect(renderVarnishConfig({ origin: '10.0.0.5:8081', originHeader: `X-Origin-Secret: ${'a'.repeat(40)}"` })).rejects.toThrow(/at least 32/);
    for (const origin of ['nginx:8081', '10.0.0.5', '10.0.0.5:0', '10.0.0.5:8081"; }']) {
      await expect(renderVarnishConfig({ origin, originHeader }), origin).rejects.toThrow(/expected nginx's address:port/);
    }
  });
});

describe.skipIf(!varnishdBinary || !nginxBinary)('Varnish between the proxies and nginx, over the fixture build', () => {
  let distDir: string;
  let manifest: Manifest;
  let nginx: RunningNginx;
  let varnish: RunningVarnish;
  let local: RunningService;
  const proxies: RunningService[] = [];
  beforeAll(async () => {
    distDir = await buildFixture();
    manifest = JSON.parse(await readFile(path.join(distDir, 'manifest.json'), 'utf8')) as Manifest;
    nginx = await startNginx(path.resolve(distDir), originHeader);
    varnish = await startVarnish(`127.0.0.1:${nginx.port}`, originHeader, withSecret);
    local = await startTestService(distDir);
  });
  afterAll(async () => {
    await Promise.all([local?.close(), ...proxies.map((proxy) => proxy.close())]);
    await varnish?.stop();
    await nginx?.stop();
  });

  it('varnishd -C compiles the rendered VCL', async () => {
    const file = path.join(await tempDir(), 'varnish.vcl');
    await writeVarnishConfig(file, { origin: `127.0.0.1:${nginx.port}`, originHeader });
    expect((await stat(file)).mode & 0o777).toBe(0o600);
    // -j none: as root, the default jail reads the file as the varnish user (README: chown varnish).
    const compiled = spawnSync(varnishdBinary as string, ['-C', '-j', 'none', '-f', file], { encoding: 'utf8', maxBuffer: 64 * 1024 * 1024 });
    expect(compiled.status, compiled.stderr.slice(-2_000)).toBe(0);
  });

  it('refuses a request without the secret or with a wrong one (403) and any method but GET and HEAD (405), none of them reaching nginx', async () => {
    const before = (await nginx.requestedPaths()).length;
    const file = '/financemanagement/api/currency/getbycode/try.json';
    expect((await rawRequest(varnish.port, file)).status).toBe(403);
    expect((await rawRequest(varnish.port, file, { [secretHeader[0]]: `${secretHeader[1]}x` })).status).toBe(403);
    expect((await rawRequest(varnish.port, file, { [secretHeader[0]]: secretHeader[1].toUpperCase() })).status).toBe(403);
    for (const method of ['POST', 'PUT', 'DELETE', 'PURGE']) expect((await rawRequest(varnish.port, file, withSecret, method)).status, method).toBe(405);
    expect((await nginx.requestedPaths()).length).toBe(before);
  });

  it('a 404 from nginx is passed on and never kept: asked twice, nginx is asked twice', async () => {
    const missing = '/financemanagement/api/currency/getbycode/nowhere.json';
    for (let attempt = 0; attempt < 2; attempt++) expect((await rawRequest(varnish.port, missing, withSecret)).status).toBe(404);
    await waitFor('nginx to log both requests', async () => (await nginx.requestedPaths()).filter((file) => file === missing).length === 2);
  });

  it('proxies reading through Varnish answer as a local proxy does (bodies, statuses, ETag, Cache-Control, X-Data-Version), and serve the same bytes', async () => {
    const proxy = await startProxy(distDir, varnish);
    proxies.push(proxy);
    for (const target of lookups) expect(await lookup(proxy, target), target).toEqual(await lookup(local, target));
    const file = 'financemanagement/api/currency/getall.json';
    const served = await rawRequest(varnish.port, `/${buildScopedPath(manifest.buildId, file)}`, withSecret);
    expect(served.headers['x-cache']).toBe('HIT');
    expect(computeEtag(served.body)).toBe(manifest.files[file]?.etag);
  });

  it('four proxies asking for the same bodies at once: nginx is asked for each body once', async () => {
    const proxies4 = await Promise.all([1, 2, 3, 4].map(() => startProxy(distDir, varnish)));
    proxies.push(...proxies4);
    const logged = (await nginx.requestedPaths()).length;
    const asked = [...lookups, '/addressmanagement/api/region/getall', '/addressmanagement/api/language/getall'];
    const replies = await Promise.all(proxies4.flatMap((proxy) => asked.map((target) => lookup(proxy, target))));
    expect(replies.map((reply) => reply.status)).toEqual(replies.map(() => 200));
    // The two lookups no proxy had made before, each asked by four proxies at once: one fetch each.
    const freshFiles = ['addressmanagement/api/region/getall.json', 'addressmanagement/api/language/getall.json'].map(
      (file) => `/${buildScopedPath(manifest.buildId, file)}`,
    );
    const fetchedNow = async () => bodyPaths((await nginx.requestedPaths()).slice(logged));
    await waitFor('nginx to log the two new bodies', async () => {
      const paths = await fetchedNow();
      return freshFiles.every((file) => paths.includes(file));
    });
    expect((await fetchedNow()).filter((file) => freshFiles.includes(file)).sort()).toEqual(freshFiles.sort());
    // Over the whole test file so far: no body path twice.
    const everything = bodyPaths(await nginx.requestedPaths()).filter((file) => !file.includes('nowhere'));
    expect(new Set(everything).size).toBe(everything.length);
  });

  it('nginx stopped: a fresh proxy still answers every cached lookup from Varnish, one never fetched is a 502; nginx back: answered', async () => {
    await nginx.stop();
    await waitFor("Varnish's probe to find nginx down", () => !varnish.originHealthy());
    const fresh = await startProxy(distDir, varnish);
    proxies.push(fresh);
    for (const target of lookups) expect(await lookup(fresh, target), target).toEqual(await lookup(local, target));
    // A proxy that ran before the outage answers from its memory and through Varnish alike.
    for (const proxy of proxies) expect((await lookup(proxy, lookups[0] as string)).status).toBe(200);
    expect((await lookup(fresh, neverAsked)).status).toBe(502);

    nginx = await startNginx(path.resolve(distDir), originHeader, nginx.port);
    await waitFor("Varnish's probe to find nginx up", () => varnish.originHealthy());
    expect(await lookup(fresh, neverAsked)).toEqual(await lookup(local, neverAsked));
  });
});

describe.skipIf(!varnishdBinary || !nginxBinary)('Varnish in front of build-scoped paths (/builds/<buildId>/…)', () => {
  let nginx: RunningNginx;
  let varnish: RunningVarnish;
  let buildId: string;
  beforeAll(async () => {
    // The layout npm run build writes and nginx.conf serves: each build under /builds/<buildId>/.
    const distDir = await buildFixture();
    buildId = (JSON.parse(await readFile(path.join(distDir, 'manifest.json'), 'utf8')) as Manifest).buildId;
    nginx = await startNginx(path.resolve(distDir), originHeader);
    varnish = await startVarnish(`127.0.0.1:${nginx.port}`, originHeader, withSecret);
  });
  afterAll(async () => {
    await varnish?.stop();
    await nginx?.stop();
  });

  it('a build-scoped body is fetched from nginx once, then served from the cache, also with nginx stopped', async () => {
    const file = `/builds/${buildId}/financemanagement/api/currency/getbycode/try.json`;
    const first = await rawRequest(varnish.port, file, withSecret);
    expect(first.status).toBe(200);
    expect(first.headers['x-cache']).toBe('MISS');
    const second = await rawRequest(varnish.port, file, withSecret);
    expect(second.headers['x-cache']).toBe('HIT');
    expect(second.body.equals(first.body)).toBe(true);
    await nginx.stop();
    await waitFor("Varnish's probe to find nginx down", () => !varnish.originHealthy());
    const third = await rawRequest(varnish.port, file, withSecret);
    expect({ status: third.status, cache: third.headers['x-cache'] }).toEqual({ status: 200, cache: 'HIT' });
    expect((await nginx.requestedPaths()).filter((logged) => logged === file)).toEqual([file]);
  });
});

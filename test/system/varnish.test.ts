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
import type { ManifestHead } from '../../contract/lookupIndex.ts';
import { buildScopedPath, computeEtag, type Manifest } from '../../contract/manifest.ts';
import type { RunningService } from '../../proxy/service.ts';
import { startVarnish, varnishdBinary, waitFor, type RunningVarnish } from '../support/cache.ts';
import { nginxBinary, rawRequest, startNginx, type RunningNginx } from '../support/daemon.ts';
import { buildFixture, startTestService, tempDir, testKey } from '../support/service.ts';
import { packedBody, readBuildManifest, type PackedBody } from '../support/store.ts';
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
/** A download no test asks for before nginx is stopped: a file Varnish never fetched. */
const neverFetched = '/exports/countryHoliday.ndjson.gz';

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

/** The fixture build behind nginx (logging under its own prefix) and Varnish, and a local proxy over the build to compare with. */
async function startChain(): Promise<{
  distDir: string;
  manifest: Manifest;
  nginxPrefix: string;
  nginx: RunningNginx;
  varnish: RunningVarnish;
  local: RunningService;
}> {
  const distDir = await buildFixture();
  const manifest = await readBuildManifest(distDir);
  const nginxPrefix = `${await tempDir('refdata-nginx-')}/`;
  const nginx = await startNginx(path.resolve(distDir), originHeader, undefined, nginxPrefix);
  const varnish = await startVarnish(`127.0.0.1:${nginx.port}`, originHeader, withSecret);
  return { distDir, manifest, nginxPrefix, nginx, varnish, local: await startTestService(distDir) };
}

async function stopChain({
  local,
  proxies,
  varnish,
  nginx,
}: {
  local?: RunningService;
  proxies: RunningService[];
  varnish?: RunningVarnish;
  nginx?: RunningNginx;
}): Promise<void> {
  await Promise.all([local?.close(), ...proxies.map((proxy) => proxy.close())]);
  await varnish?.stop();
  await nginx?.stop();
}

/** A body of the build `distDir` links to, where its pack holds it (test/support/store.ts). */
async function bodyOf(distDir: string, file: string): Promise<PackedBody> {
  const body = await packedBody(distDir, file);
  if (!body) throw new Error(`the build in ${distDir} has no body ${file}`);
  return body;
}

/** A request as nginx logged it in `<prefix>access.log` (the combined format): path, status, bytes of body sent. */
interface OriginRequest {
  readonly path: string;
  readonly status: number;
  readonly bytes: number;
}

async function originRequests(prefix: string): Promise<OriginRequest[]> {
  const log = await readFile(path.join(prefix, 'access.log'), 'utf8').catch(() => '');
  return [...log.matchAll(/"(?:GET|HEAD) (\S+) HTTP\/[\d.]+" (\d{3}) (\d+)/g)].map(([, file, status, bytes]) => ({
    path: file as string,
    status: Number(status),
    bytes: Number(bytes),
  }));
}

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
  let nginxPrefix: string;
  let nginx: RunningNginx;
  let varnish: RunningVarnish;
  let local: RunningService;
  const proxies: RunningService[] = [];
  beforeAll(async () => {
    ({ distDir, manifest, nginxPrefix, nginx, varnish, local } = await startChain());
  });
  afterAll(() => stopChain({ local, proxies, varnish, nginx }));

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
    const file = `/${(await bodyOf(distDir, 'financemanagement/api/currency/getbycode/try.json')).pack}`;
    expect((await rawRequest(varnish.port, file)).status).toBe(403);
    expect((await rawRequest(varnish.port, file, { [secretHeader[0]]: `${secretHeader[1]}x` })).status).toBe(403);
    expect((await rawRequest(varnish.port, file, { [secretHeader[0]]: secretHeader[1].toUpperCase() })).status).toBe(403);
    for (const method of ['POST', 'PUT', 'DELETE', 'PURGE']) expect((await rawRequest(varnish.port, file, withSecret, method)).status, method).toBe(405);
    expect((await nginx.requestedPaths()).length).toBe(before);
  });

  it('a 404 from nginx is passed on and never kept, under a name kept a year too: asked twice, nginx is asked twice', async () => {
    for (const missing of ['/lookups/nowhere.pack', `/${buildScopedPath(manifest.buildId, 'lookups/nowhere.pack')}`, '/docs/nowhere.css']) {
      for (let attempt = 0; attempt < 2; attempt++) expect((await rawRequest(varnish.port, missing, withSecret)).status, missing).toBe(404);
      await waitFor(`nginx to log both requests for ${missing}`, async () => (await nginx.requestedPaths()).filter((file) => file === missing).length === 2);
    }
  });

  it('proxies reading through Varnish answer as a local proxy does (bodies, statuses, ETag, Cache-Control, X-Data-Version), and serve the same bytes', async () => {
    const proxy = await startProxy(distDir, varnish);
    proxies.push(proxy);
    for (const target of lookups) expect(await lookup(proxy, target), target).toEqual(await lookup(local, target));
    // The proxy asked for this body as a range of its pack: Varnish holds the pack and answers the range.
    const file = 'financemanagement/api/currency/getall.json';
    const body = await bodyOf(distDir, file);
    const served = await rawRequest(varnish.port, `/${buildScopedPath(manifest.buildId, body.pack)}`, { ...withSecret, Range: body.range });
    expect({ status: served.status, cache: served.headers['x-cache'] }).toEqual({ status: 206, cache: 'HIT' });
    expect(served.body.equals(body.bytes)).toBe(true);
    expect(computeEtag(served.body)).toBe(manifest.files[file]?.etag);
  });

  it('four proxies asking for the same bodies at once: nginx is asked for each file once, each pack whole', async () => {
    const proxies4 = await Promise.all([1, 2, 3, 4].map(() => startProxy(distDir, varnish)));
    proxies.push(...proxies4);
    const asked = [...lookups, '/addressmanagement/api/region/getall', '/addressmanagement/api/language/getall'];
    const replies = await Promise.all(proxies4.flatMap((proxy) => asked.map(async (target) => ({ target, reply: await lookup(proxy, target) }))));
    for (const { target, reply } of replies) expect(reply, target).toEqual(await lookup(local, target));
    // The two lookups no proxy had made before are ranges of a pack Varnish already held whole.
    for (const file of ['addressmanagement/api/region/getall.json', 'addressmanagement/api/language/getall.json']) {
      const { pack } = await bodyOf(distDir, file);
      const packPath = `/${buildScopedPath(manifest.buildId, pack)}`;
      const fetched = (await originRequests(nginxPrefix)).filter((request) => request.path === packPath);
      expect(fetched, file).toEqual([{ path: packPath, status: 200, bytes: (await stat(path.join(distDir, pack))).size }]);
    }
    // Over the whole test file so far: no path twice.
    const everything = bodyPaths(await nginx.requestedPaths()).filter((file) => !file.includes('nowhere'));
    expect(new Set(everything).size).toBe(everything.length);
  });

  it('nginx stopped: a fresh proxy answers every lookup of a pack Varnish holds, asked before or not; a file never fetched is a 502; nginx back: answered', async () => {
    const asked = await bodyOf(distDir, 'financemanagement/api/currency/getbycode/try.json');
    expect((await bodyOf(distDir, 'addressmanagement/api/webdomain/getall.json')).pack).toBe(asked.pack);
    await nginx.stop();
    await waitFor("Varnish's probe to find nginx down", () => !varnish.originHealthy());
    const fresh = await startProxy(distDir, varnish);
    proxies.push(fresh);
    for (const target of lookups) expect(await lookup(fresh, target), target).toEqual(await lookup(local, target));
    // A proxy that ran before the outage answers from its memory and through Varnish alike.
    for (const proxy of proxies) expect((await lookup(proxy, lookups[0] as string)).status).toBe(200);
    // Never asked by any proxy, but its bytes are in a pack Varnish fetched whole.
    expect(await lookup(fresh, neverAsked)).toEqual(await lookup(local, neverAsked));
    const download = (service: RunningService): Promise<Response> => fetch(`${service.running.url}${neverFetched}`, { headers: auth });
    expect((await download(fresh)).status).toBe(502);

    nginx = await startNginx(path.resolve(distDir), originHeader, nginx.port, nginxPrefix);
    await waitFor("Varnish's probe to find nginx up", () => varnish.originHealthy());
    const [fromVarnish, fromDisk] = await Promise.all([download(fresh), download(local)]);
    expect(fromVarnish.status).toBe(200);
    expect(Buffer.from(await fromVarnish.arrayBuffer()).equals(Buffer.from(await fromDisk.arrayBuffer()))).toBe(true);
  });
});

// Varnish receives the proxies' Range requests: on a miss it must fetch the pack whole (Range is
// not passed to the backend) and keep it, then cut every range from its copy. A VCL that passed
// Range requests, or a pack fetched by range, would cost nginx one request per body again.
describe.skipIf(!varnishdBinary || !nginxBinary)('Varnish between several proxies and one pack', () => {
  let distDir: string;
  let buildId: string;
  let nginxPrefix: string;
  let nginx: RunningNginx;
  let varnish: RunningVarnish;
  let local: RunningService;
  const proxies: RunningService[] = [];
  beforeAll(async () => {
    let manifest: Manifest;
    ({ distDir, manifest, nginxPrefix, nginx, varnish, local } = await startChain());
    buildId = manifest.buildId;
  });
  afterAll(() => stopChain({ local, proxies, varnish, nginx }));

  it('asked by four proxies at once for four bodies of one pack, Varnish fetches the pack from nginx once, whole, and answers each range from its cache', async () => {
    const asked = [
      { target: '/financemanagement/api/currency/getbycode?code=try', file: 'financemanagement/api/currency/getbycode/try.json' },
      { target: '/addressmanagement/api/country/getall', file: 'addressmanagement/api/country/getall.json' },
      { target: '/addressmanagement/api/region/getall', file: 'addressmanagement/api/region/getall.json' },
      { target: '/addressmanagement/api/language/getall', file: 'addressmanagement/api/language/getall.json' },
    ];
    const bodies = await Promise.all(asked.map(({ file }) => bodyOf(distDir, file)));
    const pack = (bodies[0] as PackedBody).pack;
    expect(bodies.map((body) => body.pack)).toEqual(bodies.map(() => pack));
    expect(new Set(bodies.map((body) => body.range)).size).toBe(asked.length);
    const packPath = `/${buildScopedPath(buildId, pack)}`;

    proxies.push(...(await Promise.all(asked.map(() => startProxy(distDir, varnish)))));
    expect((await nginx.requestedPaths()).filter((file) => file.endsWith('.pack'))).toEqual([]);
    const replies = await Promise.all(asked.map(({ target }, index) => lookup(proxies[index] as RunningService, target)));
    for (const [index, { target }] of asked.entries()) expect(replies[index], target).toEqual(await lookup(local, target));

    await waitFor('nginx to log the pack', async () => (await nginx.requestedPaths()).includes(packPath));
    const fetched = (await originRequests(nginxPrefix)).filter((request) => request.path.endsWith('.pack'));
    expect(fetched).toEqual([{ path: packPath, status: 200, bytes: (await stat(path.join(distDir, pack))).size }]);
    for (const [index, body] of bodies.entries()) {
      const served = await rawRequest(varnish.port, packPath, { ...withSecret, Range: body.range });
      expect({ status: served.status, cache: served.headers['x-cache'] }, asked[index]?.file).toEqual({ status: 206, cache: 'HIT' });
      expect(served.body.equals(body.bytes), asked[index]?.file).toBe(true);
    }
    expect((await nginx.requestedPaths()).filter((file) => file.endsWith('.pack'))).toEqual([packPath]);
  });
});

describe.skipIf(!varnishdBinary || !nginxBinary)('Varnish in front of build-scoped paths (/builds/<buildId>/…)', () => {
  let distDir: string;
  let nginx: RunningNginx;
  let varnish: RunningVarnish;
  let buildId: string;
  beforeAll(async () => {
    // The layout npm run build writes and nginx.conf serves: each build under /builds/<buildId>/.
    distDir = await buildFixture();
    buildId = (JSON.parse(await readFile(path.join(distDir, 'manifest.json'), 'utf8')) as ManifestHead).buildId;
    nginx = await startNginx(path.resolve(distDir), originHeader);
    varnish = await startVarnish(`127.0.0.1:${nginx.port}`, originHeader, withSecret);
  });
  afterAll(async () => {
    await varnish?.stop();
    await nginx?.stop();
  });

  it("a build-scoped pack is fetched from nginx once, then every body's range is served from the cache, also with nginx stopped", async () => {
    const body = await bodyOf(distDir, 'financemanagement/api/currency/getbycode/try.json');
    const other = await bodyOf(distDir, 'addressmanagement/api/webdomain/getall.json');
    expect(other.pack).toBe(body.pack);
    const file = `/builds/${buildId}/${body.pack}`;
    const first = await rawRequest(varnish.port, file, { ...withSecret, Range: body.range });
    expect({ status: first.status, cache: first.headers['x-cache'] }).toEqual({ status: 206, cache: 'MISS' });
    expect(first.body.equals(body.bytes)).toBe(true);
    const second = await rawRequest(varnish.port, file, { ...withSecret, Range: body.range });
    expect({ status: second.status, cache: second.headers['x-cache'] }).toEqual({ status: 206, cache: 'HIT' });
    expect(second.body.equals(first.body)).toBe(true);
    await nginx.stop();
    await waitFor("Varnish's probe to find nginx down", () => !varnish.originHealthy());
    const third = await rawRequest(varnish.port, file, { ...withSecret, Range: body.range });
    expect({ status: third.status, cache: third.headers['x-cache'] }).toEqual({ status: 206, cache: 'HIT' });
    expect(third.body.equals(body.bytes)).toBe(true);
    // Another body of the pack, never asked for: cut from the same copy.
    const neverAsked = await rawRequest(varnish.port, file, { ...withSecret, Range: other.range });
    expect({ status: neverAsked.status, cache: neverAsked.headers['x-cache'] }).toEqual({ status: 206, cache: 'HIT' });
    expect(neverAsked.body.equals(other.bytes)).toBe(true);
    expect((await nginx.requestedPaths()).filter((logged) => logged === file)).toEqual([file]);
  });
});

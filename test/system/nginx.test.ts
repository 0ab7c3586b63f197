/**
 * nginx as the origin, for real: nginx.conf rendered by deploy/nginx.ts exactly as a deployment
 * renders it, a real nginx on a free loopback port over a build, and the proxy in origin mode in
 * front of it, compared with a proxy in local mode on the same build.
 *
 * Without nginx this file skips loudly, except under CI (process.env.CI), where it fails: .ci/run
 * installs nginx, so a missing one is a broken CI, not a reason to test less.
 */
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { mkdir, readdir, readFile, rm, stat, symlink, utimes, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { renderNginxConfig, renderSecretMap } from '../../deploy/nginx.ts';
import { buildDist } from '../../generator/build.ts';
import { loadConfig } from '../../proxy/config/config.ts';
import { silentLogger } from '../../proxy/observe/log.ts';
import { buildScopedPath, computeEtag, manifestHeadSchema, type Manifest } from '../../contract/manifest.ts';
import { startService, type RunningService } from '../../proxy/service.ts';
import { freePort } from '../support/programs.ts';
import { nginxBinary, rawRequest, renderNginxForTest, startNginx, type RunningNginx } from '../support/daemon.ts';
import { startFaultRelay, type FaultRelay } from '../support/faultRelay.ts';
import { buildFixture, copyFixture, realBuildTimeoutMs, realDataServing, repoRoot, startTestService, tempDir, testKey } from '../support/service.ts';
import { packedBody, readBuildManifest, type PackedBody } from '../support/store.ts';
import { reportMissing } from '../support/tools.ts';

const secretHeader = ['X-Origin-Secret', 'nginx-test-secret-0123456789abcdef0123456789'] as const;
const originHeader = `${secretHeader[0]}: ${secretHeader[1]}`;
const withSecret = { [secretHeader[0]]: secretHeader[1] };
const auth = { Authorization: `Bearer ${testKey}` };

interface Reply {
  readonly status: number;
  readonly body: unknown;
  readonly message: string | null;
  readonly headers: Record<string, string | null>;
}

/** A lookup through a proxy: the envelope, and the headers that must not depend on the mode. */
async function lookup(service: RunningService, target: string): Promise<Reply> {
  const response = await fetch(`${service.running.url}${target}`, { headers: auth });
  const envelope = (await response.json()) as { header: { message: string | null }; body: unknown };
  const headers = Object.fromEntries(['content-type', 'etag', 'cache-control', 'x-data-version'].map((name) => [name, response.headers.get(name)]));
  return { status: response.status, body: envelope.body, message: envelope.header.message, headers };
}

/** A body of the build `distDir` links to, where its pack holds it (test/support/store.ts). */
async function bodyOf(distDir: string, file: string): Promise<PackedBody> {
  const body = await packedBody(distDir, file);
  if (!body) throw new Error(`the build in ${distDir} has no body ${file}`);
  return body;
}

/** The byte range a 206 says it holds, for `size` bytes at `offset` of a pack of `total` bytes. */
const contentRange = (offset: number, size: number, total: number): string => `bytes ${offset}-${offset + size - 1}/${total}`;

/** Both proxies over one build: local mode reading the disk, origin mode reading nginx. */
interface Pair {
  readonly manifest: Manifest;
  readonly nginx: RunningNginx;
  /** The proxy in local mode over the build. */
  readonly local: RunningService;
  /** The proxy in origin mode in front of nginx over the same build. */
  readonly proxied: RunningService;
}

/** nginx over a build, and the proxy twice beside it: reading the build itself, and through nginx. */
async function startPair(distDir: string): Promise<Pair> {
  const manifest = await readBuildManifest(distDir);
  const nginx = await startNginx(path.resolve(distDir), originHeader);
  const local = await startTestService(distDir);
  const proxied = await startTestService(distDir, { API_KEYS: testKey, ORIGIN_URL: nginx.url, ORIGIN_HEADER: originHeader });
  return { manifest, nginx, local, proxied };
}

async function expectSameAnswers(local: RunningService, proxied: RunningService, targets: readonly string[]): Promise<void> {
  for (const target of targets) expect(await lookup(proxied, target), target).toEqual(await lookup(local, target));
}

/** The public files through both proxies: same bytes, same type, same caching. */
async function expectSamePublicFiles(local: RunningService, proxied: RunningService, manifest: Manifest): Promise<void> {
  const paths = [
    '/openapi.json',
    '/docs',
    ...Object.keys(manifest.public)
      .filter((file) => file.startsWith('docs/'))
      .map((file) => `/${file}`),
  ];
  for (const target of paths) {
    const [fromDisk, fromNginx] = await Promise.all([fetch(`${local.running.url}${target}`), fetch(`${proxied.running.url}${target}`)]);
    expect(fromNginx.status, target).toBe(200);
    expect(fromNginx.headers.get('content-type'), target).toBe(fromDisk.headers.get('content-type'));
    expect(fromNginx.headers.get('cache-control'), target).toBe(fromDisk.headers.get('cache-control'));
    expect(Buffer.from(await fromNginx.arrayBuffer()).equals(Buffer.from(await fromDisk.arrayBuffer())), target).toBe(true);
  }
}

const tryCurrency = '/financemanagement/api/currency/getbycode?code=try';
const tryCurrencyBody = 'financemanagement/api/currency/getbycode/try.json';
const turkeyId = '6779bb12-6111-49e2-8cc6-ce79429f310c';

if (!nginxBinary) {
  reportMissing(
    'test/system/nginx.test.ts',
    'nginx',
    'nginx is not installed (neither `command -v nginx` nor /usr/sbin/nginx): apt-get install -y nginx',
    'The origin configuration (nginx.conf) is',
  );
}

describe('deploy/nginx.ts renders nginx.conf (no nginx needed)', () => {
  const render = (listen: string, extra: { listenAnywhere?: boolean; root?: string } = {}): Promise<string> =>
    renderNginxConfig({ root: extra.root ?? '/srv/refdata/dist', listen, originHeader, ...(extra.listenAnywhere ? { listenAnywhere: true } : {}) });

  it('listens on loopback and private addresses, IPv6 included, and refuses any other unless told --listen-anywhere', async () => {
    for (const listen of ['127.0.0.1:8081', '10.0.0.5:8081', '172.20.1.2:80', '192.168.1.10:8081', '100.64.0.9:8081', '[::1]:8081', '[fd00::2]:8081']) {
      expect(await render(listen), listen).toContain(`listen ${listen} default_server;`);
    }
    for (const listen of ['0.0.0.0:8081', '192.0.2.2:8081', '8.8.8.8:80', '[::]:8081', '[2001:db8::1]:8081']) {
      await expect(render(listen), listen).rejects.toThrow(/not a loopback or private address/);
    }
    for (const listen of ['8081', 'localhost:8081', '127.0.0.1', '127.0.0.1:0', '127.0.0.1:8081; include /etc/passwd']) {
      await expect(render(listen), listen).rejects.toThrow(/expected address:port/);
    }
    expect(await render('0.0.0.0:8081', { listenAnywhere: true })).toContain('listen 0.0.0.0:8081 default_server;');
  });

  it('fills every placeholder and refuses a value that would change the configuration', async () => {
    const config = await render('127.0.0.1:8081');
    expect(config).not.toMatch(/@[A-Z_]+@/);
    expect(config).toContain('root /srv/refdata/dist;');
    expect(config).toContain('include origin-secret.conf;');
    await expect(render('127.0.0.1:8081', { root: '/srv/x; autoindex on' })).rejects.toThrow(/ROOT/);
    await expect(render('127.0.0.1:8081', { root: 'dist' })).rejects.toThrow(/absolute path/);
  });

  it("writes the secret as a case-sensitive, anchored pattern for the proxies' header, and refuses a weak one", () => {
    expect(renderSecretMap('X-Origin-Secret: a.b+c-0123456789abcdef0123456789')).toContain(
      'map $http_x_origin_secret $origin_secret_ok {\n    default 0;\n    "~^a\\.b\\+c-0123456789abcdef0123456789$" 1;\n}',
    );
    expect(renderSecretMap(undefined)).toContain('default 1;');
    expect(() => renderSecretMap('X-Origin-Secret: short')).toThrow(/at least 32 characters/);
    expect(() => renderSecretMap(`X-Origin-Secret: ${'a'.repeat(31)}"`)).toThrow(/at least 32 characters/);
    expect(() => renderSecretMap(`no colon ${'a'.repeat(40)}`)).toThrow(/must look like/);
  });
});

describe('deploy/nginx.ts on the command line (no nginx needed)', () => {
  /** The script as an operator runs it, without ORIGIN_HEADER so that nothing could be rendered by mistake. */
  const runScript = (...args: string[]) =>
    spawnSync(process.execPath, ['--import', 'tsx', path.join(repoRoot, 'deploy/nginx.ts'), ...args], {
      cwd: repoRoot,
      encoding: 'utf8',
      env: { ...process.env, ORIGIN_HEADER: '' },
    });
  const stackFrame = /^\s+at /m;

  it('--help prints the usage on stdout and exits 0', () => {
    for (const flag of ['--help', '-h']) {
      const { status, stdout, stderr } = runScript(flag);
      expect({ status, stderr }, flag).toEqual({ status: 0, stderr: '' });
      expect(stdout, flag).toMatch(/^usage: .*deploy\/nginx\.ts --out DIR --root PATH/);
      expect(stdout, flag).toContain('--listen-anywhere');
    }
  });

  it('an unknown option or a missing --out or --root exits 2 with one line naming it, then the usage, and no stack trace', () => {
    const cases = [
      { args: ['--bogus'], line: "deploy/nginx.ts: Unknown option '--bogus'" },
      { args: ['--root', '/srv/refdata/dist'], line: 'deploy/nginx.ts: missing --out DIR (where nginx.conf is written)' },
      { args: ['--out', path.join(repoRoot, 'never-written'), '--root'], line: "deploy/nginx.ts: Option '--root <value>' argument missing" },
    ];
    for (const { args, line } of cases) {
      const { status, stdout, stderr } = runScript(...args);
      expect({ status, stdout }, args.join(' ')).toEqual({ status: 2, stdout: '' });
      const [first, ...rest] = stderr.split('\n');
      expect(first, args.join(' ')).toBe(line);
      expect(rest.join('\n'), args.join(' ')).toMatch(/^\nusage: /);
      expect(stderr, args.join(' ')).not.toMatch(stackFrame);
    }
  });
});

describe.skipIf(!nginxBinary)('nginx as the origin, over the fixture build', () => {
  let distDir: string;
  let manifest: Manifest;
  let nginx: RunningNginx;
  let local: RunningService;
  let proxied: RunningService;
  beforeAll(async () => {
    distDir = await buildFixture();
    ({ manifest, nginx, local, proxied } = await startPair(distDir));
  });
  afterAll(async () => {
    await Promise.all([local?.close(), proxied?.close()]);
    await nginx?.stop();
  });

  it('nginx -t accepts the rendered configuration without a warning, and the running nginx logs no alert', async () => {
    const { prefix, configFile } = await renderNginxForTest(path.resolve(distDir), await freePort(), originHeader);
    const checked = spawnSync(nginxBinary as string, ['-t', '-p', prefix, '-c', configFile, '-e', 'stderr'], { encoding: 'utf8' });
    expect(checked.status, checked.stderr).toBe(0);
    const complaints = checked.stderr
      .split('\n')
      .filter((line) => /\[(warn|error|crit|alert|emerg)\]/.test(line))
      .filter((line) => !line.includes('"user" directive makes sense only if the master process runs with super-user privileges'));
    expect(complaints).toEqual([]);
    expect(nginx.output()).not.toMatch(/\[(crit|alert|emerg)\]/);
  });

  it('answers lookups exactly as local mode does: bodies, statuses, messages, ETag, Cache-Control, X-Data-Version', async () => {
    await expectSameAnswers(local, proxied, [
      tryCurrency,
      '/addressmanagement/api/country/getall',
      '/addressmanagement/api/country/getbyname?name=T%C3%9CRK%C4%B0YE',
      '/addressmanagement/api/stateprovince/getbyname?name=ISTANBUL',
      `/addressmanagement/api/stateprovince/getbycountryid?countryid=${turkeyId}`,
      `/addressmanagement/api/countryholiday/getbycountryid?CountryId=${turkeyId}&Year=2024`,
      '/financemanagement/api/bank/getbycode?code=010',
    ]);
  });

  it('answers the change lists, the exports index and an export file from nginx as local mode does', async () => {
    await expectSameAnswers(local, proxied, ['/meta/changes', `/meta/changes?since=${manifest.buildId}`, '/exports/']);
    const file = '/exports/countryHoliday.ndjson.gz';
    const [fromDisk, fromNginx] = await Promise.all([local, proxied].map((service) => fetch(`${service.running.url}${file}`, { headers: auth })));
    expect(fromNginx?.status).toBe(200);
    expect(fromNginx?.headers.get('etag')).toBe(manifest.downloads[file.slice(1)]?.etag);
    expect(Buffer.from(await (fromNginx as Response).arrayBuffer()).equals(Buffer.from(await (fromDisk as Response).arrayBuffer()))).toBe(true);
  });

  it("404 for unknown keys, with local mode's message (the manifest decides; nginx is not asked)", async () => {
    const targets = [
      '/financemanagement/api/currency/getbycode?code=XXX',
      `/addressmanagement/api/district/getbystateprovinceid?stateprovinceid=${'0'.repeat(32)}`,
    ];
    await expectSameAnswers(local, proxied, targets);
    for (const target of targets) expect((await lookup(proxied, target)).status, target).toBe(404);
  });

  it('passes /openapi.json and /docs through from nginx as local mode serves them', async () => {
    expect(Object.keys(manifest.public)).toEqual(expect.arrayContaining(['openapi.json', 'docs/index.html']));
    await expectSamePublicFiles(local, proxied, manifest);
  });

  // Found by this test against nginx (origin mode streamed public files without these headers) and
  // fixed in the proxy's request listener by 5fcfe63.
  it('passes the public files through with X-Request-Id and the CORS headers local mode sends', async () => {
    expect(Object.keys(manifest.public)).toEqual(expect.arrayContaining(['openapi.json', 'docs/index.html']));
    const headers = { Origin: 'https://app.example.test' };
    for (const target of ['/openapi.json', '/docs']) {
      const [fromDisk, fromNginx] = await Promise.all([
        fetch(`${local.running.url}${target}`, { headers }),
        fetch(`${proxied.running.url}${target}`, { headers }),
      ]);
      expect(fromDisk.headers.get('access-control-allow-origin'), `${target} in local mode`).toBe('*');
      expect(fromDisk.headers.get('x-request-id'), `${target} in local mode`).toMatch(/^[0-9a-f-]{36}$/);
      expect(fromNginx.headers.get('access-control-allow-origin'), `${target} in origin mode`).toBe('*');
      expect(fromNginx.headers.get('access-control-expose-headers'), `${target} in origin mode`).toBe(fromDisk.headers.get('access-control-expose-headers'));
      expect(fromNginx.headers.get('x-request-id'), `${target} in origin mode`).toMatch(/^[0-9a-f-]{36}$/);
    }
  });

  // An origin's error page never reaches a client: nginx's 404 for a public file the manifest lists
  // becomes the envelope. A fresh nginx and proxy, since either may hold the file from earlier tests
  // (the proxy caches public files like bodies, and nginx's open_file_cache keeps descriptors 2 s).
  it("a public file the origin lacks is answered with the envelope and no-store, not the origin's error page", async () => {
    expect(Object.keys(manifest.public)).toEqual(expect.arrayContaining(['openapi.json', 'docs/index.html']));
    const asset = Object.keys(manifest.public).find((file) => file.startsWith('docs/') && file !== 'docs/index.html') as string;
    await rm(path.join(path.dirname(distDir), '.dist-builds', manifest.buildId, asset));
    const freshNginx = await startNginx(path.resolve(distDir), originHeader);
    const freshProxy = await startTestService(distDir, { API_KEYS: testKey, ORIGIN_URL: freshNginx.url, ORIGIN_HEADER: originHeader });
    try {
      expect((await rawRequest(freshNginx.port, `/${asset}`, withSecret)).status).toBe(404);
      const response = await fetch(`${freshProxy.running.url}/${asset}`);
      const text = await response.text();
      // Listed in the build, so it exists: the origin's lack is the service's fault, to retry.
      expect(response.status, text).toBe(503);
      expect(response.headers.get('retry-after'), text).toBe('5');
      expect(response.headers.get('content-type'), text).toBe('application/json; charset=utf-8');
      expect(response.headers.get('cache-control'), text).toBe('no-store');
      expect((JSON.parse(text) as { header: { isSuccess: boolean } }).header.isSuccess).toBe(false);
    } finally {
      await freshProxy.close();
      await freshNginx.stop();
    }
  });

  it('nginx refuses a request without the secret header, or with a wrong one, with 403; manifest.json only with the secret', async () => {
    expect((await rawRequest(nginx.port, '/manifest.json')).status).toBe(403);
    expect((await rawRequest(nginx.port, '/manifest.json', { [secretHeader[0]]: 'wrong-secret-0123456789abcdef0123456789' })).status).toBe(403);
    // nginx's map matches plain strings ignoring case: the secret is a case-sensitive pattern.
    expect((await rawRequest(nginx.port, '/manifest.json', { [secretHeader[0]]: secretHeader[1].toUpperCase() })).status).toBe(403);
    const { pack, range } = await bodyOf(distDir, 'addressmanagement/api/country/getall.json');
    expect((await rawRequest(nginx.port, `/${pack}`, { Range: range })).status).toBe(403);
    expect((await rawRequest(nginx.port, `/${buildScopedPath(manifest.buildId, pack)}`, { Range: range })).status).toBe(403);
    const served = await rawRequest(nginx.port, '/manifest.json', withSecret);
    expect(served.status).toBe(200);
    expect(manifestHeadSchema.parse(JSON.parse(served.body.toString())).buildId).toBe(manifest.buildId);
  });

  it('nginx serves a pack whole as bytes with its own ETag, answers 304 to it, and is not cacheable by shared caches', async () => {
    const { pack } = await bodyOf(distDir, tryCurrencyBody);
    const onDisk = await readFile(path.join(distDir, pack));
    const served = await rawRequest(nginx.port, `/${pack}`, withSecret);
    expect(served.status).toBe(200);
    // Never read as JSON by anyone: the proxy gives each body its own type.
    expect(served.headers['content-type']).toBe('application/octet-stream');
    expect(served.headers['cache-control']).toBe('private, no-cache');
    expect(served.headers['x-content-type-options']).toBe('nosniff');
    expect(served.headers['accept-ranges']).toBe('bytes');
    expect(served.body.equals(onDisk)).toBe(true);
    const etag = served.headers.etag ?? '';
    expect(etag).toMatch(/^"[0-9a-f]+-[0-9a-f]+"$/);
    expect((await rawRequest(nginx.port, `/${pack}`, { ...withSecret, 'If-None-Match': etag })).status).toBe(304);
  });

  it("nginx answers a Range request on a pack with 206 and exactly the body's bytes, at the root and under the build id", async () => {
    const body = await bodyOf(distDir, tryCurrencyBody);
    const total = (await stat(path.join(distDir, body.pack))).size;
    expect(body.size).toBeLessThan(total); // a part of the pack, not all of it
    expect(body.etag).toBe(manifest.files[tryCurrencyBody]?.etag);
    for (const target of [`/${body.pack}`, `/${buildScopedPath(manifest.buildId, body.pack)}`]) {
      const served = await rawRequest(nginx.port, target, { ...withSecret, Range: body.range });
      expect(served.status, target).toBe(206);
      expect(served.headers['content-range'], target).toBe(contentRange(body.offset, body.size, total));
      expect(served.headers['content-length'], target).toBe(String(body.size));
      expect(served.body.equals(body.bytes), target).toBe(true);
      expect(computeEtag(served.body), target).toBe(body.etag);
      expect(JSON.parse(served.body.toString('utf8')), target).toMatchObject({ code: 'TRY' });
    }
  });

  it('nginx serves each build under builds/<buildId>/ as cacheable forever, and builds/current.json, naming it, as revalidated on every use', async () => {
    const pointer = await rawRequest(nginx.port, '/builds/current.json', withSecret);
    expect(pointer.status).toBe(200);
    expect(pointer.headers['cache-control']).toBe('no-cache');
    expect(JSON.parse(pointer.body.toString('utf8'))).toEqual({ buildId: manifest.buildId });
    const body = await bodyOf(distDir, tryCurrencyBody);
    const file = body.pack;
    const scoped = await rawRequest(nginx.port, `/${buildScopedPath(manifest.buildId, file)}`, { ...withSecret, Range: body.range });
    expect(scoped.status).toBe(206);
    expect(scoped.headers['cache-control']).toBe('public, max-age=31536000, immutable');
    expect(computeEtag(scoped.body)).toBe(manifest.files[tryCurrencyBody]?.etag);
    const [shard] = (await readdir(path.join(distDir, 'lookups'))).filter((name) => name.endsWith('.idx'));
    for (const name of ['manifest.json', 'lookups.idx', `lookups/${shard}`]) {
      const served = await rawRequest(nginx.port, `/${buildScopedPath(manifest.buildId, name)}`, withSecret);
      expect(served.status, name).toBe(200);
      expect(served.headers['cache-control'], name).toBe('public, max-age=31536000, immutable');
      expect(served.body.equals(await readFile(path.join(distDir, name))), name).toBe(true);
    }
    // Only build directories: not a partial build, not a name that is no build id, not without the secret.
    const statusOf = async (target: string, headers: Record<string, string> = withSecret): Promise<number> =>
      (await rawRequest(nginx.port, target, headers)).status;
    expect(await statusOf(`/builds/${manifest.buildId}.partial/manifest.json`)).toBe(404);
    expect(await statusOf('/builds/latest/manifest.json')).toBe(404);
    expect(await statusOf(`/${buildScopedPath(manifest.buildId, file)}`, {})).toBe(403);
    expect(await statusOf('/builds/current.json', {})).toBe(403);
  });

  it('nginx lists no directory, serves no dotfile, nothing outside the build, and only GET and HEAD', async () => {
    const buildDir = path.join(path.dirname(distDir), '.dist-builds', manifest.buildId);
    const scoped = (file: string): string => `/${buildScopedPath(manifest.buildId, file)}`;
    await writeFile(path.join(buildDir, '.env'), 'SECRET=1\n');
    await writeFile(path.join(buildDir, 'lookups', '.hidden.pack'), '{}\n');
    await mkdir(path.join(buildDir, '.git'), { recursive: true });
    await writeFile(path.join(buildDir, '.git', 'config'), '[core]\n');
    const outside = path.join(path.dirname(distDir), 'outside.pack');
    await writeFile(outside, '{"outside":true}\n');
    await symlink(outside, path.join(buildDir, 'lookups', 'escape.pack'));
    const statusOf = async (target: string, method = 'GET'): Promise<number> => (await rawRequest(nginx.port, target, withSecret, method)).status;

    for (const directory of ['/', '/lookups', '/lookups/', '/exports/', '/changes/', '/builds/', scoped('lookups/')]) {
      expect(await statusOf(directory), directory).toBe(404);
    }
    for (const dotfile of ['/.env', '/lookups/.hidden.pack', '/.git/config', '/.git/', scoped('.env'), scoped('lookups/.hidden.pack'), scoped('.git/config')]) {
      expect(await statusOf(dotfile), dotfile).toBe(404);
    }
    for (const target of ['/../outside.pack', '/%2e%2e/outside.pack', `/../.dist-builds/${manifest.buildId}/manifest.json`, '/docs/../../outside.pack']) {
      expect(await statusOf(target), target).toBe(400);
    }
    // A symbolic link inside the build is not followed (disable_symlinks): 404 like a missing file,
    // at the root and under the build id. The dist link itself is, or nothing above would have been served.
    expect(await statusOf('/lookups/escape.pack')).toBe(404);
    expect(await statusOf(scoped('lookups/escape.pack'))).toBe(404);
    for (const method of ['POST', 'PUT', 'DELETE', 'OPTIONS']) expect(await statusOf('/manifest.json', method), method).toBe(405);
    expect(await statusOf('/manifest.json', 'HEAD')).toBe(200);
  });

  it("switches to a new build swapped in under nginx, never serving a body as another build's", async () => {
    const previous = await stat(path.join(distDir, 'lookups.idx'));
    const dataDir = await copyFixture();
    const currencyFile = path.join(dataDir, 'records', 'currency.json');
    await writeFile(currencyFile, (await readFile(currencyFile, 'utf8')).replace('"Turkish Lira"', '"Türk Lirası"'));
    const built = await buildDist({ dataDir, distDir });
    // nginx's ETag is the modification time in seconds and the size: an index rewritten within
    // the same second at the same size would look unchanged to the proxy's conditional request.
    // The new one is dated two seconds on, as a build a moment later would be.
    const later = new Date(previous.mtimeMs + 2_000);
    await utimes(path.join(distDir, 'lookups.idx'), later, later);
    // open_file_cache re-checks the dist link every 2 s; the proxy polls every 10 s (here: at once).
    // Generous: other test files (the bench smoke test) may be loading both cores meanwhile.
    const deadline = Date.now() + 20_000;
    while (proxied.build.current().manifest.buildId !== built.buildId && Date.now() < deadline) {
      await proxied.build.reload('test');
      await new Promise((resolve) => setTimeout(resolve, 200));
    }
    expect(proxied.build.current().manifest.buildId).toBe(built.buildId);
    expect((await lookup(proxied, tryCurrency)).body).toMatchObject({ name: 'Türk Lirası' });
    await local.build.reload('test');
    await expectSameAnswers(local, proxied, [tryCurrency, '/financemanagement/api/currency/getall']);
    manifest = await readBuildManifest(distDir);
  });

  it('origin down: 502 for a body not yet cached, cached bodies and public files still served from memory, the build kept; back: served again', async () => {
    const served = await lookup(proxied, tryCurrency);
    expect(served.status).toBe(200);
    expect((await fetch(`${proxied.running.url}/openapi.json`)).status).toBe(200);
    await nginx.stop();
    expect((await lookup(proxied, tryCurrency)).body).toEqual(served.body);
    const uncached = await lookup(proxied, '/addressmanagement/api/webdomain/getall');
    expect(uncached).toMatchObject({ status: 502, body: null, message: expect.stringMatching(/origin is unreachable \(ECONNREFUSED\)/) });
    const buildId = proxied.build.current().manifest.buildId;
    await proxied.build.reload('test'); // the poll fails, is logged, and keeps the build
    expect(proxied.build.current().manifest.buildId).toBe(buildId);
    expect((await fetch(`${proxied.running.url}/readyz`)).status).toBe(200);
    expect((await fetch(`${proxied.running.url}/openapi.json`)).status).toBe(200);

    nginx = await startNginx(path.resolve(distDir), originHeader, nginx.port);
    expect((await lookup(proxied, '/addressmanagement/api/webdomain/getall')).status).toBe(200);
  });
});

// The faults test/system/origin.test.ts provokes in a hand-written origin, here between the proxy and a
// real nginx: the relay keeps nginx's status and headers and breaks only the body or the connection.
// Each test starts its own relay and proxy (with its own ORIGIN_CACHE_DIR): a file served once is
// cached, and would hide the fault.
describe.skipIf(!nginxBinary)('nginx as the origin, behind a relay that injects faults', () => {
  // What the proxy asks nginx for: paths under the build's id (build-scoped), set once the proxy
  // runs. A body is a Range request on its pack: the faults below touch that request alone.
  let tryCurrencyPack: string;
  let tryCurrencyRange: string;
  let openapiFile: string;
  /** The Range request for the TRY body, the first request the proxy makes for it. */
  const isTryCurrency = (pathname: string, range: string | undefined): boolean => pathname === tryCurrencyPack && range === tryCurrencyRange;
  const webDomains = '/addressmanagement/api/webdomain/getall';
  /** A stalled body fails after 300 ms without a byte, not after the default 10 s. */
  const relayTimeouts = { connect: 2_000, headers: 2_000, body: 300, total: 5_000 };
  let distDir: string;
  let nginx: RunningNginx;
  let local: RunningService;
  let relay: FaultRelay;
  let service: RunningService;
  /** The proxy's clock, moved by a test past a Retry-After rather than waiting it out. */
  let clock = Date.now();
  beforeAll(async () => {
    distDir = await buildFixture();
    nginx = await startNginx(path.resolve(distDir), originHeader);
    local = await startTestService(distDir);
  });
  afterAll(async () => {
    await local?.close();
    await nginx?.stop();
  });
  beforeEach(async () => {
    relay = await startFaultRelay(nginx.url);
    clock = Date.now();
    service = await startService(
      loadConfig({ PORT: '0', DIST_DIR: distDir, API_KEYS: testKey, ORIGIN_URL: relay.url, ORIGIN_HEADER: originHeader, ORIGIN_CACHE_DIR: await tempDir() }),
      { log: silentLogger, originTimeouts: relayTimeouts, now: () => clock },
    );
    const build = `/${buildScopedPath(service.build.current().manifest.buildId, '')}`;
    const body = await bodyOf(distDir, tryCurrencyBody);
    tryCurrencyPack = `${build}${body.pack}`;
    tryCurrencyRange = body.range;
    openapiFile = `${build}openapi.json`;
  });
  afterEach(async () => {
    await service?.close();
    await relay?.close();
  });

  /** The envelope of a failure, read only after its status has been checked (a cut 200 would hang here). */
  const failureOf = async (
    response: Response,
  ): Promise<{ status: number; cacheControl: string | null; isSuccess: boolean; body: unknown; message: string | null }> => {
    const envelope = (await response.json()) as { header: { isSuccess: boolean; message: string | null }; body: unknown };
    return {
      status: response.status,
      cacheControl: response.headers.get('cache-control'),
      isSuccess: envelope.header.isSuccess,
      body: envelope.body,
      message: envelope.header.message,
    };
  };
  const publicFile = (target: string): Promise<Response> => fetch(`${service.running.url}${target}`);

  it('the proxy asks the origin only for builds/current.json and paths under the build id, each body once as a range of its pack', async () => {
    relay.mode = 'pass';
    for (const target of [tryCurrency, webDomains, tryCurrency, '/openapi.json']) {
      expect((await (target === '/openapi.json' ? publicFile(target) : lookup(service, target))).status, target).toBe(200);
    }
    const asked = [...relay.requests.keys()];
    expect(asked).toContain('/builds/current.json');
    expect(asked).toContain(tryCurrencyPack);
    expect(relay.ranges.get(`${tryCurrencyPack} ${tryCurrencyRange}`)).toBe(1);
    for (const target of asked) expect(target).toMatch(/^\/builds\/(current\.json$|\d{8}T\d{6}Z-[0-9a-f]{6}\/)/);
    // Two bodies, each one Range request, and a pack never asked for whole.
    const packs = asked.filter((target) => target.endsWith('.pack'));
    const ranged = [...relay.ranges].filter(([request]) => request.split(' ')[0]?.endsWith('.pack'));
    expect(ranged.map(([, count]) => count)).toEqual([1, 1]);
    expect(packs.reduce((sum, target) => sum + (relay.requests.get(target) ?? 0), 0)).toBe(2);
  });

  it('a body reset halfway by the relay is a 502 envelope; the same lookup answers 200 once the relay passes again', async () => {
    relay.faultsOn = isTryCurrency;
    relay.mode = 'reset-mid-body';
    expect(await lookup(service, tryCurrency)).toMatchObject({ status: 502, body: null, message: expect.stringMatching(/data origin is unreachable/) });
    expect(relay.ranges.get(`${tryCurrencyPack} ${tryCurrencyRange}`)).toBeGreaterThanOrEqual(1);
    relay.mode = 'pass';
    expect(await lookup(service, tryCurrency)).toEqual(await lookup(local, tryCurrency));
  });

  it('/openapi.json reset halfway is a 502 envelope with no-store, and the worker goes on answering', async () => {
    relay.faultsOn = (pathname) => pathname === openapiFile;
    relay.mode = 'reset-mid-body';
    for (let attempt = 0; attempt < 3; attempt++) {
      expect(await failureOf(await publicFile('/openapi.json')), `attempt ${attempt}`).toMatchObject({
        status: 502,
        cacheControl: 'no-store',
        isSuccess: false,
        body: null,
        message: expect.stringMatching(/data origin/),
      });
    }
    expect((await publicFile('/healthz')).status).toBe(200);
    expect((await lookup(service, tryCurrency)).status).toBe(200);
  });

  it('a body and /openapi.json stalled halfway are 504 envelopes after the body timeout, never a hanging response', async () => {
    relay.faultsOn = (pathname, range) => isTryCurrency(pathname, range) || pathname === openapiFile;
    relay.mode = 'stall-mid-body';
    expect(await lookup(service, tryCurrency)).toMatchObject({ status: 504, body: null, message: expect.stringMatching(/did not answer in time/) });
    expect(await failureOf(await publicFile('/openapi.json'))).toMatchObject({
      status: 504,
      isSuccess: false,
      body: null,
      message: expect.stringMatching(/did not answer in time/),
    });
    relay.mode = 'pass';
    expect((await lookup(service, tryCurrency)).status).toBe(200);
    expect((await publicFile('/openapi.json')).status).toBe(200);
  });

  it('a body and /openapi.json with one byte changed are never passed on: 502 envelopes naming a damaged copy, then the right bytes once the relay passes', async () => {
    relay.faultsOn = (pathname, range) => isTryCurrency(pathname, range) || pathname === openapiFile;
    relay.mode = 'corrupt';
    const body = await fetch(`${service.running.url}${tryCurrency}`, { headers: auth });
    expect(body.headers.get('retry-after')).toBe('5');
    // Under builds/<buildId>/ files never change: the copy is damaged, not a build being switched.
    expect(await failureOf(body)).toMatchObject({
      status: 502,
      isSuccess: false,
      body: null,
      message: expect.stringMatching(/copy of this lookup's body is damaged/),
    });
    expect(await failureOf(await publicFile('/openapi.json'))).toMatchObject({
      status: 502,
      isSuccess: false,
      body: null,
      message: expect.stringMatching(/does not match/),
    });
    expect(relay.ranges.get(`${tryCurrencyPack} ${tryCurrencyRange}`)).toBe(1);
    expect(relay.requests.get(openapiFile)).toBe(1);

    relay.mode = 'pass';
    // Until its Retry-After has passed, the body is refused again without asking the origin.
    expect(await lookup(service, tryCurrency)).toMatchObject({ status: 502 });
    expect(relay.ranges.get(`${tryCurrencyPack} ${tryCurrencyRange}`)).toBe(1);
    clock += 5_000;
    expect(await lookup(service, tryCurrency)).toEqual(await lookup(local, tryCurrency));
    const [fromDisk, fromNginx] = await Promise.all([fetch(`${local.running.url}/openapi.json`), publicFile('/openapi.json')]);
    expect(fromNginx.status).toBe(200);
    expect(Buffer.from(await fromNginx.arrayBuffer()).equals(Buffer.from(await fromDisk.arrayBuffer()))).toBe(true);
  });

  it('origin down at the relay: a lookup served before is still 200 from memory, one never served is a 502; back: served', async () => {
    expect((await lookup(service, tryCurrency)).status).toBe(200);
    relay.mode = 'down';
    expect(await lookup(service, tryCurrency)).toEqual(await lookup(local, tryCurrency));
    expect(await lookup(service, webDomains)).toMatchObject({ status: 502, body: null, message: expect.stringMatching(/data origin is unreachable/) });
    relay.mode = 'pass';
    expect(await lookup(service, webDomains)).toEqual(await lookup(local, webDomains));
  });
});

describe.skipIf(!nginxBinary)("nginx as the origin, over a build of the real data (Türkiye's addresses)", () => {
  let distDir: string;
  let manifest: Manifest;
  let nginx: RunningNginx;
  let local: RunningService;
  let proxied: RunningService;
  beforeAll(async () => {
    distDir = path.join(await tempDir(), 'dist');
    await buildDist({ dataDir: await realDataServing(['TR']), distDir });
    ({ manifest, nginx, local, proxied } = await startPair(distDir));
  }, realBuildTimeoutMs);
  afterAll(async () => {
    await Promise.all([local?.close(), proxied?.close()]);
    await nginx?.stop();
  });

  it('answers what local mode answers, for Türkiye, İstanbul, its districts and neighbourhoods, holidays, banks and domains', async () => {
    const turkey = (await lookup(local, '/addressmanagement/api/country/getbyalpha2code?alpha2code=TR')).body as { id: string };
    const istanbul = (await lookup(local, '/addressmanagement/api/stateprovince/getbyabbreviation?abbreviation=34')).body as { id: string };
    const districts = (await lookup(local, `/addressmanagement/api/district/getbystateprovinceid?stateprovinceid=${istanbul.id}`)).body as { id: string }[];
    expect(districts.length).toBeGreaterThan(30);
    await expectSameAnswers(local, proxied, [
      '/addressmanagement/api/country/getall',
      '/addressmanagement/api/country/getbyname?name=T%C3%BCrkiye',
      `/addressmanagement/api/district/getbystateprovinceid?stateprovinceid=${istanbul.id}`,
      `/addressmanagement/api/neighborhood/getbydistrictid?districtid=${districts[0]?.id}`,
      `/addressmanagement/api/countryholiday/getbycountryid?CountryId=${turkey.id}&Year=2026`,
      `/addressmanagement/api/countryspecialday/getbycountryid?CountryId=${turkey.id}&Year=2026`,
      '/financemanagement/api/bank/getbycode?code=064',
      '/financemanagement/api/currency/getall',
      `/addressmanagement/api/webdomain/getbyname?name=${encodeURIComponent('рф')}`,
      '/addressmanagement/api/country/getbyname?name=Atlantis',
    ]);
  });

  it("nginx serves a sample of the manifest's bodies byte for byte, each as its range of its pack, as JSON", async () => {
    const files = Object.entries(manifest.files);
    const step = Math.max(1, Math.floor(files.length / 300));
    const packs = new Set<string>();
    for (let index = 0; index < files.length; index += step) {
      const [file, entry] = files[index] as [string, Manifest['files'][string]];
      const body = await bodyOf(distDir, file);
      packs.add(body.pack);
      const served = await rawRequest(nginx.port, `/${buildScopedPath(manifest.buildId, body.pack)}`, { ...withSecret, Range: body.range });
      expect(served.status, file).toBe(206);
      expect(served.body.equals(body.bytes), file).toBe(true);
      expect(computeEtag(served.body), file).toBe(entry.etag);
      expect(() => JSON.parse(served.body.toString('utf8')), file).not.toThrow();
    }
    // The real build is large enough to be sharded: the sample reads more than one pack.
    expect(packs.size).toBeGreaterThan(1);
  });

  it('passes the public files through as local mode serves them', async () => {
    expect(Object.keys(manifest.public)).toEqual(expect.arrayContaining(['openapi.json', 'docs/index.html']));
    await expectSamePublicFiles(local, proxied, manifest);
  });
});

describe.skipIf(!nginxBinary)('nginx started by a test process', () => {
  it('leaves no worker behind when the test process exits without stopping it', { timeout: 30_000 }, async () => {
    const distDir = await buildFixture();
    // A test process that starts nginx, names its master and workers, then exits at once.
    const script = `
      import { startNginx } from ${JSON.stringify(path.join(repoRoot, 'test/support/daemon.ts'))};
      import { childPids } from ${JSON.stringify(path.join(repoRoot, 'test/support/proc.ts'))};
      const nginx = await startNginx(${JSON.stringify(distDir)}, 'X-Origin-Secret: ${'s'.repeat(32)}');
      console.log(JSON.stringify([nginx.pid, ...childPids(nginx.pid, 'nginx')]));
      process.exit(0);
    `;
    const file = path.join(await tempDir(), 'leaves-nginx.mts');
    await writeFile(file, script);
    const run = spawnSync(process.execPath, ['--import', 'tsx', file], { cwd: repoRoot, encoding: 'utf8' });
    const printed = run.stdout.trim().split('\n').at(-1) ?? '';
    expect(printed, `the test process printed nothing; it said:\n${run.stderr}`).toMatch(/^\[\d+(,\d+)+\]$/);
    const pids = JSON.parse(printed) as number[];
    // Running, or stopped but not yet reaped (a zombie, state Z, counts as gone).
    const alive = (pid: number): boolean => {
      try {
        return !/^\d+ \(.*\) Z/.test(readFileSync(`/proc/${pid}/stat`, 'utf8'));
      } catch {
        return false;
      }
    };
    // SIGKILL is delivered before kill(2) returns; a process takes a moment to die.
    let left = pids.filter(alive);
    for (let round = 0; left.length > 0 && round < 250; round++) {
      await new Promise((resolve) => setTimeout(resolve, 20));
      left = pids.filter(alive);
    }
    expect(left).toEqual([]);
  });
});

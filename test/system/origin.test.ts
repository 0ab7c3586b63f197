/**
 * Origin mode against a static host this test controls: it can demand a secret header, count
 * requests, answer 404, stall, cut or corrupt a public file, or be gone. (test/system/nginx.test.ts runs
 * the same against real nginx.)
 */
import { createHash } from 'node:crypto';
import { access, cp, mkdir, readdir, readFile, realpath, rm, symlink, writeFile } from 'node:fs/promises';
import http from 'node:http';
import path from 'node:path';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { ServiceError } from '../../contract/errors.ts';
import { loadConfig } from '../../proxy/config/config.ts';
import { silentLogger } from '../../proxy/observe/log.ts';
import { startService, type RunningService } from '../../proxy/service.ts';
import { listenOnLoopback } from '../support/loopbackServer.ts';
import { packedBody, type PackedBody } from '../support/store.ts';
import { buildFixture, copyFixture, startTestService, tempDir, testKey } from '../support/service.ts';
import { buildDist } from '../../generator/build.ts';
import { EventEmitter } from 'node:events';
import { Writable } from 'node:stream';
import pino from 'pino';

interface StaticOrigin {
  readonly url: string;
  /** Requests per path, since the start. */
  readonly hits: Map<string, number>;
  /** Emits 'request' with the path as each request arrives. */
  readonly arrivals: EventEmitter;
  /**
   * The last three touch only the public files (openapi.json, docs/): the headers and half the
   * file, then a reset or nothing at all; or the whole file with one byte changed.
   */
  mode: 'serve' | 'stall' | 'reset-once' | 'slow' | 'reset-mid-file' | 'stall-mid-file' | 'corrupt' | 'down';
  /** Range requests (a body in its pack) by path and range. */
  readonly ranges: Map<string, number>;
  /** Conditional manifest requests answered 304. */
  notModified: number;
  /** The Authorization header of the last request, if any reached the origin. */
  lastAuthorization: string | undefined;
  close(): Promise<void>;
}

const secret = ['X-Origin-Secret', 'origin-secret-for-tests'] as const;

/** A static file server over `root` (resolved per request, like nginx following the dist link). */
function startStaticOrigin(root: string): Promise<StaticOrigin> {
  const origin: Omit<StaticOrigin, 'url' | 'close'> = {
    hits: new Map(),
    ranges: new Map(),
    arrivals: new EventEmitter(),
    mode: 'serve',
    notModified: 0,
    lastAuthorization: undefined,
  };
  const server = http.createServer(async (request, response) => {
    const pathname = (request.url ?? '/').split('?')[0] ?? '/';
    origin.hits.set(pathname, (origin.hits.get(pathname) ?? 0) + 1);
    origin.arrivals.emit('request', pathname);
    origin.lastAuthorization = request.headers.authorization;
    if (request.headers[secret[0].toLowerCase()] !== secret[1]) return response.writeHead(403).end();
    if (origin.mode === 'stall') return; // never answers
    if (origin.mode === 'down') return request.socket.destroy(); // every connection dropped, as a host that is gone
    if (origin.mode === 'slow') await new Promise((resolve) => setTimeout(resolve, 500));
    if (origin.mode === 'reset-once') {
      origin.mode = 'serve';
      return request.socket.destroy(); // as a kept-alive connection the origin dropped
    }
    let body: Buffer;
    try {
      body = await readFile(path.join(await realpath(root), pathname));
    } catch {
      return response.writeHead(404).end();
    }
    const etag = `"${createHash('sha1').update(body).digest('hex')}"`;
    if (request.headers['if-none-match'] === etag) {
      origin.notModified++;
      return response.writeHead(304, { ETag: etag }).end();
    }
    const range = /^bytes=(\d+)-(\d+)$/.exec(request.headers.range ?? '');
    if (range) {
      // As nginx answers a range of a file: 206 with those bytes.
      origin.ranges.set(`${pathname} ${request.headers.range}`, (origin.ranges.get(`${pathname} ${request.headers.range}`) ?? 0) + 1);
      const part = body.subarray(Number(range[1]), Number(range[2]) + 1);
      return response.writeHead(206, { 'Content-Range': `bytes ${range[1]}-${range[2]}/${body.length}`, 'Content-Length': part.length }).end(part);
    }
    const isPublic = pathname === '/openapi.json' || pathname.startsWith('/docs/');
    if (isPublic && (origin.mode === 'reset-mid-file' || origin.mode === 'stall-mid-file')) {
      const resets = origin.mode === 'reset-mid-file';
      response.writeHead(200, { 'Content-Type': 'application/json', ETag: etag, 'Content-Length': body.length });
      response.write(body.subarray(0, body.length >> 1), () => {
        if (resets) request.socket.destroy();
      });
      return;
    }
    if (isPublic && origin.mode === 'corrupt') {
      const middle = body.length >> 1;
      body = Buffer.from(body);
      body[middle] = (body[middle] as number) ^ 0x20; // same length, one letter's case flipped
    }
    response.writeHead(200, { 'Content-Type': 'application/json', ETag: etag, 'Content-Length': body.length }).end(body);
  });
  return listenOnLoopback(server, origin);
}

const auth = { Authorization: `Bearer ${testKey}` };
const tryCurrency = '/financemanagement/api/currency/getbycode?code=try';

async function call(service: RunningService, target: string): Promise<{ status: number; body: unknown; message: string | null }> {
  const response = await fetch(`${service.running.url}${target}`, { headers: auth });
  const envelope = (await response.json()) as { header: { message: string | null }; body: unknown };
  return { status: response.status, body: envelope.body, message: envelope.header.message };
}

describe('origin mode', () => {
  let distDir: string;
  let origin: StaticOrigin;
  let local: RunningService;
  let proxied: RunningService;
  beforeAll(async () => {
    distDir = await buildFixture();
    origin = await startStaticOrigin(distDir);
    local = await startTestService(distDir);
    proxied = await startTestService(distDir, { API_KEYS: testKey, ORIGIN_URL: origin.url, ORIGIN_HEADER: `${secret[0]}: ${secret[1]}` });
  });
  afterAll(async () => {
    await Promise.all([local.close(), proxied.close()]);
    await origin.close();
  });

  it('answers exactly what local mode answers', async () => {
    for (const target of [tryCurrency, '/addressmanagement/api/country/getall', '/addressmanagement/api/stateprovince/getbyname?name=ISTANBUL']) {
      expect(await call(proxied, target), target).toEqual(await call(local, target));
    }
  });

  it('fetches a body once, as a range of its pack, then serves it from memory; concurrent misses share one fetch', async () => {
    const target = '/addressmanagement/api/region/getall';
    const { pack, range } = (await packedBody(distDir, 'addressmanagement/api/region/getall.json')) as PackedBody;
    const asked = `/${pack} ${range}`;
    const before = origin.ranges.get(asked) ?? 0;
    const replies = await Promise.all(Array.from({ length: 10 }, () => call(proxied, target)));
    expect(replies.every((reply) => reply.status === 200)).toBe(true);
    await call(proxied, target);
    expect((origin.ranges.get(asked) ?? 0) - before).toBe(1);
  });

  it('revalidates the manifest with the origin ETag: an unchanged build costs a 304', async () => {
    const before = origin.notModified;
    const buildId = proxied.build.current().manifest.buildId;
    await proxied.build.reload('test');
    expect(origin.notModified).toBe(before + 1);
    expect(proxied.build.current().manifest.buildId).toBe(buildId);
  });

  it('serves the public files without the client token, with our request id, CORS and caching headers', async () => {
    for (const target of ['/openapi.json', '/docs/']) {
      const response = await fetch(`${proxied.running.url}${target}`, { headers: { ...auth, Origin: 'https://forms.example.test' } });
      expect(response.status, target).toBe(200);
      expect(response.headers.get('x-request-id')).toMatch(/^[0-9a-f-]{36}$/);
      expect(response.headers.get('cache-control')).toBe('public, max-age=300');
      expect(response.headers.get('access-control-allow-origin')).toBe('*');
      expect(origin.lastAuthorization).toBeUndefined();
    }
    const document = (await (await fetch(`${proxied.running.url}/openapi.json`)).json()) as { openapi: string };
    expect(document.openapi).toMatch(/^3\.1/);
    expect((await fetch(`${proxied.running.url}/docs/not-a-file.js`)).status).toBe(404);
  });

  it('serves a public file with the bytes and ETag local mode serves, and answers its If-None-Match with 304', async () => {
    for (const target of ['/openapi.json', '/docs']) {
      const [fromDisk, fromOrigin] = await Promise.all([fetch(`${local.running.url}${target}`), fetch(`${proxied.running.url}${target}`)]);
      expect(fromOrigin.status, target).toBe(200);
      for (const header of ['etag', 'content-type', 'content-encoding', 'cache-control', 'vary']) {
        expect(fromOrigin.headers.get(header), `${target} ${header}`).toBe(fromDisk.headers.get(header));
      }
      expect(Buffer.from(await fromOrigin.arrayBuffer()).equals(Buffer.from(await fromDisk.arrayBuffer())), target).toBe(true);
      const revalidated = await fetch(`${proxied.running.url}${target}`, { headers: { 'If-None-Match': fromDisk.headers.get('etag') as string } });
      expect(revalidated.status, target).toBe(304);
      expect(revalidated.headers.get('etag'), target).toBe(fromDisk.headers.get('etag'));
    }
  });

  it('retries once when the origin resets the connection', async () => {
    origin.mode = 'reset-once';
    expect((await call(proxied, '/addressmanagement/api/timezone/getall')).status).toBe(200);
    expect(origin.mode).toBe('serve');
  });

  it('503 with Retry-After, never a 404, when the pack of a body the index lists is gone from the origin: it has moved to another build', async () => {
    // A build of its own: the pack removed holds other tests' bodies.
    const ownDist = await buildFixture();
    const ownOrigin = await startStaticOrigin(ownDist);
    const service = await startTestService(ownDist, { API_KEYS: testKey, ORIGIN_URL: ownOrigin.url, ORIGIN_HEADER: `${secret[0]}: ${secret[1]}` });
    try {
      const { pack } = (await packedBody(ownDist, 'financemanagement/api/bank/getbycode/064.json')) as PackedBody;
      await rm(path.join(ownDist, pack));
      const response = await fetch(`${service.running.url}/financemanagement/api/bank/getbycode?code=064`, { headers: { Authorization: `Bearer ${testKey}` } });
      expect(response.status).toBe(503);
      expect(response.headers.get('retry-after')).toBe('1');
      const envelope = (await response.json()) as { body: unknown; header: { message: string } };
      expect(envelope.body).toBeNull();
      expect(envelope.header.message).toBe('The data origin is switching builds: retry shortly.');
    } finally {
      await service.close();
      await ownOrigin.close();
    }
  });

  it('504 when the origin does not answer in time; cached bodies are still served', { timeout: 20_000 }, async () => {
    await call(proxied, tryCurrency);
    origin.mode = 'stall';
    try {
      expect((await call(proxied, tryCurrency)).status).toBe(200);
      const reply = await call(proxied, '/addressmanagement/api/language/getall');
      expect(reply).toMatchObject({ status: 504, message: expect.stringMatching(/did not answer in time/) });
    } finally {
      origin.mode = 'serve';
    }
  });

  it('serves the change lists and the exports as local mode does: each file fetched once, checked against the manifest', async () => {
    const { buildId } = local.build.current().manifest;
    for (const target of ['/meta/changes', `/meta/changes?since=${buildId}`, '/exports/']) {
      expect(await call(proxied, target), target).toEqual(await call(local, target));
    }
    const file = '/exports/country.ndjson.gz';
    const before = origin.hits.get(file) ?? 0;
    const [fromDisk, fromOrigin] = await Promise.all([local, proxied].map((service) => fetch(`${service.running.url}${file}`, { headers: auth })));
    expect(fromOrigin?.status).toBe(200);
    for (const header of ['etag', 'content-type', 'content-length', 'accept-ranges', 'content-disposition']) {
      expect(fromOrigin?.headers.get(header), header).toBe(fromDisk?.headers.get(header));
    }
    const bytes = Buffer.from(await (fromOrigin as Response).arrayBuffer());
    expect(bytes.equals(Buffer.from(await (fromDisk as Response).arrayBuffer()))).toBe(true);
    const part = await fetch(`${proxied.running.url}${file}`, { headers: { ...auth, Range: 'bytes=10-19' } });
    expect(part.status).toBe(206);
    expect(Buffer.from(await part.arrayBuffer()).equals(bytes.subarray(10, 20))).toBe(true);
    expect((origin.hits.get(file) ?? 0) - before).toBe(1);
  });

  it('switches to a new build the origin serves, never mixing builds', async () => {
    const dataDir = await copyFixture();
    const currencyFile = path.join(dataDir, 'records', 'currency.json');
    const { writeFile } = await import('node:fs/promises');
    await writeFile(currencyFile, (await readFile(currencyFile, 'utf8')).replace('"Turkish Lira"', '"Türk Lirası"'));
    const built = await buildDist({ dataDir, distDir });
    // Until the proxy reloads, a body the new build changed is refused rather than served as the old one.
    const uncached = await call(proxied, '/financemanagement/api/currency/getall');
    expect(uncached).toMatchObject({ status: 503, message: expect.stringMatching(/switching builds/) });
    await proxied.build.reload('test');
    expect(proxied.build.current().manifest.buildId).toBe(built.buildId);
    const lira = (await call(proxied, tryCurrency)).body as { id: string };
    expect(lira).toMatchObject({ name: 'Türk Lirası' });
    // The new build's change list, from the origin: the one field that changed.
    expect((await call(proxied, '/meta/changes')).body).toMatchObject({ records: { currency: { changed: [{ id: lira.id, fields: ['name'] }] } } });
  });
});

describe('origin mode, a build-scoped origin', () => {
  /** An origin directory holding `builds/current.json` as given and `builds/<name>` → a build directory. */
  async function scopedOrigin(pointer: string, builds: Readonly<Record<string, string>>): Promise<string> {
    const root = await tempDir();
    await mkdir(path.join(root, 'builds'));
    await writeFile(path.join(root, 'builds', 'current.json'), pointer);
    for (const [name, buildDir] of Object.entries(builds)) await symlink(buildDir, path.join(root, 'builds', name));
    return root;
  }
  const startAgainst = (distDir: string, origin: StaticOrigin): Promise<unknown> =>
    startTestService(distDir, { API_KEYS: testKey, ORIGIN_URL: origin.url, ORIGIN_HEADER: `${secret[0]}: ${secret[1]}` });

  it('keeps serving its build when the pointer names one whose bodies are not all there, and says why in the log', async () => {
    const current = await buildFixture();
    const currentId = path.basename(await realpath(current));
    const next = await buildFixture(await copyFixture());
    const nextId = path.basename(await realpath(next));
    // The next build as an upload cut short leaves it: its manifest and index there, its bodies not.
    const halfUploaded = await tempDir();
    // The index's shards there, its packs (the bodies) not.
    await cp(path.join(next, 'lookups'), path.join(halfUploaded, 'lookups'), { recursive: true, filter: (source) => !source.endsWith('.pack') });
    for (const file of ['manifest.json', 'lookups.idx', 'build.json']) await writeFile(path.join(halfUploaded, file), await readFile(path.join(next, file)));
    const root = await scopedOrigin(JSON.stringify({ buildId: currentId }), { [currentId]: await realpath(current), [nextId]: halfUploaded });
    const origin = await startStaticOrigin(root);
    const lines: { event?: string; reason?: string; error?: string }[] = [];
    const sink = new Writable({
      write(chunk: Buffer, _encoding, done) {
        for (const line of chunk.toString().split('\n').filter(Boolean)) lines.push(JSON.parse(line));
        done();
      },
    });
    const service = await startTestService(
      current,
      { API_KEYS: testKey, ORIGIN_URL: origin.url, ORIGIN_HEADER: `${secret[0]}: ${secret[1]}` },
      undefined,
      pino({ level: 'info' }, sink),
    );
    try {
      await writeFile(path.join(root, 'builds', 'current.json'), JSON.stringify({ buildId: nextId }));
      await service.build.reload('test');
      expect(service.build.current().manifest.buildId).toBe(currentId);
      const failure = lines.find((line) => line.event === 'build-switch-failed');
      expect(failure?.error).toMatch(new RegExp(`^The data origin's build ${nextId} is not whole: reading .+\\.json failed \\(The data origin lacks`));
      expect((await call(service, tryCurrency)).status).toBe(200);
      // Once the upload has finished, the next poll switches.
      await rm(path.join(root, 'builds', nextId));
      await symlink(await realpath(next), path.join(root, 'builds', nextId));
      await service.build.reload('test');
      expect(service.build.current().manifest.buildId).toBe(nextId);
    } finally {
      await service.close();
      await origin.close();
    }
  });

  it('reads the build current.json names, its manifest and bodies under builds/<buildId>/, and never the root', async () => {
    const distDir = await buildFixture();
    const buildId = path.basename(await realpath(distDir));
    const origin = await startStaticOrigin(await scopedOrigin(JSON.stringify({ buildId }), { [buildId]: await realpath(distDir) }));
    const service = (await startAgainst(distDir, origin)) as RunningService;
    try {
      const response = await fetch(`${service.running.url}/financemanagement/api/currency/getbycode?code=TRY`, {
        headers: { Authorization: `Bearer ${testKey}` },
      });
      expect(response.status).toBe(200);
      // The pointer, the index's head, the one shard the lookup needed, the pack of its body.
      const shards = (await readdir(path.join(distDir, 'lookups'))).filter((name) => name.endsWith('.idx'));
      const { pack } = (await packedBody(distDir, 'financemanagement/api/currency/getbycode/try.json')) as PackedBody;
      const hits = [...origin.hits.keys()].sort();
      expect(hits.filter((hit) => !hit.includes('/lookups/'))).toEqual(['/builds/current.json', `/builds/${buildId}/lookups.idx`].sort());
      expect(hits.filter((hit) => hit.includes('/lookups/')).sort()).toEqual(
        [`/builds/${buildId}/${pack}`, expect.toSatisfy((hit: string) => shards.some((name) => hit === `/builds/${buildId}/lookups/${name}`))].sort(),
      );
    } finally {
      await service.close();
      await origin.close();
    }
  });

  it.each([
    ['a pointer that is not JSON', 'not json', /builds\/current\.json is not \{"buildId": "<build id>"\}/],
    ['a pointer naming no build id', '{"buildId": "../../etc"}', /builds\/current\.json is not \{"buildId": "<build id>"\}/],
    [
      'a pointer naming a build that is not there',
      '{"buildId": "20990101T000000Z-abcdef"}',
      /answered 404 for builds\/20990101T000000Z-abcdef\/lookups\.idx: is the build builds\/current\.json names there\?/,
    ],
  ])('refuses %s, saying what is wrong', async (_what, pointer, message) => {
    const distDir = await buildFixture();
    const origin = await startStaticOrigin(await scopedOrigin(pointer, {}));
    try {
      const failure = await startAgainst(distDir, origin).catch((error: unknown) => error);
      expect(failure).toBeInstanceOf(ServiceError);
      expect((failure as Error).message).toMatch(message);
    } finally {
      await origin.close();
    }
  });

  it("refuses a manifest that is another build's than the one its path names", async () => {
    const distDir = await buildFixture();
    const actual = path.basename(await realpath(distDir));
    const named = '20990101T000000Z-abcdef';
    const origin = await startStaticOrigin(await scopedOrigin(JSON.stringify({ buildId: named }), { [named]: await realpath(distDir) }));
    try {
      const failure = await startAgainst(distDir, origin).catch((error: unknown) => error);
      expect(failure).toMatchObject({ code: 'ERR_MANIFEST_INVALID', message: expect.stringContaining(`is the manifest of build ${actual}, not of ${named}`) });
    } finally {
      await origin.close();
    }
  });
});

describe('origin mode, failing at start', () => {
  it('refuses to start without the secret the origin demands, saying what the origin answered', async () => {
    const distDir = await buildFixture();
    const origin = await startStaticOrigin(distDir);
    try {
      const failure = await startTestService(distDir, { API_KEYS: testKey, ORIGIN_URL: origin.url }).catch((error: unknown) => error);
      expect(failure).toBeInstanceOf(ServiceError);
      expect(failure).toMatchObject({ code: 'ERR_ORIGIN_ANSWER', message: expect.stringMatching(/answered 403 for builds\/current\.json/) });
    } finally {
      await origin.close();
    }
  });

  it('finishes a request in flight on shutdown, and accepts no new connection', async () => {
    const distDir = await buildFixture();
    const origin = await startStaticOrigin(distDir);
    const service = await startTestService(distDir, { API_KEYS: testKey, ORIGIN_URL: origin.url, ORIGIN_HEADER: `${secret[0]}: ${secret[1]}` });
    try {
      origin.mode = 'slow';
      const { pack } = (await packedBody(distDir, 'addressmanagement/api/region/getall.json')) as PackedBody;
      const arrived = new Promise<void>((resolve) => {
        const check = (pathname: string): void => {
          if (pathname !== `/${pack}`) return;
          origin.arrivals.off('request', check);
          resolve();
        };
        origin.arrivals.on('request', check);
      });
      const inFlight = call(service, '/addressmanagement/api/region/getall');
      await arrived; // the lookup is at the origin, which answers it 500 ms later
      const closed = service.close();
      expect((await inFlight).status).toBe(200);
      await closed;
      await expect(fetch(`${service.running.url}/healthz`)).rejects.toThrow();
    } finally {
      await origin.close();
    }
  });

  it('502 when the origin goes away; what is cached is still served', async () => {
    const distDir = await buildFixture();
    const origin = await startStaticOrigin(distDir);
    const service = await startTestService(distDir, { API_KEYS: testKey, ORIGIN_URL: origin.url, ORIGIN_HEADER: `${secret[0]}: ${secret[1]}` });
    try {
      expect((await call(service, tryCurrency)).status).toBe(200);
      await origin.close();
      expect((await call(service, tryCurrency)).status).toBe(200);
      expect(await call(service, '/addressmanagement/api/region/getall')).toMatchObject({
        status: 502,
        message: expect.stringMatching(/origin is unreachable \(ECONNREFUSED\)/),
      });
    } finally {
      await service.close();
    }
  });
});

/** Small enough that a stalled origin fails the request at once; a fixture file still arrives in time. */
const testTimeouts = { connect: 2_000, headers: 2_000, body: 300, total: 5_000 };

/** The envelope of a failure, read only after its status has been checked (a cut 200 would hang here). */
async function envelopeOf(response: Response): Promise<{ isSuccess: boolean; message: string | null; body: unknown }> {
  const envelope = (await response.json()) as { header: { isSuccess: boolean; message: string | null }; body: unknown };
  return { isSuccess: envelope.header.isSuccess, message: envelope.header.message, body: envelope.body };
}

// Each test starts its own service: a public file served once is cached, and would hide the origin.
describe('origin mode, public files from a faulty origin', () => {
  let distDir: string;
  let origin: StaticOrigin;
  let local: RunningService;
  const startFresh = async (): Promise<RunningService> =>
    startService(
      loadConfig({
        PORT: '0',
        DIST_DIR: distDir,
        API_KEYS: testKey,
        ORIGIN_URL: origin.url,
        ORIGIN_HEADER: `${secret[0]}: ${secret[1]}`,
        ORIGIN_CACHE_DIR: await tempDir(),
      }),
      {
        log: silentLogger,
        originTimeouts: testTimeouts,
      },
    );
  beforeAll(async () => {
    distDir = await buildFixture();
    origin = await startStaticOrigin(distDir);
    local = await startTestService(distDir);
  });
  afterAll(async () => {
    await local.close();
    await origin.close();
  });

  it('502 envelope when the origin resets a public file halfway, and the service goes on answering', async () => {
    const service = await startFresh();
    try {
      origin.mode = 'reset-mid-file';
      for (let attempt = 0; attempt < 5; attempt++) {
        const response = await fetch(`${service.running.url}/openapi.json`);
        expect(response.status).toBe(502);
        expect(response.headers.get('cache-control')).toBe('no-store');
        expect(await envelopeOf(response)).toMatchObject({ isSuccess: false, body: null, message: expect.stringMatching(/data origin/) });
      }
      origin.mode = 'serve';
      expect((await fetch(`${service.running.url}/healthz`)).status).toBe(200);
      expect((await fetch(`${service.running.url}/openapi.json`)).status).toBe(200);
    } finally {
      origin.mode = 'serve';
      await service.close();
    }
  });

  it('504 envelope when the origin stalls halfway through a public file, within the body timeout', async () => {
    const service = await startFresh();
    try {
      origin.mode = 'stall-mid-file';
      const response = await fetch(`${service.running.url}/openapi.json`);
      expect(response.status).toBe(504);
      expect(await envelopeOf(response)).toMatchObject({ isSuccess: false, body: null, message: expect.stringMatching(/did not answer in time/) });
      origin.mode = 'serve';
      expect((await fetch(`${service.running.url}/openapi.json`)).status).toBe(200);
    } finally {
      origin.mode = 'serve';
      await service.close();
    }
  });

  it('never passes on a public file whose bytes do not match the build: 502, then the good file once the origin serves it', async () => {
    const service = await startFresh();
    try {
      origin.mode = 'corrupt';
      const response = await fetch(`${service.running.url}/openapi.json`);
      expect(response.status).toBe(502);
      expect(await envelopeOf(response)).toMatchObject({ isSuccess: false, body: null, message: expect.stringMatching(/does not match/) });
      origin.mode = 'serve';
      const [fromDisk, fromOrigin] = await Promise.all([fetch(`${local.running.url}/openapi.json`), fetch(`${service.running.url}/openapi.json`)]);
      expect(fromOrigin.status).toBe(200);
      expect(Buffer.from(await fromOrigin.arrayBuffer()).equals(Buffer.from(await fromDisk.arrayBuffer()))).toBe(true);
    } finally {
      origin.mode = 'serve';
      await service.close();
    }
  });
});

/** Waits until `file` exists: the local copy is written behind the response, not before it. */
async function saved(file: string): Promise<void> {
  while (
    !(await access(file).then(
      () => true,
      () => false,
    ))
  )
    await new Promise((resolve) => setTimeout(resolve, 10));
}

describe('origin mode, starting while the origin is down', () => {
  let distDir: string;
  let origin: StaticOrigin;
  let copyDir: string;
  const settings = (): NodeJS.ProcessEnv => ({
    API_KEYS: testKey,
    ORIGIN_URL: origin.url,
    ORIGIN_HEADER: `${secret[0]}: ${secret[1]}`,
    ORIGIN_CACHE_DIR: copyDir,
  });
  const tryEtag = async (): Promise<string> => (await packedBody(distDir, 'financemanagement/api/currency/getbycode/try.json'))?.etag ?? '';
  const savedBody = async (): Promise<string> => path.join(copyDir, 'bodies', `${(await tryEtag()).slice(1, -1)}.json`);

  beforeEach(async () => {
    distDir = await buildFixture();
    origin = await startStaticOrigin(distDir);
    copyDir = await tempDir();
    // A first worker, while the origin is up: it keeps the manifest and what it fetches.
    const first = await startTestService(distDir, settings());
    expect((await call(first, tryCurrency)).status).toBe(200);
    await saved(path.join(copyDir, 'lookups.idx'));
    await saved(await savedBody());
    await first.close();
    origin.mode = 'down';
  });
  afterEach(async () => {
    await origin.close();
  });

  it('starts from the build and bodies another worker saved, and answers them', async () => {
    const replacement = await startTestService(distDir, settings());
    try {
      const answer = await call(replacement, tryCurrency);
      expect(answer.status).toBe(200);
      expect(answer.body).toMatchObject({ code: 'TRY' });
      // Never fetched by this worker, nor in the copy: the origin is needed, and is down.
      const missing = await call(replacement, '/financemanagement/api/currency/getbycode?code=usd');
      expect(missing.status).toBe(502);
      expect(missing.message).toMatch(/^The data origin is unreachable/);
      // Once the origin is back, the poll finds it (the same build: 304) and bodies come from it again.
      origin.mode = 'serve';
      await replacement.build.reload('test');
      expect((await call(replacement, '/financemanagement/api/currency/getbycode?code=usd')).status).toBe(200);
    } finally {
      await replacement.close();
    }
  });

  it('never serves a saved body whose bytes no longer match its ETag', async () => {
    const file = await savedBody();
    const bytes = await readFile(file);
    bytes[bytes.length >> 1] = (bytes[bytes.length >> 1] as number) ^ 0x20;
    await writeFile(file, bytes);
    const replacement = await startTestService(distDir, settings());
    try {
      expect((await call(replacement, tryCurrency)).status).toBe(502);
      await expect(access(file)).rejects.toThrow();
    } finally {
      await replacement.close();
    }
  });

  it('fails to start, saying why, when nothing was saved', async () => {
    copyDir = await tempDir();
    await expect(startTestService(distDir, settings())).rejects.toThrow(/^The data origin is unreachable/);
  });
});

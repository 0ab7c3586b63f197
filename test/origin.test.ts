/**
 * Origin mode against a static host this test controls: it can demand a secret header, count
 * requests, answer 404, stall, or be gone. (test/nginx.test.ts runs the same against real nginx.)
 */
import { createHash } from 'node:crypto';
import { readFile, realpath, rm } from 'node:fs/promises';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ApiError } from '../proxy/envelope.ts';
import type { RunningService } from '../proxy/service.ts';
import { buildFixture, copyFixture, startTestService, testKey } from './support.ts';
import { buildDist } from '../generator/build.ts';

interface StaticOrigin {
  readonly url: string;
  /** Requests per path, since the start. */
  readonly hits: Map<string, number>;
  mode: 'serve' | 'stall' | 'reset-once' | 'slow';
  /** Conditional manifest requests answered 304. */
  notModified: number;
  /** The Authorization header of the last request, if any reached the origin. */
  lastAuthorization: string | undefined;
  close(): Promise<void>;
}

const secret = ['X-Origin-Secret', 'origin-secret-for-tests'] as const;

/** A static file server over `root` (resolved per request, like nginx following the dist link). */
function startStaticOrigin(root: string): Promise<StaticOrigin> {
  const origin: Omit<StaticOrigin, 'url' | 'close'> = { hits: new Map(), mode: 'serve', notModified: 0, lastAuthorization: undefined };
  const server = http.createServer(async (request, response) => {
    const pathname = (request.url ?? '/').split('?')[0] ?? '/';
    origin.hits.set(pathname, (origin.hits.get(pathname) ?? 0) + 1);
    origin.lastAuthorization = request.headers.authorization;
    if (request.headers[secret[0].toLowerCase()] !== secret[1]) return response.writeHead(403).end();
    if (origin.mode === 'stall') return; // never answers
    if (origin.mode === 'slow') await new Promise((resolve) => setTimeout(resolve, 500));
    if (origin.mode === 'reset-once') {
      origin.mode = 'serve';
      return request.socket.destroy(); // as a kept-alive connection the origin dropped
    }
    try {
      const body = await readFile(path.join(await realpath(root), pathname));
      const etag = `"${createHash('sha1').update(body).digest('hex')}"`;
      if (request.headers['if-none-match'] === etag) {
        origin.notModified++;
        return response.writeHead(304, { ETag: etag }).end();
      }
      response.writeHead(200, { 'Content-Type': 'application/json', ETag: etag, 'Content-Length': body.length }).end(body);
    } catch {
      response.writeHead(404).end();
    }
  });
  return new Promise((resolve) =>
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as AddressInfo;
      resolve(
        Object.assign(origin, {
          url: `http://127.0.0.1:${port}/`,
          close: () =>
            new Promise<void>((done) => {
              server.close(() => done());
              server.closeAllConnections();
            }),
        }),
      );
    }),
  );
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

  it('fetches a body once, then serves it from memory; concurrent misses share one fetch', async () => {
    const target = '/addressmanagement/api/region/getall';
    const file = '/addressmanagement/api/region/getall.json';
    const before = origin.hits.get(file) ?? 0;
    const replies = await Promise.all(Array.from({ length: 10 }, () => call(proxied, target)));
    expect(replies.every((reply) => reply.status === 200)).toBe(true);
    await call(proxied, target);
    expect((origin.hits.get(file) ?? 0) - before).toBe(1);
  });

  it('revalidates the manifest with the origin ETag: an unchanged build costs a 304', async () => {
    const before = origin.notModified;
    const buildId = proxied.build.current().manifest.buildId;
    await proxied.build.reload('test');
    expect(origin.notModified).toBe(before + 1);
    expect(proxied.build.current().manifest.buildId).toBe(buildId);
  });

  it('passes the public files through (http-proxy) with our headers and without the client token', async () => {
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

  it('retries once when the origin resets the connection', async () => {
    origin.mode = 'reset-once';
    expect((await call(proxied, '/addressmanagement/api/timezone/getall')).status).toBe(200);
    expect(origin.mode).toBe('serve');
  });

  it('404 when the origin has no body the manifest lists', async () => {
    const file = 'financemanagement/api/bank/getbycode/064.json';
    await rm(path.join(distDir, file));
    const reply = await call(proxied, '/financemanagement/api/bank/getbycode?code=064');
    expect(reply).toMatchObject({ status: 404, body: null, message: expect.stringMatching(/origin has no body for this lookup/) });
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
    expect((await call(proxied, tryCurrency)).body).toMatchObject({ name: 'Türk Lirası' });
  });
});

describe('origin mode, failing at start', () => {
  it('refuses to start without the secret the origin demands, saying what the origin answered', async () => {
    const distDir = await buildFixture();
    const origin = await startStaticOrigin(distDir);
    try {
      const failure = await startTestService(distDir, { API_KEYS: testKey, ORIGIN_URL: origin.url }).catch((error: unknown) => error);
      expect(failure).toBeInstanceOf(ApiError);
      expect((failure as ApiError).message).toMatch(/answered 403 for manifest\.json/);
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
      const inFlight = call(service, '/addressmanagement/api/region/getall');
      await new Promise((resolve) => setTimeout(resolve, 100));
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
      expect(await call(service, '/addressmanagement/api/region/getall')).toMatchObject({ status: 502, message: expect.stringMatching(/origin is unreachable \(ECONNREFUSED\)/) });
    } finally {
      await service.close();
    }
  });
});

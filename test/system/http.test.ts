/**
 * HTTP as clients and CDNs expect it: validators and 304, caching headers, CORS, compression,
 * probes, request logs, slow clients, graceful shutdown, and a build switched under load.
 */
import { EventEmitter } from 'node:events';
import { Writable } from 'node:stream';
import { connect } from 'node:net';
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import pino from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { serviceVersion } from '../../contract/version.ts';
import { buildDist } from '../../generator/build.ts';
import { loadConfig } from '../../proxy/config/config.ts';
import type { Manifest } from '../../contract/manifest.ts';
import { createAdmission, noLimits } from '../../proxy/auth/admission.ts';
import { createAuthenticator } from '../../proxy/auth/authenticate.ts';
import { silentLogger } from '../../proxy/observe/log.ts';
import { startServer } from '../../proxy/http/server.ts';
import { openLocalStore } from '../../proxy/store/store.ts';
import { noMetrics } from '../../proxy/observe/metrics.ts';
import type { RunningService } from '../../proxy/service.ts';
import { buildFixture, copyFixture, startTestService, tempDir, testKey } from '../support/service.ts';
import { readBuildManifest } from '../support/store.ts';

const auth = { Authorization: `Bearer ${testKey}` };
const region = '/addressmanagement/api/region/getall';

let distDir: string;
let manifest: Manifest;
let service: RunningService;
const logLines: Record<string, unknown>[] = [];
const logged = new EventEmitter();

/** The log line of the request with this globalId, once the logger has written it (on the response's close). */
function logLineOf(globalId: string): Promise<Record<string, unknown>> {
  const written = logLines.find((entry) => entry.globalId === globalId);
  if (written) return Promise.resolve(written);
  return new Promise((resolve) => {
    const check = (entry: Record<string, unknown>): void => {
      if (entry.globalId !== globalId) return;
      logged.off('line', check);
      resolve(entry);
    };
    logged.on('line', check);
  });
}

beforeAll(async () => {
  distDir = await buildFixture();
  manifest = await readBuildManifest(distDir);
  const sink = new Writable({
    write(chunk: Buffer, _encoding, done) {
      for (const line of chunk.toString().split('\n')) {
        if (!line) continue;
        const entry = JSON.parse(line) as Record<string, unknown>;
        logLines.push(entry);
        logged.emit('line', entry);
      }
      done();
    },
  });
  service = await startTestService(distDir, { API_KEYS: testKey }, undefined, pino({ level: 'info' }, sink));
});
afterAll(() => service.close());

const get = (target: string, headers: Record<string, string> = {}, method = 'GET'): Promise<Response> =>
  fetch(`${service.running.url}${target}`, { method, headers: { ...auth, ...headers } });

describe('validators and caching headers', () => {
  it('sends the manifest ETag, Cache-Control, X-Data-Version and X-Request-Id (the globalId)', async () => {
    const response = await get(region);
    const envelope = (await response.json()) as { header: { globalId: string } };
    expect(response.headers.get('etag')).toBe(manifest.files['addressmanagement/api/region/getall.json']?.etag);
    expect(response.headers.get('cache-control')).toBe('private, max-age=60');
    expect(response.headers.get('x-data-version')).toBe(manifest.dataVersion);
    expect(response.headers.get('x-request-id')).toBe(envelope.header.globalId);
    expect(response.headers.get('vary')).toBe('Authorization, Accept-Encoding');
  });

  it('answers 304 without a body to If-None-Match with the current tag, weak or strong, or *', async () => {
    const etag = (await get(region)).headers.get('etag') ?? '';
    for (const condition of [etag, `W/${etag}`, `"other", ${etag}`, '*']) {
      const response = await get(region, { 'If-None-Match': condition });
      expect(response.status, condition).toBe(304);
      expect(await response.text()).toBe('');
      expect(response.headers.get('etag')).toBe(etag);
      expect(response.headers.get('x-request-id')).toMatch(/^[0-9a-f-]{36}$/);
    }
    expect((await get(region, { 'If-None-Match': '"stale"' })).status).toBe(200);
  });

  it('never lets a failure be cached', async () => {
    expect((await get('/addressmanagement/api/region/getbyid?id=nope')).headers.get('cache-control')).toBe('no-store');
  });
});

describe('request ids and traces', () => {
  it("echoes a client's X-Request-Id, success or failure; a UUID one is also the envelope's globalId", async () => {
    const uuid = '0af7651e-916c-4d5c-8a4b-3f2e1d0c9b8a';
    const adopted = await get(region, { 'X-Request-Id': uuid });
    expect(adopted.headers.get('x-request-id')).toBe(uuid);
    expect(((await adopted.json()) as { header: { globalId: string } }).header.globalId).toBe(uuid);
    const nginxStyle = '3f2e1d0c9b8a7f6e5d4c3b2a19081726';
    const refused = await fetch(`${service.running.url}${region}`, { headers: { 'X-Request-Id': nginxStyle } });
    expect(refused.status).toBe(401);
    expect(refused.headers.get('x-request-id')).toBe(nginxStyle);
    expect(((await refused.json()) as { header: { globalId: string } }).header.globalId).not.toBe(nginxStyle);
  });

  it("logs the client's request id and the W3C trace the request belongs to", async () => {
    const response = await get(region, { 'X-Request-Id': 'client-42', traceparent: '00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01' });
    const { header } = (await response.json()) as { header: { globalId: string } };
    expect(await logLineOf(header.globalId)).toMatchObject({
      requestId: 'client-42',
      traceId: '4bf92f3577b34da6a3ce929d0e0e4736',
      parentId: '00f067aa0ba902b7',
    });
  });
});

describe('CORS', () => {
  const preflight = (requestHeaders?: string, url = service.running.url) =>
    fetch(`${url}${region}`, {
      method: 'OPTIONS',
      headers: {
        Origin: 'https://forms.example.test',
        'Access-Control-Request-Method': 'GET',
        ...(requestHeaders === undefined ? {} : { 'Access-Control-Request-Headers': requestHeaders }),
      },
    });

  it('answers a preflight without a token, allowing the headers asked for (tracing ones included), cacheable for a day', async () => {
    const response = await preflight('authorization, if-none-match, traceparent, baggage, sentry-trace, x-request-id');
    expect(response.status).toBe(204);
    expect(Object.fromEntries([...response.headers].filter(([name]) => name.startsWith('access-control-')))).toEqual({
      'access-control-allow-origin': '*',
      'access-control-allow-methods': 'GET, HEAD, OPTIONS',
      'access-control-allow-headers': 'authorization, if-none-match, traceparent, baggage, sentry-trace, x-request-id',
      'access-control-expose-headers':
        'ETag, X-Request-Id, X-Data-Version, X-Error-Code, WWW-Authenticate, Retry-After, RateLimit, RateLimit-Policy, X-Ambiguous-Matches, Accept-Ranges, Content-Range, Content-Disposition',
      'access-control-max-age': '86400',
    });
    expect(response.headers.get('vary')).toBe('Access-Control-Request-Headers');
  });

  it('a preflight naming no headers, or something that is not a list of header names, gets the documented default list', async () => {
    for (const asked of [undefined, 'x one', 'a'.repeat(3000), 'x-one;x-two', '"authorization"']) {
      const response = await preflight(asked);
      expect(response.status, String(asked)).toBe(204);
      expect(response.headers.get('access-control-allow-headers'), String(asked)).toBe(
        'Authorization, If-None-Match, If-Range, Range, Cache-Control, Content-Type, X-Request-Id, traceparent, tracestate, baggage, sentry-trace',
      );
    }
  });

  it('lets a browser read responses and failures, with the ETag exposed', async () => {
    const ok = await get(region, { Origin: 'https://forms.example.test' });
    expect(ok.headers.get('access-control-allow-origin')).toBe('*');
    expect(ok.headers.get('access-control-expose-headers')).toContain('ETag');
    const denied = await fetch(`${service.running.url}${region}`, { headers: { Origin: 'https://forms.example.test' } });
    expect(denied.status).toBe(401);
    expect(denied.headers.get('access-control-allow-origin')).toBe('*');
  });

  it('with CORS_ORIGINS, echoes only the listed origins and varies on Origin', async () => {
    const limited = await startTestService(distDir, { API_KEYS: testKey, CORS_ORIGINS: 'https://forms.example.test' });
    try {
      const allowed = await fetch(`${limited.running.url}${region}`, { headers: { ...auth, Origin: 'https://forms.example.test' } });
      expect(allowed.headers.get('access-control-allow-origin')).toBe('https://forms.example.test');
      expect(allowed.headers.get('vary')).toBe('Authorization, Accept-Encoding, Origin');
      expect((await preflight('authorization', limited.running.url)).headers.get('vary')).toBe('Origin, Access-Control-Request-Headers');
      const other = await fetch(`${limited.running.url}${region}`, { headers: { ...auth, Origin: 'https://evil.example.test' } });
      expect(other.status).toBe(200);
      expect(other.headers.get('access-control-allow-origin')).toBeNull();
    } finally {
      await limited.close();
    }
  });
});

describe('service endpoints', () => {
  it('GET / answers without a token with a short index: the service, its build, and where the documentation is', async () => {
    const response = await fetch(`${service.running.url}/`);
    expect(response.status).toBe(200);
    expect(response.headers.get('cache-control')).toBe('no-store');
    expect(((await response.json()) as { body: unknown }).body).toEqual({
      service: 'Reference data lookup service',
      buildId: manifest.buildId,
      dataVersion: manifest.dataVersion,
      documentation: '/docs',
      openapi: '/openapi.json',
      health: '/healthz',
      readiness: '/readyz',
    });
  });

  it('/healthz and /readyz answer without a token; /meta needs one and describes the build', async () => {
    for (const probe of ['/healthz', '/readyz']) {
      const response = await fetch(`${service.running.url}${probe}`);
      expect(response.status, probe).toBe(200);
      expect(((await response.json()) as { header: { isSuccess: boolean } }).header.isSuccess).toBe(true);
    }
    expect((await fetch(`${service.running.url}/meta`)).status).toBe(401);
    const meta = (await (await get('/meta')).json()) as { body: Record<string, unknown> };
    expect(meta.body).toEqual({
      version: serviceVersion,
      buildId: manifest.buildId,
      builtAt: manifest.builtAt,
      dataVersion: manifest.dataVersion,
      counts: manifest.counts,
      holidayYears: manifest.holidayYears,
    });
  });
});

describe('request logs', () => {
  it('one JSON line per request with method, path, status, duration and globalId, and never the token', async () => {
    const response = await get(`${region}?trace=1`);
    const { header } = (await response.json()) as { header: { globalId: string } };
    const line = await logLineOf(header.globalId);
    expect(line).toMatchObject({ level: 30, method: 'GET', path: `${region}?trace=1`, status: 200, globalId: header.globalId });
    expect(typeof line?.ms).toBe('number');
    expect(JSON.stringify(logLines)).not.toContain(testKey);
  });
});

describe('slow clients', () => {
  it('are answered 408 when their headers do not arrive in time', async () => {
    const { auth: authConfig } = loadConfig({ API_KEYS: testKey });
    const store = await openLocalStore(distDir);
    const quick = await startServer(
      {
        store: () => store,
        admission: createAdmission(await createAuthenticator({ auth: authConfig }), noLimits, undefined),
        scopes: authConfig.scopes,
        cors: { origins: '*' },
        log: silentLogger,
        metrics: noMetrics,
      },
      0,
      '127.0.0.1',
      { headersMs: 300, requestMs: 1_000, keepAliveMs: 5_000, checkEveryMs: 100 },
    );
    try {
      const answer = await new Promise<string>((resolve, reject) => {
        const socket = connect(Number(new URL(quick.url).port), '127.0.0.1');
        let received = '';
        socket.on('data', (chunk) => (received += chunk.toString()));
        socket.on('close', () => resolve(received));
        socket.on('error', reject);
        socket.write('GET /addressmanagement/api/region/getall HTTP/1.1\r\nHost: x\r\n'); // and never the blank line
      });
      expect(answer).toMatch(/^HTTP\/1\.1 408 Request Timeout\r\n/);
      expect(answer).toContain('"isSuccess":false');
    } finally {
      await quick.close();
    }
  });
});

describe('a new build', () => {
  it('is switched to under load without one failed request', { timeout: 60_000 }, async () => {
    const dataDir = await copyFixture();
    const target = path.join(await tempDir(), 'dist');
    await buildDist({ dataDir, distDir: target });
    const live = await startTestService(target, { API_KEYS: testKey });
    const statuses = new Map<number, number>();
    let stop = false;
    let answered = 0;
    const progress = new EventEmitter();
    /** Resolves once the clients have had `count` more answers: each build is switched to under load. */
    const moreAnswers = (count: number): Promise<void> => {
      const until = answered + count;
      return new Promise((resolve) => {
        const check = (): void => {
          if (answered < until) return;
          progress.off('answer', check);
          resolve();
        };
        progress.on('answer', check);
      });
    };
    const load = async (): Promise<void> => {
      while (!stop) {
        const response = await fetch(`${live.running.url}/financemanagement/api/currency/getbycode?code=TRY`, { headers: auth });
        await response.arrayBuffer();
        statuses.set(response.status, (statuses.get(response.status) ?? 0) + 1);
        answered++;
        progress.emit('answer');
      }
    };
    const clients = Array.from({ length: 8 }, load);
    try {
      const currencyFile = path.join(dataDir, 'records', 'currency.json');
      const original = await readFile(currencyFile, 'utf8');
      for (const name of ['Türk Lirası', 'Turkish Lira (new build)', 'Turkish Lira']) {
        await moreAnswers(50);
        const { writeFile } = await import('node:fs/promises');
        await writeFile(currencyFile, original.replace('"Turkish Lira"', JSON.stringify(name)));
        const built = await buildDist({ dataDir, distDir: target });
        await live.build.reload('test'); // what the dist watch or SIGHUP does
        expect(live.build.current().manifest.buildId).toBe(built.buildId);
        const body = (await (await fetch(`${live.running.url}/financemanagement/api/currency/getbycode?code=try`, { headers: auth })).json()) as {
          body: { name: string };
        };
        expect(body.body.name).toBe(name);
      }
    } finally {
      stop = true;
      await Promise.all(clients);
      await live.close();
    }
    expect([...statuses.keys()]).toEqual([200]);
    expect(statuses.get(200)).toBeGreaterThan(100);
  });
});

/**
 * A private bucket as the origin, for real: OpenStack Swift's S3 API on loopback (Debian's swift
 * packages, test/support/s3Server.ts), which checks every SigV4 signature. The build is put there
 * by the upload command as an operator runs it, and read by proxies wired as `npm start` wires them.
 *
 * Without Swift this file fails, saying what to install: .ci/run installs it.
 */
import { execFile } from 'node:child_process';
import { access, readdir, readFile } from 'node:fs/promises';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { promisify } from 'node:util';
import httpProxy from 'http-proxy';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ManifestHead } from '../../contract/lookupIndex.ts';
import { jsonType } from '../../contract/http.ts';
import { manifestHeadSchema } from '../../contract/manifest.ts';
import { buildDist } from '../../generator/build.ts';
import { uploadBuild } from '../../deploy/upload.ts';
import { bucketBaseUrl, objectUrl, signedHeaders, type S3Bucket } from '../../proxy/store/s3.ts';
import type { RunningService } from '../../proxy/service.ts';
import { startS3Server, type RunningS3Server } from '../support/s3Server.ts';
import { packedBody, type PackedBody } from '../support/store.ts';
import { buildFixture, copyFixture, repoRoot, startTestService, tempDir, testKey } from '../support/service.ts';

/** A UUID as X-Request-Id is the envelope's globalId: two answers to one lookup are then the same bytes. */
const auth = { Authorization: `Bearer ${testKey}`, 'X-Request-Id': '0b6f6d1e-6b49-4f0e-9a57-4a8f3f1f2c11' };
const targets = [
  '/financemanagement/api/currency/getbycode?code=try',
  '/addressmanagement/api/country/getall',
  '/addressmanagement/api/stateprovince/getbyname?name=ISTANBUL',
  '/openapi.json',
  '/exports/country.ndjson.gz',
];

interface RecordingRelay {
  readonly url: string;
  /** Every request, `METHOD /path`, in the order they arrived. */
  readonly sent: string[];
  /** Paths whose next request is failed once: answered 503 SlowDown, as S3 asks a client to slow down, or its connection reset. */
  readonly failOnce: Map<string, 'slow-down' | 'reset'>;
  close(): Promise<void>;
}

/** A relay passing requests to the store unchanged (the signature covers the Host they were sent to), recording them. */
async function startRecordingRelay(target: string): Promise<RecordingRelay> {
  const proxy = httpProxy.createProxyServer({ target });
  const sent: string[] = [];
  const failOnce = new Map<string, 'slow-down' | 'reset'>();
  const server = http.createServer((request, response) => {
    const line = `${request.method} ${request.url}`;
    sent.push(line);
    const fault = failOnce.get(request.url ?? '');
    failOnce.delete(request.url ?? '');
    if (fault === 'reset') return request.socket.destroy();
    if (fault === 'slow-down') return response.writeHead(503).end('<Error><Code>SlowDown</Code><Message>Please reduce your request rate.</Message></Error>');
    proxy.web(request, response);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const close = (): Promise<void> =>
    new Promise((resolve) => {
      server.close(() => resolve());
      server.closeAllConnections();
    });
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, sent, failOnce, close };
}

describe('a private S3 bucket as the origin', () => {
  let store: RunningS3Server;
  let distDir: string;
  let bucket: S3Bucket;
  let uploadOutput: string;
  let uploadRequests: string[];
  let local: RunningService;
  let proxied: RunningService;
  const settings = (overrides: NodeJS.ProcessEnv = {}): NodeJS.ProcessEnv => ({
    API_KEYS: testKey,
    ORIGIN_URL: 's3://refdata-origin/refdata',
    AWS_ENDPOINT_URL_S3: store.endpoint,
    AWS_REGION: store.region,
    AWS_ACCESS_KEY_ID: store.accessKeyId,
    AWS_SECRET_ACCESS_KEY: store.secretAccessKey,
    ...overrides,
  });
  /** The manifest of the build the dist link points at now. */
  const puts0 = (lines: readonly string[]): string[] => lines.filter((line) => line.startsWith('PUT '));
  const diskManifest = async (): Promise<ManifestHead> => manifestHeadSchema.parse(JSON.parse(await readFile(path.join(distDir, 'manifest.json'), 'utf8')));
  /** A signed GET of `key` under the prefix, as the proxy sends it. */
  const getObject = (key: string, signed = true): Promise<Response> => {
    const url = objectUrl(bucketBaseUrl(bucket), key);
    return fetch(url, { headers: signed ? signedHeaders(bucket, { method: 'GET', url }) : {} });
  };

  beforeAll(async () => {
    store = await startS3Server();
    bucket = {
      bucket: 'refdata-origin',
      prefix: 'refdata/',
      region: store.region,
      endpoint: new URL(store.endpoint),
      credentials: { accessKeyId: store.accessKeyId, secretAccessKey: store.secretAccessKey },
    };
    const bucketUrl = bucketBaseUrl({ ...bucket, prefix: '' });
    const created = await fetch(bucketUrl, { method: 'PUT', headers: signedHeaders(bucket, { method: 'PUT', url: bucketUrl }) });
    expect(created.status).toBe(200);
    distDir = await buildFixture();
    const relay = await startRecordingRelay(store.endpoint);
    try {
      const { stdout } = await promisify(execFile)(
        process.execPath,
        ['--import', 'tsx', 'deploy/upload.ts', '--bucket', 'refdata-origin', '--prefix', 'refdata', '--dist', distDir, '--concurrency', '8'],
        { cwd: repoRoot, env: { ...process.env, ...settings({ AWS_ENDPOINT_URL_S3: relay.url }) } },
      );
      uploadOutput = stdout;
      uploadRequests = relay.sent;
    } finally {
      await relay.close();
    }
    local = await startTestService(distDir);
    proxied = await startTestService(distDir, settings());
  });
  afterAll(async () => {
    await Promise.all([local?.close(), proxied?.close()]);
    await store?.stop();
  });

  it('the upload command puts every file of the build under builds/<id>/, the manifest after them and the pointer last', async () => {
    const manifest = await diskManifest();
    const shards = await readdir(path.join(distDir, 'lookups'));
    const files = Object.keys(manifest.public).length + Object.keys(manifest.downloads).length + shards.length;
    // The lookup index's shards and packs, the public files and downloads, then the manifest and the index's head.
    expect(shards.filter((name) => name.endsWith('.pack')).length).toBeGreaterThan(0);
    expect(shards.filter((name) => name.endsWith('.idx')).length).toBeGreaterThan(0);
    expect(puts0(uploadRequests)).toEqual(
      expect.arrayContaining(shards.map((shard) => `PUT /refdata-origin/refdata/builds/${manifest.buildId}/lookups/${shard}`)),
    );
    expect(uploadOutput).toMatch(new RegExp(`uploaded ${files + 2} files \\([\\d.]+ MB\\) in [\\d.]+ s, 0 already there`));
    expect(uploadOutput).toContain(`s3://refdata-origin/refdata/builds/current.json now names ${manifest.buildId}`);
    const puts = uploadRequests.filter((line) => line.startsWith('PUT '));
    expect(puts).toHaveLength(files + 3);
    expect(puts.at(-3)).toBe(`PUT /refdata-origin/refdata/builds/${manifest.buildId}/manifest.json`);
    expect(puts.at(-2)).toBe(`PUT /refdata-origin/refdata/builds/${manifest.buildId}/lookups.idx`);
    expect(puts.at(-1)).toBe('PUT /refdata-origin/refdata/builds/current.json');

    const pointer = await getObject('builds/current.json');
    expect(await pointer.json()).toEqual({ buildId: manifest.buildId });
    expect(pointer.headers.get('cache-control')).toBe('no-cache');
    const { pack } = (await packedBody(distDir, 'financemanagement/api/currency/getbycode/try.json')) as PackedBody;
    for (const [file, type] of [
      [pack, 'application/octet-stream'],
      ['manifest.json', jsonType],
      ['openapi.json', manifest.public['openapi.json']?.contentType],
      ['exports/country.ndjson.gz', manifest.downloads['exports/country.ndjson.gz']?.contentType],
    ]) {
      const object = await getObject(`builds/${manifest.buildId}/${file}`);
      expect(object.status, file).toBe(200);
      expect(object.headers.get('content-type'), file).toBe(type);
      expect(object.headers.get('cache-control'), file).toBe('public, max-age=31536000, immutable');
      expect(Buffer.from(await object.arrayBuffer()).equals(await readFile(path.join(distDir, file as string))), file).toBe(true);
    }
  });

  it('a proxy reading the bucket answers exactly what a proxy reading the build from its disk answers: the same bytes and ETags', async () => {
    for (const target of targets) {
      const [fromDisk, fromBucket] = await Promise.all([local, proxied].map((service) => fetch(`${service.running.url}${target}`, { headers: auth })));
      expect(fromBucket?.status, target).toBe(200);
      expect(fromBucket?.headers.get('etag'), target).toBe(fromDisk?.headers.get('etag'));
      expect(Buffer.from(await (fromBucket as Response).arrayBuffer()).equals(Buffer.from(await (fromDisk as Response).arrayBuffer())), target).toBe(true);
    }
    expect((await fetch(`${proxied.running.url}/readyz`)).status).toBe(200);
  });

  it('is private: an unsigned request and one signed with another secret are refused, and no byte of the build is sent', async () => {
    const key = `builds/${local.build.current().manifest.buildId}/manifest.json`;
    const unsigned = await getObject(key, false);
    expect(unsigned.status).toBeGreaterThanOrEqual(400);
    expect(await unsigned.text()).not.toContain('buildId');
    const native = await fetch(`${store.endpoint}/v1/AUTH_refdata/refdata-origin/refdata/${key}`);
    expect(native.status).toBe(401);
    const url = objectUrl(bucketBaseUrl(bucket), key);
    const forged = await fetch(url, {
      headers: signedHeaders({ ...bucket, credentials: { ...bucket.credentials, secretAccessKey: 'not-the-secret' } }, { method: 'GET', url }),
    });
    expect(forged.status).toBe(403);
    expect(await forged.text()).toContain('<Code>SignatureDoesNotMatch</Code>');
  });

  it('uploading the same build again sends nothing but the pointer', async () => {
    const report = await uploadBuild({ dist: distDir, bucket, concurrency: 4 });
    expect(report).toMatchObject({ buildId: local.build.current().manifest.buildId, uploaded: 0, uploadedBytes: 0, pruned: [] });
  });

  it('switches to a second build once it is uploaded; --keep-builds then deletes the builds older than the newest N', async () => {
    const first = proxied.build.current().manifest.buildId;
    const dataDir = await copyFixture();
    const currencyFile = path.join(dataDir, 'records', 'currency.json');
    const { writeFile } = await import('node:fs/promises');
    await writeFile(currencyFile, (await readFile(currencyFile, 'utf8')).replace('"Turkish Lira"', '"Türk Lirası"'));
    const second = await buildDist({ dataDir, distDir });
    // Through a relay that fails two PUTs once each: the upload tries them again.
    const relay = await startRecordingRelay(store.endpoint);
    const { pack } = (await packedBody(distDir, 'financemanagement/api/currency/getbycode/try.json')) as PackedBody;
    const [slowedDown, reset] = ['openapi.json', pack].map((file) => `/refdata-origin/refdata/builds/${second.buildId}/${file}`) as [string, string];
    relay.failOnce.set(slowedDown, 'slow-down').set(reset, 'reset');
    try {
      const report = await uploadBuild({ dist: distDir, bucket: { ...bucket, endpoint: new URL(relay.url) }, concurrency: 8, keepBuilds: 2 });
      expect(report).toMatchObject({ buildId: second.buildId, skipped: 0, pruned: [] });
    } finally {
      await relay.close();
    }
    expect(relay.sent.filter((line) => line === `PUT ${slowedDown}` || line === `PUT ${reset}`)).toHaveLength(4);
    await proxied.build.reload('test');
    expect(proxied.build.current().manifest.buildId).toBe(second.buildId);
    const lira = await (await fetch(`${proxied.running.url}/financemanagement/api/currency/getbycode?code=try`, { headers: auth })).json();
    expect(lira).toMatchObject({ body: { name: 'Türk Lirası' } });

    await writeFile(currencyFile, (await readFile(currencyFile, 'utf8')).replace('"Türk Lirası"', '"Turkish lira"'));
    const third = await buildDist({ dataDir, distDir });
    expect((await uploadBuild({ dist: distDir, bucket, concurrency: 8, keepBuilds: 2 })).pruned).toEqual([first]);
    expect((await getObject(`builds/${first}/manifest.json`)).status).toBe(404);
    expect((await getObject(`builds/${second.buildId}/manifest.json`)).status).toBe(200);
    expect(await (await getObject('builds/current.json')).json()).toEqual({ buildId: third.buildId });
  });

  it.each([
    [
      'a wrong secret',
      { AWS_SECRET_ACCESS_KEY: 'not-the-secret' },
      /answered 403 \(SignatureDoesNotMatch\) for builds\/current\.json: AWS_SECRET_ACCESS_KEY is not the secret/,
    ],
    [
      'another region',
      { AWS_REGION: 'us-east-1' },
      /answered 400 \(AuthorizationHeaderMalformed\) for builds\/current\.json: AWS_REGION is not the bucket's region/,
    ],
  ])('with %s: refuses to start, naming the S3 error and the setting', async (_what, overrides, message) => {
    const failure = await startTestService(distDir, settings(overrides)).catch((error: unknown) => error);
    expect(failure).toMatchObject({ code: 'ERR_ORIGIN_ANSWER', message: expect.stringMatching(message) });
    expect((failure as Error).message).not.toContain('not-the-secret');
  });

  it('with a wrong secret on a host that saved a build: serves what it saved, 502 for the rest, and /readyz says 503 why', async () => {
    const copyDir = await tempDir();
    const saver = await startTestService(distDir, settings({ ORIGIN_CACHE_DIR: copyDir }));
    const tryCurrency = '/financemanagement/api/currency/getbycode?code=try';
    const tryEtag = (await packedBody(distDir, 'financemanagement/api/currency/getbycode/try.json'))?.etag ?? '';
    expect((await fetch(`${saver.running.url}${tryCurrency}`, { headers: auth })).status).toBe(200);
    await saver.close();
    // The copy is written behind the response: wait for the body's file.
    const savedBody = path.join(copyDir, 'bodies', `${tryEtag.slice(1, -1)}.json`);
    while (
      !(await access(savedBody).then(
        () => true,
        () => false,
      ))
    )
      await new Promise((resolve) => setTimeout(resolve, 10));

    const refused = await startTestService(distDir, settings({ ORIGIN_CACHE_DIR: copyDir, AWS_SECRET_ACCESS_KEY: 'not-the-secret' }));
    try {
      expect((await fetch(`${refused.running.url}${tryCurrency}`, { headers: auth })).status).toBe(200);
      const uncached = await fetch(`${refused.running.url}/financemanagement/api/currency/getbycode?code=usd`, { headers: auth });
      expect(uncached.status).toBe(502);
      expect(((await uncached.json()) as { header: { message: string } }).header.message).toMatch(/answered 403 \(SignatureDoesNotMatch\) for a body/);
      const readiness = await fetch(`${refused.running.url}/readyz`);
      expect(readiness.status).toBe(503);
      expect(((await readiness.json()) as { header: { message: string } }).header.message).toMatch(/^Not ready: .*403 \(SignatureDoesNotMatch\)/);
      expect((await fetch(`${refused.running.url}/healthz`)).status).toBe(200);
    } finally {
      await refused.close();
    }
  });
});

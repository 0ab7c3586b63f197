/**
 * Compression: every compressed response decodes to exactly its own envelope (its own globalId),
 * and no client makes a worker compress a body again for each response.
 */
import { randomUUID } from 'node:crypto';
import { readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import * as zlib from 'node:zlib';
import { request } from 'undici';
import { afterAll, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';
import { encodeResponse, type EncodedBody } from '../../proxy/http/compression.ts';
import { successHead, successTail, wrapSuccess } from '../../contract/envelope.ts';
import type { RunningServer } from '../../proxy/http/server.ts';
import { buildFixture, copyFixture, startProxy, testKey } from '../support/service.ts';

// The real zlib, with every way to start a brotli compression counted.
vi.mock('node:zlib', async (importOriginal) => {
  const actual = await importOriginal<typeof import('node:zlib')>();
  return {
    ...actual,
    brotliCompress: vi.fn(actual.brotliCompress),
    brotliCompressSync: vi.fn(actual.brotliCompressSync),
    createBrotliCompress: vi.fn(actual.createBrotliCompress),
  };
});

const brotliCompressions = (): number =>
  vi.mocked(zlib.brotliCompress).mock.calls.length +
  vi.mocked(zlib.brotliCompressSync).mock.calls.length +
  vi.mocked(zlib.createBrotliCompress).mock.calls.length;

beforeEach(() => vi.clearAllMocks());

/** A list body as the generator writes them: JSON records, some of them not ASCII. */
function listBody(records: number): Buffer {
  const list = Array.from({ length: records }, (_, index) => ({
    id: randomUUID(),
    name: index % 7 === 0 ? `İstanbul Şubesi ${index}` : `branch-${index}.example.com.tr`,
    code: String(index).padStart(5, '0'),
    isTopLevel: index % 3 === 0,
  }));
  return Buffer.from(JSON.stringify(list));
}

const largeBody = listBody(4000);
const smallBody = listBody(15);

function decode({ chunks, coding }: EncodedBody): Buffer {
  const bytes = Buffer.concat(chunks.map((chunk) => (typeof chunk === 'string' ? Buffer.from(chunk, 'latin1') : chunk)));
  if (coding === 'br') return zlib.brotliDecompressSync(bytes);
  if (coding === 'gzip') return zlib.gunzipSync(bytes);
  return bytes;
}

async function encodeEnvelope(globalId: string, body: Buffer, etag: string, wanted: 'br' | 'gzip'): Promise<EncodedBody> {
  return encodeResponse(successHead(globalId), body, successTail, etag, wanted);
}

describe('compressed envelopes', () => {
  it('compresses a large body for brotli once, however many responses carry it', async () => {
    const etag = `"${randomUUID()}"`;
    for (let response = 0; response < 3; response++) {
      const globalId = randomUUID();
      const encoded = await encodeEnvelope(globalId, largeBody, etag, 'br');
      expect(encoded.coding).toBe('br');
      expect(decode(encoded).equals(wrapSuccess(globalId, largeBody))).toBe(true);
    }
    expect(brotliCompressions()).toBe(1);
  });

  it('compresses concurrent first responses for one body once', async () => {
    const etag = `"${randomUUID()}"`;
    const globalIds = Array.from({ length: 4 }, () => randomUUID());
    const encoded = await Promise.all(globalIds.map((globalId) => encodeEnvelope(globalId, largeBody, etag, 'br')));
    encoded.forEach((response, index) => {
      expect(decode(response).equals(wrapSuccess(globalIds[index] ?? '', largeBody))).toBe(true);
    });
    expect(brotliCompressions()).toBe(1);
  });

  for (const [size, body] of [
    ['large', largeBody],
    ['small', smallBody],
  ] as const) {
    for (const coding of ['br', 'gzip'] as const) {
      it(`${coding} of a ${size} body decodes to exactly the envelope with each response's own globalId`, async () => {
        const etag = `"${randomUUID()}"`;
        const globalIds = Array.from({ length: 5 }, () => randomUUID());
        for (const globalId of globalIds) {
          const encoded = await encodeEnvelope(globalId, body, etag, coding);
          expect(encoded.coding).toBe(coding);
          const bytes = Buffer.concat(encoded.chunks.map((chunk) => Buffer.from(chunk)));
          expect(encoded.length).toBe(bytes.length);
          expect(decode(encoded).equals(wrapSuccess(globalId, body))).toBe(true);
        }
      });
    }
  }

  it('never answers brotli that decodes to anything but the envelope, whatever bytes the body holds', async () => {
    const globalId = randomUUID();
    const bodies = [
      // Text the head also holds, so that the compressor is tempted to refer back into it.
      Buffer.from(JSON.stringify(Array.from({ length: 300 }, () => ({ header: { globalId, isSuccess: true, message: null }, body: randomUUID() })))),
      // Every byte value, in order and over again: not UTF-8, as no generated body is.
      Buffer.from(Array.from({ length: 64 * 1024 }, (_, index) => index % 256)),
      Buffer.from(Array.from({ length: 16 * 1024 }, () => Math.floor(Math.random() * 256))),
    ];
    for (const body of bodies) {
      const etag = `"${randomUUID()}"`;
      for (const id of [globalId, randomUUID(), randomUUID()]) {
        const encoded = await encodeEnvelope(id, body, etag, 'br');
        expect(['br', 'identity']).toContain(encoded.coding);
        expect(decode(encoded).equals(wrapSuccess(id, body))).toBe(true);
      }
    }
  });

  it('compresses a file without an envelope for brotli once, and it decodes to the file', async () => {
    const etag = `"${randomUUID()}"`;
    for (let response = 0; response < 2; response++) {
      const encoded = await encodeResponse('', largeBody, '', etag, 'br');
      expect(encoded.coding).toBe('br');
      expect(decode(encoded).equals(largeBody)).toBe(true);
    }
    expect(brotliCompressions()).toBe(1);
  });
});

describe('compressed envelopes over HTTP', () => {
  let proxy: RunningServer;
  const largeList = '/addressmanagement/api/webdomain/getall';
  const smallList = '/addressmanagement/api/webdomain/getbyistoplevel?istoplevel=true';

  beforeAll(async () => {
    // The fixture's lists are all too small to compress: one large list and one just large enough.
    const dataDir = await copyFixture();
    const file = path.join(dataDir, 'records', 'webDomain.json');
    const domains = JSON.parse(await readFile(file, 'utf8')) as Record<string, unknown>[];
    for (let index = 0; index < 4000; index++) {
      domains.push({ id: randomUUID(), name: `branch-${index}.example.com.tr`, isTopLevel: index < 20 });
    }
    await writeFile(file, JSON.stringify(domains));
    proxy = await startProxy(await buildFixture(dataDir));
  });
  afterAll(() => proxy.close());

  async function get(target: string, acceptEncoding: string): Promise<{ headers: Record<string, string | string[] | undefined>; body: Buffer }> {
    const response = await request(`${proxy.url}${target}`, { headers: { Authorization: `Bearer ${testKey}`, 'Accept-Encoding': acceptEncoding } });
    expect(response.statusCode, target).toBe(200);
    return { headers: response.headers, body: Buffer.from(await response.body.arrayBuffer()) };
  }

  for (const [size, target] of [
    ['large', largeList],
    ['small', smallList],
  ] as const) {
    it(`brotli and gzip of a ${size} list decode to the envelope whose globalId is the response's X-Request-Id`, async () => {
      const plain = await get(target, 'identity');
      expect(plain.headers['content-encoding']).toBeUndefined();
      // The body's bytes as the proxy holds them: the identity response without its head and tail.
      const listed = plain.body.subarray(successHead(randomUUID()).length, plain.body.length - successTail.length);
      for (const [acceptEncoding, coding] of [
        ['br', 'br'],
        ['br', 'br'],
        ['gzip, br;q=0.5', 'gzip'],
        ['gzip', 'gzip'],
        ['gzip;q=0.1, br', 'br'],
      ] as const) {
        const { headers, body } = await get(target, acceptEncoding);
        expect(headers['content-encoding'], acceptEncoding).toBe(coding);
        expect(Number(headers['content-length'])).toBe(body.length);
        const decoded = coding === 'br' ? zlib.brotliDecompressSync(body) : zlib.gunzipSync(body);
        const globalId = String(headers['x-request-id']);
        expect(decoded.equals(wrapSuccess(globalId, listed))).toBe(true);
      }
    });
  }

  it('gives each coding of a body a strong ETag of its own, and revalidates any of them with 304', async () => {
    const tags = new Map<string, string>();
    for (const coding of ['identity', 'gzip', 'br']) tags.set(coding, String((await get(largeList, coding)).headers.etag));
    expect(new Set(tags.values()).size).toBe(3);
    const identity = tags.get('identity') as string;
    expect(tags.get('gzip')).toBe(`${identity.slice(0, -1)}-gz"`);
    expect(tags.get('br')).toBe(`${identity.slice(0, -1)}-br"`);
    for (const [coding, tag] of tags) {
      const response = await request(`${proxy.url}${largeList}`, {
        headers: { Authorization: `Bearer ${testKey}`, 'Accept-Encoding': coding, 'If-None-Match': tag },
      });
      await response.body.dump();
      expect(response.statusCode, coding).toBe(304);
      // The 304 names the representation a 200 would have sent.
      expect(response.headers.etag, coding).toBe(tag);
    }
    // A body too short to compress has one representation, one tag.
    const small = await Promise.all(['identity', 'gzip'].map(async (coding) => (await get('/addressmanagement/api/region/getall', coding)).headers.etag));
    expect(small[0]).toBe(small[1]);
  });

  it('compresses a list once for brotli however many clients ask for it', async () => {
    const before = brotliCompressions();
    await Promise.all(Array.from({ length: 8 }, () => get(largeList, 'br')));
    await get(largeList, 'br');
    expect(brotliCompressions() - before).toBeLessThanOrEqual(1);
  });
});

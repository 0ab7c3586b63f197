/**
 * An origin that misbehaves on purpose or by accident: it ignores Range and sends a whole pack
 * followed by hundreds of megabytes, answers a range with more than was asked, sends a shard far
 * larger than the build lists, or drips a byte at a time. The proxy reads no more than what it
 * asked for (or than the build lists), never holds an answer whole, and gives every fetch one
 * deadline: the load fails with ERR_ORIGIN_TIMEOUT and the next one starts afresh.
 */
import { readFile, realpath } from 'node:fs/promises';
import http from 'node:http';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readLookupHead, shardFileOf, type PackedEntry } from '../../contract/lookupIndex.ts';
import { whenIndexed, type Lookup } from '../../proxy/store/indexReader.ts';
import { createOriginClient, openOriginStore, type OriginClient, type OriginStore } from '../../proxy/store/origin.ts';
import { noOriginCopy } from '../../proxy/store/originCopy.ts';
import { createStoreCaches } from '../../proxy/store/store.ts';
import { listenOnLoopback } from '../support/loopbackServer.ts';
import { buildFixture } from '../support/service.ts';

type Mode = 'serve' | 'whole-pack-and-more' | 'range-and-more' | 'huge-shard' | 'drip' | 'damaged-shard';

/** Megabytes sent after the real bytes, for the modes that send too much: far more than a worker's budget. */
const floodMegabytes = 400;
const chunk = Buffer.alloc(64 * 1024, 0x20);

interface MisbehavingOrigin {
  readonly url: string;
  mode: Mode;
  /** Requests per path, since the start. */
  readonly hits: Map<string, number>;
  /** Bytes written in the last answer before the proxy stopped reading (or the answer ended). */
  lastWritten: number;
  close(): Promise<void>;
}

/** Writes `bytes`, then `floodMegabytes` more, minding back-pressure, until the client goes away. */
async function sendFlooded(response: http.ServerResponse, bytes: Buffer, origin: MisbehavingOrigin): Promise<void> {
  origin.lastWritten = 0;
  const write = (piece: Buffer) =>
    new Promise<boolean>((resolve) => {
      if (response.destroyed) return resolve(false);
      origin.lastWritten += piece.length;
      if (response.write(piece)) return resolve(true);
      const done = (open: boolean) => {
        response.off('drain', drained);
        response.off('close', closed);
        resolve(open);
      };
      const drained = () => done(true);
      const closed = () => done(false);
      response.once('drain', drained);
      response.once('close', closed);
    });
  if (!(await write(bytes))) return;
  for (let sent = 0; sent < floodMegabytes * 16; sent++) if (!(await write(chunk))) return;
  response.end();
}

function startOrigin(root: string): Promise<MisbehavingOrigin> {
  const origin = { mode: 'serve' as Mode, lastWritten: 0, hits: new Map<string, number>() };
  const server = http.createServer(async (request, response) => {
    const pathname = (request.url ?? '/').split('?')[0] ?? '/';
    origin.hits.set(pathname, (origin.hits.get(pathname) ?? 0) + 1);
    let bytes: Buffer;
    try {
      bytes = await readFile(path.join(await realpath(root), pathname));
    } catch {
      return response.writeHead(404).end();
    }
    const range = /^bytes=(\d+)-(\d+)$/.exec(request.headers.range ?? '');
    const isPack = pathname.endsWith('.pack');
    const isShard = pathname.includes('/lookups/') && pathname.endsWith('.idx');
    if (origin.mode === 'whole-pack-and-more' && isPack) {
      response.writeHead(200, { 'Content-Type': 'application/octet-stream' });
      return void sendFlooded(response, bytes, origin as MisbehavingOrigin);
    }
    if (origin.mode === 'range-and-more' && isPack && range) {
      const [start, end] = [Number(range[1]), Number(range[2])];
      response.writeHead(206, { 'Content-Range': `bytes ${start}-${end}/${bytes.length}` });
      return void sendFlooded(response, bytes.subarray(start, end + 1), origin as MisbehavingOrigin);
    }
    if (origin.mode === 'huge-shard' && isShard) {
      response.writeHead(200);
      return void sendFlooded(response, bytes, origin as MisbehavingOrigin);
    }
    if (origin.mode === 'damaged-shard' && isShard) {
      const damaged = Buffer.from(bytes);
      damaged[damaged.length - 1] = (damaged[damaged.length - 1] as number) ^ 0x01;
      return response.writeHead(200).end(damaged);
    }
    if (origin.mode === 'drip' && (isPack || isShard)) {
      // A byte every 100 ms, for ever: never idle long enough for the timeout between pieces.
      response.writeHead(200);
      const timer = setInterval(() => response.write(' '), 100);
      response.on('close', () => clearInterval(timer));
      return;
    }
    if (range) {
      const [start, end] = [Number(range[1]), Number(range[2])];
      response.writeHead(206, { 'Content-Range': `bytes ${start}-${end}/${bytes.length}` });
      return response.end(bytes.subarray(start, end + 1));
    }
    response.writeHead(200).end(bytes);
  });
  return listenOnLoopback(server, origin);
}

describe('origin mode, an origin that sends too much or too slowly', () => {
  let distDir: string;
  let origin: MisbehavingOrigin;
  let client: OriginClient;
  /** The deadline of one fetch, in this test: its body timeout (between pieces) is longer than the drip's pause. */
  const timeouts = { connect: 2_000, headers: 2_000, body: 2_000, total: 1_500 };

  beforeAll(async () => {
    distDir = await buildFixture();
    origin = await startOrigin(distDir);
    client = await createOriginClient({ url: new URL(origin.url), header: undefined }, timeouts);
  });
  afterAll(async () => {
    await client?.close();
    await origin?.close();
  });

  /** A fresh store (no body or shard cached), its index read while the origin serves well. */
  async function freshStore(): Promise<OriginStore> {
    origin.mode = 'serve';
    return openOriginStore(client, createStoreCaches(), noOriginCopy);
  }

  /** A body's lookup, its shard already fetched, and its bytes as the build has them. */
  async function lookupOf(store: OriginStore, routePath: string): Promise<{ lookup: Lookup; bytes: Buffer }> {
    const lookup = await whenIndexed(() => store.find(routePath, []));
    if (lookup === undefined) throw new Error(`${routePath}: not found`);
    const entry = lookup.entry as PackedEntry;
    const pack = await readFile(path.join(await realpath(distDir), entry.pack));
    return { lookup, bytes: pack.subarray(entry.offset, entry.offset + entry.size) };
  }

  it('takes its body from a whole pack sent without regard to Range, and stops reading there', async () => {
    const store = await freshStore();
    const { lookup, bytes } = await lookupOf(store, '/addressmanagement/api/region/getall');
    origin.mode = 'whole-pack-and-more';
    const body = await store.read(lookup.file, lookup.entry);
    expect(body).toEqual(bytes);
    // Of the pack and the 400 MB after it, no more than a few megabytes left the origin.
    await new Promise((resolve) => setTimeout(resolve, 200));
    expect(origin.lastWritten).toBeLessThan(32 * 1024 * 1024);
  });

  it("stays within a worker's 256 MB through four concurrent misses against an origin sending a whole pack and 400 MB more", async () => {
    const store = await freshStore();
    const routes = [
      '/addressmanagement/api/region/getall',
      '/financemanagement/api/currency/getall',
      '/addressmanagement/api/country/getall',
      '/addressmanagement/api/language/getall',
    ];
    const wanted = await Promise.all(routes.map((route) => lookupOf(store, route)));
    origin.mode = 'whole-pack-and-more';
    const baseline = process.memoryUsage.rss();
    let peak = baseline;
    const sampler = setInterval(() => (peak = Math.max(peak, process.memoryUsage.rss())), 5);
    try {
      const bodies = await Promise.all(wanted.map(({ lookup }) => store.read(lookup.file, lookup.entry)));
      expect(bodies).toEqual(wanted.map(({ bytes }) => bytes));
    } finally {
      clearInterval(sampler);
    }
    expect(peak - baseline).toBeLessThan(256 * 1024 * 1024);
  });

  it('refuses a range answered with more bytes than were asked, without reading them all', async () => {
    const store = await freshStore();
    const { lookup } = await lookupOf(store, '/addressmanagement/api/region/getall');
    origin.mode = 'range-and-more';
    await expect(Promise.resolve(store.read(lookup.file, lookup.entry))).rejects.toMatchObject({
      code: 'ERR_ORIGIN_ANSWER',
      message: expect.stringContaining(`more than the ${lookup.entry.size} bytes`),
    });
    await new Promise((resolve) => setTimeout(resolve, 200));
    expect(origin.lastWritten).toBeLessThan(32 * 1024 * 1024);
  });

  it('refuses a shard larger than the build lists, without reading it all', async () => {
    const store = await freshStore();
    const head = await readLookupHead(await realpath(distDir));
    const shard = head.shards[0];
    if (!shard) throw new Error('the fixture build has no shard');
    origin.mode = 'huge-shard';
    const failure = await store.lookupAt(0).then(
      () => undefined,
      (error: unknown) => error as Error,
    );
    expect(failure?.message).toContain(`more than the ${shard.size} bytes`);
    expect(failure?.message).toContain(shardFileOf(shard.etag));
    await new Promise((resolve) => setTimeout(resolve, 200));
    expect(origin.lastWritten).toBeLessThan(32 * 1024 * 1024);
  });

  it('gives up on an origin that drips a byte at a time with ERR_ORIGIN_TIMEOUT, and the next read starts afresh', async () => {
    const store = await freshStore();
    const { lookup, bytes } = await lookupOf(store, '/addressmanagement/api/region/getall');
    origin.mode = 'drip';
    await expect(Promise.resolve(store.read(lookup.file, lookup.entry))).rejects.toMatchObject({ code: 'ERR_ORIGIN_TIMEOUT' });
    origin.mode = 'serve';
    expect(await store.read(lookup.file, lookup.entry)).toEqual(bytes);
  });

  it('asks the origin once, not once a request, for a shard whose bytes are damaged there, until its Retry-After has passed', async () => {
    const store = await freshStore();
    const head = await readLookupHead(await realpath(distDir));
    const shard = head.shards[0];
    if (!shard) throw new Error('the fixture build has no shard');
    const shardPath = `/${shardFileOf(shard.etag)}`;
    origin.mode = 'damaged-shard';
    const before = origin.hits.get(shardPath) ?? 0;
    for (let attempt = 0; attempt < 20; attempt++) await expect(store.lookupAt(0)).rejects.toMatchObject({ code: expect.stringMatching(/^ERR_ORIGIN_/) });
    expect((origin.hits.get(shardPath) ?? 0) - before).toBe(1);
  });
});

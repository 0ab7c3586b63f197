/**
 * The floor of any Node.js proxy on this machine, a configuration of `npm run bench`: node:http in
 * a cluster of the proxies' size. No auth, no parsing, no envelope, two headers. What the proxy
 * spends beyond this is what its own work costs; what this spends beyond nginx is Node's.
 *
 * Four variants:
 * - by URL (`node-floor`): each sampled request target answered with its own body from memory,
 *   looked up by the exact target, so that it writes the bytes the proxy writes for each mix;
 * - fixed (`node-floor-fixed`, FLOOR_FIXED set): one body for every request, not even a lookup:
 *   what node:http itself costs per request, "a fixed body, no work at all";
 * - enveloped (`node-floor-envelope`, FLOOR_ENVELOPE=1): by URL, answered as the proxy answers a
 *   lookup, byte for byte but for the ids: the envelope with a fresh globalId, written in the
 *   proxy's three pieces, and the proxy's seven headers (ETag, Cache-Control, X-Data-Version,
 *   Vary, X-Request-Id, Content-Type, Content-Length). No auth, no query parsing, no logs: what
 *   the response format alone costs on Node, the most any server of this contract can reach.
 * - pread (`node-floor-pread`, FLOOR_PREAD=1): as enveloped, but holding no body: each target
 *   is mapped once, at start, to its body's place in the build's packs (the pack's descriptor, the
 *   offset and the size, from the build's lookup index), and each request reads its body with one
 *   synchronous pread(2) (`fs.readSync` at that offset) before writing it. The floor for data that
 *   fits no cache: what a Node server of this contract that reads each body when it is asked can reach.
 *
 * FLOOR_ROOT holds each body file at its path, and manifest.json (the references' root,
 * referenceRoot.ts); FLOOR_BUILD is the build the proxies serve (its lookup index and packs).
 *
 *   FLOOR_TARGETS=<file of "target<TAB>body file<TAB>etag" lines> FLOOR_ROOT=<dir> [FLOOR_ENVELOPE=1] PORT HOST WORKERS
 *   FLOOR_TARGETS=<the same> FLOOR_BUILD=<build dir> FLOOR_PREAD=1 PORT HOST WORKERS
 *   FLOOR_FIXED=<body file> FLOOR_ROOT=<dir> PORT HOST WORKERS
 */
import { openSync, readFileSync, readSync, realpathSync } from 'node:fs';
import http from 'node:http';
import path from 'node:path';
import { newGlobalId, successHead, successTail } from '../../contract/envelope.ts';
import { cacheControl, jsonType as type, varyOf } from '../../contract/http.ts';
import { type ManifestHead, readLookupHead, readLookupShard } from '../../contract/lookupIndex.ts';
import { manifestFileName } from '../../contract/manifest.ts';
import { runCluster } from './cluster.ts';

const {
  FLOOR_TARGETS = '',
  FLOOR_FIXED = '',
  FLOOR_ENVELOPE = '',
  FLOOR_PREAD = '',
  FLOOR_ROOT = '',
  FLOOR_BUILD = '',
  PORT = '0',
  HOST = '127.0.0.1',
  WORKERS = '1',
} = process.env;

/** FLOOR_TARGETS' lines: each request target with its body file and ETag. */
function readTargets(): { readonly target: string; readonly file: string; readonly etag: string }[] {
  return readFileSync(FLOOR_TARGETS, 'utf8')
    .split('\n')
    .flatMap((line) => {
      const [target, file, etag] = line.split('\t');
      return target && file && etag ? [{ target, file, etag }] : [];
    });
}

function byUrl(): http.RequestListener {
  const bodies = new Map<string, Buffer>();
  for (const { target, file } of readTargets()) bodies.set(target, readFileSync(path.join(FLOOR_ROOT, file)));
  const ready = Buffer.from('{"status":"ready"}');
  return (request, response) => {
    const body = request.url === '/readyz' ? ready : bodies.get(request.url ?? '');
    if (!body) return void response.writeHead(404, { 'Content-Length': 0 }).end();
    response.writeHead(200, { 'Content-Type': type, 'Content-Length': body.length });
    response.end(body);
  };
}

/** A body as the proxy answers a lookup: the envelope with a fresh globalId, in its three pieces, and its seven headers. */
function answerEnveloped(response: http.ServerResponse, body: Buffer, etag: string, dataVersion: string, vary: string): void {
  const globalId = newGlobalId();
  const head = successHead(globalId);
  response.writeHead(200, {
    ETag: etag,
    'Cache-Control': cacheControl,
    'X-Data-Version': dataVersion,
    Vary: vary,
    'X-Request-Id': globalId,
    'Content-Type': type,
    'Content-Length': head.length + body.length + successTail.length,
  });
  response.write(head);
  response.write(body);
  response.end(successTail);
}

function enveloped(): http.RequestListener {
  const lookups = new Map<string, { readonly body: Buffer; readonly etag: string }>();
  for (const { target, file, etag } of readTargets()) lookups.set(target, { body: readFileSync(path.join(FLOOR_ROOT, file)), etag });
  const { dataVersion } = JSON.parse(readFileSync(path.join(FLOOR_ROOT, 'manifest.json'), 'utf8')) as ManifestHead;
  const vary = varyOf('lookup', false);
  const ready = Buffer.from('{"status":"ready"}');
  return (request, response) => {
    if (request.url === '/readyz') return void response.writeHead(200, { 'Content-Type': type, 'Content-Length': ready.length }).end(ready);
    const lookup = lookups.get(request.url ?? '');
    if (!lookup) return void response.writeHead(404, { 'Content-Length': 0 }).end();
    answerEnveloped(response, lookup.body, lookup.etag, dataVersion, vary);
  };
}

/** Where a target's body is: a pack's descriptor, the offset and size in it, and its ETag. */
interface PackedPlace {
  readonly fd: number;
  readonly offset: number;
  readonly size: number;
  readonly etag: string;
}

/** Each target's body's place in the build's packs, found in its lookup index; each pack opened once. */
async function placesInPacks(): Promise<Map<string, PackedPlace>> {
  const buildDir = realpathSync(FLOOR_BUILD);
  const head = await readLookupHead(buildDir);
  const byShard = new Map<number, { target: string; file: string }[]>();
  for (const { target, file } of readTargets()) {
    const shardTargets = byShard.get(head.shardOf(file)) ?? [];
    shardTargets.push({ target, file });
    byShard.set(head.shardOf(file), shardTargets);
  }
  const packs = new Map<string, number>();
  const places = new Map<string, PackedPlace>();
  for (const [number, shardTargets] of byShard) {
    const shard = await readLookupShard(buildDir, head, number);
    for (const { target, file } of shardTargets) {
      const entry = shard.find(file);
      if (!entry) throw new Error(`${buildDir}: no body ${file} in its lookup index`);
      let fd = packs.get(entry.pack);
      if (fd === undefined) {
        fd = openSync(path.join(buildDir, entry.pack), 'r');
        packs.set(entry.pack, fd);
      }
      places.set(target, { fd, offset: entry.offset, size: entry.size, etag: entry.etag });
    }
  }
  return places;
}

async function pread(): Promise<http.RequestListener> {
  const places = await placesInPacks();
  const { dataVersion } = JSON.parse(readFileSync(path.join(FLOOR_BUILD, manifestFileName), 'utf8')) as ManifestHead;
  const vary = varyOf('lookup', false);
  const ready = Buffer.from('{"status":"ready"}');
  return (request, response) => {
    if (request.url === '/readyz') return void response.writeHead(200, { 'Content-Type': type, 'Content-Length': ready.length }).end(ready);
    const place = places.get(request.url ?? '');
    if (!place) return void response.writeHead(404, { 'Content-Length': 0 }).end();
    const body = Buffer.allocUnsafe(place.size);
    if (readSync(place.fd, body, 0, place.size, place.offset) !== place.size) return void response.writeHead(500, { 'Content-Length': 0 }).end();
    answerEnveloped(response, body, place.etag, dataVersion, vary);
  };
}

function fixed(): http.RequestListener {
  const body = readFileSync(path.join(FLOOR_ROOT, FLOOR_FIXED));
  // Built once: the same headers object for every response (/readyz included, which the start waits for).
  const headers = { 'Content-Type': type, 'Content-Length': body.length };
  return (_request, response) => {
    response.writeHead(200, headers);
    response.end(body);
  };
}

runCluster(Number(WORKERS), () => {
  if (!FLOOR_PREAD) return void http.createServer(FLOOR_FIXED ? fixed() : FLOOR_ENVELOPE ? enveloped() : byUrl()).listen(Number(PORT), HOST);
  pread().then(
    (listener) => http.createServer(listener).listen(Number(PORT), HOST),
    (error: unknown) => {
      console.error(error);
      process.exit(1);
    },
  );
});

/**
 * The floor of any Node.js proxy on this machine, a configuration of `npm run bench`: node:http in
 * a cluster of the proxies' size. No auth, no parsing, no envelope, two headers. What the proxy
 * spends beyond this is what its own work costs; what this spends beyond nginx is Node's.
 *
 * Three variants:
 * - by URL (`node-floor`): each sampled request target answered with its own body from memory,
 *   looked up by the exact target, so that it writes the bytes the proxy writes for each mix;
 * - fixed (`node-floor-fixed`, FLOOR_FIXED set): one body for every request, not even a lookup:
 *   what node:http itself costs per request, "a fixed body, no work at all";
 * - enveloped (`node-floor-envelope`, FLOOR_ENVELOPE=1): by URL, answered as the proxy answers a
 *   lookup, byte for byte but for the ids: the envelope with a fresh globalId, written in the
 *   proxy's three pieces, and the proxy's seven headers (ETag, Cache-Control, X-Data-Version,
 *   Vary, X-Request-Id, Content-Type, Content-Length). No auth, no query parsing, no logs: what
 *   the response format alone costs on Node, the most any server of this contract can reach.
 *
 * FLOOR_ROOT holds each body file at its path, and manifest.json (the references' root, referenceRoot.ts).
 *
 *   FLOOR_TARGETS=<file of "target<TAB>body file<TAB>etag" lines> FLOOR_ROOT=<dir> [FLOOR_ENVELOPE=1] PORT HOST WORKERS
 *   FLOOR_FIXED=<body file> FLOOR_ROOT=<dir> PORT HOST WORKERS
 */
import { readFileSync } from 'node:fs';
import http from 'node:http';
import path from 'node:path';
import { newGlobalId, successHead, successTail } from '../../contract/envelope.ts';
import { cacheControl, jsonType as type, varyOf } from '../../contract/http.ts';
import type { ManifestHead } from '../../contract/lookupIndex.ts';
import { runCluster } from './cluster.ts';

const { FLOOR_TARGETS = '', FLOOR_FIXED = '', FLOOR_ENVELOPE = '', FLOOR_ROOT = '', PORT = '0', HOST = '127.0.0.1', WORKERS = '1' } = process.env;

function byUrl(): http.RequestListener {
  const bodies = new Map<string, Buffer>();
  for (const line of readFileSync(FLOOR_TARGETS, 'utf8').split('\n')) {
    const [target, file] = line.split('\t');
    if (target && file) bodies.set(target, readFileSync(path.join(FLOOR_ROOT, file)));
  }
  const ready = Buffer.from('{"status":"ready"}');
  return (request, response) => {
    const body = request.url === '/readyz' ? ready : bodies.get(request.url ?? '');
    if (!body) return void response.writeHead(404, { 'Content-Length': 0 }).end();
    response.writeHead(200, { 'Content-Type': type, 'Content-Length': body.length });
    response.end(body);
  };
}

function enveloped(): http.RequestListener {
  const lookups = new Map<string, { readonly body: Buffer; readonly etag: string }>();
  for (const line of readFileSync(FLOOR_TARGETS, 'utf8').split('\n')) {
    const [target, file, etag] = line.split('\t');
    if (target && file && etag) lookups.set(target, { body: readFileSync(path.join(FLOOR_ROOT, file)), etag });
  }
  const { dataVersion } = JSON.parse(readFileSync(path.join(FLOOR_ROOT, 'manifest.json'), 'utf8')) as ManifestHead;
  const vary = varyOf('lookup', false);
  const ready = Buffer.from('{"status":"ready"}');
  return (request, response) => {
    if (request.url === '/readyz') return void response.writeHead(200, { 'Content-Type': type, 'Content-Length': ready.length }).end(ready);
    const lookup = lookups.get(request.url ?? '');
    if (!lookup) return void response.writeHead(404, { 'Content-Length': 0 }).end();
    const globalId = newGlobalId();
    const head = successHead(globalId);
    response.writeHead(200, {
      ETag: lookup.etag,
      'Cache-Control': cacheControl,
      'X-Data-Version': dataVersion,
      Vary: vary,
      'X-Request-Id': globalId,
      'Content-Type': type,
      'Content-Length': head.length + lookup.body.length + successTail.length,
    });
    response.write(head);
    response.write(lookup.body);
    response.end(successTail);
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
  http.createServer(FLOOR_FIXED ? fixed() : FLOOR_ENVELOPE ? enveloped() : byUrl()).listen(Number(PORT), HOST);
});

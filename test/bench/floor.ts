/**
 * The floor of any Node.js proxy on this machine, a configuration of `npm run bench`: node:http in
 * a cluster of the proxies' size, answering each sampled request target with its body from memory,
 * looked up by the exact target. No auth, no parsing, no envelope, two headers. What the proxy
 * spends beyond this is what its own work costs; what this spends beyond nginx is Node's.
 *
 *   FLOOR_TARGETS=<file of "target<TAB>body file" lines> FLOOR_ROOT=<build dir> PORT HOST WORKERS
 */
import cluster from 'node:cluster';
import { readFileSync } from 'node:fs';
import http from 'node:http';
import path from 'node:path';

const { FLOOR_TARGETS = '', FLOOR_ROOT = '', PORT = '0', HOST = '127.0.0.1', WORKERS = '1' } = process.env;

if (cluster.isPrimary && Number(WORKERS) > 1) {
  for (let index = 0; index < Number(WORKERS); index++) cluster.fork();
  process.once('SIGTERM', () => {
    for (const worker of Object.values(cluster.workers ?? {})) worker?.process.kill('SIGTERM');
    process.exit(0);
  });
} else {
  const bodies = new Map<string, Buffer>();
  for (const line of readFileSync(FLOOR_TARGETS, 'utf8').split('\n')) {
    const [target, file] = line.split('\t');
    if (target && file) bodies.set(target, readFileSync(path.join(FLOOR_ROOT, file)));
  }
  const ready = Buffer.from('{"status":"ready"}');
  http
    .createServer((request, response) => {
      const body = request.url === '/readyz' ? ready : bodies.get(request.url ?? '');
      if (!body) return void response.writeHead(404, { 'Content-Length': 0 }).end();
      response.writeHead(200, { 'Content-Type': 'application/json; charset=utf-8', 'Content-Length': body.length });
      response.end(body);
    })
    .listen(Number(PORT), HOST);
}

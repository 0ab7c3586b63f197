/**
 * `npm run bench:memory`: what one process holds and spends to serve a build's lookup index.
 * Opens the current dist/ (`DIST_DIR`, default dist; run `npm run build` first) the way a worker
 * does (the body store) and prints the heap and resident set it added once the head is open (what
 * a worker holds at start); then finds `LOOKUPS` bodies (default 100,000) drawn at random over the
 * whole build, and reads each from its pack, timing both, and prints what the process holds after
 * (a full garbage collection before each figure; the body cache is kept at 1 MB so that nearly
 * every body is read). Last, what one pread of 64 bytes and of a 4 KB page costs over the build's
 * shard files. Run with `node --expose-gc`; the npm script does.
 */
import { closeSync, fstatSync, openSync, readdirSync, readSync, realpathSync } from 'node:fs';
import path from 'node:path';
import { lookupShardsDir, pageBytes } from '../../contract/lookupIndex.ts';
import { seededRandom } from './urls.ts';
import { createStoreCaches, openLocalStore } from '../../proxy/store/store.ts';
import type { Lookup } from '../../proxy/store/indexReader.ts';

const gc = (globalThis as { gc?: () => void }).gc;
if (!gc) throw new Error('run with node --expose-gc (npm run bench:memory does)');
const distDir = process.env.DIST_DIR ?? 'dist';
const lookupCount = Number(process.env.LOOKUPS ?? 100_000);
const megabytes = (bytes: number): string => (bytes / 1024 / 1024).toFixed(1);

gc();
const before = process.memoryUsage();
const store = await openLocalStore(distDir, createStoreCaches(1024 * 1024));
gc();
const opened = process.memoryUsage();
const added = (after: NodeJS.MemoryUsage): string =>
  `heap ${megabytes(after.heapUsed - before.heapUsed)} MB, outside the heap ${megabytes(after.arrayBuffers - before.arrayBuffers)} MB, resident set ${megabytes(after.rss)} MB`;
console.log(`${distDir} (build ${store.manifest.buildId}): ${store.bodyCount} body files`);
console.log(`resident set before: ${megabytes(before.rss)} MB`);
console.log(`head open: ${added(opened)}`);

// Reservoir sampling over the whole index: every body equally likely, whatever the build's size.
const random = seededRandom(41);
const sample: Lookup[] = [];
let seen = 0;
for await (const lookup of store.lookups()) {
  seen++;
  if (sample.length < lookupCount) sample.push(lookup);
  else {
    const slot = Math.floor(random() * seen);
    if (slot < lookupCount) sample[slot] = lookup;
  }
}
const paths = sample.map(({ file }) => file.slice(0, -'.json'.length).split('/'));
sample.length = 0;
gc();
const sampled = process.memoryUsage();

/** Runs `find` for every sampled path (its route path and its keys joined): microseconds per lookup. */
function timeFinds(withBody: boolean): number {
  const started = performance.now();
  for (const parts of paths) {
    // The body path's first four segments are the route (`area/api/record/operation`), the rest its keys.
    const found = store.find(`/${parts.slice(0, 4).join('/')}`, [parts.slice(4).join('/')]);
    if (found === undefined) throw new Error(`${parts.join('/')}.json: listed by the index but not found`);
    if (withBody) {
      const body = store.read(found.file, found.entry);
      if (body instanceof Promise) throw new Error('a local body is read synchronously');
    }
  }
  return ((performance.now() - started) * 1000) / paths.length;
}

const first = timeFinds(false);
const again = timeFinds(false);
const withBodies = timeFinds(true);
gc();
const after = process.memoryUsage();
console.log(`${paths.length} lookups drawn at random over the build (paths kept: ${added(sampled)})`);
console.log(`find, first pass (every shard opened on first use): ${first.toFixed(2)} µs a lookup`);
console.log(`find, again: ${again.toFixed(2)} µs a lookup`);
console.log(`find and read the body from its pack (checked against its ETag): ${withBodies.toFixed(2)} µs a lookup`);
console.log(`after: ${added(after)}`);
store.close();

// What one pread costs from the page cache, over the build's shard files: a page against a few bytes.
const shardDir = path.join(realpathSync(distDir), lookupShardsDir);
const shardFds = readdirSync(shardDir)
  .filter((name) => name.endsWith('.idx'))
  .map((name) => openSync(path.join(shardDir, name), 'r'));
const pagesOf = shardFds.map((fd) => Math.max(1, Math.floor(fstatSync(fd).size / pageBytes)));
for (const bytes of [64, pageBytes]) {
  const target = Buffer.alloc(bytes);
  const reads = 100_000;
  const started = performance.now();
  for (let read = 0; read < reads; read++) {
    const file = Math.floor(random() * shardFds.length);
    readSync(shardFds[file] as number, target, 0, bytes, Math.floor(random() * (pagesOf[file] as number)) * pageBytes);
  }
  console.log(`pread of ${bytes} bytes at a random page of ${shardFds.length} shard files: ${(((performance.now() - started) * 1000) / reads).toFixed(2)} µs`);
}
for (const fd of shardFds) closeSync(fd);

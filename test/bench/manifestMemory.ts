/**
 * `npm run bench:memory`: what one process holds to serve a build's lookup index. Opens the
 * current dist/ (`DIST_DIR`, default dist; run `npm run build` first) the way a worker does (the
 * body store, no body read) and prints the heap and resident set it added: once the head is open
 * (what a worker holds at start), and once every shard has been read through the index cache
 * (INDEX_CACHE_MB: what a worker holds at most), after a full garbage collection each time.
 * Run with `node --expose-gc`; the npm script does.
 */
import { readLookupHead } from '../../contract/lookupIndex.ts';
import { defaultIndexCacheMb } from '../../proxy/config/config.ts';
import { createStoreCaches, openLocalStore } from '../../proxy/store/store.ts';

const gc = (globalThis as { gc?: () => void }).gc;
if (!gc) throw new Error('run with node --expose-gc (npm run bench:memory does)');
const distDir = process.env.DIST_DIR ?? 'dist';
const indexCacheMb = Number(process.env.INDEX_CACHE_MB ?? defaultIndexCacheMb);
const megabytes = (bytes: number): string => (bytes / 1024 / 1024).toFixed(1);

gc();
const before = process.memoryUsage();
const caches = createStoreCaches(undefined, indexCacheMb * 1024 * 1024);
const store = await openLocalStore(distDir, caches);
gc();
const opened = process.memoryUsage();
let files = 0;
const reading = performance.now();
for await (const _lookup of store.lookups()) files++;
// Read from the disk (or the page cache), checked and iterated: what a lookup waits for on a miss, and more.
const readingMs = performance.now() - reading;
gc();
const read = process.memoryUsage();
const added = (after: NodeJS.MemoryUsage): string =>
  `heap ${megabytes(after.heapUsed - before.heapUsed)} MB, outside the heap ${megabytes(after.arrayBuffers - before.arrayBuffers)} MB, resident set ${megabytes(after.rss)} MB`;
console.log(`${distDir} (build ${store.manifest.buildId}): ${files} body files`);
console.log(`resident set before: ${megabytes(before.rss)} MB`);
console.log(`head open: ${added(opened)}`);
const shards = (await readLookupHead(distDir)).shards.length;
console.log(`${shards} shards read and checked in ${readingMs.toFixed(0)} ms: ${(readingMs / shards).toFixed(2)} ms a shard`);
console.log(`every shard read once (index cache ${indexCacheMb} MB, ${megabytes(caches.shards.calculatedSize)} MB kept): ${added(read)}`);

/**
 * `npm run bench:memory`: what one process holds to serve a build's manifest. Opens the current
 * dist/ (`DIST_DIR`, default dist; run `npm run build` first) the way a worker does (the body store,
 * no body read) and prints the heap it added, after a full garbage collection on each side, with
 * the resident set before and after. Run with `node --expose-gc`; the npm script does.
 */
import { createBodyCache, openLocalStore } from '../../proxy/store/store.ts';

const gc = (globalThis as { gc?: () => void }).gc;
if (!gc) throw new Error('run with node --expose-gc (npm run bench:memory does)');
const distDir = process.env.DIST_DIR ?? 'dist';
const megabytes = (bytes: number): string => (bytes / 1024 / 1024).toFixed(1);

gc();
const before = process.memoryUsage();
const store = await openLocalStore(distDir, createBodyCache());
gc();
const after = process.memoryUsage();
let files = 0;
for (const _lookup of store.lookups()) files++;
console.log(`${distDir} (build ${store.manifest.buildId}): ${files} body files`);
console.log(`heap added: ${megabytes(after.heapUsed - before.heapUsed)} MB (${Math.round((after.heapUsed - before.heapUsed) / files)} bytes per file)`);
console.log(`resident set: ${megabytes(before.rss)} MB before, ${megabytes(after.rss)} MB after`);

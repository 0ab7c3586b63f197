/**
 * `npm run bench:compression`: what compressing a response costs, per body size, against copying
 * the same bytes (the floor for producing a response at all), measured side by side in one process
 * on real bodies of the current dist/ (`DIST_DIR`, default dist; run `npm run build` first): what
 * the proxy does (stitched from the body's cached compression), what filling that cache costs once
 * per body, and what compressing every response would cost instead.
 */
import os from 'node:os';
import { promisify } from 'node:util';
import { brotliCompress, constants, gzip } from 'node:zlib';
import { brotliQuality, compressionMinBytes, encodeResponse } from '../../proxy/http/compression.ts';
import { successHead, successTail } from '../../contract/envelope.ts';
import { packedBodies } from './referenceRoot.ts';
import { readBuildManifest } from '../support/store.ts';

const distDir = process.env.DIST_DIR ?? 'dist';
const manifest = await readBuildManifest(distDir);

/** Representative bodies: the smallest list, typical single records, the largest lists. */
const samples = [
  'addressmanagement/api/region/getall.json',
  'financemanagement/api/currency/getbycode/try.json',
  'addressmanagement/api/country/getbyalpha2code/tr.json',
  'financemanagement/api/currency/getall.json',
  'addressmanagement/api/country/getall.json',
  'addressmanagement/api/webdomain/getall.json',
].filter((file) => manifest.files[file]);
/** Their bytes, from the build's packs. */
const bodies = new Map<string, Buffer>();
for await (const [file, body] of packedBodies(distDir, samples)) bodies.set(file, body);

async function microseconds(calls: number, run: () => Promise<unknown> | unknown): Promise<number> {
  for (let index = 0; index < Math.min(50, calls); index++) await run();
  const started = process.hrtime.bigint();
  for (let index = 0; index < calls; index++) await run();
  return Number(process.hrtime.bigint() - started) / 1000 / calls;
}

const gzipPerResponse = promisify(gzip);
const brotliPerResponse = promisify(brotliCompress);
const head = successHead('00000000-0000-4000-8000-000000000000');
const column = (value: string | number, width = 10): string => String(value).padStart(width);
console.log(`compression cost per response in µs, node ${process.version}, ${os.cpus().length} × ${os.cpus()[0]?.model}`);
console.log('  identity: the envelope assembled; stitched: what the proxy sends for gzip and for brotli (the');
console.log("  body's cached compression behind the head); once: filling that cache, once per body (for brotli");
console.log(`  with its proof); per resp.: compressing each response instead (gzip level 6, brotli quality ${brotliQuality})`);
const headings = ['bytes', 'identity', 'gz stitch', 'gz once', 'gz size', 'gz/resp.', 'br stitch', 'br once', 'br size', 'br/resp.'];
console.log(`  ${'body'.padEnd(52)}${headings.map((heading) => column(heading)).join('')}`);
let fill = 0;
for (const file of samples) {
  const body = bodies.get(file) as Buffer;
  const etag = manifest.files[file]?.etag ?? '';
  const length = head.length + body.length + successTail.length;
  const calls = length > 100_000 ? 30 : length > 10_000 ? 300 : 3000;
  const envelope = (): Buffer => Buffer.concat([Buffer.from(head), body, Buffer.from(successTail)]);
  const identity = await microseconds(calls, () => encodeResponse(head, body, successTail, etag, 'identity'));
  const gzipStitched = await microseconds(calls, () => encodeResponse(head, body, successTail, etag, 'gzip'));
  // A fresh ETag each call: the cache misses, so each call compresses the body as a first response does.
  const gzipOnce = await microseconds(Math.ceil(calls / 10), () => encodeResponse(head, body, successTail, `fill-${fill++}`, 'gzip'));
  const gzipPerResponseTime = await microseconds(calls, () => gzipPerResponse(envelope()));
  const brotliStitched = await microseconds(calls, () => encodeResponse(head, body, successTail, etag, 'br'));
  const brotliOnce = await microseconds(Math.ceil(calls / 10), () => encodeResponse(head, body, successTail, `fill-${fill++}`, 'br'));
  const brotliParams = { [constants.BROTLI_PARAM_QUALITY]: brotliQuality, [constants.BROTLI_PARAM_SIZE_HINT]: length };
  const brotliPerResponseTime = await microseconds(calls, () => brotliPerResponse(envelope(), { params: brotliParams }));
  const gzipSize = (await encodeResponse(head, body, successTail, etag, 'gzip')).length;
  const brotli = await encodeResponse(head, body, successTail, etag, 'br');
  if (length >= compressionMinBytes && brotli.coding !== 'br') throw new Error(`${file}: brotli could not be stitched, the proxy would send it uncompressed`);
  const µs = (value: number): string => column(value.toFixed(1));
  const figures = [column(length), µs(identity), µs(gzipStitched), µs(gzipOnce), column(gzipSize), µs(gzipPerResponseTime)];
  figures.push(µs(brotliStitched), µs(brotliOnce), column(brotli.length), µs(brotliPerResponseTime));
  console.log(`  ${file.padEnd(52)}${figures.join('')}`);
}

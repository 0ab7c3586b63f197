/**
 * `npm run bench:compression`: what compressing a response costs, per body size, against copying
 * the same bytes (the floor for producing a response at all), measured side by side in one process
 * on real bodies of the current dist/ (built if missing).
 */
import { readFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { gzip } from 'node:zlib';
import { brotliQuality, encodeResponse } from '../../proxy/compression.ts';
import { successHead, successTail } from '../../proxy/envelope.ts';
import type { Manifest } from '../../proxy/manifest.ts';

const distDir = process.env.DIST_DIR ?? 'dist';
const manifest = JSON.parse(await readFile(path.join(distDir, 'manifest.json'), 'utf8')) as Manifest;

/** Representative bodies: the smallest list, typical single records, the largest lists. */
const samples = [
  'addressmanagement/api/region/getall.json',
  'financemanagement/api/currency/getbycode/try.json',
  'addressmanagement/api/country/getbyalpha2code/tr.json',
  'financemanagement/api/currency/getall.json',
  'addressmanagement/api/country/getall.json',
  'addressmanagement/api/webdomain/getall.json',
].filter((file) => manifest.files[file]);

async function microseconds(calls: number, run: () => Promise<unknown> | unknown): Promise<number> {
  for (let index = 0; index < Math.min(50, calls); index++) await run();
  const started = process.hrtime.bigint();
  for (let index = 0; index < calls; index++) await run();
  return Number(process.hrtime.bigint() - started) / 1000 / calls;
}

const gzipPerResponse = promisify(gzip);
const head = successHead('00000000-0000-4000-8000-000000000000');
const column = (value: string | number, width = 10): string => String(value).padStart(width);
console.log(`compression cost per response, node ${process.version}, ${os.cpus().length} × ${os.cpus()[0]?.model}`);
console.log('  identity: the envelope assembled; gzip stitched: what the proxy sends (cached deflate + CRC);');
console.log(`  gzip 6: compressing each response instead (the naive way); brotli: quality ${brotliQuality}, per response`);
console.log(`  ${'body'.padEnd(52)}${column('bytes')}${column('identity')}${column('stitched')}${column('size')}${column('gzip 6')}${column('brotli')}${column('size')}`);
for (const file of samples) {
  const body = await readFile(path.join(distDir, file));
  const etag = manifest.files[file]?.etag ?? '';
  const length = head.length + body.length + successTail.length;
  const calls = length > 100_000 ? 30 : length > 10_000 ? 300 : 3000;
  const identity = await microseconds(calls, () => encodeResponse(head, body, successTail, etag, 'identity'));
  const stitched = await microseconds(calls, () => encodeResponse(head, body, successTail, etag, 'gzip'));
  const naive = await microseconds(calls, () => gzipPerResponse(Buffer.concat([Buffer.from(head), body, Buffer.from(successTail)])));
  const brotli = await microseconds(calls, () => encodeResponse(head, body, successTail, etag, 'br'));
  const gzipSize = (await encodeResponse(head, body, successTail, etag, 'gzip')).length;
  const brotliSize = (await encodeResponse(head, body, successTail, etag, 'br')).length;
  const µs = (value: number): string => column(value.toFixed(1));
  console.log(`  ${file.padEnd(52)}${column(length)}${µs(identity)}${µs(stitched)}${column(gzipSize)}${µs(naive)}${µs(brotli)}${column(brotliSize)}`);
}

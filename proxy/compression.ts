/**
 * Response compression, by Accept-Encoding, for bodies worth it. The envelope's globalId differs in
 * every response, so each is compressed as it goes out, on libuv's thread pool (zlib's async API)
 * rather than on the event loop; the levels favour speed, since most bodies are small JSON.
 */
import { promisify } from 'node:util';
import { brotliCompress, constants, gzip } from 'node:zlib';
import type { ContentCoding } from './negotiation.ts';

/** Below about one TCP segment, compression saves no round trip and costs time. */
export const compressionMinBytes = 1400;
export const brotliQuality = 4;
export const gzipLevel = 6;

const brotli = promisify(brotliCompress);
const gzipAsync = promisify(gzip);

export async function compressBody(body: Buffer, wanted: ContentCoding): Promise<{ bytes: Buffer; coding: ContentCoding }> {
  if (wanted === 'identity' || body.length < compressionMinBytes) return { bytes: body, coding: 'identity' };
  if (wanted === 'br') {
    const bytes = await brotli(body, {
      params: { [constants.BROTLI_PARAM_QUALITY]: brotliQuality, [constants.BROTLI_PARAM_SIZE_HINT]: body.length },
    });
    return { bytes, coding: 'br' };
  }
  return { bytes: await gzipAsync(body, { level: gzipLevel }), coding: 'gzip' };
}

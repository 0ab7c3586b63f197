/**
 * Response compression by Accept-Encoding, for bodies worth it.
 *
 * The envelope differs in every response only in its head (the globalId), so gzip is stitched
 * rather than recomputed: a gzip member whose deflate stream is one stored (uncompressed) block
 * holding the head, followed by the body's deflate blocks compressed once per body at the highest
 * level and cached by ETag, then the CRC-32 and length of the whole (RFC 1951 §3.2.4, RFC 1952).
 * A response then costs a CRC pass over the body instead of a compression: about 80 µs for the
 * largest list instead of 5 to 7 ms (`npm run bench:compression`). Brotli cannot be stitched that
 * way, so it is compressed per response, on zlib's thread pool, and only chosen when the client
 * prefers it to gzip.
 */
import { promisify } from 'node:util';
import { brotliCompress, constants, crc32, deflateRaw, gzip } from 'node:zlib';
import { LRUCache } from 'lru-cache';
import type { ContentCoding } from './negotiation.ts';

/** Below about one TCP segment, compression saves no round trip and costs time. */
export const compressionMinBytes = 1400;
export const brotliQuality = 4;
/** For bodies compressed once and cached, the best ratio is worth its one-time cost. */
export const cachedDeflateLevel = 9;
const cachedBytes = 32 * 1024 * 1024;

const brotli = promisify(brotliCompress);
const deflateRawAsync = promisify(deflateRaw);
const gzipAsync = promisify(gzip);

/** Deflated tails (body + envelope closing) by the body's ETag. */
const deflatedTails = new LRUCache<string, Buffer, Buffer>({
  maxSize: cachedBytes,
  sizeCalculation: (deflated) => Math.max(deflated.length, 1),
  fetchMethod: (_etag, _stale, { context: tail }) => deflateRawAsync(tail, { level: cachedDeflateLevel }),
  // A deflate in flight that other deflates evict still answers its caller (store.ts says why).
  ignoreFetchAbort: true,
});

/** gzip header: deflate, no name, no mtime (so equal bodies give equal bytes), OS unknown. */
const gzipHeader = Buffer.from([0x1f, 0x8b, 8, 0, 0, 0, 0, 0, 0, 0xff]);

/** One piece of a response: Node writes strings and buffers alike, all pieces in one system call. */
export type Chunk = Buffer | string;

/**
 * A gzip member of `head` stored and `body + tail` as already-deflated blocks: the body is never
 * copied, only read once for the CRC.
 */
function stitchGzip(head: Buffer, body: Buffer, tail: Buffer, deflated: Buffer): Buffer[] {
  // A stored block, not final: BFINAL 0, BTYPE 00, then LEN and its one's complement.
  const stored = Buffer.from([0, head.length & 0xff, head.length >> 8, ~head.length & 0xff, (~head.length >> 8) & 0xff]);
  const trailer = Buffer.alloc(8);
  trailer.writeUInt32LE(crc32(tail, crc32(body, crc32(head))) >>> 0, 0);
  trailer.writeUInt32LE((head.length + body.length + tail.length) >>> 0, 4);
  return [Buffer.concat([gzipHeader, stored, head]), deflated, trailer];
}

/**
 * Below this, a response is copied into one buffer from Node's pool (Buffer.allocUnsafe pools
 * what is under half its 8 KiB), cheaper than writing its pieces one by one; above, the pieces are
 * written as they are, never copied into a fresh allocation.
 */
const pooledBytes = Buffer.poolSize >>> 1;

function identityChunks(head: string, body: Buffer, tail: string, length: number): Chunk[] {
  if (length >= pooledBytes) return [head, body, tail];
  const bytes = Buffer.allocUnsafe(length);
  bytes.write(head, 0, 'latin1');
  body.copy(bytes, head.length);
  bytes.write(tail, head.length + body.length, 'latin1');
  return [bytes];
}

export interface EncodedBody {
  /** The response body in pieces, to be written in order (server.ts `sendEncoded`). */
  readonly chunks: readonly Chunk[];
  /** Their length in bytes: the Content-Length. */
  readonly length: number;
  readonly coding: ContentCoding;
}

/** A compressed body: buffers only (the identity body's strings are counted where it is made). */
function encoded(chunks: readonly Buffer[], coding: ContentCoding): EncodedBody {
  return { chunks, length: chunks.reduce((sum, chunk) => sum + chunk.length, 0), coding };
}

/**
 * The response body `head + body + tail` in the wanted coding. `etag` names the body (and so the
 * cached deflate of body + tail); `head` and `tail` must be ASCII, and `head` under 64 KiB (one
 * stored block). Identity and stitched gzip are answered synchronously once the deflate is cached,
 * and never copy the body.
 */
export function encodeResponse(head: string, body: Buffer, tail: string, etag: string, wanted: ContentCoding): EncodedBody | Promise<EncodedBody> {
  const length = head.length + body.length + tail.length;
  // head and tail are ASCII (the envelope), so their lengths are their sizes in bytes.
  if (wanted === 'identity' || length < compressionMinBytes) return { chunks: identityChunks(head, body, tail, length), length, coding: 'identity' };
  const headBytes = Buffer.from(head);
  const tailBytes = Buffer.from(tail);
  if (wanted === 'br') {
    const params = { [constants.BROTLI_PARAM_QUALITY]: brotliQuality, [constants.BROTLI_PARAM_SIZE_HINT]: length };
    return brotli(Buffer.concat([headBytes, body, tailBytes]), { params }).then((bytes) => encoded([bytes], 'br'));
  }
  const key = `${etag}:${tail}`;
  const deflated = deflatedTails.get(key);
  if (deflated) return encoded(stitchGzip(headBytes, body, tailBytes, deflated), 'gzip');
  return deflatedTails.fetch(key, { context: tailBytes.length === 0 ? body : Buffer.concat([body, tailBytes]) }).then(async (fetched) =>
    fetched
      ? encoded(stitchGzip(headBytes, body, tailBytes, fetched), 'gzip')
      : encoded([await gzipAsync(Buffer.concat([headBytes, body, tailBytes]))], 'gzip'),
  );
}

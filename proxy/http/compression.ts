/**
 * Response compression by Accept-Encoding, for bodies worth it.
 *
 * The envelope differs in every response only in its head (the globalId), so no response is
 * compressed on its own: the body (with the envelope's tail) is compressed once per body and cached
 * by ETag, and each response stitches its head in front, uncompressed.
 *
 * - gzip: a stored (uncompressed) deflate block holding the head, the body's cached deflate
 *   blocks, then the CRC-32 and length of the whole (RFC 1951 §3.2.4, RFC 1952). A response costs
 *   a CRC pass over the body.
 * - brotli: the stream header, an uncompressed meta-block holding the head, then the body's cached
 *   meta-blocks (RFC 7932 §9.1, §9.2). A response costs a copy of its head. Brotli cannot simply be
 *   cut and joined: a distance beyond the bytes decoded so far names a static dictionary word, so
 *   the body's meta-blocks mean what they mean only after exactly the bytes they were compressed
 *   after. They are therefore compressed after a placeholder head of the same length, flushed so
 *   that they start on a byte boundary, and proven once, before they are cached, to decode right
 *   after any head of that length and ending (`proveStitch`). A body that fails the proof (none of
 *   the real data does) is answered uncompressed, never compressed per response.
 *
 * `npm run bench:compression` measures both against compressing each response.
 */
import { promisify } from 'node:util';
import { brotliDecompress, constants, crc32, createBrotliCompress, deflateRaw } from 'node:zlib';
import { LoadingCache } from '../store/loadingCache.ts';
import type { ContentCoding } from './negotiation.ts';

/** Below about one TCP segment, compression saves no round trip and costs time. */
export const compressionMinBytes = 1400;
/**
 * Cached, but paid again for every body a client walks to that is not: qualities 5 to 9 compress our
 * JSON no smaller than 4 at two to six times the cost, 10 and 11 save 10 to 17 % at 30 to 200 times
 * the cost. At 4, a body's brotli with its proof costs about what its deflate at level 9 does.
 */
export const brotliQuality = 4;
/** For bodies compressed once and cached, the best ratio is worth its one-time cost. */
export const cachedDeflateLevel = 9;
/** The compressed bodies a worker keeps, gzip and brotli together. */
const cachedBytes = 32 * 1024 * 1024;

const deflateRawAsync = promisify(deflateRaw);
const brotliDecompressAsync = promisify(brotliDecompress);

/** What follows a response's head in its brotli stream, and what precedes it. */
interface BrotliTail {
  /** The stream header and the header of an uncompressed meta-block as long as the head. */
  readonly prelude: Buffer;
  /** body + tail as meta-blocks, the last one final, compressed after a head of that length. */
  readonly compressed: Buffer;
}

/** What the cache holds for a body that failed the proof: brotli is then not offered for it. */
const unstitchable: BrotliTail = { prelude: Buffer.alloc(0), compressed: Buffer.alloc(0) };

type CompressedTail = Buffer | BrotliTail;

/**
 * Compressed tails (body + envelope closing), by coding and the body's ETag: deflate blocks for
 * gzip, meta-blocks for brotli. A miss runs the compression it is given, once for all the
 * responses waiting for it.
 */
const compressedTails = new LoadingCache<CompressedTail>(cachedBytes, (tail) =>
  Buffer.isBuffer(tail) ? tail.length : tail.prelude.length + tail.compressed.length,
);

/** The cached tail under `key` now, or a promise of it. */
function cachedTail<Tail extends CompressedTail>(key: string, compress: () => Promise<Tail>): Tail | Promise<Tail> {
  // Keys start with their coding, so the value under one is of that coding's type.
  return (compressedTails.get(key) as Tail | undefined) ?? (compressedTails.load(key, compress) as Promise<Tail>);
}

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

/** A brotli stream of `head` uncompressed, then the cached meta-blocks: only the head is copied. */
function stitchBrotli(head: Buffer | string, { prelude, compressed }: BrotliTail): Buffer[] {
  const opening = Buffer.allocUnsafe(prelude.length + head.length);
  prelude.copy(opening);
  if (typeof head === 'string') opening.write(head, prelude.length, 'latin1');
  else head.copy(opening, prelude.length);
  return [opening, compressed];
}

/** Bit fields packed as brotli packs them (each from its least significant bit), zeros to the byte boundary. */
function packBits(fields: readonly (readonly [value: number, bits: number])[]): Buffer {
  const bytes = Buffer.alloc(Math.ceil(fields.reduce((sum, [, bits]) => sum + bits, 0) / 8));
  let position = 0;
  for (const [value, bits] of fields) {
    for (let bit = 0; bit < bits; bit++, position++) {
      if (Math.floor(value / 2 ** bit) % 2 === 1) bytes[position >> 3] = (bytes[position >> 3] ?? 0) | (1 << (position & 7));
    }
  }
  return bytes;
}

/**
 * What comes before a head of `length` bytes: the encoder's stream header (WBITS: 1, 4 or 7 bits,
 * copied from its own opening) and the header of an uncompressed meta-block of `length` bytes
 * (RFC 7932 §9.1, §9.2). Without a head, the encoder's opening as it is.
 */
function brotliPrelude(encoderOpening: Buffer, length: number): Buffer {
  if (length === 0) return encoderOpening;
  const first = encoderOpening[0] ?? 0;
  const windowBits: readonly [number, number] = (first & 1) === 0 ? [0, 1] : (first & 0x0e) !== 0 ? [first & 0x0f, 4] : [first & 0x7f, 7];
  // MLEN - 1 in the fewest of 4, 5 or 6 nibbles that hold it (a needless zero nibble is invalid).
  const nibbles = Math.max(4, Math.ceil((32 - Math.clz32(length - 1)) / 4));
  return packBits([windowBits, [0, 1] /* ISLAST */, [nibbles - 4, 2] /* MNIBBLES */, [length - 1, nibbles * 4] /* MLEN - 1 */, [1, 1] /* ISUNCOMPRESSED */]);
}

/**
 * Stands for the head while the body is compressed: as long as the head and ending like it, its
 * other bytes (up to 128 of them) all different, so that the encoder finds no match within it
 * (which would change the last distances it remembers, and the stitched stream's decoder would not),
 * and in an order no UTF-8 text contains, so that the body matches none of them.
 */
function placeholderFor(head: Buffer): Buffer {
  const placeholder = Buffer.from(head);
  for (let index = 0; index < head.length - 2; index++) placeholder[index] = 0x80 | (index & 0x7f);
  return placeholder;
}

/** The encoder's stream up to a flush after `placeholder`, and the meta-blocks of `rest` after it. */
async function compressBrotliAfter(placeholder: Buffer, rest: Buffer, quality: number): Promise<{ opening: Buffer; compressed: Buffer }> {
  const params = { [constants.BROTLI_PARAM_QUALITY]: quality, [constants.BROTLI_PARAM_SIZE_HINT]: placeholder.length + rest.length };
  const encoder = createBrotliCompress({ params });
  // A flush ends the placeholder's meta-blocks and pads them to a byte boundary (with an empty
  // metadata block), so what follows starts a meta-block on a byte of its own.
  await new Promise<void>((resolve, reject) => {
    encoder.once('error', reject);
    if (placeholder.length > 0) encoder.write(placeholder);
    encoder.flush(constants.BROTLI_OPERATION_FLUSH, () => {
      encoder.off('error', reject);
      resolve();
    });
  });
  // The flush's output is in the readable buffer before its callback runs (nothing reads it yet).
  const opening = (encoder.read() as Buffer | null) ?? Buffer.alloc(0);
  encoder.end(rest);
  const compressed: Buffer[] = [];
  for await (const chunk of encoder) compressed.push(chunk as Buffer);
  return { opening, compressed: Buffer.concat(compressed) };
}

/**
 * True when the stitched stream decodes to `head + body + tail` for `head` and for a second head
 * that differs from it in every byte but the last two. Then it does so for every head of this
 * length and ending. A decoder reads the head's bytes back only to copy them or, for the last two,
 * as the context of the body's first literals; so the two decodings run alike until one copies a
 * byte where the heads differ, and that byte cannot then equal the body's byte in both.
 */
async function proveStitch(tail: BrotliTail, head: Buffer, body: Buffer, tailBytes: Buffer): Promise<boolean> {
  const other = Buffer.from(head);
  for (let index = 0; index < other.length - 2; index++) other[index] = (other[index] ?? 0) ^ 0xff;
  for (const candidate of [head, other]) {
    const decoded = await brotliDecompressAsync(Buffer.concat(stitchBrotli(candidate, tail))).catch(() => undefined);
    const length = candidate.length + body.length + tailBytes.length;
    const exact =
      decoded?.length === length &&
      decoded.subarray(0, candidate.length).equals(candidate) &&
      decoded.subarray(candidate.length, candidate.length + body.length).equals(body) &&
      decoded.subarray(length - tailBytes.length).equals(tailBytes);
    if (!exact) return false;
  }
  return true;
}

/** The cached part of brotli responses with heads like `head` (its length and last two bytes). */
async function compressBrotliTail(head: Buffer, body: Buffer, tailBytes: Buffer): Promise<BrotliTail> {
  const rest = tailBytes.length === 0 ? body : Buffer.concat([body, tailBytes]);
  const { opening, compressed } = await compressBrotliAfter(placeholderFor(head), rest, brotliQuality);
  const stitched = { prelude: brotliPrelude(opening, head.length), compressed };
  return (await proveStitch(stitched, head, body, tailBytes)) ? stitched : unstitchable;
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
  /** The response body in pieces, to be written in order (http/respond.ts `sendEncoded`). */
  readonly chunks: readonly Chunk[];
  /** Their length in bytes: the Content-Length. */
  readonly length: number;
  readonly coding: ContentCoding;
}

/** A compressed body: buffers only (the identity body's strings are counted where it is made). */
function encoded(chunks: readonly Buffer[], coding: ContentCoding): EncodedBody {
  return { chunks, length: chunks.reduce((sum, chunk) => sum + chunk.length, 0), coding };
}

/** The coding encodeResponse answers a response of `length` bytes in, for `wanted` (short ones go as they are). */
export function codingOf(wanted: ContentCoding, length: number): ContentCoding {
  return length < compressionMinBytes ? 'identity' : wanted;
}

/**
 * The response body `head + body + tail` in the wanted coding. `etag` names the body (and so its
 * cached compression); `head` and `tail` must be ASCII, and `head` under 64 KiB (one stored block).
 * Every coding is answered synchronously once the body's compression is cached, never compresses
 * per response, and never copies the body.
 */
export function encodeResponse(head: string, body: Buffer, tail: string, etag: string, wanted: ContentCoding): EncodedBody | Promise<EncodedBody> {
  const length = head.length + body.length + tail.length;
  // head and tail are ASCII (the envelope), so their lengths are their sizes in bytes.
  if (wanted === 'identity' || length < compressionMinBytes) return { chunks: identityChunks(head, body, tail, length), length, coding: 'identity' };
  if (wanted === 'br') {
    // One compression serves every head of this length and ending (compressBrotliTail).
    const brotli = cachedTail(`br:${etag}:${head.length}:${head.slice(-2)}:${tail}`, () => compressBrotliTail(Buffer.from(head), body, Buffer.from(tail)));
    if (!(brotli instanceof Promise)) return brotliResponse(head, body, tail, brotli);
    return brotli.then((fetched) => brotliResponse(head, body, tail, fetched));
  }
  const headBytes = Buffer.from(head);
  const tailBytes = Buffer.from(tail);
  const deflated = cachedTail(`gzip:${etag}:${tail}`, () =>
    deflateRawAsync(tailBytes.length === 0 ? body : Buffer.concat([body, tailBytes]), { level: cachedDeflateLevel }),
  );
  if (!(deflated instanceof Promise)) return encoded(stitchGzip(headBytes, body, tailBytes, deflated), 'gzip');
  return deflated.then((fetched) => encoded(stitchGzip(headBytes, body, tailBytes, fetched), 'gzip'));
}

/** Stitched brotli, or the body uncompressed when its brotli cannot be stitched. */
function brotliResponse(head: string, body: Buffer, tail: string, brotli: BrotliTail): EncodedBody {
  if (brotli !== unstitchable) return encoded(stitchBrotli(head, brotli), 'br');
  const length = head.length + body.length + tail.length;
  return { chunks: identityChunks(head, body, tail, length), length, coding: 'identity' };
}

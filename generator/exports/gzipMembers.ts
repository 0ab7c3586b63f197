/**
 * An export file as a run of gzip members (RFC 1952 §2.2: "a gzip file consists of a series of
 * members"), each the compressed text of a chunk of whole lines. gzip -dc, zlib (Node's gunzip and
 * createGunzip), Python's gzip and Go's compress/gzip read such a file whole, as one text.
 *
 * Each member's header carries, in an extra field (FEXTRA, §2.3.1.1), the member's own length,
 * its line count, the SHA-256 of its text and that of its records' ids, and its last record's id,
 * as BGZF (the blocked gzip of SAM/BAM) carries its block size. A file therefore describes its
 * members itself: their offsets are found by hopping from header to header, without
 * decompressing, and a chunk's text is known by its hash. No table beside the file can disagree
 * with it or be pruned apart from it.
 *
 * The header is fixed but for the field: no time, no name, XFL 2 (maximum compression), OS 255
 * (unknown, so that the platform that built the file does not change its bytes). The field also
 * names the writer (zlib's version, the level, the way lines are cut into chunks): a member is
 * copied into a new file only when this build would have written the same bytes, so a file put
 * together from an earlier build's members is the file a build from scratch writes.
 */
import { createHash } from 'node:crypto';
import { readSync } from 'node:fs';
import { open } from 'node:fs/promises';
import { promisify } from 'node:util';
import { gunzip, gzip } from 'node:zlib';

const compress = promisify(gzip);
/** Members read and decompressed side by side by readMemberTexts. */
const readAhead = 4;
const decompress = promisify(gunzip);

/**
 * zlib's best compression: 4 % smaller than its default on the real data. Fixed, because another
 * level would change every file's hash.
 */
const gzipLevel = 9;

/**
 * The writer of a member as its field names it: the first four bytes of the SHA-256 of zlib's
 * version, the level, and `cut`, how the writer cuts a text into members (files.ts).
 */
export const writerTag = (cut: string): number =>
  createHash('sha256').update(`zlib ${process.versions.zlib} level ${gzipLevel} ${cut}`).digest().readUInt32LE(0);

/** The extra subfield's id, SI1 SI2: "ND", an NDJSON chunk. */
const subfieldId = [0x4e, 0x44] as const;
/**
 * The subfield's data: the member's length, its line count and the writer's tag (4 bytes each,
 * little-endian as gzip's own fields are), the SHA-256 of its text and that of its records' ids,
 * then the id of its last record in UTF-8 (the rest of the subfield).
 */
const fixedData = 4 + 4 + 4 + 32 + 32;
/** The header before the last id: the 10 fixed bytes, XLEN, the subfield's id and length, the fixed data. */
const fixedHeader = 10 + 2 + 4 + fixedData;
/** Enough to hold a header with an id of up to 164 bytes; a longer one is read again whole. */
const headerWindow = 256;
/** What zlib's gzip writes before the deflate data, replaced by the header above. */
const zlibHeaderBytes = 10;
const flagExtra = 0x04;

/** What a member's header says of its chunk of lines. */
export interface ChunkFacts {
  /** Its lines, each ended by a newline. */
  readonly lines: number;
  /** What wrote it (writerTag). */
  readonly writer: number;
  /** The SHA-256 of its text, in hex. */
  readonly textSha256: string;
  /** The SHA-256 of its records' ids in order, each followed by a newline, in hex. */
  readonly idsSha256: string;
  /** The id of its last record: the one after which the chunk ends (empty for the empty chunk of a type without records). */
  readonly lastId: string;
}

/** One member of an export file, as its header states it. */
export interface GzipMember extends ChunkFacts {
  /** Where it starts in the file, and its length in bytes, header and trailer included. */
  readonly offset: number;
  readonly bytes: number;
}

/** A member made by this build: its header and the deflate data with gzip's trailer, to be copied into the file one after the other. */
export interface NewMember {
  readonly header: Buffer;
  readonly body: Buffer;
  readonly bytes: number;
}

/** A chunk's text compressed into one member, with a header stating `facts`. */
async function compressMember(text: Buffer, facts: ChunkFacts): Promise<NewMember> {
  const zipped = await compress(text, { level: gzipLevel });
  const lastId = Buffer.from(facts.lastId, 'utf8');
  const headerBytes = fixedHeader + lastId.length;
  const bytes = headerBytes + zipped.length - zlibHeaderBytes;
  const header = Buffer.alloc(headerBytes);
  header.set([0x1f, 0x8b, 8, flagExtra, 0, 0, 0, 0, 2, 255]);
  header.writeUInt16LE(headerBytes - 12, 10);
  header.set(subfieldId, 12);
  header.writeUInt16LE(headerBytes - 16, 14);
  header.writeUInt32LE(bytes, 16);
  header.writeUInt32LE(facts.lines, 20);
  header.writeUInt32LE(facts.writer, 24);
  header.write(facts.textSha256, 28, 'hex');
  header.write(facts.idsSha256, 60, 'hex');
  lastId.copy(header, fixedHeader);
  return { header, body: zipped.subarray(zlibHeaderBytes), bytes };
}

/**
 * Compresses chunks into members on libuv's threads, at most `slots` at once, each from an input
 * buffer used again for a later chunk. Node counts every buffer made against the heap until the
 * next collection, and starts one after some 64 MB of them: a copy of every chunk's text (the
 * world's exports are 300 MB) would start several, each seconds on a heap of gigabytes.
 */
export class MemberPress {
  readonly #slots: number;
  readonly #idle: Buffer[] = [];
  readonly #waiting: (() => void)[] = [];
  #busy = 0;

  constructor(slots = 4) {
    this.#slots = slots;
  }

  /**
   * Waits for a free slot and copies `text` into its buffer: `text` may be written over once this
   * resolves. The member comes when its compression ends.
   */
  async press(text: Buffer, facts: ChunkFacts): Promise<{ readonly member: Promise<NewMember> }> {
    while (this.#busy >= this.#slots) await new Promise<void>((resolve) => this.#waiting.push(resolve));
    this.#busy++;
    const idle = this.#idle.pop();
    const input = idle && idle.length >= text.length ? idle : Buffer.allocUnsafe(Math.max(text.length, 1 << 20));
    text.copy(input);
    const member = compressMember(input.subarray(0, text.length), facts).finally(() => {
      this.#idle.push(input);
      this.#busy--;
      this.#waiting.shift()?.();
    });
    return { member };
  }
}

/**
 * The member whose header starts `header` (at `offset` in its file): the member, the length of
 * its header when `header` holds only part of it, or undefined when it is not one of
 * compressMember's.
 */
function parseHeader(header: Buffer, offset: number): GzipMember | number | undefined {
  if (header.length < fixedHeader || header[0] !== 0x1f || header[1] !== 0x8b || header[2] !== 8 || header[3] !== flagExtra) return undefined;
  const headerBytes = 12 + header.readUInt16LE(10);
  if (header[12] !== subfieldId[0] || header[13] !== subfieldId[1] || header.readUInt16LE(14) !== headerBytes - 16 || headerBytes < fixedHeader)
    return undefined;
  if (header.length < headerBytes) return headerBytes;
  const bytes = header.readUInt32LE(16);
  if (bytes <= headerBytes) return undefined;
  return {
    offset,
    bytes,
    lines: header.readUInt32LE(20),
    writer: header.readUInt32LE(24),
    textSha256: header.toString('hex', 28, 60),
    idsSha256: header.toString('hex', 60, 92),
    lastId: header.toString('utf8', fixedHeader, headerBytes),
  };
}

/**
 * The members of a file on disk, read header by header (a few bytes per megabyte); undefined when
 * it is not made of compressMember's members or cannot be read (a damaged file).
 */
export async function readMembers(file: string): Promise<GzipMember[] | undefined> {
  const handle = await open(file, 'r').catch(() => undefined);
  if (!handle) return undefined;
  try {
    const { size } = await handle.stat();
    const members: GzipMember[] = [];
    const window = Buffer.allocUnsafe(headerWindow);
    // Read without waiting on libuv for each of a hundred headers: the file is in the page cache, a read takes microseconds.
    const readAt = (buffer: Buffer, offset: number): Buffer => buffer.subarray(0, readSync(handle.fd, buffer, 0, buffer.length, offset));
    for (let offset = 0; offset < size; ) {
      let member = parseHeader(readAt(window, offset), offset);
      if (typeof member === 'number') member = parseHeader(readAt(Buffer.allocUnsafe(member), offset), offset);
      if (typeof member !== 'object' || offset + member.bytes > size) return undefined;
      members.push(member);
      offset += member.bytes;
    }
    return members.length > 0 ? members : undefined;
  } finally {
    await handle.close();
  }
}

/**
 * The texts of some members of a file on disk, each read at its offset, decompressed alone (a few
 * side by side, on libuv's threads) and checked against its hash.
 */
export async function readMemberTexts(file: string, members: readonly GzipMember[]): Promise<Buffer[]> {
  if (members.length === 0) return [];
  const handle = await open(file, 'r');
  try {
    const textOf = async (member: GzipMember): Promise<Buffer> => {
      const bytes = Buffer.allocUnsafe(member.bytes);
      const { bytesRead } = await handle.read(bytes, 0, member.bytes, member.offset);
      if (bytesRead !== member.bytes) throw new Error(`${file}: the member at ${member.offset} is cut short (${bytesRead} of ${member.bytes} bytes)`);
      // One buffer of the size its trailer states (ISIZE), not zlib's 16 KB pieces.
      const text = await decompress(bytes, { chunkSize: Math.max(bytes.readUInt32LE(member.bytes - 4), 1 << 14) });
      if (createHash('sha256').update(text).digest('hex') !== member.textSha256) {
        throw new Error(`${file}: the member at ${member.offset} does not hold the text its header names`);
      }
      return text;
    };
    const texts: Buffer[] = [];
    for (let start = 0; start < members.length; start += readAhead) texts.push(...(await Promise.all(members.slice(start, start + readAhead).map(textOf))));
    return texts;
  } finally {
    await handle.close();
  }
}

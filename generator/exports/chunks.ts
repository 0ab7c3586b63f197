/**
 * One record type's export file: its lines cut into chunks of about a megabyte, each chunk one gzip
 * member (gzipMembers.ts). Where a chunk ends depends only on the line that ends it, so a change to
 * one record changes one chunk's text and leaves the others as they were: a rebuild compresses the
 * chunks whose text the previous build's file does not hold and copies the other members' bytes
 * from it, and the change lists read only the chunks whose text differs (changes.ts).
 *
 * At the world's size the build's heap is gigabytes, and a collection of it costs seconds; Node
 * counts buffers against it, and starts one after some 64 MB of them. So a previous file is read
 * where its bytes are needed, a member at a time straight into the new file, not whole into a
 * buffer first.
 */
import { createHash } from 'node:crypto';
import { readSync } from 'node:fs';
import { open, readFile } from 'node:fs/promises';
import { gzipType, type ExportsIndex } from '../../contract/downloads.ts';
import { computeEtag } from '../../contract/manifest.ts';
import { fnv1a32 } from '../../contract/lookupIndex.ts';
import type { RecordType } from '../../contract/routes.ts';
import type { IndexedBodies } from '../bodies.ts';
import { MemberPress, readMembers, writerTag, type ChunkFacts, type GzipMember, type NewMember } from './gzipMembers.ts';
import type { DataRecord } from '../records/schemas.ts';
import type { DownloadFile } from '../write.ts';

/**
 * The size a chunk has on average, in characters of its lines: a megabyte of text compresses as
 * well in one member as in a whole file (deflate looks back 32 KB), costs a hundred bytes of
 * header, and a change to one record recompresses about 20 ms of it. Fixed: another size cuts
 * every file anew.
 */
export const defaultChunkSize = 1 << 20;

/** A chunk of a type's lines, [start, end), with the SHA-256 of its text (the lines, each with its newline) and of its records' ids. */
export interface ExportChunk {
  readonly start: number;
  readonly end: number;
  readonly textSha256: string;
  readonly idsSha256: string;
}

/** A type's export as the change lists compare it: its chunks, and its lines when asked for. */
export interface ExportedType {
  /** Its lines, one per record. */
  readonly count: number;
  /** In file order, one per member; an empty type has one empty chunk (a gzip file holds at least one member). */
  readonly chunks: readonly ExportChunk[];
  /** How many of its members this build compressed; the others were copied from the previous build's file. */
  readonly compressed: number;
  /** Its lines [start, end), without their newlines: made again when asked for, the few a change list reads. */
  lines(start: number, end: number): string[];
}

/**
 * How this build writes the files, one type after another: the records as shown, the chunk size,
 * the writer's tag the members carry, the press that compresses them, and the buffers a chunk's
 * text and ids are written into, used again for every chunk.
 */
export interface ChunkWriter {
  readonly shown: IndexedBodies['shown'];
  readonly chunkSize: number;
  readonly writer: number;
  readonly press: MemberPress;
  readonly text: LineBuffer;
  readonly ids: LineBuffer;
  /** What previous files are read into to be hashed. */
  readonly reading: Buffer;
}

export function chunkWriter(shown: IndexedBodies['shown'], chunkSize = defaultChunkSize): ChunkWriter {
  return {
    shown,
    chunkSize,
    writer: writerTag(`chunks of ${chunkSize} by FNV-1a/fmix32 of the id, and at each record file's end`),
    press: new MemberPress(),
    // Four times the average chunk: one chunk in fifty is longer, and grows it once.
    text: new LineBuffer(4 * chunkSize),
    ids: new LineBuffer(),
    reading: Buffer.allocUnsafe(1 << 18),
  };
}

type ExportEntry = ExportsIndex['exports'][string];

/** A type's file as written, with what its index entry and the change lists need of it. */
export interface WrittenType {
  readonly exported: ExportedType;
  readonly file: DownloadFile;
  readonly sha256: string;
  readonly etag: string;
  /** Worked out on a thread from the members a rebuild copied, while the next types are made: awaited for the index. */
  readonly ndjson: ExportEntry['ndjson'] | Promise<ExportEntry['ndjson']>;
}

/** A previous build's file of a type, intact (its SHA-256 that of its index entry), and its members. */
export interface EarlierFile {
  readonly path: string;
  readonly entry: ExportEntry;
  /** In file order. */
  readonly members: readonly GzipMember[];
}

const sha256 = (bytes: Buffer): string => createHash('sha256').update(bytes).digest('hex');

/** A file's SHA-256, read a piece at a time into `buffer` (without waiting on libuv for each: the file is in the page cache). */
async function fileSha256(file: string, buffer: Buffer): Promise<string | undefined> {
  const handle = await open(file, 'r').catch(() => undefined);
  if (!handle) return undefined;
  try {
    const hash = createHash('sha256');
    for (let read = readSync(handle.fd, buffer); read > 0; read = readSync(handle.fd, buffer)) hash.update(buffer.subarray(0, read));
    return hash.digest('hex');
  } finally {
    await handle.close();
  }
}

/** The previous build's file of a type, when its index lists one and the file is as the index says, made of readable members. */
export async function readEarlierFile(file: string, entry: ExportEntry | undefined, how: ChunkWriter): Promise<EarlierFile | undefined> {
  if (!entry || (await fileSha256(file, how.reading)) !== entry.sha256) return undefined;
  const members = await readMembers(file);
  return members && { path: file, entry, members };
}

/**
 * A 32-bit hash of a record id (FNV-1a, then murmur3's finaliser to spread its bits): where chunks
 * end. Any fixed hash would do; this one costs 0.1 s for a million ids. Ids are ASCII (UUIDs and
 * codes), so FNV-1a over their latin1 bytes is over all of them.
 */
function idHash(id: string): number {
  let hash = fnv1a32(id);
  hash = Math.imul(hash ^ (hash >>> 16), 0x85ebca6b);
  hash = Math.imul(hash ^ (hash >>> 13), 0xc2b2ae35);
  return (hash ^ (hash >>> 16)) >>> 0;
}

/**
 * Whether a chunk ends after a record's line: when its id's hash, read as a fraction of 2^32, falls
 * below the line's share of the chunk size (its length with the newline, divided by it). The cut
 * depends on that line alone, so chunks are about the chunk size long whatever a type's lines
 * measure, a record added or removed changes one chunk (or joins or splits it), and a record
 * changed keeps its chunk's ends unless its new length moves the cut after it: a change of n
 * characters does that with a chance of n in the chunk size. The last line ends a chunk too.
 */
export function endsChunk(id: string, line: string, how: ChunkWriter): boolean {
  return idHash(id) < ((line.length + 1) * 2 ** 32) / how.chunkSize;
}

/** Text in UTF-8, a line at a time, in one buffer grown as needed and used again for the next chunk. */
export class LineBuffer {
  #buffer: Buffer;
  #size = 0;

  /** `size` to start with: a buffer grown later is a second one. */
  constructor(size = 1 << 16) {
    this.#buffer = Buffer.allocUnsafe(size);
  }

  /** Adds a line and its newline: written into the buffer line by line, twice as fast as joining the lines into one string first. */
  add(line: string): void {
    const most = this.#size + 3 * line.length + 1;
    if (most > this.#buffer.length) {
      const grown = Buffer.allocUnsafe(Math.max(most, 2 * this.#buffer.length));
      this.#buffer.copy(grown, 0, 0, this.#size);
      this.#buffer = grown;
    }
    this.#size += this.#buffer.write(line, this.#size, 'utf8');
    this.#buffer[this.#size++] = 0x0a;
  }

  /** Empties it, of what a type given up half-way left. */
  clear(): void {
    this.#size = 0;
  }

  /** The text so far, valid until the next add, which starts anew. */
  take(): Buffer {
    const text = this.#buffer.subarray(0, this.#size);
    this.#size = 0;
    return text;
  }
}

/** Which records a chunk holds, as its member's header says: the hash of their ids, and the last one's id. */
export type ChunkIds = Pick<ChunkFacts, 'idsSha256' | 'lastId'>;

/** The ids of records [start, end) as a member's header states them; `ids` is a buffer to use. */
export function chunkIds(records: readonly DataRecord[], start: number, end: number, ids: LineBuffer): ChunkIds {
  for (let at = start; at < end; at++) ids.add((records[at] as DataRecord).id);
  return { idsSha256: sha256(ids.take()), lastId: records[end - 1]?.id ?? '' };
}

/**
 * A type's file put together chunk by chunk, in order: each chunk an earlier member copied, or its
 * text compressed into a new one.
 */
export class ExportFile {
  readonly #earlier: EarlierFile | undefined;
  readonly #how: ChunkWriter;
  readonly #reusable: ReadonlyMap<string, GzipMember>;
  readonly #chunks: ExportChunk[] = [];
  readonly #members: (GzipMember | Promise<NewMember>)[] = [];
  #compressed = 0;

  constructor(earlier: EarlierFile | undefined, how: ChunkWriter) {
    this.#earlier = earlier;
    this.#how = how;
    this.#reusable = new Map((earlier?.members ?? []).filter((member) => member.writer === how.writer).map((member) => [member.textSha256, member]));
  }

  /** An earlier member of this writer with the text whose hash is `textSha256`, if there is one. */
  reusable(textSha256: string): GzipMember | undefined {
    return this.#reusable.get(textSha256);
  }

  /** The chunk of lines [start, end) as a copy of an earlier member of this writer (one `reusable` gave). */
  copy(start: number, end: number, member: GzipMember): void {
    this.#chunks.push({ start, end, textSha256: member.textSha256, idsSha256: member.idsSha256 });
    this.#members.push(member);
  }

  /**
   * The chunk of lines [start, end) with its text, copied where an earlier member holds it, else
   * compressed: on libuv's threads while the next chunks are cut, so that the largest types share
   * the cores. `text` may be written over once this resolves.
   */
  async add(start: number, end: number, text: Buffer, ids: ChunkIds, textSha256 = sha256(text)): Promise<void> {
    const same = this.reusable(textSha256);
    if (same) return this.copy(start, end, same);
    this.#chunks.push({ start, end, textSha256, idsSha256: ids.idsSha256 });
    this.#members.push((await this.#how.press.press(text, { lines: end - start, writer: this.#how.writer, textSha256, ...ids })).member);
    this.#compressed++;
  }

  /**
   * The file: the new members, and the copied ones read from the earlier file straight into it
   * (from the page cache: no wait on libuv for each). `lines` makes its lines again when asked.
   */
  async finish(count: number, lines: ExportedType['lines'], ndjson: WrittenType['ndjson']): Promise<WrittenType> {
    // Awaited only when the index is written: a failure meanwhile is not one nobody handles.
    if (ndjson instanceof Promise) ndjson.catch(() => undefined);
    const earlier = this.#earlier;
    const members = await Promise.all(this.#members);
    const bytes = Buffer.allocUnsafe(members.reduce((total, member) => total + member.bytes, 0));
    const handle = earlier && members.some((member) => 'offset' in member) ? await open(earlier.path, 'r') : undefined;
    try {
      let offset = 0;
      for (const member of members) {
        if (!('offset' in member)) {
          member.header.copy(bytes, offset);
          member.body.copy(bytes, offset + member.header.length);
        } else if (!handle || readSync(handle.fd, bytes, offset, member.bytes, member.offset) !== member.bytes) {
          throw new Error(`${earlier?.path}: the member at ${member.offset} is cut short`);
        }
        offset += member.bytes;
      }
    } finally {
      await handle?.close();
    }
    const fileSha256 = sha256(bytes);
    const same = earlier?.entry.sha256 === fileSha256;
    return {
      exported: { count, chunks: this.#chunks, compressed: this.#compressed, lines },
      file: { bytes, contentType: gzipType, ...(same && earlier ? { linkFrom: earlier.path } : {}) },
      sha256: fileSha256,
      etag: same && earlier ? earlier.entry.etag : computeEtag(bytes),
      ndjson,
    };
  }
}

export const linesOf =
  (type: RecordType, records: readonly DataRecord[], shown: IndexedBodies['shown']): ExportedType['lines'] =>
  (start, end) =>
    records.slice(start, end).map((record) => shown(type, record));

/**
 * Where each record file of a type ends, as the positions of their last records in the type's
 * records: a chunk ends there too, so that a file's lines are whole members, which a rebuild that
 * did not read the file copies.
 */
export function fileEnds(counts: readonly number[]): ReadonlySet<number> {
  const ends = new Set<number>();
  let at = 0;
  for (const count of counts) {
    at += count;
    if (count > 0) ends.add(at - 1);
  }
  return ends;
}

/** A type's file written from every record's line (endsChunk and the files' ends cut them). */
export async function writeType(
  type: RecordType,
  records: readonly DataRecord[],
  ends: ReadonlySet<number>,
  earlier: EarlierFile | undefined,
  how: ChunkWriter,
): Promise<WrittenType> {
  const file = new ExportFile(earlier, how);
  const ndjson = createHash('sha256');
  let ndjsonBytes = 0;
  const { text, ids } = how;
  text.clear();
  ids.clear();
  const endChunk = (start: number, end: number): Promise<void> => {
    const bytes = text.take();
    ndjson.update(bytes);
    ndjsonBytes += bytes.length;
    return file.add(start, end, bytes, chunkIds(records, start, end, ids));
  };
  let start = 0;
  for (const [at, record] of records.entries()) {
    const line = how.shown(type, record);
    text.add(line);
    if (endsChunk(record.id, line, how) || ends.has(at) || at === records.length - 1) {
      await endChunk(start, at + 1);
      start = at + 1;
    }
  }
  if (records.length === 0) await endChunk(0, 0);
  return file.finish(records.length, linesOf(type, records, how.shown), { bytes: ndjsonBytes, sha256: ndjson.digest('hex') });
}

/**
 * A type's file taken as `earlier` holds it, without making its lines, for a type whose records
 * the build knows to be the previous build's: when every member is this writer's and they hold
 * as many lines as there are records, the file is the one writeType would write. Else undefined.
 */
export async function keepType(
  type: RecordType,
  records: readonly DataRecord[],
  earlier: EarlierFile | undefined,
  how: ChunkWriter,
): Promise<WrittenType | undefined> {
  if (!earlier || earlier.entry.records !== records.length || earlier.members.length === 0) return undefined;
  if (earlier.members.some((member) => member.writer !== how.writer)) return undefined;
  const chunks: ExportChunk[] = [];
  let start = 0;
  for (const member of earlier.members) {
    chunks.push({ start, end: start + member.lines, textSha256: member.textSha256, idsSha256: member.idsSha256 });
    start += member.lines;
  }
  // readEarlierFile has checked its hash.
  const bytes = await readFile(earlier.path).catch(() => undefined);
  if (start !== records.length || bytes?.length !== earlier.entry.bytes) return undefined;
  const { entry } = earlier;
  return {
    exported: { count: records.length, chunks, compressed: 0, lines: linesOf(type, records, how.shown) },
    file: { bytes, contentType: gzipType, linkFrom: earlier.path },
    sha256: entry.sha256,
    etag: entry.etag,
    ndjson: entry.ndjson,
  };
}

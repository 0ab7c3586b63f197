/**
 * A build's lookup index and its bodies: which body files exist, with their size and ETag, found
 * by path, and where their bytes are. The generator writes it beside manifest.json; a proxy serves
 * from it instead, reading only the few bytes each lookup needs. It comes in three parts:
 *
 * - `lookups.idx`, the head: the manifest without its files, and a directory of shards (how many
 *   entries each holds, its size and ETag, its pack's ETag). A proxy reads it at start and at
 *   every build switch.
 * - `lookups/<ETag>.idx`, one file per shard: an on-disk hash table over the paths whose FNV-1a
 *   hash falls in it (the hash's top bits choose the shard), in pages of 4,096 bytes: each entry,
 *   with its body's size, ETag and offset in the shard's pack, in the page its hash makes its home
 *   (or the next with room: pages are filled to about two thirds, so that is rare). A lookup is
 *   one read of one page, whatever the build's size, with the operating system's page cache as
 *   the cache: a hash table whose buckets are the page cache's own unit.
 * - `lookups/<ETag>.pack`, one file per shard: the bodies of its entries, one after another, each
 *   distinct body once. A body is one read of `size` bytes at its offset (a `Range` request from
 *   an origin).
 *
 * Shards and packs are named by their content, so one unchanged by a rebuild keeps its name: any
 * cache of it (Varnish's, an origin copy's) stays valid, and the build hard-links it from the
 * previous one. Shards exist for the build, not for the lookup: a rebuild rewrites only the
 * shards its changed bodies fall in.
 *
 * Layout (integers little-endian):
 *
 *   head:  "RDLI"  u32 the build format (4)  u32 headLength  head: the manifest without `files` nor `ambiguous`, JSON (UTF-8)
 *          u32 ambiguousLength  32 bytes: the SHA-256 of the next  the manifest's `ambiguous`, JSON (UTF-8)
 *          u8 shardBits  u32 count (all entries)
 *          2^shardBits × shard: u32 count, u32 size, u8 tagLength, the shard file's ETag without quotes,
 *                               u8 packTagLength, its pack's ETag without quotes
 *   shard: "RDLS"  u32 version (3)  u8 shardBits  u32 shard number  u8 packTagLength, its pack's ETag without quotes
 *          u32 count  u32 pages, the header padded to 4,096 bytes
 *          pages × 4,096 bytes: u16 entries, u16 overflowed (1: an entry whose home is this page lies in a
 *                  later one), then the entries whose home it is (or an earlier full page's)
 *          count × u32: each entry's offset, in path order
 *   entry: u32 the path's hash, u16 pathLength, the path (latin1), u32 size, u32 offset in the pack,
 *          u8 tagLength, the ETag without its quotes
 *
 * Paths are ASCII (contract/keys.ts writes keys so); a path with a character above U+00FF is
 * never found. A lookup compares the path itself, never the hash alone.
 */
import { createHash } from 'node:crypto';
import { open, readFile } from 'node:fs/promises';
import path from 'node:path';
import { computeEtag, type Manifest, type ManifestEntry } from './manifest.ts';

export const lookupIndexFileName = 'lookups.idx';

/** The build format a build directory's head says (undefined when it has no head of npm run build): read from its first 8 bytes. */
export async function buildFormatOf(buildDir: string): Promise<number | undefined> {
  const handle = await open(path.join(buildDir, lookupIndexFileName), 'r').catch(() => undefined);
  if (!handle) return undefined;
  const start = Buffer.alloc(8);
  const { bytesRead } = await handle.read(start, 0, 8, 0).finally(() => handle.close());
  return bytesRead === 8 && start.toString('latin1', 0, 4) === headMagic ? start.readUInt32LE(4) : undefined;
}
/** The folder of a build that holds its index shards. */
export const lookupShardsDir = 'lookups';

const headMagic = 'RDLI';
const shardMagic = 'RDLS';
/**
 * The build format: one number for a whole build (its index, packs, manifest, exports and change
 * lists), written first in its head. A build of another format is refused whole: the proxy will
 * not serve it, rollback will not activate it, and a new build neither patches it nor lists
 * changes since it. A change to what a build holds that an earlier reader cannot read raises it,
 * so that no reader carries branches for builds made before the change.
 */
export const buildFormat = 4;
/** The shards' layout version. */
const version = 3;
/** Before the head's ambiguous lookups: their length and their SHA-256. */
const ambiguousPrefixBytes = 4 + 32;

function sha256Of(bytes: Buffer): Buffer {
  return createHash('sha256').update(bytes).digest();
}

/** The fixed part of a shard's header, before its pack's tag. */
const shardHeaderLength = 14;
/**
 * A page of a shard's hash table: the unit a lookup reads, the operating system's page, so that one
 * read is one page of the page cache.
 */
export const pageBytes = 4096;
/** A page's header: its entries' count, and whether an entry whose home it is lies in a later page. */
const pageHeaderBytes = 4;
/** Pages are filled to about this many bytes on average: few pages overflow into the next. */
const pageFill = 2_600;
/** The fixed part of an entry: the path's hash and length before the path; size, offset in the pack and the tag's length after. */
const entryFixedBytes = 15;
/** The longest ETag (without quotes) an entry holds. */
const longestTag = 255;

/**
 * Entries a shard holds on average, at most. A lookup reads a few dozen bytes of a shard whatever
 * its size; the size is what a rebuild rewrites when one of its bodies changes, and what an origin
 * copy fetches at once (about 300 KB), so a few thousand.
 */
export const entriesPerShard = 4_096;

/** The manifest without its files: what the index's head holds. */
export type ManifestHead = Omit<Manifest, 'files'>;

/** FNV-1a, 32 bits, over the char codes of `text` (its latin1 bytes): the one FNV-1a of the code. */
export function fnv1a32(text: string): number {
  let hash = 0x811c9dc5;
  for (let index = 0; index < text.length; index++) {
    hash ^= text.charCodeAt(index) & 0xff;
    hash = Math.imul(hash, 0x01000193);
  }
  return hash >>> 0;
}

/** The shard a path's entry is in, of 2^shardBits. */
export function shardOf(file: string, shardBits: number): number {
  return shardBits === 0 ? 0 : fnv1a32(file) >>> (32 - shardBits);
}

/** The file of a shard with this ETag (quoted, as in the head), relative to the build. */
export function shardFileOf(etag: string): string {
  return `${lookupShardsDir}/${etag.slice(1, -1)}.idx`;
}

/** The file of a pack with this ETag (quoted), relative to the build. */
export function packFileOf(etag: string): string {
  return `${lookupShardsDir}/${etag.slice(1, -1)}.pack`;
}

/** A body as a shard lists it: its size and ETag, and where its bytes are. */
export interface PackedEntry extends ManifestEntry {
  /** The pack file holding it, relative to the build (`lookups/<ETag>.pack`). */
  readonly pack: string;
  /** Its first byte in the pack. */
  readonly offset: number;
}

/** The pages of a shard's hash table for entries of `bytes` bytes in all. */
function pagesFor(bytes: number): number {
  return Math.max(1, Math.ceil(bytes / pageFill));
}

/**
 * The page an entry's path hash makes its home, of `pages`. The hash's top bits chose the shard, so
 * they are mixed down first; then the range is scaled without a division (Lemire's fastrange).
 */
function homePage(hash: number, pages: number): number {
  const mixed = Math.imul(hash ^ (hash >>> 16), 0x45d9f3b) >>> 0;
  return Math.floor((mixed * pages) / 0x100000000);
}

/** An entry's bytes: its fixed part, its path and its tag (without quotes). */
function entryBytes(file: string, etag: string): number {
  return entryFixedBytes + file.length + etag.length - 2;
}

/** How many bits of a path's hash choose its shard, for `count` entries of `perShard` or fewer per shard on average. */
export function shardBitsFor(count: number, perShard = entriesPerShard): number {
  let bits = 0;
  while (bits < 16 && count > perShard << bits) bits++;
  return bits;
}

/** A shard as the head lists it. */
export interface ShardEntry extends ManifestEntry {
  /** Its entries. */
  readonly count: number;
  /** Its pack's ETag (quoted): the pack file is packFileOf(packEtag). */
  readonly packEtag: string;
}

/** Which paths go into which shard: 2^shardBits lists of paths, each in path order. */
export interface ShardPlan {
  readonly shardBits: number;
  readonly shards: readonly (readonly string[])[];
}

/** Splits a build's body paths into shards of `perShard` entries or fewer on average. */
export function planShards(paths: Iterable<string>, perShard = entriesPerShard): ShardPlan {
  const all = [...paths];
  const shardBits = shardBitsFor(all.length, perShard);
  const shards: string[][] = Array.from({ length: 2 ** shardBits }, () => []);
  for (const file of all) {
    if (file.length > 0xffff || /[^\x20-\x7e]/.test(file)) throw new Error(`${file.slice(0, 200)}: a body file's path must be printable ASCII`);
    (shards[shardOf(file, shardBits)] as string[]).push(file);
  }
  // Sorted within each shard: the same paths give the same bytes, and so the same names.
  for (const shard of shards) shard.sort();
  return { shardBits, shards };
}

/** A shard's pack: its bodies one after another, each distinct body once, and where each path's body is. */
export interface EncodedPack {
  readonly bytes: Buffer;
  /** The pack's ETag (quoted): its file is packFileOf(etag). */
  readonly etag: string;
  readonly entries: ReadonlyMap<string, ManifestEntry & { readonly offset: number }>;
}

/** Packs the bodies of a shard's paths (`bodyOf` gives each path's bytes). */
export function encodePack(paths: readonly string[], bodyOf: (file: string) => Buffer): EncodedPack {
  const chunks: Buffer[] = [];
  const offsetByTag = new Map<string, number>();
  const entries = new Map<string, ManifestEntry & { readonly offset: number }>();
  let length = 0;
  for (const file of paths) {
    const body = bodyOf(file);
    const etag = computeEtag(body);
    if (body.length > 0xffffffff) throw new Error(`${file}: a body must be smaller than 4 GiB`);
    let offset = offsetByTag.get(etag);
    if (offset === undefined) {
      offset = length;
      offsetByTag.set(etag, offset);
      chunks.push(body);
      length += body.length;
      if (length > 0xffffffff) throw new Error(`${file}: a shard's bodies must add up to less than 4 GiB`);
    }
    entries.set(file, { size: body.length, etag, offset });
  }
  const bytes = Buffer.concat(chunks, length);
  return { bytes, etag: computeEtag(bytes), entries };
}

/**
 * Shard `number` of 2^shardBits: its paths' entries in `pack`, each in the page its path's hash
 * makes its home, or, where that page is full, in the first later one with room (the pages it
 * passes say so, for a lookup to read on).
 */
export function encodeShard(paths: readonly string[], pack: EncodedPack, shardBits: number, number: number): Buffer {
  const entryOf = (file: string): ManifestEntry & { readonly offset: number } => {
    const entry = pack.entries.get(file);
    if (entry === undefined) throw new Error(`${file}: not in the shard's pack`);
    if (!/^"[A-Za-z0-9_-]{1,255}"$/.test(entry.etag)) throw new Error(`${file}: the ETag ${entry.etag} is not a strong one of at most 255 characters`);
    if (pageHeaderBytes + entryBytes(file, entry.etag) > pageBytes) throw new Error(`${file.slice(0, 200)}: a body file's path must fit a page of the index`);
    return entry;
  };
  const packTag = pack.etag.slice(1, -1);
  const headerLength = shardHeaderLength + packTag.length + 8;
  const totalBytes = paths.reduce((sum, file) => sum + entryBytes(file, entryOf(file).etag), 0);
  const pages = pagesFor(totalBytes);
  const offsetsStart = pageBytes + pages * pageBytes;
  if (offsetsStart + paths.length * 4 > 0xffffffff) throw new Error(`shard ${number}: its entries must add up to less than 4 GiB`);
  const buffer = Buffer.alloc(offsetsStart + paths.length * 4);
  buffer.write(shardMagic, 0, 'latin1');
  buffer.writeUInt32LE(version, 4);
  buffer.writeUInt8(shardBits, 8);
  buffer.writeUInt32LE(number, 9);
  buffer.writeUInt8(packTag.length, 13);
  buffer.write(packTag, 14, 'latin1');
  buffer.writeUInt32LE(paths.length, headerLength - 8);
  buffer.writeUInt32LE(pages, headerLength - 4);
  const used = new Array<number>(pages).fill(pageHeaderBytes);
  paths.forEach((file, entryNumber) => {
    const entry = entryOf(file);
    const hash = fnv1a32(file);
    const length = entryBytes(file, entry.etag);
    let page = homePage(hash, pages);
    for (let passed = 0; (used[page] as number) + length > pageBytes; passed++) {
      if (passed === pages) throw new Error(`shard ${number}: its entries do not fit its pages`);
      buffer.writeUInt16LE(1, pageBytes + page * pageBytes + 2);
      page = (page + 1) % pages;
    }
    const pageStart = pageBytes + page * pageBytes;
    const at = pageStart + (used[page] as number);
    buffer.writeUInt16LE(buffer.readUInt16LE(pageStart) + 1, pageStart);
    used[page] = (used[page] as number) + length;
    buffer.writeUInt32LE(at, offsetsStart + entryNumber * 4);
    buffer.writeUInt32LE(hash, at);
    buffer.writeUInt16LE(file.length, at + 4);
    buffer.write(file, at + 6, 'latin1');
    const after = at + 6 + file.length;
    buffer.writeUInt32LE(entry.size, after);
    buffer.writeUInt32LE(entry.offset, after + 4);
    const tag = entry.etag.slice(1, -1);
    buffer.writeUInt8(tag.length, after + 8);
    buffer.write(tag, after + 9, 'latin1');
  });
  return buffer;
}

/** The head: the manifest without its files, and the directory of shards. */
export function encodeHead(head: ManifestHead, shardBits: number, shards: readonly ShardEntry[]): Buffer {
  const { ambiguous, ...rest } = head;
  const headBytes = Buffer.from(JSON.stringify(rest), 'utf8');
  const ambiguousBytes = Buffer.from(JSON.stringify(ambiguous), 'utf8');
  const directoryBytes = shards.reduce((sum, shard) => sum + 10 + shard.etag.length - 2 + shard.packEtag.length - 2, 0);
  const buffer = Buffer.alloc(12 + headBytes.length + ambiguousPrefixBytes + ambiguousBytes.length + 5 + directoryBytes);
  buffer.write(headMagic, 0, 'latin1');
  buffer.writeUInt32LE(buildFormat, 4);
  buffer.writeUInt32LE(headBytes.length, 8);
  headBytes.copy(buffer, 12);
  let at = 12 + headBytes.length;
  buffer.writeUInt32LE(ambiguousBytes.length, at);
  sha256Of(ambiguousBytes).copy(buffer, at + 4);
  ambiguousBytes.copy(buffer, at + ambiguousPrefixBytes);
  at += ambiguousPrefixBytes + ambiguousBytes.length;
  buffer.writeUInt8(shardBits, at);
  buffer.writeUInt32LE(
    shards.reduce((sum, shard) => sum + shard.count, 0),
    at + 1,
  );
  at += 5;
  for (const { count, size, etag, packEtag } of shards) {
    buffer.writeUInt32LE(count, at);
    buffer.writeUInt32LE(size, at + 4);
    at = writeTag(buffer, at + 8, etag);
    at = writeTag(buffer, at, packEtag);
  }
  return buffer;
}

/** Writes a quoted ETag without its quotes after its length; returns the offset after it. */
function writeTag(buffer: Buffer, at: number, etag: string): number {
  const tag = etag.slice(1, -1);
  buffer.writeUInt8(tag.length, at);
  buffer.write(tag, at + 1, 'latin1');
  return at + 1 + tag.length;
}

/** One shard encoded: its pack, its index file's bytes, and its entry in the head's directory. */
export interface EncodedShard {
  readonly pack: EncodedPack;
  readonly bytes: Buffer;
  readonly entry: ShardEntry;
}

/** Shard `number` of a plan with its pack (`bodyOf` gives each path's bytes): both files and the head's entry. */
export function encodeShardFiles(plan: ShardPlan, number: number, bodyOf: (file: string) => Buffer): EncodedShard {
  return encodeShardOf(plan.shards[number] ?? [], plan.shardBits, number, bodyOf);
}

/** Shard `number` of 2^shardBits over `paths` (sorted, each of that shard) with its pack. */
export function encodeShardOf(paths: readonly string[], shardBits: number, number: number, bodyOf: (file: string) => Buffer): EncodedShard {
  const pack = encodePack(paths, bodyOf);
  const bytes = encodeShard(paths, pack, shardBits, number);
  return { pack, bytes, entry: { count: paths.length, size: bytes.length, etag: computeEtag(bytes), packEtag: pack.etag } };
}

/** An index encoded whole in memory: its head, its shard and pack files by path, and each body's entry. */
export interface EncodedIndex {
  readonly head: Buffer;
  readonly files: ReadonlyMap<string, Buffer>;
  readonly entries: Manifest['files'];
}

/** The index and packs of a build's bodies, in memory (tests and tools; the generator writes shard by shard). */
export function encodeLookupIndex(head: ManifestHead, bodies: ReadonlyMap<string, Buffer>, perShard = entriesPerShard): EncodedIndex {
  const plan = planShards(bodies.keys(), perShard);
  const files = new Map<string, Buffer>();
  const entries: Record<string, ManifestEntry> = {};
  const directory = plan.shards.map((_, number) => {
    const { pack, bytes, entry } = encodeShardFiles(plan, number, (file) => bodies.get(file) as Buffer);
    files.set(packFileOf(pack.etag), pack.bytes);
    files.set(shardFileOf(entry.etag), bytes);
    for (const [file, { size, etag }] of pack.entries) entries[file] = { size, etag };
    return entry;
  });
  return { head: encodeHead(head, plan.shardBits, directory), files, entries };
}

/** The head of the lookup index of a build directory on the disk (tools, the deploy, tests; a proxy reads through its store). */
export async function readLookupHead(buildDir: string): Promise<LookupHead> {
  return new LookupHead(await readFile(path.join(buildDir, lookupIndexFileName)));
}

/** Shard `number` of `head`, read whole from the build directory on the disk. */
export async function readLookupShard(buildDir: string, head: LookupHead, number: number): Promise<LookupShard> {
  const entry = head.shards[number];
  if (entry === undefined) throw new RangeError(`no shard ${number}`);
  return LookupShard.over(await readFile(path.join(buildDir, shardFileOf(entry.etag))), head.shardBits, number, entry);
}

/** Whether `bytes` start as a lookup index's head does (rather than as manifest.json). */
export function isLookupIndex(bytes: Uint8Array): boolean {
  return bytes.length >= 12 && Buffer.from(bytes.buffer, bytes.byteOffset, 4).toString('latin1') === headMagic;
}

function failWith(problem: string): never {
  throw new Error(problem);
}

/** Reads a length-prefixed tag at `at` and returns it quoted with the offset after it, or fails naming `what`. */
function readTag(bytes: Buffer, at: number, what: string): [etag: string, next: number] {
  if (at + 1 > bytes.length) failWith(`${what} runs past its end`);
  const end = at + 1 + bytes.readUInt8(at);
  if (end > bytes.length) failWith(`${what} runs past its end`);
  return [`"${bytes.toString('latin1', at + 1, end)}"`, end];
}

/** An index's head opened over its bytes: the manifest's head and the directory of shards. */
export class LookupHead {
  /** Entries in all shards. */
  readonly count: number;
  readonly shardBits: number;
  readonly shards: readonly ShardEntry[];
  readonly #bytes: Buffer;
  readonly #headEnd: number;
  readonly #ambiguousEnd: number;

  /** Reads the layout; throws an Error naming what is wrong when the bytes are no head of this version. */
  constructor(bytes: Buffer) {
    if (!isLookupIndex(bytes)) failWith(`it does not start with ${headMagic}`);
    if (bytes.readUInt32LE(4) !== buildFormat)
      failWith(`it is of build format ${bytes.readUInt32LE(4)}, this service reads format ${buildFormat}: build it again with this version (npm run build)`);
    const headEnd = 12 + bytes.readUInt32LE(8);
    if (headEnd + ambiguousPrefixBytes > bytes.length) failWith('its head runs past its end');
    const ambiguousStart = headEnd + ambiguousPrefixBytes;
    const ambiguousEnd = ambiguousStart + bytes.readUInt32LE(headEnd);
    if (ambiguousEnd + 5 > bytes.length) failWith('its list of ambiguous lookups runs past its end');
    if (!sha256Of(bytes.subarray(ambiguousStart, ambiguousEnd)).equals(bytes.subarray(headEnd + 4, ambiguousStart)))
      failWith('its list of ambiguous lookups does not match its SHA-256: the file is damaged');
    this.#bytes = bytes;
    this.#headEnd = headEnd;
    this.#ambiguousEnd = ambiguousEnd;
    this.shardBits = bytes.readUInt8(ambiguousEnd);
    if (this.shardBits > 16) failWith(`it has 2^${this.shardBits} shards, more than 2^16`);
    this.count = bytes.readUInt32LE(ambiguousEnd + 1);
    const shards: ShardEntry[] = [];
    let at = ambiguousEnd + 5;
    for (let number = 0; number < 2 ** this.shardBits; number++) {
      if (at + 8 > bytes.length) failWith(`its shard ${number} runs past its end`);
      const count = bytes.readUInt32LE(at);
      const size = bytes.readUInt32LE(at + 4);
      const [etag, afterTag] = readTag(bytes, at + 8, `its shard ${number}`);
      const [packEtag, next] = readTag(bytes, afterTag, `its shard ${number}`);
      shards.push({ count, size, etag, packEtag });
      at = next;
    }
    if (at !== bytes.length) failWith('it has bytes after its last shard');
    if (shards.reduce((sum, shard) => sum + shard.count, 0) !== this.count) failWith('its shards do not add up to its count');
    this.shards = shards;
  }

  /** The head's bytes: the manifest without its files nor its ambiguous lookups, JSON. */
  headBytes(): Buffer {
    return this.#bytes.subarray(12, this.#headEnd);
  }

  /**
   * The manifest's `ambiguous`, JSON: apart from the rest of the head, because a world build lists
   * tens of thousands, which a proxy need not parse to start; their bytes are checked against
   * their SHA-256 when the head is opened.
   */
  ambiguousBytes(): Buffer {
    return this.#bytes.subarray(this.#headEnd + ambiguousPrefixBytes, this.#ambiguousEnd);
  }

  /** The manifest without its files, as manifest.json holds it, key for key (not checked against its schema). */
  manifestHead(): unknown {
    const head = JSON.parse(this.headBytes().toString('utf8')) as unknown;
    const ambiguous = JSON.parse(this.ambiguousBytes().toString('utf8')) as unknown;
    if (typeof head !== 'object' || head === null || Array.isArray(head)) return head;
    const ordered: Record<string, unknown> = {};
    // After `counts`, where manifest.json has it; last in a head without counts.
    for (const [key, value] of Object.entries(head)) {
      ordered[key] = value;
      if (key === 'counts') ordered.ambiguous = ambiguous;
    }
    if (!('ambiguous' in ordered)) ordered.ambiguous = ambiguous;
    return ordered;
  }

  /** The number of the shard a path's entry is in. */
  shardOf(file: string): number {
    return shardOf(file, this.shardBits);
  }
}

/**
 * Reads into `target` the bytes of a shard file from `position` on, as many as fit: returns how
 * many it read (fewer at the file's end). A pread(2) on a file, or a copy from bytes in memory.
 */
export type PositionalRead = (target: Buffer, position: number) => number;

/** A positional read over bytes in memory. */
export function readFromBytes(bytes: Buffer): PositionalRead {
  return (target, position) => (position >= bytes.length ? 0 : bytes.copy(target, 0, position, Math.min(bytes.length, position + target.length)));
}

/**
 * Scratch space for a lookup's read: one page. Shared by every shard of a process: a lookup reads
 * and decodes synchronously, so no two use it at once.
 */
const pageScratch = Buffer.alloc(pageBytes);

const tagPattern = /^[A-Za-z0-9_-]+$/;

/**
 * One shard, read through positional reads: a lookup reads the one page its path's hash names (and
 * the next, rarely, where that page overflowed), never the whole shard. Its header is read and
 * checked against the head's entry when it is opened. Never throws on a lookup, whatever the
 * bytes: an entry that does not hold the path asked for, or lies outside its page, is a miss.
 */
export class LookupShard {
  readonly count: number;
  /** Its pack file, relative to the build (`lookups/<ETag>.pack`). */
  readonly pack: string;
  /** Its pack's ETag (quoted). */
  readonly packEtag: string;
  readonly #read: PositionalRead;
  readonly #pages: number;
  readonly #offsetsStart: number;

  /**
   * Opens shard `number` of 2^shardBits, as the head lists it, over `read`: reads its header and
   * throws an Error naming what is wrong when it is not that shard.
   */
  constructor(read: PositionalRead, shardBits: number, number: number, listed: ShardEntry) {
    const header = Buffer.alloc(shardHeaderLength + longestTag + 8);
    const got = read(header, 0);
    if (got < shardHeaderLength + 8 || header.toString('latin1', 0, 4) !== shardMagic) failWith(`it does not start with ${shardMagic}`);
    if (header.readUInt32LE(4) !== version) failWith(`it is version ${header.readUInt32LE(4)}, this service reads ${version}`);
    if (header.readUInt8(8) !== shardBits || header.readUInt32LE(9) !== number)
      failWith(`it is shard ${header.readUInt32LE(9)} of 2^${header.readUInt8(8)}, not shard ${number} of 2^${shardBits}`);
    const headerLength = shardHeaderLength + header.readUInt8(13) + 8;
    if (headerLength > got) failWith('its header runs past its end');
    this.packEtag = `"${header.toString('latin1', 14, headerLength - 8)}"`;
    if (this.packEtag !== listed.packEtag) failWith(`its pack is ${this.packEtag}, the head lists ${listed.packEtag}`);
    if (!tagPattern.test(this.packEtag.slice(1, -1))) failWith(`its pack's ${JSON.stringify(this.packEtag)} is not a strong ETag`);
    this.pack = packFileOf(this.packEtag);
    this.count = header.readUInt32LE(headerLength - 8);
    if (this.count !== listed.count) failWith(`it holds ${this.count} entries, the head lists ${listed.count}`);
    this.#pages = header.readUInt32LE(headerLength - 4);
    if (this.#pages === 0) failWith('its hash table has no page');
    this.#read = read;
    this.#offsetsStart = pageBytes + this.#pages * pageBytes;
  }

  /** Shard `number` over bytes in memory (the generator, tools and tests). */
  static over(bytes: Buffer, shardBits: number, number: number, listed: ShardEntry): LookupShard {
    return new LookupShard(readFromBytes(bytes), shardBits, number, listed);
  }

  /** The entry of body file `file`, or undefined: one page read, as a rule. */
  find(file: string): PackedEntry | undefined {
    const hash = fnv1a32(file);
    let page = homePage(hash, this.#pages);
    for (let read = 0; read < this.#pages; read++) {
      const bytes = pageScratch;
      if (this.#read(bytes, pageBytes + page * pageBytes) < pageBytes) return undefined;
      const count = bytes.readUInt16LE(0);
      let at = pageHeaderBytes;
      for (let entry = 0; entry < count && at + entryFixedBytes <= pageBytes; entry++) {
        const pathLength = bytes.readUInt16LE(at + 4);
        const tagLengthAt = at + 6 + pathLength + 8;
        if (tagLengthAt >= pageBytes) return undefined;
        const end = tagLengthAt + 1 + bytes.readUInt8(tagLengthAt);
        if (end > pageBytes) return undefined;
        if (bytes.readUInt32LE(at) === hash && pathLength === file.length && pathEquals(bytes, at + 6, file)) return this.#entryAt(bytes, at, pathLength);
        at = end;
      }
      // Only a page some entry passed over to reach a later one can hold more of this hash's.
      if (bytes.readUInt16LE(2) === 0) return undefined;
      page = (page + 1) % this.#pages;
    }
    return undefined;
  }

  /** The entry at `at` of `bytes` (whose path is `pathLength` long), or undefined where its tag is not a strong ETag. */
  #entryAt(bytes: Buffer, at: number, pathLength: number): PackedEntry | undefined {
    const after = at + 6 + pathLength;
    const tag = bytes.toString('latin1', after + 9, after + 9 + bytes.readUInt8(after + 8));
    if (!tagPattern.test(tag)) return undefined;
    return { size: bytes.readUInt32LE(after), etag: `"${tag}"`, pack: this.pack, offset: bytes.readUInt32LE(after + 4) };
  }

  /** The path and entry of entry `number` (0 to count − 1) in path order, or undefined when it lies outside the file. */
  entryAt(number: number): readonly [string, PackedEntry] | undefined {
    if (number < 0 || number >= this.count) return undefined;
    const word = Buffer.alloc(4);
    if (this.#read(word, this.#offsetsStart + number * 4) < 4) return undefined;
    const at = word.readUInt32LE(0);
    // An entry never crosses a page: reading up to the end of its page reads all of it.
    if (at < pageBytes || at >= this.#offsetsStart) return undefined;
    const bytes = Buffer.alloc(pageBytes - (at % pageBytes));
    const got = this.#read(bytes, at);
    if (got < entryFixedBytes) return undefined;
    const pathLength = bytes.readUInt16LE(4);
    if (entryFixedBytes + pathLength > got || entryFixedBytes + pathLength + bytes.readUInt8(6 + pathLength + 8) > got) return undefined;
    const entry = this.#entryAt(bytes, 0, pathLength);
    return entry === undefined ? undefined : [bytes.toString('latin1', 6, 6 + pathLength), entry];
  }

  /** The path of entry `number` (0 to count − 1), or undefined when its entry lies outside the file. */
  pathAt(number: number): string | undefined {
    return this.entryAt(number)?.[0];
  }

  /** Every body file and its entry, in path order. */
  *entries(): Generator<readonly [string, PackedEntry]> {
    for (let number = 0; number < this.count; number++) {
      const found = this.entryAt(number);
      if (found !== undefined) yield found;
    }
  }
}

/** Whether the latin1 bytes at `at` are `file`'s. */
function pathEquals(bytes: Buffer, at: number, file: string): boolean {
  for (let index = 0; index < file.length; index++) if (bytes[at + index] !== file.charCodeAt(index)) return false;
  return true;
}

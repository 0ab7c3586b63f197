/**
 * A build's lookup index and its bodies: which body files exist, with their size and ETag, found
 * by path, and where their bytes are. The generator writes it beside manifest.json; a proxy serves
 * from it instead, without ever holding all of it. It comes in three parts:
 *
 * - `lookups.idx`, the head: the manifest without its files, and a directory of shards (how many
 *   entries each holds, its size and ETag). A proxy reads it at start and at every build switch.
 * - `lookups/<ETag>.idx`, one file per shard: a hash table over the paths whose FNV-1a hash falls
 *   in it (the hash's top bits choose the shard), each entry with its body's size, ETag and offset
 *   in the shard's pack. A proxy reads a shard the first time a lookup needs it and keeps it in a
 *   cache bounded in bytes.
 * - `lookups/<ETag>.pack`, one file per shard: the bodies of its entries, one after another, each
 *   distinct body once. A body is one read of `size` bytes at its offset (a `Range` request from
 *   an origin).
 *
 * Shards and packs are named by their content, so one unchanged by a rebuild keeps its name: any
 * cache of it (a proxy's, Varnish's) stays valid, and the build hard-links it from the previous
 * one. A worker's memory and start-up depend on the cache's bound and the number of shards (a few
 * thousand entries each), not on the number of bodies; a build writes a few files per thousand
 * bodies instead of one per body.
 *
 * Layout (integers little-endian):
 *
 *   head:  "RDLI"  u32 version (2)  u32 headLength  head: the manifest without `files`, JSON (UTF-8)
 *          u8 shardBits  u32 count (all entries)
 *          2^shardBits × shard: u32 count, u32 size, u8 tagLength, the shard file's ETag without quotes
 *   shard: "RDLS"  u32 version (2)  u8 shardBits  u32 shard number  u8 packTagLength, its pack's ETag without quotes
 *          u32 count  u32 slots (a power of two, at least twice count)
 *          slots × u32: the hash table, open addressing with linear probing; 1 + an entry's number, 0 empty
 *          count × u32: each entry's offset
 *          count × entry: u16 pathLength, the path (latin1), u32 size, u32 offset in the pack,
 *                         u8 tagLength, the ETag without its quotes
 *
 * Paths are ASCII (contract/keys.ts writes keys so); a path with a character above U+00FF is
 * never found.
 */
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { computeEtag, type Manifest, type ManifestEntry } from './manifest.ts';

export const lookupIndexFileName = 'lookups.idx';
/** The folder of a build that holds its index shards. */
export const lookupShardsDir = 'lookups';

const headMagic = 'RDLI';
const shardMagic = 'RDLS';
const version = 2;
/** The fixed part of a shard's header, before its pack's tag. */
const shardHeaderLength = 14;

/**
 * Entries a shard holds on average, at most: a shard is then about 270 KB to 380 KB, read and
 * checked in about 3 ms, and a cache of 32 MB holds about a hundred of them (`npm run bench:memory`).
 */
export const entriesPerShard = 4_096;

/** The manifest without its files: what the index's head holds. */
export type ManifestHead = Omit<Manifest, 'files'>;

/** FNV-1a, 32 bits, over the char codes of `text` (its latin1 bytes). */
function hashOf(text: string): number {
  let hash = 0x811c9dc5;
  for (let index = 0; index < text.length; index++) {
    hash ^= text.charCodeAt(index) & 0xff;
    hash = Math.imul(hash, 0x01000193);
  }
  return hash >>> 0;
}

/** The shard a path's entry is in, of 2^shardBits. */
export function shardOf(file: string, shardBits: number): number {
  return shardBits === 0 ? 0 : hashOf(file) >>> (32 - shardBits);
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

function slotsFor(count: number): number {
  let slots = 16;
  while (slots < count * 2) slots *= 2;
  return slots;
}

/** How many bits of a path's hash choose its shard, for `count` entries of `perShard` or fewer per shard on average. */
export function shardBitsFor(count: number, perShard = entriesPerShard): number {
  return bitsFor(count, perShard);
}

function bitsFor(count: number, perShard: number): number {
  let bits = 0;
  while (bits < 16 && count > perShard << bits) bits++;
  return bits;
}

/** A shard as the head lists it. */
export interface ShardEntry extends ManifestEntry {
  /** Its entries. */
  readonly count: number;
}

/** Which paths go into which shard: 2^shardBits lists of paths, each in path order. */
export interface ShardPlan {
  readonly shardBits: number;
  readonly shards: readonly (readonly string[])[];
}

/** Splits a build's body paths into shards of `perShard` entries or fewer on average. */
export function planShards(paths: Iterable<string>, perShard = entriesPerShard): ShardPlan {
  const all = [...paths];
  const shardBits = bitsFor(all.length, perShard);
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

/** Shard `number` of 2^shardBits: its paths' entries in `pack`. */
export function encodeShard(paths: readonly string[], pack: EncodedPack, shardBits: number, number: number): Buffer {
  const entryOf = (file: string): ManifestEntry & { readonly offset: number } => {
    const entry = pack.entries.get(file);
    if (entry === undefined) throw new Error(`${file}: not in the shard's pack`);
    if (!/^"[A-Za-z0-9_-]{1,255}"$/.test(entry.etag)) throw new Error(`${file}: the ETag ${entry.etag} is not a strong one of at most 255 characters`);
    return entry;
  };
  const packTag = pack.etag.slice(1, -1);
  const headerLength = shardHeaderLength + packTag.length;
  const slots = slotsFor(paths.length);
  const recordBytes = paths.reduce((sum, file) => sum + 2 + file.length + 8 + 1 + (entryOf(file).etag.length - 2), 0);
  const tableStart = headerLength + 8;
  const offsetsStart = tableStart + slots * 4;
  const recordsStart = offsetsStart + paths.length * 4;
  const buffer = Buffer.alloc(recordsStart + recordBytes);
  buffer.write(shardMagic, 0, 'latin1');
  buffer.writeUInt32LE(version, 4);
  buffer.writeUInt8(shardBits, 8);
  buffer.writeUInt32LE(number, 9);
  buffer.writeUInt8(packTag.length, 13);
  buffer.write(packTag, 14, 'latin1');
  buffer.writeUInt32LE(paths.length, tableStart - 8);
  buffer.writeUInt32LE(slots, tableStart - 4);
  let at = recordsStart;
  paths.forEach((file, entryNumber) => {
    const entry = entryOf(file);
    let slot = hashOf(file) & (slots - 1);
    while (buffer.readUInt32LE(tableStart + slot * 4) !== 0) slot = (slot + 1) & (slots - 1);
    buffer.writeUInt32LE(entryNumber + 1, tableStart + slot * 4);
    buffer.writeUInt32LE(at, offsetsStart + entryNumber * 4);
    buffer.writeUInt16LE(file.length, at);
    buffer.write(file, at + 2, 'latin1');
    buffer.writeUInt32LE(entry.size, at + 2 + file.length);
    buffer.writeUInt32LE(entry.offset, at + 6 + file.length);
    const tag = entry.etag.slice(1, -1);
    buffer.writeUInt8(tag.length, at + 10 + file.length);
    buffer.write(tag, at + 11 + file.length, 'latin1');
    at += 2 + file.length + 8 + 1 + tag.length;
  });
  return buffer;
}

/** The head: the manifest without its files, and the directory of shards. */
export function encodeHead(head: ManifestHead, shardBits: number, shards: readonly ShardEntry[]): Buffer {
  const headBytes = Buffer.from(JSON.stringify(head), 'utf8');
  const directoryBytes = shards.reduce((sum, shard) => sum + 9 + shard.etag.length - 2, 0);
  const buffer = Buffer.alloc(12 + headBytes.length + 5 + directoryBytes);
  buffer.write(headMagic, 0, 'latin1');
  buffer.writeUInt32LE(version, 4);
  buffer.writeUInt32LE(headBytes.length, 8);
  headBytes.copy(buffer, 12);
  let at = 12 + headBytes.length;
  buffer.writeUInt8(shardBits, at);
  buffer.writeUInt32LE(
    shards.reduce((sum, shard) => sum + shard.count, 0),
    at + 1,
  );
  at += 5;
  for (const { count, size, etag } of shards) {
    const tag = etag.slice(1, -1);
    buffer.writeUInt32LE(count, at);
    buffer.writeUInt32LE(size, at + 4);
    buffer.writeUInt8(tag.length, at + 8);
    buffer.write(tag, at + 9, 'latin1');
    at += 9 + tag.length;
  }
  return buffer;
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
  return { pack, bytes, entry: { count: paths.length, size: bytes.length, etag: computeEtag(bytes) } };
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

/** Shard `number` of `head`, read from the build directory on the disk. */
export async function readLookupShard(buildDir: string, head: LookupHead, number: number): Promise<LookupShard> {
  return new LookupShard(await readFile(path.join(buildDir, shardFileOf(head.shards[number]?.etag ?? '""'))), head.shardBits, number);
}

/** Whether `bytes` start as a lookup index's head does (rather than as manifest.json). */
export function isLookupIndex(bytes: Uint8Array): boolean {
  return bytes.length >= 12 && Buffer.from(bytes.buffer, bytes.byteOffset, 4).toString('latin1') === headMagic;
}

function failWith(problem: string): never {
  throw new Error(problem);
}

/** An index's head opened over its bytes: the manifest's head and the directory of shards. */
export class LookupHead {
  /** Entries in all shards. */
  readonly count: number;
  readonly shardBits: number;
  readonly shards: readonly ShardEntry[];
  readonly #bytes: Buffer;

  /** Reads the layout; throws an Error naming what is wrong when the bytes are no head of this version. */
  constructor(bytes: Buffer) {
    if (!isLookupIndex(bytes)) failWith(`it does not start with ${headMagic}`);
    if (bytes.readUInt32LE(4) !== version)
      failWith(`it is version ${bytes.readUInt32LE(4)}, this service reads ${version}: build it again with this version (npm run build)`);
    const headEnd = 12 + bytes.readUInt32LE(8);
    if (headEnd + 5 > bytes.length) failWith('its head runs past its end');
    this.#bytes = bytes;
    this.shardBits = bytes.readUInt8(headEnd);
    if (this.shardBits > 16) failWith(`it has 2^${this.shardBits} shards, more than 2^16`);
    this.count = bytes.readUInt32LE(headEnd + 1);
    const shards: ShardEntry[] = [];
    let at = headEnd + 5;
    for (let number = 0; number < 2 ** this.shardBits; number++) {
      if (at + 9 > bytes.length) failWith(`its shard ${number} runs past its end`);
      const tagLength = bytes.readUInt8(at + 8);
      if (at + 9 + tagLength > bytes.length) failWith(`its shard ${number} runs past its end`);
      shards.push({ count: bytes.readUInt32LE(at), size: bytes.readUInt32LE(at + 4), etag: `"${bytes.toString('latin1', at + 9, at + 9 + tagLength)}"` });
      at += 9 + tagLength;
    }
    if (at !== bytes.length) failWith('it has bytes after its last shard');
    if (shards.reduce((sum, shard) => sum + shard.count, 0) !== this.count) failWith('its shards do not add up to its count');
    this.shards = shards;
  }

  /** The head's bytes (the manifest without files, JSON). */
  headBytes(): Buffer {
    return this.#bytes.subarray(12, 12 + this.#bytes.readUInt32LE(8));
  }

  /** The number of the shard a path's entry is in. */
  shardOf(file: string): number {
    return shardOf(file, this.shardBits);
  }
}

/** The bytes of a shard file that hold its pack's name, at most. */
export const shardHeaderBytes = shardHeaderLength + 255;

/** The ETag (quoted) of the pack a shard names, from the shard's first bytes (at least its header). */
export function shardPackEtag(bytes: Buffer): string {
  if (bytes.length < shardHeaderLength || bytes.toString('latin1', 0, 4) !== shardMagic) failWith(`it does not start with ${shardMagic}`);
  const end = shardHeaderLength + bytes.readUInt8(13);
  if (end > bytes.length) failWith('its header runs past its end');
  return `"${bytes.toString('latin1', shardHeaderLength, end)}"`;
}

/** One shard opened over its bytes: found by path, listed in path order. Never throws on a lookup. */
export class LookupShard {
  readonly count: number;
  /** Its bytes' length: what it costs a cache. */
  readonly size: number;
  readonly #bytes: Buffer;
  readonly #slots: number;
  readonly #tableStart: number;
  readonly #offsetsStart: number;

  /** Its pack file, relative to the build (`lookups/<ETag>.pack`). */
  readonly pack: string;
  /** Its pack's ETag (quoted). */
  readonly packEtag: string;

  /** Reads the layout; throws an Error naming what is wrong when the bytes are not shard `number` of 2^shardBits. */
  constructor(bytes: Buffer, shardBits: number, number: number) {
    if (bytes.length < shardHeaderLength + 8 || bytes.toString('latin1', 0, 4) !== shardMagic) failWith(`it does not start with ${shardMagic}`);
    if (bytes.readUInt32LE(4) !== version) failWith(`it is version ${bytes.readUInt32LE(4)}, this service reads ${version}`);
    if (bytes.readUInt8(8) !== shardBits || bytes.readUInt32LE(9) !== number)
      failWith(`it is shard ${bytes.readUInt32LE(9)} of 2^${bytes.readUInt8(8)}, not shard ${number} of 2^${shardBits}`);
    const headerLength = shardHeaderLength + bytes.readUInt8(13);
    if (headerLength + 8 > bytes.length) failWith('its header runs past its end');
    this.packEtag = `"${bytes.toString('latin1', 14, headerLength)}"`;
    this.pack = packFileOf(this.packEtag);
    const tableStart = headerLength + 8;
    this.count = bytes.readUInt32LE(tableStart - 8);
    this.#slots = bytes.readUInt32LE(tableStart - 4);
    if (this.#slots === 0 || (this.#slots & (this.#slots - 1)) !== 0 || this.#slots < this.count)
      failWith('its hash table is not a power of two larger than its entries');
    this.#bytes = bytes;
    this.size = bytes.length;
    this.#tableStart = tableStart;
    this.#offsetsStart = tableStart + this.#slots * 4;
    if (this.#offsetsStart + this.count * 4 > bytes.length) failWith('its entries run past its end');
  }

  /** The entry of body file `file`, or undefined. */
  find(file: string): PackedEntry | undefined {
    const bytes = this.#bytes;
    const mask = this.#slots - 1;
    for (let slot = hashOf(file) & mask, probes = 0; probes < this.#slots; slot = (slot + 1) & mask, probes++) {
      const number = bytes.readUInt32LE(this.#tableStart + slot * 4);
      if (number === 0) return undefined;
      const at = this.#offsetOf(number - 1);
      if (at !== undefined && this.#pathEquals(at, file)) return this.#entryAt(at);
    }
    return undefined;
  }

  /** The path of entry `number` (0 to count − 1), or undefined when its record lies outside the bytes. */
  pathAt(number: number): string | undefined {
    const at = this.#offsetOf(number);
    return at === undefined ? undefined : this.#bytes.toString('latin1', at + 2, at + 2 + this.#bytes.readUInt16LE(at));
  }

  /** The entry of entry `number`, or undefined when its record lies outside the bytes. */
  entryAt(number: number): PackedEntry | undefined {
    const at = this.#offsetOf(number);
    return at === undefined ? undefined : this.#entryAt(at);
  }

  /** Every body file and its entry, in path order. */
  *entries(): Generator<readonly [string, PackedEntry]> {
    for (let number = 0; number < this.count; number++) {
      const at = this.#offsetOf(number);
      if (at === undefined) continue;
      yield [this.#bytes.toString('latin1', at + 2, at + 2 + this.#bytes.readUInt16LE(at)), this.#entryAt(at)];
    }
  }

  #offsetOf(number: number): number | undefined {
    if (number < 0 || number >= this.count) return undefined;
    const at = this.#bytes.readUInt32LE(this.#offsetsStart + number * 4);
    if (at + 2 > this.#bytes.length) return undefined;
    const tagAt = at + 2 + this.#bytes.readUInt16LE(at) + 8;
    if (tagAt + 1 > this.#bytes.length) return undefined;
    return tagAt + 1 + this.#bytes.readUInt8(tagAt) <= this.#bytes.length ? at : undefined;
  }

  #pathEquals(at: number, file: string): boolean {
    const bytes = this.#bytes;
    if (bytes.readUInt16LE(at) !== file.length) return false;
    for (let index = 0; index < file.length; index++) if (bytes[at + 2 + index] !== file.charCodeAt(index)) return false;
    return true;
  }

  #entryAt(at: number): PackedEntry {
    const pathLength = this.#bytes.readUInt16LE(at);
    const sizeAt = at + 2 + pathLength;
    const tagLength = this.#bytes.readUInt8(sizeAt + 8);
    return {
      size: this.#bytes.readUInt32LE(sizeAt),
      etag: `"${this.#bytes.toString('latin1', sizeAt + 9, sizeAt + 9 + tagLength)}"`,
      pack: this.pack,
      offset: this.#bytes.readUInt32LE(sizeAt + 4),
    };
  }
}

/**
 * `lookups.idx`: the manifest as a proxy serves from it, in one buffer. The generator writes it
 * beside manifest.json; a proxy reads it instead, so that a build of 170,000 files costs a worker one
 * buffer of about 17 MB outside the JavaScript heap and a hash table over it, instead of a parsed
 * 24 MB JSON document (over 100 MB while it is parsed) and an object per file. Switching builds
 * then holds two such buffers for a moment, and leaves no garbage behind.
 *
 * Layout (integers little-endian):
 *
 *   "RDLI"  u32 version (1)  u32 headLength  head: the manifest without `files`, JSON (UTF-8)
 *   u32 count  u32 slots (a power of two, at least twice count)
 *   slots × u32: the hash table, open addressing with linear probing; 1 + an entry's number, 0 empty
 *   count × u32: each entry's offset
 *   count × entry: u16 pathLength, the path (latin1), u32 size, u8 tagLength, the ETag without its quotes
 *
 * An entry is found by the FNV-1a hash of its path. Paths are ASCII (contract/keys.ts writes keys
 * so); a path with a character above U+00FF is never found.
 */
import type { Manifest, ManifestEntry } from './manifest.ts';

export const lookupIndexFileName = 'lookups.idx';

const magic = 'RDLI';
const version = 1;

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

function slotsFor(count: number): number {
  let slots = 16;
  while (slots < count * 2) slots *= 2;
  return slots;
}

/** The index of a manifest's head and files (the generator's side). */
export function encodeLookupIndex(head: ManifestHead, files: Manifest['files']): Buffer {
  const headBytes = Buffer.from(JSON.stringify(head), 'utf8');
  const paths = Object.keys(files).sort();
  const slots = slotsFor(paths.length);
  const recordBytes = paths.reduce((sum, file) => sum + 2 + file.length + 4 + 1 + ((files[file] as ManifestEntry).etag.length - 2), 0);
  const tableStart = 12 + headBytes.length + 8;
  const offsetsStart = tableStart + slots * 4;
  const recordsStart = offsetsStart + paths.length * 4;
  const buffer = Buffer.alloc(recordsStart + recordBytes);
  buffer.write(magic, 0, 'latin1');
  buffer.writeUInt32LE(version, 4);
  buffer.writeUInt32LE(headBytes.length, 8);
  headBytes.copy(buffer, 12);
  buffer.writeUInt32LE(paths.length, tableStart - 8);
  buffer.writeUInt32LE(slots, tableStart - 4);
  let at = recordsStart;
  paths.forEach((file, number) => {
    const entry = files[file] as ManifestEntry;
    if (file.length > 0xffff || /[^\x20-\x7e]/.test(file)) throw new Error(`${file.slice(0, 200)}: a body file's path must be printable ASCII`);
    if (!/^"[A-Za-z0-9_-]{1,255}"$/.test(entry.etag)) throw new Error(`${file}: the ETag ${entry.etag} is not a strong one of at most 255 characters`);
    let slot = hashOf(file) & (slots - 1);
    while (buffer.readUInt32LE(tableStart + slot * 4) !== 0) slot = (slot + 1) & (slots - 1);
    buffer.writeUInt32LE(number + 1, tableStart + slot * 4);
    buffer.writeUInt32LE(at, offsetsStart + number * 4);
    buffer.writeUInt16LE(file.length, at);
    buffer.write(file, at + 2, 'latin1');
    buffer.writeUInt32LE(entry.size, at + 2 + file.length);
    const tag = entry.etag.slice(1, -1);
    buffer.writeUInt8(tag.length, at + 6 + file.length);
    buffer.write(tag, at + 7 + file.length, 'latin1');
    at += 2 + file.length + 4 + 1 + tag.length;
  });
  return buffer;
}

/** Whether `bytes` start as a lookup index does (rather than as manifest.json). */
export function isLookupIndex(bytes: Uint8Array): boolean {
  return bytes.length >= 12 && Buffer.from(bytes.buffer, bytes.byteOffset, 4).toString('latin1') === magic;
}

/** A lookup index opened over its bytes: found by path, listed in path order. Never throws on a lookup. */
export class LookupTable {
  readonly count: number;
  readonly #bytes: Buffer;
  readonly #slots: number;
  readonly #tableStart: number;
  readonly #offsetsStart: number;

  /** Reads the layout; throws an Error naming what is wrong when the bytes are no index of this version. */
  constructor(bytes: Buffer) {
    const fail = (problem: string): never => {
      throw new Error(problem);
    };
    if (!isLookupIndex(bytes)) fail('it does not start with RDLI');
    if (bytes.readUInt32LE(4) !== version) fail(`it is version ${bytes.readUInt32LE(4)}, this service reads ${version}`);
    const headLength = bytes.readUInt32LE(8);
    const tableStart = 12 + headLength + 8;
    if (tableStart > bytes.length) fail('its head runs past its end');
    this.count = bytes.readUInt32LE(tableStart - 8);
    this.#slots = bytes.readUInt32LE(tableStart - 4);
    if (this.#slots === 0 || (this.#slots & (this.#slots - 1)) !== 0 || this.#slots < this.count)
      fail('its hash table is not a power of two larger than its entries');
    this.#bytes = bytes;
    this.#tableStart = tableStart;
    this.#offsetsStart = tableStart + this.#slots * 4;
    if (this.#offsetsStart + this.count * 4 > bytes.length) fail('its entries run past its end');
  }

  /** The head's bytes (the manifest without files, JSON). */
  headBytes(): Buffer {
    return this.#bytes.subarray(12, 12 + this.#bytes.readUInt32LE(8));
  }

  /** The entry of body file `file`, or undefined. */
  find(file: string): ManifestEntry | undefined {
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
  entryAt(number: number): ManifestEntry | undefined {
    const at = this.#offsetOf(number);
    return at === undefined ? undefined : this.#entryAt(at);
  }

  /** Every body file and its entry, in path order. */
  *entries(): Generator<readonly [string, ManifestEntry]> {
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
    const tagAt = at + 2 + this.#bytes.readUInt16LE(at) + 4;
    if (tagAt + 1 > this.#bytes.length) return undefined;
    return tagAt + 1 + this.#bytes.readUInt8(tagAt) <= this.#bytes.length ? at : undefined;
  }

  #pathEquals(at: number, file: string): boolean {
    const bytes = this.#bytes;
    if (bytes.readUInt16LE(at) !== file.length) return false;
    for (let index = 0; index < file.length; index++) if (bytes[at + 2 + index] !== file.charCodeAt(index)) return false;
    return true;
  }

  #entryAt(at: number): ManifestEntry {
    const pathLength = this.#bytes.readUInt16LE(at);
    const sizeAt = at + 2 + pathLength;
    const tagLength = this.#bytes.readUInt8(sizeAt + 4);
    return { size: this.#bytes.readUInt32LE(sizeAt), etag: `"${this.#bytes.toString('latin1', sizeAt + 5, sizeAt + 5 + tagLength)}"` };
  }
}

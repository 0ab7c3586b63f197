/**
 * Bodies on their way to the build's packs, kept on the disk instead of in memory while the build
 * makes them: a build of the world's addresses makes millions of bodies, gigabytes of text, and
 * holding them all until they are packed was most of its memory.
 *
 * Each body is appended, with its path, to one of 256 bucket files chosen by the top byte of its
 * path's hash, the same hash whose top bits choose its index shard (contract/lookupIndex.ts). When
 * every body is made, the build knows how many shards it needs and reads the buckets back one at a
 * time: a bucket is a whole number of shards, or a shard a whole number of buckets. Memory is then a
 * write buffer per bucket while bodies are made, and one bucket's bodies (or one shard's) while
 * they are packed.
 *
 * Bucket record: u16 pathLength, the path (latin1), u32 bodyLength, the body (UTF-8).
 */
import { closeSync, mkdirSync, openSync, readFileSync, rmSync, writeSync } from 'node:fs';
import path from 'node:path';
import { shardBitsFor, shardOf } from '../../contract/lookupIndex.ts';

/** Where a build's indexers put each body they make: a Map, or the spill. */
export interface BodySink {
  set(file: string, body: string): unknown;
}

/** The folder of the builds root a build spills its bodies into (the build lock makes it one build's). */
export const spillDirName = '.bodies';

const bucketBits = 8;
const bucketCount = 2 ** bucketBits;
/** Bytes a bucket gathers before they are written: 256 buckets of 256 KB, 64 MB at most. */
const flushBytes = 256 * 1024;

/** Bodies kept in bucket files under `dir` (made by the constructor, removed by `remove`). */
export class SpilledBodies implements BodySink {
  readonly #dir: string;
  readonly #fds: number[] = [];
  /**
   * Each bucket's write buffer, allocated once: a body is encoded straight into it, so making a
   * body allocates nothing that outlives it (a buffer per body, held until its bucket was written,
   * lived long enough to be promoted, and collecting them was most of a world build's time).
   */
  readonly #buffers: Buffer[] = [];
  readonly #used = new Array<number>(bucketCount).fill(0);
  #count = 0;
  #bytes = 0;
  #finished = false;

  constructor(dir: string) {
    this.#dir = dir;
    // Whatever a build that died left here.
    rmSync(dir, { recursive: true, force: true });
    mkdirSync(dir, { recursive: true });
    for (let bucket = 0; bucket < bucketCount; bucket++) {
      this.#fds.push(openSync(this.#fileOf(bucket), 'w'));
      this.#buffers.push(Buffer.allocUnsafe(flushBytes));
    }
  }

  /** Bodies set. */
  get count(): number {
    return this.#count;
  }

  /** Their bytes, added up. */
  get bytes(): number {
    return this.#bytes;
  }

  set(file: string, body: string): this {
    if (this.#finished) throw new Error('bodies cannot be added once they are read back');
    if (file.length > 0xffff || !printableAscii.test(file)) throw new Error(`${file.slice(0, 200)}: a body file's path must be printable ASCII`);
    const bucket = shardOf(file, bucketBits);
    const headLength = 6 + file.length;
    // UTF-8 takes at most three bytes for each UTF-16 unit: the exact length is counted only where that bound does not fit.
    let need = headLength + body.length * 3;
    if (need > flushBytes - (this.#used[bucket] as number)) {
      need = headLength + Buffer.byteLength(body);
      if (need > flushBytes - (this.#used[bucket] as number)) this.#flush(bucket);
    }
    let bodyLength: number;
    if (need <= flushBytes) {
      const buffer = this.#buffers[bucket] as Buffer;
      const at = this.#used[bucket] as number;
      buffer.writeUInt16LE(file.length, at);
      buffer.write(file, at + 2, 'latin1');
      bodyLength = buffer.write(body, at + headLength, 'utf8');
      buffer.writeUInt32LE(bodyLength, at + 2 + file.length);
      this.#used[bucket] = at + headLength + bodyLength;
    } else {
      // A body larger than a bucket's buffer: written on its own, after what the bucket held.
      const encoded = Buffer.from(body, 'utf8');
      bodyLength = encoded.length;
      const head = Buffer.allocUnsafe(headLength);
      head.writeUInt16LE(file.length, 0);
      head.write(file, 2, 'latin1');
      head.writeUInt32LE(bodyLength, 2 + file.length);
      writeFully(this.#fds[bucket] as number, head);
      writeFully(this.#fds[bucket] as number, encoded);
    }
    this.#count++;
    this.#bytes += bodyLength;
    return this;
  }

  /** The shard bits of the index over these bodies, of `perShard` or fewer per shard on average. */
  shardBits(perShard?: number): number {
    return shardBitsFor(this.#count, perShard);
  }

  /**
   * Each shard's bodies by path, shard by shard in order, for an index of 2^shardBits shards.
   * Throws naming a path set twice: two routes writing one file is a fault of the build.
   */
  *shards(shardBits: number): Generator<readonly [number, Map<string, Buffer>]> {
    yield* spilledShards(this.seal(), shardBits);
  }

  /**
   * Writes out what the buckets still hold and closes them: no body can be added after. Returns
   * the folder, whose shards spilledShards reads (in this thread or another).
   */
  seal(): string {
    this.#finish();
    return this.#dir;
  }

  /** Removes the bucket files. */
  remove(): void {
    if (!this.#finished) for (const fd of this.#fds) closeSync(fd);
    this.#finished = true;
    rmSync(this.#dir, { recursive: true, force: true });
  }

  #fileOf(bucket: number): string {
    return bucketFile(this.#dir, bucket);
  }

  #flush(bucket: number): void {
    const used = this.#used[bucket] as number;
    if (used === 0) return;
    writeFully(this.#fds[bucket] as number, (this.#buffers[bucket] as Buffer).subarray(0, used));
    this.#used[bucket] = 0;
  }

  #finish(): void {
    if (this.#finished) return;
    for (let bucket = 0; bucket < bucketCount; bucket++) this.#flush(bucket);
    for (const fd of this.#fds) closeSync(fd);
    this.#buffers.length = 0;
    this.#finished = true;
  }
}

/** The file of bucket `bucket` in a spill's folder. */
function bucketFile(dir: string, bucket: number): string {
  return path.join(dir, `${bucket.toString(16).padStart(2, '0')}.bodies`);
}

/** The bodies of bucket `bucket` of the sealed spill in `dir`, each with its path. */
function readBucket(dir: string, bucket: number, each: (file: string, body: Buffer) => void): void {
  const bytes = readFileSync(bucketFile(dir, bucket));
  for (let at = 0; at < bytes.length; ) {
    const pathLength = bytes.readUInt16LE(at);
    const file = bytes.toString('latin1', at + 2, at + 2 + pathLength);
    const bodyLength = bytes.readUInt32LE(at + 2 + pathLength);
    const start = at + 6 + pathLength;
    each(file, bytes.subarray(start, start + bodyLength));
    at = start + bodyLength;
  }
}

/**
 * The group of buckets a shard's bodies are read with: a bucket is read once for all the shards in
 * it, so the shards of one bucket go to the same reader.
 */
export function readGroupOf(number: number, shardBits: number): number {
  return shardBits >= bucketBits ? number >>> (shardBits - bucketBits) : number;
}

/**
 * The shards (those `wanted` names) of the sealed spill in `dir`, each with its bodies by path, in
 * shard order, for an index of 2^shardBits shards. Throws naming a path set twice: two routes
 * writing one file is a fault of the build.
 */
export function* spilledShards(
  dir: string,
  shardBits: number,
  wanted: (number: number) => boolean = () => true,
): Generator<readonly [number, Map<string, Buffer>]> {
  if (shardBits >= bucketBits) {
    const perBucket = 2 ** (shardBits - bucketBits);
    for (let bucket = 0; bucket < bucketCount; bucket++) {
      const numbers = Array.from({ length: perBucket }, (_, offset) => bucket * perBucket + offset).filter(wanted);
      if (numbers.length === 0) continue;
      const shards = Array.from({ length: perBucket }, () => new Map<string, Buffer>());
      readBucket(dir, bucket, (file, body) => add(shards[shardOf(file, shardBits) - bucket * perBucket] as Map<string, Buffer>, file, body));
      for (const number of numbers) yield [number, shards[number - bucket * perBucket] as Map<string, Buffer>];
    }
    return;
  }
  const bucketsPerShard = 2 ** (bucketBits - shardBits);
  for (let number = 0; number < 2 ** shardBits; number++) {
    if (!wanted(number)) continue;
    const shard = new Map<string, Buffer>();
    for (let bucket = number * bucketsPerShard; bucket < (number + 1) * bucketsPerShard; bucket++)
      readBucket(dir, bucket, (file, body) => add(shard, file, body));
    yield [number, shard];
  }
}

const printableAscii = /^[\x20-\x7e]*$/;

function writeFully(fd: number, bytes: Buffer): void {
  for (let written = 0; written < bytes.length; ) written += writeSync(fd, bytes, written);
}

function add(shard: Map<string, Buffer>, file: string, body: Buffer): void {
  if (shard.has(file)) throw new Error(`${file}: two bodies were made for this file`);
  shard.set(file, body);
}

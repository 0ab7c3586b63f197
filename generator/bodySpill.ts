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
import { shardBitsFor, shardOf } from '../contract/lookupIndex.ts';

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
  readonly #pending: Buffer[][] = Array.from({ length: bucketCount }, () => []);
  readonly #pendingBytes = new Array<number>(bucketCount).fill(0);
  #count = 0;
  #bytes = 0;
  #finished = false;

  constructor(dir: string) {
    this.#dir = dir;
    // Whatever a build that died left here.
    rmSync(dir, { recursive: true, force: true });
    mkdirSync(dir, { recursive: true });
    for (let bucket = 0; bucket < bucketCount; bucket++) this.#fds.push(openSync(this.#fileOf(bucket), 'w'));
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
    if (file.length > 0xffff || /[^\x20-\x7e]/.test(file)) throw new Error(`${file.slice(0, 200)}: a body file's path must be printable ASCII`);
    const bodyLength = Buffer.byteLength(body);
    const record = Buffer.allocUnsafe(2 + file.length + 4 + bodyLength);
    record.writeUInt16LE(file.length, 0);
    record.write(file, 2, 'latin1');
    record.writeUInt32LE(bodyLength, 2 + file.length);
    record.write(body, 6 + file.length, 'utf8');
    const bucket = shardOf(file, bucketBits);
    (this.#pending[bucket] as Buffer[]).push(record);
    this.#pendingBytes[bucket] = (this.#pendingBytes[bucket] as number) + record.length;
    if ((this.#pendingBytes[bucket] as number) >= flushBytes) this.#flush(bucket);
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
    this.#finish();
    if (shardBits >= bucketBits) {
      const perBucket = 2 ** (shardBits - bucketBits);
      for (let bucket = 0; bucket < bucketCount; bucket++) {
        const shards = Array.from({ length: perBucket }, () => new Map<string, Buffer>());
        this.#read(bucket, (file, body) => add(shards[shardOf(file, shardBits) - bucket * perBucket] as Map<string, Buffer>, file, body));
        for (const [offset, shard] of shards.entries()) yield [bucket * perBucket + offset, shard];
      }
      return;
    }
    const bucketsPerShard = 2 ** (bucketBits - shardBits);
    for (let number = 0; number < 2 ** shardBits; number++) {
      const shard = new Map<string, Buffer>();
      for (let bucket = number * bucketsPerShard; bucket < (number + 1) * bucketsPerShard; bucket++) this.#read(bucket, (file, body) => add(shard, file, body));
      yield [number, shard];
    }
  }

  /** Removes the bucket files. */
  remove(): void {
    if (!this.#finished) for (const fd of this.#fds) closeSync(fd);
    this.#finished = true;
    rmSync(this.#dir, { recursive: true, force: true });
  }

  #fileOf(bucket: number): string {
    return path.join(this.#dir, `${bucket.toString(16).padStart(2, '0')}.bodies`);
  }

  #flush(bucket: number): void {
    const records = this.#pending[bucket] as Buffer[];
    if (records.length === 0) return;
    const bytes = Buffer.concat(records);
    let written = 0;
    while (written < bytes.length) written += writeSync(this.#fds[bucket] as number, bytes, written);
    this.#pending[bucket] = [];
    this.#pendingBytes[bucket] = 0;
  }

  #finish(): void {
    if (this.#finished) return;
    for (let bucket = 0; bucket < bucketCount; bucket++) this.#flush(bucket);
    for (const fd of this.#fds) closeSync(fd);
    this.#finished = true;
  }

  #read(bucket: number, each: (file: string, body: Buffer) => void): void {
    const bytes = readFileSync(this.#fileOf(bucket));
    for (let at = 0; at < bytes.length; ) {
      const pathLength = bytes.readUInt16LE(at);
      const file = bytes.toString('latin1', at + 2, at + 2 + pathLength);
      const bodyLength = bytes.readUInt32LE(at + 2 + pathLength);
      const start = at + 6 + pathLength;
      each(file, bytes.subarray(start, start + bodyLength));
      at = start + bodyLength;
    }
  }
}

function add(shard: Map<string, Buffer>, file: string, body: Buffer): void {
  if (shard.has(file)) throw new Error(`${file}: two bodies were made for this file`);
  shard.set(file, body);
}

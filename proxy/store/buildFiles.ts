/**
 * A local build's shard and pack files, each opened once and read in place with pread(2).
 *
 * A lookup reads a few dozen bytes of a shard and one body of a pack. Reading them synchronously
 * is what a static file server does (nginx reads and sends on its event loop): from the page cache
 * a pread costs about a microsecond, while a read handed to libuv's thread pool costs a round trip
 * between threads per request. A file is opened the first time a lookup needs it and stays open
 * for as long as the build is served (a world build has a few thousand files; Node raises the
 * process's soft limit on descriptors to its hard limit at start).
 *
 * Once the build is no longer served (`close`), its descriptors are closed at once, so that a
 * pruned build's space is freed; a request that started on it and reads afterwards opens, reads and
 * closes the file, and is still answered.
 */
import { closeSync, openSync, readSync } from 'node:fs';
import path from 'node:path';
import type { PositionalRead } from '../../contract/lookupIndex.ts';

export class BuildFiles {
  readonly #dir: string;
  readonly #open = new Map<string, number>();
  #closed = false;

  constructor(dir: string) {
    this.#dir = dir;
  }

  /** Reads into `target`, as many bytes as fit, from `position` of `file` (relative to the build): how many it read. */
  read(file: string, target: Buffer, position: number): number {
    if (this.#closed) {
      const fd = openSync(path.join(this.#dir, file), 'r');
      try {
        return readFully(fd, target, position);
      } finally {
        closeSync(fd);
      }
    }
    return readFully(this.#descriptorOf(file), target, position);
  }

  /** `file` as a positional read, opened now (a missing file throws here) unless the build is closed. */
  reader(file: string): PositionalRead {
    if (!this.#closed) this.#descriptorOf(file);
    return (target, position) => this.read(file, target, position);
  }

  #descriptorOf(file: string): number {
    let fd = this.#open.get(file);
    if (fd === undefined) {
      fd = openSync(path.join(this.#dir, file), 'r');
      this.#open.set(file, fd);
    }
    return fd;
  }

  /** Files open now. */
  get openFiles(): number {
    return this.#open.size;
  }

  /** Closes every file; reads after this open and close their file each time. */
  close(): void {
    this.#closed = true;
    for (const fd of this.#open.values()) closeSync(fd);
    this.#open.clear();
  }
}

/** pread(2) until `target` is full or the file ends. */
function readFully(fd: number, target: Buffer, position: number): number {
  let done = 0;
  while (done < target.length) {
    const read = readSync(fd, target, done, target.length - done, position + done);
    if (read === 0) break;
    done += read;
  }
  return done;
}

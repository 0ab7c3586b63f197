/**
 * The SHA-256 and size of an NDJSON text put together from members of a file on disk and new
 * chunks of text, worked out on a worker thread (patch.ts). The members' texts are most of a
 * type's, 160 MB for the world's neighbourhoods: decompressed on the thread, their buffers count
 * against its small heap, not the build's, whose collection (gigabytes to mark) they would start.
 */
import { createHash } from 'node:crypto';
import { open } from 'node:fs/promises';
import { promisify } from 'node:util';
import { gunzip as gunzipCallback } from 'node:zlib';
import { startThread } from '../builds/threads.ts';

const gunzip = promisify(gunzipCallback);

/** A part of the text in order: a member of the file (where it starts, its length), or a chunk's text itself. */
export type DigestPart = { readonly offset: number; readonly bytes: number } | { readonly text: Uint8Array };

export interface NdjsonDigest {
  readonly sha256: string;
  readonly bytes: number;
}

/** Members decompressed at most this many ahead of the one being hashed: both cores busy, a few megabytes held. */
const ahead = 8;

/** What the thread runs: the digest of `parts` in order, members read from `file`. */
export async function digestOnThisThread({ file, parts }: { file: string; parts: readonly DigestPart[] }): Promise<NdjsonDigest> {
  const handle = await open(file, 'r');
  try {
    const texts = new Map<number, Promise<Buffer>>();
    const textOf = async (part: { readonly offset: number; readonly bytes: number }): Promise<Buffer> => {
      const zipped = Buffer.allocUnsafe(part.bytes);
      const { bytesRead } = await handle.read(zipped, 0, part.bytes, part.offset);
      if (bytesRead !== part.bytes) throw new Error(`${file}: the member at ${part.offset} is cut short`);
      // One buffer of the size its trailer states (ISIZE), not zlib's 16 KB pieces.
      return gunzip(zipped, { chunkSize: Math.max(zipped.readUInt32LE(part.bytes - 4), 16384) });
    };
    const hash = createHash('sha256');
    let bytes = 0;
    for (const [number, part] of parts.entries()) {
      for (let next = number; next < Math.min(parts.length, number + ahead); next++) {
        const later = parts[next];
        if (later !== undefined && !('text' in later) && !texts.has(next)) texts.set(next, textOf(later));
      }
      const text = 'text' in part ? part.text : await texts.get(number);
      texts.delete(number);
      if (text === undefined) throw new Error(`${file}: part ${number} was never read`);
      hash.update(text);
      bytes += text.length;
    }
    return { sha256: hash.digest('hex'), bytes };
  } finally {
    await handle.close();
  }
}

/** The SHA-256 (hex) and length of the text `parts` make in order, members read from `file`, worked out on a thread. */
export async function digestNdjson(file: string, parts: readonly DigestPart[]): Promise<NdjsonDigest> {
  const thread = startThread<{ file: string; parts: readonly DigestPart[] }, NdjsonDigest>(
    { module: new URL(import.meta.url), name: 'digestOnThisThread' },
    { file, parts },
  );
  return thread.result.catch((error: unknown) => {
    throw new Error(`the NDJSON digest of ${file} failed: ${error instanceof Error ? error.message : String(error)}`);
  });
}

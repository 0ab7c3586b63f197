/**
 * The SHA-256 and size of an NDJSON text put together from members of a file on disk and new
 * chunks of text, worked out on a worker thread (exportPatch.ts). The members' texts are most of a
 * type's, 160 MB for the world's neighbourhoods: decompressed in the worker, their buffers count
 * against its small heap, not the build's, whose collection (gigabytes to mark) they would start.
 *
 * The worker's code is JavaScript given as text, so that it runs as it is wherever the build does
 * (under tsx, under vitest), without a loader for TypeScript.
 */
import { Worker } from 'node:worker_threads';

/** A part of the text in order: a member of the file (where it starts, its length), or a chunk's text itself. */
export type DigestPart = { readonly offset: number; readonly bytes: number } | { readonly text: Uint8Array };

/** Members decompressed at most this many ahead of the one being hashed: both cores busy, a few megabytes held. */
const ahead = 8;

const workerCode = `
const { parentPort, workerData } = require('node:worker_threads');
const { open } = require('node:fs/promises');
const { createHash } = require('node:crypto');
const { promisify } = require('node:util');
const gunzip = promisify(require('node:zlib').gunzip);

async function digest({ file, parts }) {
  const handle = await open(file, 'r');
  try {
    const texts = new Map();
    const textOf = async (part) => {
      const zipped = Buffer.allocUnsafe(part.bytes);
      const { bytesRead } = await handle.read(zipped, 0, part.bytes, part.offset);
      if (bytesRead !== part.bytes) throw new Error(file + ': the member at ' + part.offset + ' is cut short');
      // One buffer of the size its trailer states (ISIZE), not zlib's 16 KB pieces.
      return gunzip(zipped, { chunkSize: Math.max(zipped.readUInt32LE(part.bytes - 4), 16384) });
    };
    const hash = createHash('sha256');
    let bytes = 0;
    for (let number = 0; number < parts.length; number++) {
      for (let next = number; next < Math.min(parts.length, number + ${ahead}); next++) {
        if (!parts[next].text && !texts.has(next)) texts.set(next, textOf(parts[next]));
      }
      const text = parts[number].text ?? (await texts.get(number));
      texts.delete(number);
      hash.update(text);
      bytes += text.length;
    }
    return { sha256: hash.digest('hex'), bytes };
  } finally {
    await handle.close();
  }
}

digest(workerData).then(
  (result) => parentPort.postMessage(result),
  (error) => parentPort.postMessage({ error: String(error && error.stack || error) }),
);
`;

/** The SHA-256 (hex) and length of the text `parts` make in order, members read from `file`. */
export function digestNdjson(file: string, parts: readonly DigestPart[]): Promise<{ sha256: string; bytes: number }> {
  return new Promise((resolve, reject) => {
    const worker = new Worker(workerCode, { eval: true, workerData: { file, parts } });
    worker.once('message', (result: { sha256: string; bytes: number } | { error: string }) => {
      if ('error' in result) reject(new Error(`the NDJSON digest of ${file} failed: ${result.error}`));
      else resolve(result);
    });
    worker.once('error', reject);
    worker.once('exit', (code) => {
      if (code !== 0) reject(new Error(`the NDJSON digest of ${file} stopped with exit code ${code}`));
    });
  });
}

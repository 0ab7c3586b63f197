/**
 * A build's manifest as the bench reads it: the head of its lookup index and every body's entry
 * from its shards. manifest.json holds the same, but a build of the world's addresses makes it
 * larger than the longest string V8 can hold, so it cannot be parsed whole.
 */
import { realpath } from 'node:fs/promises';
import { readLookupHead, readLookupShard } from '../../contract/lookupIndex.ts';
import type { Manifest } from '../../contract/manifest.ts';

export async function readBuildManifest(distDir: string): Promise<Manifest> {
  const buildDir = await realpath(distDir);
  const head = await readLookupHead(buildDir);
  const files: Manifest['files'] = {};
  for (let number = 0; number < head.shards.length; number++) {
    const opened = await readLookupShard(buildDir, head, number);
    for (const [file, { size, etag }] of opened.entries()) files[file] = { size, etag };
  }
  return { ...(JSON.parse(head.headBytes().toString('utf8')) as Omit<Manifest, 'files'>), files };
}

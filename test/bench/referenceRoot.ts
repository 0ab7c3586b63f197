/**
 * The directory the references serve (nginx tuned and as deployed, the node:http floors, Fastify):
 * the bodies the request mixes ask for as plain files at their paths
 * (`addressmanagement/api/country/getbyalpha2code/tr.json`), beside the build's manifest.json. A
 * build holds its bodies in packs (contract/lookupIndex.ts), which a static file server cannot
 * serve by path, so each body is read from its pack once, here, checked against its ETag, and
 * written out: every reference then sends exactly the bytes the proxy sends, read as a file server
 * reads them.
 *
 * The bodies are read with the contract's reader of the index, not the proxy's store, so that a
 * fault in the store under test shows as a failed preflight instead of being copied into the
 * references.
 */
import { copyFile, link, mkdir, open, readdir, realpath, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { readLookupHead, readLookupShard } from '../../contract/lookupIndex.ts';
import { computeEtag, manifestFileName } from '../../contract/manifest.ts';

export interface ReferenceRoot {
  /** The directory (absolute). */
  readonly root: string;
  /** Bodies written as files. */
  readonly bodies: number;
  readonly bytes: number;
}

/** Hard-links every file of `buildDir` into `root`, keeping its folders; copies a file a link cannot reach (another file system). */
async function linkBuild(buildDir: string, root: string): Promise<void> {
  for (const entry of await readdir(buildDir, { recursive: true, withFileTypes: true })) {
    const source = path.join(entry.parentPath, entry.name);
    const target = path.join(root, path.relative(buildDir, source));
    if (entry.isDirectory()) await mkdir(target, { recursive: true });
    else if (entry.isFile()) {
      await mkdir(path.dirname(target), { recursive: true });
      await link(source, target).catch((error: NodeJS.ErrnoException) => {
        if (error.code !== 'EXDEV' && error.code !== 'EPERM') throw error;
        return copyFile(source, target);
      });
    }
  }
}

/**
 * `files`' bodies as the build at `buildDir` (a build directory or a dist link) holds them in its
 * packs, each checked against its ETag, shard by shard (each shard and pack opened once). Throws
 * naming a path the build does not have.
 */
export async function* packedBodies(distDir: string, files: Iterable<string>): AsyncGenerator<readonly [string, Buffer]> {
  // The build itself, not a link that a new build may move halfway.
  const buildDir = await realpath(distDir);
  const head = await readLookupHead(buildDir);
  const byShard = new Map<number, string[]>();
  for (const file of new Set(files)) {
    const number = head.shardOf(file);
    const shardFiles = byShard.get(number) ?? [];
    shardFiles.push(file);
    byShard.set(number, shardFiles);
  }
  for (const [number, shardFiles] of byShard) {
    const shard = await readLookupShard(buildDir, head, number);
    const pack = await open(path.join(buildDir, shard.pack));
    try {
      for (const file of shardFiles) {
        const entry = shard.find(file);
        if (!entry) throw new Error(`${buildDir}: no body ${file} in its index shard ${number}`);
        const body = Buffer.alloc(entry.size);
        const { bytesRead } = await pack.read(body, 0, entry.size, entry.offset);
        if (bytesRead !== entry.size || computeEtag(body) !== entry.etag)
          throw new Error(`${buildDir}: ${file}'s ${entry.size} bytes at ${entry.offset} in ${shard.pack} do not have its ETag ${entry.etag}`);
        yield [file, body];
      }
    } finally {
      await pack.close();
    }
  }
}

/** Files written at once: tens of thousands of bodies (the random mixes) in seconds, without holding them all. */
const parallelWrites = 32;

/** Writes `files`' bodies from the build's packs as `<root>/<file>`, read in turn and written `parallelWrites` at a time. */
async function writeBodies(buildDir: string, root: string, files: Iterable<string>): Promise<{ bodies: number; bytes: number }> {
  let bodies = 0;
  let bytes = 0;
  const folders = new Map<string, Promise<unknown>>();
  const writing = new Set<Promise<void>>();
  // The first write that failed: thrown once the writes under way have ended.
  let failed: { error: unknown } | undefined;
  const write = async (target: string, body: Buffer): Promise<void> => {
    const folder = path.dirname(target);
    if (!folders.has(folder)) folders.set(folder, mkdir(folder, { recursive: true }));
    await folders.get(folder);
    // 'wx': never written through a hard link into the build.
    await writeFile(target, body, { flag: 'wx' });
  };
  for await (const [file, body] of packedBodies(buildDir, files)) {
    const target = path.resolve(root, file);
    if (!target.startsWith(`${root}${path.sep}`)) throw new Error(`${file}: a body's path must stay inside the root`);
    const written: Promise<void> = write(target, body)
      .catch((error: unknown) => {
        failed ??= { error };
      })
      .finally(() => writing.delete(written));
    writing.add(written);
    if (writing.size >= parallelWrites) await Promise.race(writing);
    if (failed) break;
    bodies++;
    bytes += body.length;
  }
  await Promise.all(writing);
  if (failed) throw failed.error;
  return { bodies, bytes };
}

/**
 * Writes the references' root at `root` (a directory that does not exist yet): `files`' bodies
 * from the build at `buildDir` as plain files, and manifest.json. With `build: 'linked'` the whole
 * build is there too, every file a hard link to the build's (no bytes copied on one file system),
 * for a server that is also an origin of proxies: nginx as deployed serves the bodies as files to
 * the load and the build's index and packs (by range) to the proxies in origin mode, from one root
 * as a deployed origin does. With `build: 'manifest'` only manifest.json is copied beside the bodies.
 */
export async function writeReferenceRoot(options: {
  readonly buildDir: string;
  readonly root: string;
  readonly files: Iterable<string>;
  readonly build: 'linked' | 'manifest';
}): Promise<ReferenceRoot> {
  const buildDir = await realpath(options.buildDir);
  await mkdir(options.root, { recursive: true });
  const root = await realpath(options.root);
  if (options.build === 'linked') await linkBuild(buildDir, root);
  else await copyFile(path.join(buildDir, manifestFileName), path.join(root, manifestFileName));
  const { bodies, bytes } = await writeBodies(buildDir, root, options.files);
  return { root, bodies, bytes };
}

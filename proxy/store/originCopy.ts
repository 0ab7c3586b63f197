/**
 * Origin mode's copy on the local disk (ORIGIN_CACHE_DIR): the head of the last lookup index the
 * origin served, and every index shard and body fetched from it, named by its ETag. Shared by all workers of a host.
 *
 * It is what lets a worker start while the origin is down: a worker replaced after a crash, or a
 * whole service restarted, opens the last good manifest and answers from the bodies its siblings
 * (or it, before) fetched, instead of failing to start until the origin returns. It also spares the
 * origin: a body is read from the disk before it is asked for.
 *
 * Nothing in it is trusted: a body is served only if its bytes still hash to its ETag, and the
 * manifest goes through the same checks as one from the origin. Every write is a new file renamed
 * into place, so a reader never sees half a file; a disk that fails only costs the copy, never a
 * request: every error here is logged and treated as "not in the copy".
 */
import { randomBytes } from 'node:crypto';
import { access, mkdir, readdir, readFile, rename, unlink, writeFile } from 'node:fs/promises';
import path from 'node:path';
import type { Logger } from '../observe/log.ts';
import { computeEtag } from '../../contract/manifest.ts';

export interface SavedManifest {
  readonly bytes: Buffer;
  /** The origin's ETag for it (or for the pointer naming its build), for the next conditional request. */
  readonly originTag: string | undefined;
  /** Whether its build's files are under `builds/<buildId>/` on the origin, or at the root (origin.ts). */
  readonly scoped: boolean;
}

export interface OriginCopy {
  readManifest(): Promise<SavedManifest | undefined>;
  saveManifest(saved: SavedManifest): Promise<void>;
  /** The body whose ETag is `etag`, if the copy holds it intact. */
  readBody(etag: string): Promise<Buffer | undefined>;
  saveBody(etag: string, body: Buffer): Promise<void>;
  /** The folder the copy keeps files in (a file's name is fileNameOf(etag)), or undefined when it keeps none. */
  readonly filesDir: string | undefined;
  /** Whether the copy has a file for `etag` (not checked: readBody checks it when it is read). */
  holds(etag: string): Promise<boolean>;
  /** Removes the bodies no longer listed in the current build (`keep`: its ETags). */
  prune(keep: ReadonlySet<string>): Promise<void>;
}

/** With ORIGIN_CACHE_DIR=off: nothing is kept, and a worker cannot start while the origin is down. */
export const noOriginCopy: OriginCopy = {
  filesDir: undefined,
  readManifest: async () => undefined,
  saveManifest: async () => undefined,
  readBody: async () => undefined,
  saveBody: async () => undefined,
  holds: async () => false,
  prune: async () => undefined,
};

/** The build's lookup index as the origin served it (contract/lookupIndex.ts). */
const indexName = 'lookups.idx';
const manifestTagName = 'manifest.etag';
/** `scoped` when the origin serves builds under `builds/<buildId>/`, `root` when it is a copy of dist/. */
const manifestLayoutName = 'manifest.layout';

/** An ETag as a file name in the copy: the quotes dropped, the base64url characters kept. */
export function bodyName(etag: string): string | undefined {
  const name = etag.slice(1, -1);
  return /^[A-Za-z0-9_-]+$/.test(name) ? `${name}.json` : undefined;
}

export async function openOriginCopy(dir: string, log: Logger): Promise<OriginCopy> {
  const bodiesDir = path.join(dir, 'bodies');
  try {
    await mkdir(bodiesDir, { recursive: true });
  } catch (error) {
    log.warn(
      { event: 'origin-copy-unavailable', dir, error: (error as Error).message },
      'ORIGIN_CACHE_DIR cannot be written: workers will not start while the origin is down',
    );
    return noOriginCopy;
  }
  const warn = (action: string) => (error: unknown) => {
    log.warn({ event: 'origin-copy-failed', action, dir, error: (error as Error).message });
    return undefined;
  };
  const writeAtomically = async (file: string, bytes: Buffer | string): Promise<void> => {
    const partial = `${file}.${process.pid}-${randomBytes(4).toString('hex')}.partial`;
    try {
      await writeFile(partial, bytes);
      await rename(partial, file);
    } catch (error) {
      await unlink(partial).catch(() => undefined);
      throw error;
    }
  };
  return {
    filesDir: bodiesDir,
    readManifest: async () => {
      const bytes = await readFile(path.join(dir, indexName)).catch(() => undefined);
      if (!bytes) return undefined;
      const tag = await readFile(path.join(dir, manifestTagName), 'utf8').catch(() => '');
      const layout = await readFile(path.join(dir, manifestLayoutName), 'utf8').catch(() => '');
      return { bytes, originTag: tag === '' ? undefined : tag, scoped: layout === 'scoped' };
    },
    saveManifest: async ({ bytes, originTag, scoped }) => {
      // The tag and layout first: a manifest beside an older tag only costs one unconditional request.
      await writeAtomically(path.join(dir, manifestTagName), originTag ?? '')
        .then(() => writeAtomically(path.join(dir, manifestLayoutName), scoped ? 'scoped' : 'root'))
        .then(() => writeAtomically(path.join(dir, indexName), bytes))
        .catch(warn('save manifest'));
    },
    readBody: async (etag) => {
      const name = bodyName(etag);
      if (!name) return undefined;
      const body = await readFile(path.join(bodiesDir, name)).catch(() => undefined);
      if (!body) return undefined;
      if (computeEtag(body) === etag) return body;
      await unlink(path.join(bodiesDir, name)).catch(() => undefined);
      return undefined;
    },
    saveBody: async (etag, body) => {
      const name = bodyName(etag);
      if (name) await writeAtomically(path.join(bodiesDir, name), body).catch(warn('save body'));
    },
    holds: async (etag) => {
      const name = bodyName(etag);
      return (
        name !== undefined &&
        (await access(path.join(bodiesDir, name)).then(
          () => true,
          () => false,
        ))
      );
    },
    prune: async (keep) => {
      const names = await readdir(bodiesDir).catch(warn('list bodies'));
      const kept = new Set([...keep].map(bodyName));
      for (const name of names ?? []) {
        if (!kept.has(name) && !name.endsWith('.partial')) await unlink(path.join(bodiesDir, name)).catch(() => undefined);
      }
    },
  };
}

/**
 * How builds are kept beside the dist link, as the generator, the rollback and the proxy all see
 * them: `dist` → `.dist-builds/<buildId>/`, each build holding `build.json` (its id, the content of
 * the origin's pointer), `.dist-builds/current.json` a fixed link to `../dist/build.json`, so the
 * one rename that moves `dist` moves the pointer with it, and `.dist-builds/.readers/` where each
 * proxy reading a build from the disk names it, so that no build a proxy reads is pruned.
 */
import path from 'node:path';
import { z } from 'zod';
import { buildIdPattern } from './downloads.ts';

/** A build's own id, in every build directory: what `builds/current.json` answers through the dist link. */
export const buildIdFileName = 'build.json';

/** Where the builds behind a dist link live: `dist` → `.dist-builds/`. */
export function buildsRootOf(distDir: string): string {
  const absolute = path.resolve(distDir);
  return path.join(path.dirname(absolute), `.${path.basename(absolute)}-builds`);
}

/** The folder of reader leases inside the builds root. */
export function readersDirOf(buildsRoot: string): string {
  return path.join(buildsRoot, '.readers');
}

/** A reader lease: which process on which host reads which build directory. */
export const readerLeaseSchema = z.strictObject({
  host: z.string().min(1),
  pid: z.number().int().positive(),
  buildDir: z.string().min(1),
});
export type ReaderLease = z.infer<typeof readerLeaseSchema>;

/** A lease's file name: one per process and host. */
export function readerLeaseName(host: string, pid: number): string {
  return `${host.replace(/[^A-Za-z0-9.-]/g, '_')}-${pid}.json`;
}

/** Whether a name inside the builds root is a build directory (its id), rather than a leftover or the pointer. */
export function isBuildDirName(name: string): boolean {
  return buildIdPattern.test(name);
}

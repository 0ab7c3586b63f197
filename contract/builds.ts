/**
 * How builds are kept beside the dist link, as the generator, the rollback and the proxy all see
 * them: `dist` → `.dist-builds/<buildId>/`, each build holding `build.json` (its id, the content of
 * the origin's pointer), `.dist-builds/current.json` a fixed link to `../dist/build.json`, so the
 * one rename that moves `dist` moves the pointer with it, and `.dist-builds/.readers/` where each
 * proxy reading a build from the disk names it, so that no build a proxy reads is pruned.
 */
import { readFileSync } from 'node:fs';
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

/**
 * A reader lease: which process on which host reads which build directory, and when that process
 * started (processStartOf), so that a lease is not taken for another process given its id later.
 */
export const readerLeaseSchema = z.strictObject({
  host: z.string().min(1),
  pid: z.number().int().positive(),
  buildDir: z.string().min(1),
  started: z.string().min(1).optional(),
});

/**
 * When process `pid` of this host started, as the system boot it runs in and its start time in
 * clock ticks since that boot (Linux's /proc/<pid>/stat, field 22): two processes given one id
 * never share it. Undefined where there is no /proc, or no such process.
 */
export function processStartOf(pid: number): string | undefined {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'latin1');
    // The command name (field 2) is in parentheses and may hold spaces: fields are counted after it.
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    const ticks = fields[19];
    const boot = readFileSync('/proc/sys/kernel/random/boot_id', 'latin1').trim();
    return ticks === undefined || !/^\d+$/.test(ticks) ? undefined : `${boot}:${ticks}`;
  } catch {
    return undefined;
  }
}
export type ReaderLease = z.infer<typeof readerLeaseSchema>;

/** A lease's file name: one per process and host. */
export function readerLeaseName(host: string, pid: number): string {
  return `${host.replace(/[^A-Za-z0-9.-]/g, '_')}-${pid}.json`;
}

/** Whether a name inside the builds root is a build directory (its id), rather than a leftover or the pointer. */
export function isBuildDirName(name: string): boolean {
  return buildIdPattern.test(name);
}

/**
 * One build (or rollback) at a time per dist: `.dist-builds/.lock`, naming the process that holds
 * it, written whole beside it and hard-linked into place (link(2) fails if the lock exists, and the
 * lock is never seen half-written). Two builds writing at once would prune each other's work and race to
 * move the link; the second is refused with what holds the lock. A lock whose process has died
 * (a build killed with SIGKILL) is taken over; one held on another host is never guessed at.
 */
import { hostname } from 'node:os';
import { link, mkdir, readFile, rm, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { BuildError, RollbackError } from '../records/errors.ts';

export const lockFileName = '.lock';

interface LockHolder {
  readonly host: string;
  readonly pid: number;
  readonly since: string;
  readonly task: string;
}

/** Whether a process of this host is running (one we may not signal is). */
export function isProcessAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

async function readHolder(file: string): Promise<LockHolder | undefined> {
  try {
    const holder = JSON.parse(await readFile(file, 'utf8')) as Partial<LockHolder>;
    return typeof holder.pid === 'number' && typeof holder.host === 'string' ? (holder as LockHolder) : undefined;
  } catch {
    return undefined;
  }
}

/** Runs `work` holding the lock of `buildsRoot`; a BuildError when another live process holds it. */
export async function withBuildLock<Result>(buildsRoot: string, task: 'build' | 'rollback', work: () => Promise<Result>): Promise<Result> {
  await mkdir(buildsRoot, { recursive: true });
  const file = path.join(buildsRoot, lockFileName);
  const me: LockHolder = { host: hostname(), pid: process.pid, since: new Date().toISOString(), task };
  const mine = `${file}.${process.pid}.${Math.random().toString(36).slice(2)}`;
  await writeFile(mine, `${JSON.stringify(me)}\n`);
  for (let attempt = 0; ; attempt++) {
    const taken = await link(mine, file).then(
      () => true,
      (error: NodeJS.ErrnoException) => {
        if (error.code === 'EEXIST') return false;
        throw error;
      },
    );
    if (taken) break;
    const holder = await readHolder(file);
    // A lock of a process that has died on this host is stale.
    const stale = holder !== undefined && holder.host === me.host && !isProcessAlive(holder.pid);
    if (!stale || attempt > 0) {
      await rm(mine, { force: true });
      throw new (task === 'rollback' ? RollbackError : BuildError)([
        holder
          ? `another ${holder.task} (pid ${holder.pid} on ${holder.host}, since ${holder.since}) is working on ${path.dirname(buildsRoot)}: wait for it to finish; if no such process runs, remove ${file}`
          : `${file} is not a lock this service wrote: remove it if no build runs`,
      ]);
    }
    await rm(file, { force: true });
  }
  await rm(mine, { force: true });
  try {
    return await work();
  } finally {
    await rm(file, { force: true });
  }
}

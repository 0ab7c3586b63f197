/**
 * Every temporary file a test run makes lives under one run-scoped folder, removed when the run ends.
 * The tests make hundreds of folders and several real-data builds of ~650 MB each; left in /tmp they
 * filled the disk after a few dozen runs, and the run after that failed half its suites at once.
 *
 * The folder is handed down as TMPDIR, so os.tmpdir() in every test worker and every child process
 * (the proxy, nginx, varnish, the bench) lands under it without each caller having to clean up.
 * A run killed before its teardown leaves its folder behind: the next run removes the folders whose
 * owning process is gone.
 */
import { mkdtemp, readdir, rm } from 'node:fs/promises';
import path from 'node:path';

const runPrefix = 'refdata-run-';

/** Names the run's folder for the test workers, beside TMPDIR. */
export const runRootVariable = 'REFDATA_TEST_RUN_ROOT';

/** The folders of earlier runs, under `parent`, whose process no longer exists. */
async function staleRunRoots(parent: string): Promise<string[]> {
  const names = await readdir(parent).catch(() => [] as string[]);
  return names.flatMap((name) => {
    const pid = Number(/^refdata-run-(\d+)-/.exec(name)?.[1]);
    return Number.isInteger(pid) && pid > 0 && !isAlive(pid) ? [path.join(parent, name)] : [];
  });
}

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM'; // alive, but not ours to signal
  }
}

export interface RunRoot {
  readonly path: string;
  /** Removes the folder and everything in it. */
  close(): Promise<void>;
}

/** A new folder under `parent` for one test run, after removing the folders of dead runs. */
export async function openRunRoot(parent: string, pid = process.pid): Promise<RunRoot> {
  await Promise.all((await staleRunRoots(parent)).map((stale) => rm(stale, { recursive: true, force: true })));
  const root = await mkdtemp(path.join(parent, `${runPrefix}${pid}-`));
  return { path: root, close: () => rm(root, { recursive: true, force: true }) };
}

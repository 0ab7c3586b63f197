/**
 * vitest globalSetup: one temporary folder for the whole run (see tempRoot.ts). Each vitest project
 * runs its global setup in this one process; the first opens the folder and closes it last, the
 * others reuse it, so that the folder is never nested in itself (a unix socket's path in it, such
 * as tsx's, must stay under 108 bytes).
 */
import { tmpdir } from 'node:os';
import { openRunRoot, runRootVariable, type RunRoot } from './tempRoot.ts';

const shared = globalThis as { refdataRunRoot?: { root: RunRoot; users: number; parent: string | undefined } };

export default async function setup(): Promise<() => Promise<void>> {
  if (shared.refdataRunRoot === undefined) {
    const parent = process.env.TMPDIR;
    const root = await openRunRoot(tmpdir());
    process.env.TMPDIR = root.path;
    process.env[runRootVariable] = root.path;
    shared.refdataRunRoot = { root, users: 0, parent };
  }
  const run = shared.refdataRunRoot;
  run.users += 1;
  return async () => {
    run.users -= 1;
    if (run.users === 0) {
      delete shared.refdataRunRoot;
      // Back to where the run began: a later project's setup opens its folder there.
      if (run.parent === undefined) delete process.env.TMPDIR;
      else process.env.TMPDIR = run.parent;
      delete process.env[runRootVariable];
      await run.root.close();
    }
  };
}

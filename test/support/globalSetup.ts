/** vitest globalSetup: one temporary folder for the whole run (see tempRoot.ts). */
import { tmpdir } from 'node:os';
import { openRunRoot, runRootVariable } from './tempRoot.ts';

export default async function setup(): Promise<() => Promise<void>> {
  const root = await openRunRoot(tmpdir());
  process.env.TMPDIR = root.path;
  process.env[runRootVariable] = root.path;
  return () => root.close();
}

/**
 * The record files of the last build, kept by content under `.dist-builds/.inputs/<SHA-256>`: the
 * next build reads the ones it finds changed from here, to know the changed records in both
 * versions.
 */
import { createHash } from 'node:crypto';
import { mkdir, readdir, readFile, rename, rm, writeFile } from 'node:fs/promises';
import path from 'node:path';
import type { RebuildBasis } from '../builds/summary.ts';
import type { Inputs } from '../load.ts';

/** The folder of the builds root holding the current build's record files by content. */
const inputsDirName = '.inputs';

const sha256 = (bytes: Buffer): string => createHash('sha256').update(bytes).digest('hex');

/**
 * Saves the record files a build read by content, before it makes anything, so that it need not
 * hold their bytes to the end. A file already saved is left as it is; nothing is removed
 * (pruneInputs does, once the build is out).
 */
export async function saveInputs(buildsRoot: string, inputs: Inputs): Promise<void> {
  const dir = path.join(buildsRoot, inputsDirName);
  await mkdir(dir, { recursive: true });
  const present = new Set(await readdir(dir));
  for (const { sha256: hash, bytes } of inputs.records) {
    if (present.has(hash)) continue;
    const partial = path.join(dir, `${hash}.${process.pid}.partial`);
    await writeFile(partial, bytes);
    await rename(partial, path.join(dir, hash));
  }
}

/** Removes the saved record files that are not the finished build's (`basis`): no later build compares with them. */
export async function pruneInputs(buildsRoot: string, basis: RebuildBasis): Promise<void> {
  const dir = path.join(buildsRoot, inputsDirName);
  const wanted = new Set(Object.values(basis.records));
  for (const name of await readdir(dir).catch(() => [] as string[])) if (!wanted.has(name)) await rm(path.join(dir, name), { force: true });
}

/** A saved record file, or undefined when it is missing or not what its name says. */
export async function readSaved(buildsRoot: string, hash: string): Promise<Buffer | undefined> {
  const bytes = await readFile(path.join(buildsRoot, inputsDirName, hash)).catch(() => undefined);
  return bytes !== undefined && sha256(bytes) === hash ? bytes : undefined;
}

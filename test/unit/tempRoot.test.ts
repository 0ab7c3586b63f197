/** The run-scoped temporary folder: everything a test run writes is removed with it (see tempRoot.ts). */
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdir, mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { openRunRoot, runRootVariable } from '../support/tempRoot.ts';

/** The pid of a process that has exited, so no process has it for the moment. */
function deadPid(): number {
  const child = spawnSync(process.execPath, ['-e', 'process.stdout.write(String(process.pid))'], { encoding: 'utf8' });
  return Number(child.stdout);
}

describe('the run-scoped temporary folder', () => {
  it('is where this worker and its child processes put temporary files', () => {
    const root = process.env[runRootVariable];
    expect(root, 'vitest.config.ts must name test/support/globalSetup.ts').toBeDefined();
    expect(tmpdir()).toBe(root);
    const child = spawnSync(process.execPath, ['-e', 'process.stdout.write(require("node:os").tmpdir())'], { encoding: 'utf8' });
    expect(child.stdout).toBe(root);
  });

  it('is removed with everything in it when the run closes it', async () => {
    const parent = await mkdtemp(path.join(tmpdir(), 'parent-'));
    const root = await openRunRoot(parent);
    await mkdir(path.join(root.path, 'refdata-x', 'dist', 'deep'), { recursive: true });
    await writeFile(path.join(root.path, 'refdata-x', 'dist', 'deep', 'body.json'), '{}');
    await root.close();
    expect(existsSync(root.path)).toBe(false);
  });

  it('removes the folders of runs whose process is gone, and only those', async () => {
    const parent = await mkdtemp(path.join(tmpdir(), 'parent-'));
    const dead = path.join(parent, `refdata-run-${deadPid()}-abc123`);
    const living = path.join(parent, `refdata-run-${process.pid}-def456`);
    const other = path.join(parent, 'refdata-something-else');
    for (const folder of [dead, living, other]) await mkdir(path.join(folder, 'inside'), { recursive: true });
    const root = await openRunRoot(parent);
    expect(existsSync(dead)).toBe(false);
    expect(existsSync(living)).toBe(true);
    expect(existsSync(other)).toBe(true);
    expect(existsSync(root.path)).toBe(true);
  });
});

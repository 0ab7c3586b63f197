/**
 * Build figures, on a copy of the data in a temporary directory: a full build as `npm run build`
 * runs it (`node --import tsx generator/build.ts`, start-up included, wall clock), `cp -r` of its
 * output (the floor for writing those files), a no-op rebuild of the same data into the same dist,
 * files per second and size on disk.
 */
import { execFile } from 'node:child_process';
import { cp, readdir, realpath, rm, stat } from 'node:fs/promises';
import path from 'node:path';
import { promisify } from 'node:util';
import { median } from './report.ts';
import { repoRoot } from './servers.ts';

const run = promisify(execFile);
/** What `npm run build` runs (package.json), without npm's own start-up. */
export const buildCommand = [process.execPath, '--import', 'tsx', 'generator/build.ts'] as const;

export interface BuildFigures {
  readonly dataDir: string;
  /** The build directory behind the temporary dist link. */
  readonly buildDir: string;
  readonly distDir: string;
  readonly rounds: number;
  /** Medians over the rounds. */
  readonly fullSeconds: number;
  readonly copySeconds: number;
  readonly noopSeconds: number;
  /** Every round's seconds, in order. */
  readonly runs: { readonly full: readonly number[]; readonly copy: readonly number[]; readonly noop: readonly number[] };
  /** What the no-op rebuild printed: whether it saw that nothing changed. */
  readonly noopOutput: string;
  /** True when the no-op rebuild wrote a new build instead of detecting that nothing changed. */
  readonly noopWroteBuild: boolean;
  readonly files: number;
  readonly bytes: number;
  readonly diskKb: number;
  readonly filesPerSecond: number;
  readonly fullToCopy: number;
  readonly noopToFull: number;
}

async function timed(file: string, args: readonly string[]): Promise<{ seconds: number; output: string }> {
  const started = performance.now();
  const { stdout, stderr } = await run(file, args, { cwd: repoRoot, maxBuffer: 16 * 1024 * 1024 });
  return { seconds: (performance.now() - started) / 1000, output: `${stdout}${stderr}`.trim() };
}

/** Files and their bytes under a directory (the build: its index shards and packs, manifest, public files). */
async function countFiles(dir: string): Promise<{ files: number; bytes: number }> {
  let files = 0;
  let bytes = 0;
  for (const entry of await readdir(dir, { recursive: true, withFileTypes: true })) {
    if (!entry.isFile()) continue;
    files++;
    bytes += (await stat(path.join(entry.parentPath, entry.name))).size;
  }
  return { files, bytes };
}

/**
 * `rounds` times, alternating: a full build into a fresh dist, `cp -r` of its output, a no-op
 * rebuild; medians of each. Every step starts after `sync`, so none pays for writing back the
 * previous step's 300 MB of dirty pages (which made cp -r alone vary from 3 s to 20 s). The last
 * round's build is kept, to be served.
 */
export async function measureBuild(sourceData: string, workDir: string, rounds: number): Promise<BuildFigures> {
  const dataDir = path.join(workDir, 'data');
  await cp(sourceData, dataDir, { recursive: true });
  const full: number[] = [];
  const copy: number[] = [];
  const noop: number[] = [];
  let distDir = '';
  let buildDir = '';
  let noopOutput = '';
  let noopWroteBuild = false;
  for (let round = 0; round < rounds; round++) {
    if (distDir) await rm(path.dirname(distDir), { recursive: true, force: true });
    distDir = path.join(workDir, `build-${round}`, 'dist');
    const build = [...buildCommand.slice(1), '--data', dataDir, '--dist', distDir];
    await run('sync');
    full.push((await timed(buildCommand[0], build)).seconds);
    buildDir = await realpath(distDir);
    const copyDir = path.join(workDir, 'copy');
    await run('sync');
    copy.push((await timed('cp', ['-r', buildDir, copyDir])).seconds);
    await rm(copyDir, { recursive: true, force: true });
    await run('sync');
    const rebuilt = await timed(buildCommand[0], build);
    noop.push(rebuilt.seconds);
    noopOutput = rebuilt.output.split('\n')[0] ?? '';
    // A rebuild that did write a new build points the link at it; that is the one to serve.
    const after = await realpath(distDir);
    noopWroteBuild ||= after !== buildDir;
    buildDir = after;
  }
  const { files, bytes } = await countFiles(buildDir);
  const { stdout: du } = await run('du', ['-sk', buildDir]);
  const fullSeconds = median(full);
  const copySeconds = median(copy);
  const noopSeconds = median(noop);
  return {
    dataDir: sourceData,
    buildDir,
    distDir,
    rounds,
    fullSeconds,
    copySeconds,
    noopSeconds,
    runs: { full, copy, noop },
    noopOutput,
    noopWroteBuild,
    files,
    bytes,
    diskKb: Number(du.split(/\s/)[0]),
    filesPerSecond: files / fullSeconds,
    fullToCopy: fullSeconds / copySeconds,
    noopToFull: noopSeconds / fullSeconds,
  };
}

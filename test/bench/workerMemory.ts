/**
 * `npm run bench:rss`: each worker's memory on the real data, as a container must be sized for it.
 * The service runs as `npm start` runs it (the bundle, two workers unless --workers), optionally inside a memory
 * cgroup of its own (--cgroup-mb, as root: cgroup v1's memory controller, the whole service in it
 * from its first instruction); each worker's resident set (VmRSS) and its peak (VmHWM) are read
 * from /proc at start, after a load (wrk, the sampled mix), and after each of --switches forced
 * rebuilds once every worker serves the new build. Any exit of a worker is reported, and the time
 * from the spawn until every worker listens and /readyz answers 200.
 *
 *   npm run bench:rss [-- --workers 2 --switches 3 --seconds 10 --connections 64 --cgroup-mb 512 --dist DIR --data DIR]
 *
 * A dist is built from data/ (or --data) in a temporary directory unless --dist names one (it is
 * then rebuilt in place by the switches, from the same data). Exits 1 when a worker's peak is over
 * --budget-mb (256), the workers took more than 1 s to listen, or the service did not survive.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { mkdir, mkdtemp, rm, rmdir, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { buildDist } from '../../generator/build.ts';
import { childPids } from '../support/proc.ts';
import { findProgram, freePort } from '../support/programs.ts';
import { bundleProxy, get, repoRoot } from './servers.ts';
import { sampleUrlMix } from './urls.ts';
import { runWrk, writeWrkScript } from './wrk.ts';
import { readBuildManifest } from '../support/store.ts';

/** Every worker listening within this long after the spawn, on any build, the world's included. */
const startTargetMs = 1000;

const key = 'rss-bench-key-0123456789abcdef';
const memoryControllers = '/sys/fs/cgroup/memory';

/** VmRSS and VmHWM of a process in MB, or undefined once it has gone. */
function memoryOf(pid: number): { rss: number; peak: number } | undefined {
  try {
    const status = readFileSync(`/proc/${pid}/status`, 'utf8');
    const field = (name: string): number => Number(new RegExp(`^${name}:\\s+(\\d+) kB`, 'm').exec(status)?.[1] ?? 0) / 1024;
    return { rss: field('VmRSS'), peak: field('VmHWM') };
  } catch {
    return undefined;
  }
}

async function main(): Promise<void> {
  const { values } = parseArgs({
    options: {
      workers: { type: 'string', default: '2' },
      switches: { type: 'string', default: '3' },
      data: { type: 'string' },
      seconds: { type: 'string', default: '10' },
      connections: { type: 'string', default: '64' },
      'cgroup-mb': { type: 'string' },
      'budget-mb': { type: 'string', default: '256' },
      dist: { type: 'string' },
    },
  });
  const wrk = findProgram('wrk', ['/usr/bin/wrk']);
  if (!wrk) throw new Error('wrk is not installed: apt-get install -y wrk');
  const workDir = await mkdtemp(path.join(tmpdir(), 'refdata-rss-'));
  const dataDir = values.data === undefined ? path.join(repoRoot, 'data') : path.resolve(values.data);
  const distDir = values.dist ?? path.join(workDir, 'dist');
  if (!values.dist) await buildDist({ dataDir, distDir });
  const bundle = bundleProxy();
  const port = await freePort();
  const cgroup = values['cgroup-mb'] === undefined ? undefined : path.join(memoryControllers, `refdata-bench-${process.pid}`);
  if (cgroup) {
    if (!existsSync(memoryControllers)) throw new Error(`${memoryControllers} is not there: --cgroup-mb needs cgroup v1's memory controller`);
    await mkdir(cgroup);
    await writeFile(path.join(cgroup, 'memory.limit_in_bytes'), String(Number(values['cgroup-mb']) * 1024 * 1024));
  }
  const environment = {
    ...process.env,
    NODE_ENV: 'production',
    HOST: '127.0.0.1',
    PORT: String(port),
    WORKERS: values.workers,
    DIST_DIR: distDir,
    API_KEYS: key,
    LOG_LEVEL: 'info',
  };
  // Inside the cgroup from its first instruction: the shell moves itself in, then becomes node.
  const child: ChildProcess = cgroup
    ? spawn('/bin/sh', ['-c', `echo $$ > ${path.join(cgroup, 'cgroup.procs')} && exec "$0" "$@"`, process.execPath, bundle], {
        cwd: repoRoot,
        env: environment,
        stdio: ['ignore', 'pipe', 'pipe'],
      })
    : spawn(process.execPath, [bundle], { cwd: repoRoot, env: environment, stdio: ['ignore', 'pipe', 'pipe'] });
  const spawned = performance.now();
  let log = '';
  // Each worker logs `worker-listening` as it listens; a lone process announces itself instead.
  const listeningLine = Number(values.workers) === 1 ? /reference data service listening on/g : /"event":"worker-listening"/g;
  let allListening: number | undefined;
  const read = (chunk: Buffer): void => {
    log += chunk.toString();
    if (allListening === undefined && (log.match(listeningLine)?.length ?? 0) >= Number(values.workers)) allListening = performance.now();
  };
  child.stdout?.on('data', read);
  child.stderr?.on('data', read);
  const url = `http://127.0.0.1:${port}`;
  const rows: string[] = [];
  let worst = 0;
  const workerCount = Number(values.workers);
  // One worker is the process itself (no cluster); more are the primary's children.
  const workers = (): number[] => (workerCount === 1 ? [child.pid as number] : childPids(child.pid as number, path.basename(process.execPath)));
  const record = (moment: string): void => {
    const readings = workers().map((pid) => ({ pid, ...memoryOf(pid) }));
    const primary = workerCount === 1 ? undefined : memoryOf(child.pid as number);
    const group = cgroup ? Number(readFileSync(path.join(cgroup, 'memory.max_usage_in_bytes'), 'utf8')) / 1024 / 1024 : undefined;
    for (const reading of readings) worst = Math.max(worst, reading.peak ?? 0);
    rows.push(
      `| ${moment} | ${readings.map((reading) => `${reading.pid}: ${reading.rss?.toFixed(0)} / ${reading.peak?.toFixed(0)}`).join(', ')} | ${primary?.rss.toFixed(0) ?? '–'} | ${group === undefined ? '–' : group.toFixed(0)} |`,
    );
  };
  const until = async (condition: () => Promise<boolean>, what: string): Promise<void> => {
    const deadline = Date.now() + 120_000;
    while (!(await condition().catch(() => false))) {
      if (child.exitCode !== null || child.signalCode !== null)
        throw new Error(`the service exited (${child.exitCode ?? child.signalCode}) ${what}:\n${log.slice(-3000)}`);
      if (Date.now() > deadline) throw new Error(`not ${what} within 120 s:\n${log.slice(-3000)}`);
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  };
  /** Every worker on `buildId`: asked on fresh connections until each worker has answered with it. */
  const serving = async (buildId: string): Promise<boolean> => {
    for (let ask = 0; ask < 8; ask++) {
      const reply = await fetch(`${url}/meta`, { headers: { Authorization: `Bearer ${key}`, Connection: 'close' } });
      const body = (await reply.json()) as { body: { buildId: string } };
      if (body.body.buildId !== buildId) return false;
    }
    return true;
  };
  try {
    await until(async () => (await get(`${url}/readyz`)).status === 200 && workers().length === workerCount, `listening with ${workerCount} workers`);
    // From the log line of the last worker to listen, as it arrived.
    const listening = (allListening ?? performance.now()) - spawned;
    const manifest = await readBuildManifest(distDir);
    record('started');
    const script = await writeWrkScript(
      workDir,
      'rss',
      sampleUrlMix(manifest, 2000, 1).lookups.map((lookup) => lookup.proxyPath),
      { Authorization: `Bearer ${key}` },
      2,
    );
    const load = await runWrk({ wrk, script, url, threads: 2, connections: Number(values.connections), seconds: Number(values.seconds) });
    record(`after ${load.requests} requests (${load.requestsPerSecond.toFixed(0)}/s, ${load.errorCount} errors)`);
    for (let round = 1; round <= Number(values.switches); round++) {
      const built = await buildDist({ dataDir, distDir, force: true });
      await until(() => serving(built.buildId), `serving build ${built.buildId}`);
      record(`after switch ${round}`);
    }
    const exits = log.split('\n').filter((line) => line.includes('"event":"worker-exited"')).length;
    console.log(
      `${workerCount} worker(s), real data (${Object.keys(manifest.files).length} files)${cgroup ? `, inside a ${values['cgroup-mb']} MB memory cgroup` : ''}`,
    );
    console.log('| moment | per worker: RSS / peak (MB) | primary RSS (MB) | cgroup peak (MB) |');
    console.log('|---|---|---|---|');
    for (const row of rows) console.log(row);
    console.log(
      `every worker listening ${(listening / 1000).toFixed(2)} s after the spawn (target ${startTargetMs / 1000} s): ${listening <= startTargetMs ? 'PASS' : 'FAIL'}`,
    );
    console.log(
      `highest worker peak ${worst.toFixed(0)} MB (budget ${values['budget-mb']} MB): ${worst <= Number(values['budget-mb']) ? 'PASS' : 'FAIL'}; worker exits: ${exits}`,
    );
    if (worst > Number(values['budget-mb']) || exits > 0 || listening > startTargetMs) process.exitCode = 1;
  } finally {
    child.kill('SIGINT');
    await new Promise((resolve) => (child.exitCode === null && child.signalCode === null ? child.once('exit', resolve) : resolve(undefined)));
    if (cgroup) await rmdir(cgroup).catch(() => undefined);
    await rm(workDir, { recursive: true, force: true });
  }
}

await main();

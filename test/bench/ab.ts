/**
 * `npm run bench:ab`: one change to the proxy measured against the one before it, the proxy of two commits
 * side by side in one run, alternating, on the same build and the same request mix.
 *
 *   npm run bench:ab -- <before> <after> [--rounds 6] [--duration 5] [--mix small] [--connections 16]
 *     [--workers 1] [--threads 1] [--samples 4000] [--seed 1] [--dist dist] [--dist-before DIR] [--log warn]
 *     [--accept-encoding 'gzip, deflate, br, zstd'] [--metrics]
 *
 * `--mix` is any of npm run bench's mixes, drawn from the build's lookup index as it draws them:
 * sampled, small and flags by operation, random and skewed over the whole build (`--samples` lookups).
 *
 * Each commit's proxy/ and contract/ are taken with `git archive` and bundled as `npm start` bundles
 * them (build:proxy's esbuild flags); both serve `--dist` (the working tree's dist/ by default,
 * which must hold a build) with an API key, one worker each unless told otherwise, so that wrk
 * has a core of its own; a commit whose proxy cannot read that build's layout is refused before
 * any load (its first lookup not answered 200). Across a change of that layout, `--dist-before`
 * gives the before commit's proxy a build of the same data made by its own generator (the request
 * mix is drawn from `--dist`, and every lookup of it must answer in both). The runs alternate, the first of each pair switching every round, and
 * the figures are the medians over rounds of requests per second, of the server's CPU time per
 * request (user + kernel) and of wrk's 99th-percentile latency, with the after/before ratio of each. `--accept-encoding` sends that
 * header with every request (wrk sends none by default, unlike browsers and undici). `--metrics` turns /metrics on in both
 * (METRICS_PORT on a free port of each), so that what counting costs is measured too.
 */
import { execFileSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdir, mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { benchMixIds, sampleBuildMixes, type BenchMixId } from './mixes.ts';
import { cpuSeconds } from '../support/proc.ts';
import { findProgram } from '../support/programs.ts';
import { repoRoot, startProxy, treePids, type RunningServer } from './servers.ts';
import { runWrk, writeWrkScript } from './wrk.ts';

class UsageError extends Error {}

function positive(name: string, value: string): number {
  const number = Number(value);
  if (!Number.isInteger(number) || number < 1) throw new UsageError(`--${name} takes a whole number of 1 or more (got ${JSON.stringify(value)})`);
  return number;
}

function readOptions() {
  const { values, positionals } = parseArgs({
    allowPositionals: true,
    options: {
      rounds: { type: 'string', default: '6' },
      duration: { type: 'string', default: '5' },
      mix: { type: 'string', default: 'small' },
      connections: { type: 'string', default: '16' },
      workers: { type: 'string', default: '1' },
      threads: { type: 'string', default: '1' },
      samples: { type: 'string', default: '4000' },
      seed: { type: 'string', default: '1' },
      dist: { type: 'string', default: path.join(repoRoot, 'dist') },
      'dist-before': { type: 'string' },
      log: { type: 'string', default: 'warn' },
      'accept-encoding': { type: 'string' },
      metrics: { type: 'boolean', default: false },
    },
  });
  if (positionals.length !== 2) throw new UsageError('give two commits: npm run bench:ab -- <before> <after> [options]');
  if (!(benchMixIds as readonly string[]).includes(values.mix))
    throw new UsageError(`--mix takes one of ${benchMixIds.join(', ')} (got ${JSON.stringify(values.mix)})`);
  if (!['warn', 'info'].includes(values.log)) throw new UsageError(`--log takes warn (request lines off) or info (on) (got ${JSON.stringify(values.log)})`);
  return {
    commits: positionals as [string, string],
    rounds: positive('rounds', values.rounds),
    duration: positive('duration', values.duration),
    mix: values.mix as BenchMixId,
    connections: positive('connections', values.connections),
    workers: positive('workers', values.workers),
    threads: positive('threads', values.threads),
    samples: positive('samples', values.samples),
    seed: positive('seed', values.seed),
    dist: path.resolve(values.dist),
    distBefore: values['dist-before'] === undefined ? undefined : path.resolve(values['dist-before']),
    log: values.log,
    acceptEncoding: values['accept-encoding'],
    metrics: values.metrics,
  };
}

/** The commit's full name, or a usage error naming what git could not resolve. */
function resolveCommit(name: string): string {
  try {
    return execFileSync('git', ['rev-parse', '--verify', `${name}^{commit}`], { cwd: repoRoot, encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] }).trim();
  } catch {
    throw new UsageError(`${JSON.stringify(name)} is not a commit of this repository`);
  }
}

/** The commit's proxy as one file, bundled beside the working tree's so that its packages resolve from node_modules. */
async function bundleCommit(commit: string, workDir: string): Promise<string> {
  const source = path.join(workDir, commit);
  await mkdir(source, { recursive: true });
  execFileSync('sh', ['-c', `git archive ${commit} proxy contract tsconfig.json package.json | tar -x -C "${source}"`], { cwd: repoRoot, stdio: 'inherit' });
  const outfile = path.join(repoRoot, '.proxy-build', `ab-${commit.slice(0, 12)}.mjs`);
  const esbuild = path.join(repoRoot, 'node_modules', '.bin', 'esbuild');
  execFileSync(
    esbuild,
    ['proxy/main.ts', '--bundle', '--platform=node', '--target=node20', '--format=esm', '--packages=external', '--log-level=warning', `--outfile=${outfile}`],
    { cwd: source, stdio: 'inherit' },
  );
  return outfile;
}

const median = (values: readonly number[]): number => {
  const sorted = [...values].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 ? (sorted[middle] as number) : ((sorted[middle - 1] as number) + (sorted[middle] as number)) / 2;
};

interface Sample {
  readonly requestsPerSecond: number;
  readonly cpuMicrosPerRequest: number;
  readonly p99Ms: number;
  readonly errors: number;
}

async function load(server: RunningServer, script: string, options: ReturnType<typeof readOptions>, wrk: string, seconds: number): Promise<Sample> {
  const pids = treePids(server);
  const cpu = (): number => pids.map(cpuSeconds).reduce((sum, { user, system }) => sum + user + system, 0);
  const before = cpu();
  const result = await runWrk({
    wrk,
    script,
    url: server.url,
    threads: Math.min(options.threads, options.connections),
    connections: options.connections,
    seconds,
  });
  return {
    requestsPerSecond: result.requestsPerSecond,
    cpuMicrosPerRequest: ((cpu() - before) / Math.max(1, result.requests)) * 1e6,
    p99Ms: result.p99Ms,
    errors: result.errorCount,
  };
}

async function main(): Promise<void> {
  const options = readOptions();
  const wrk = findProgram('wrk');
  if (!wrk) throw new UsageError('wrk not found: install it with `apt-get install -y wrk` (Debian, as root)');
  // The mix is drawn from the build's lookup index, shard by shard, as npm run bench draws it.
  const drawn = await sampleBuildMixes(options.dist, [options.mix], { byOperation: options.samples, wholeBuild: options.samples }, options.seed).catch(
    (error: unknown) => {
      if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
      throw new UsageError(`${options.dist} holds no build: run \`npm run build\` first, or give --dist`);
    },
  );
  const commits = options.commits.map(resolveCommit) as [string, string];
  const workDir = await mkdtemp(path.join(os.tmpdir(), 'refdata-ab-'));
  const servers: RunningServer[] = [];
  const bundles: string[] = [];
  try {
    const apiKey = `ab-${randomBytes(18).toString('base64url')}`;
    const headers: Record<string, string> = { Authorization: `Bearer ${apiKey}` };
    if (options.acceptEncoding !== undefined) headers['Accept-Encoding'] = options.acceptEncoding;
    const lookups = drawn.get(options.mix)?.lookups ?? [];
    const script = await writeWrkScript(
      workDir,
      options.mix,
      lookups.map((lookup) => lookup.proxyPath),
      headers,
      options.threads,
    );
    const settings = { DIST_DIR: options.dist, API_KEYS: apiKey, LOG_LEVEL: options.log, ...(options.metrics ? { METRICS_PORT: '0' } : {}) };
    for (const [index, commit] of commits.entries()) {
      const bundle = await bundleCommit(commit, workDir);
      bundles.push(bundle);
      const dist = index === 0 && options.distBefore !== undefined ? options.distBefore : options.dist;
      servers.push(await startProxy({ name: index === 0 ? 'before' : 'after', settings: { ...settings, DIST_DIR: dist }, workers: options.workers, bundle }));
    }
    const [before, after] = servers as [RunningServer, RunningServer];
    // A proxy that cannot read this build (one from before a change to the build's layout) would be
    // measured answering errors: refused here, naming the commit.
    const probe = lookups[0]?.proxyPath ?? '/';
    for (const [index, server] of servers.entries()) {
      const answer = await fetch(`${server.url}${probe}`, { headers });
      if (answer.status !== 200) {
        const reason = (await answer.text()).slice(0, 300);
        throw new Error(
          `${server.name} (${commits[index]?.slice(0, 12)}) answers ${answer.status} for ${probe}: can its proxy read the build in ${index === 0 && options.distBefore !== undefined ? options.distBefore : options.dist}? ${reason}`,
        );
      }
    }
    console.log(
      `bench:ab: ${commits[0].slice(0, 12)} (before) vs ${commits[1].slice(0, 12)} (after), ${options.mix} mix, ${options.connections} connections, ${options.workers} worker(s), LOG_LEVEL=${options.log}${options.metrics ? ', /metrics on' : ''}${options.acceptEncoding === undefined ? '' : `, Accept-Encoding: ${options.acceptEncoding}`}; ${options.rounds} rounds of ${options.duration} s each`,
    );
    // Warm-up: the JIT and the body cache, for both alike.
    for (const server of servers) await load(server, script, options, wrk, 3);
    const samples = new Map<RunningServer, Sample[]>(servers.map((server) => [server, []]));
    for (let round = 0; round < options.rounds; round++) {
      for (const server of round % 2 ? [after, before] : [before, after]) {
        const sample = await load(server, script, options, wrk, options.duration);
        samples.get(server)?.push(sample);
        console.log(
          `  round ${round + 1}, ${server.name}: ${Math.round(sample.requestsPerSecond)} req/s, ${sample.cpuMicrosPerRequest.toFixed(2)} µs CPU per request, p99 ${sample.p99Ms.toFixed(2)} ms${sample.errors ? `, ${sample.errors} errors` : ''}`,
        );
      }
    }
    const figures = servers.map((server) => {
      const mine = samples.get(server) ?? [];
      return {
        rps: median(mine.map((sample) => sample.requestsPerSecond)),
        cpu: median(mine.map((sample) => sample.cpuMicrosPerRequest)),
        p99: median(mine.map((sample) => sample.p99Ms)),
        errors: mine.reduce((sum, sample) => sum + sample.errors, 0),
      };
    });
    const [b, a] = figures as [(typeof figures)[0], (typeof figures)[0]];
    console.log(
      `\nmedians: before ${Math.round(b.rps)} req/s, ${b.cpu.toFixed(2)} µs/req, p99 ${b.p99.toFixed(2)} ms; after ${Math.round(a.rps)} req/s, ${a.cpu.toFixed(2)} µs/req, p99 ${a.p99.toFixed(2)} ms`,
    );
    console.log(`after ÷ before: req/s ${(a.rps / b.rps).toFixed(3)}, CPU per request ${(a.cpu / b.cpu).toFixed(3)}, p99 ${(a.p99 / b.p99).toFixed(3)}`);
    if (a.errors + b.errors > 0) {
      console.error(`errors: before ${b.errors}, after ${a.errors}: the figures count failed requests`);
      process.exitCode = 1;
    }
  } finally {
    for (const server of servers) await server.stop();
    for (const file of [workDir, ...bundles]) await rm(file, { recursive: true, force: true });
  }
}

main().catch((error: unknown) => {
  console.error(error instanceof UsageError ? error.message : error);
  process.exitCode = error instanceof UsageError ? 2 : 1;
});

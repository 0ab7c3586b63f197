/**
 * `npm run bench:switch`: the longest request while the service switches builds. The real data is
 * built into a temporary dist, the proxy runs as `npm start` runs it (two workers), a steady
 * client asks for lookups every few milliseconds, and `npm run build -- --force` writes a new
 * build beside the old one, which every worker then opens and switches to.
 *
 *   npm run bench:switch [-- --rate 200 --settle 4]
 *
 * Printed: requests and failures, and the slowest request before the build, while it is written,
 * and from the new link until the end (when every worker has switched), with p99 of each.
 */
import { spawn } from 'node:child_process';
import http from 'node:http';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { buildDist } from '../../generator/build.ts';
import { median } from './report.ts';
import { bundleProxy, repoRoot, startProxy } from './servers.ts';
import { sampleUrlMix } from './urls.ts';
import { readBuildManifest } from '../support/store.ts';

const key = 'switch-bench-key-0123456789';

interface Sample {
  readonly sentAt: number;
  readonly ms: number;
  readonly status: number;
}

function percentile(values: readonly number[], share: number): number {
  if (values.length === 0) return 0;
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * share))] ?? 0;
}

function request(agent: http.Agent, url: string): Promise<number> {
  return new Promise((resolve) => {
    const outgoing = http.get(url, { agent, headers: { Authorization: `Bearer ${key}` } }, (response) => {
      response.resume();
      response.on('end', () => resolve(response.statusCode ?? 0));
      response.on('error', () => resolve(0));
    });
    outgoing.on('error', () => resolve(0));
  });
}

function runBuild(dataDir: string, distDir: string): Promise<void> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['--import', 'tsx', 'generator/build.ts', '--data', dataDir, '--dist', distDir, '--force'], {
      cwd: repoRoot,
      stdio: 'ignore',
    });
    child.once('exit', (code) => (code === 0 ? resolve() : reject(new Error(`the build exited with ${code}`))));
  });
}

function describe(name: string, samples: readonly Sample[]): string {
  const times = samples.map((sample) => sample.ms);
  const worst = times.length ? Math.max(...times) : 0;
  return `${name.padEnd(22)} ${String(samples.length).padStart(6)} requests   median ${median(times).toFixed(2).padStart(7)} ms   p99 ${percentile(times, 0.99).toFixed(2).padStart(8)} ms   slowest ${worst.toFixed(2).padStart(8)} ms`;
}

async function main(): Promise<void> {
  const { values } = parseArgs({ options: { rate: { type: 'string', default: '200' }, settle: { type: 'string', default: '4' } } });
  const intervalMs = 1000 / Number(values.rate);
  const dataDir = path.join(repoRoot, 'data');
  const workDir = await mkdtemp(path.join(tmpdir(), 'refdata-switch-'));
  const distDir = path.join(workDir, 'dist');
  await buildDist({ dataDir, distDir });
  const manifest = await readBuildManifest(distDir);
  const targets = sampleUrlMix(manifest, 500, 1).lookups.map((lookup) => lookup.proxyPath);
  const proxy = await startProxy({ name: 'proxy', settings: { DIST_DIR: distDir, API_KEYS: key, LOG_LEVEL: 'warn' }, workers: 2, bundle: bundleProxy() });
  const agent = new http.Agent({ keepAlive: true, maxSockets: 16 });
  const samples: Sample[] = [];
  let next = 0;
  let sending = true;
  const inFlight: Promise<void>[] = [];
  const ticker = setInterval(() => {
    if (!sending) return;
    const sentAt = performance.now();
    const target = targets[next++ % targets.length] ?? '/healthz';
    inFlight.push(request(agent, `${proxy.url}${target}`).then((status) => void samples.push({ sentAt, ms: performance.now() - sentAt, status })));
  }, intervalMs);
  try {
    const wait = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));
    await wait(3000);
    const buildStarted = performance.now();
    await runBuild(dataDir, distDir);
    const buildDone = performance.now();
    await wait(Number(values.settle) * 1000);
    sending = false;
    clearInterval(ticker);
    await Promise.all(inFlight);
    const failed = samples.filter((sample) => sample.status !== 200);
    console.log(`rate ${values.rate}/s, build ${((buildDone - buildStarted) / 1000).toFixed(1)} s, ${samples.length} requests, ${failed.length} not 200`);
    console.log(
      describe(
        'before the build',
        samples.filter((sample) => sample.sentAt < buildStarted),
      ),
    );
    console.log(
      describe(
        'while building',
        samples.filter((sample) => sample.sentAt >= buildStarted && sample.sentAt < buildDone),
      ),
    );
    console.log(
      describe(
        'switching (after)',
        samples.filter((sample) => sample.sentAt >= buildDone),
      ),
    );
  } finally {
    clearInterval(ticker);
    agent.destroy();
    await proxy.stop();
    await rm(workDir, { recursive: true, force: true }); // a real-data build is ~650 MB
  }
}

await main();

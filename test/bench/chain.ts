/**
 * `npm run bench:chain`: load through a chain started by the README's "whole chain on one machine"
 * (its settings in the environment, as that block leaves them), counting every response, through
 * the faults the README reports: a build published under load, a proxy killed and started again,
 * and the origin stopped. Prints the figures the README's list gives. Bounded: wrk stops itself.
 *
 *   chain=/tmp/refdata-chain lb=127.0.0.1:8080 npm run bench:chain
 */
import { execFileSync, spawn } from 'node:child_process';
import { openSync } from 'node:fs';
import { readdir, readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { parseStats, runtimeCommand } from '../support/haproxy.ts';
import { findProgram } from '../support/programs.ts';
import { repoRoot } from './servers.ts';
import { sampleUrlMix } from './urls.ts';
import { runWrk, writeWrkScript, type WrkResult } from './wrk.ts';
import { readBuildManifest } from '../support/store.ts';

const chain = process.env.chain ?? '/tmp/refdata-chain';
const lb = process.env.lb ?? '127.0.0.1:8080';
const dist = process.env.dist ?? path.join(repoRoot, 'dist');
const wrk = findProgram('wrk', ['/usr/bin/wrk']);
if (!wrk) throw new Error('wrk is not installed: apt-get install -y wrk');

const apiKey = /^API_KEYS=(\S+)$/m.exec(await readFile(path.join(chain, 'proxy.env'), 'utf8'))?.[1]?.split(',')[0];
if (!apiKey) throw new Error(`no API_KEYS line in ${chain}/proxy.env: start the chain with the README's chain-up block first`);
const manifest = await readBuildManifest(dist);
const paths = sampleUrlMix(manifest, 500, 7).lookups.map((lookup) => lookup.proxyPath);
const script = await writeWrkScript(chain, 'chain-load', paths, { Authorization: `Bearer ${apiKey}` }, 2);
const load = (seconds: number): Promise<WrkResult> => runWrk({ wrk, script, url: `http://${lb}`, threads: 2, connections: 8, seconds });

const originLog = async (): Promise<string[]> => (await readFile(path.join(chain, 'origin', 'access.log'), 'utf8')).split('\n').filter(Boolean);
const proxyPids = async (): Promise<number[]> =>
  Promise.all(
    (await readdir(chain)).filter((name) => /^proxy-\d+\.pid$/.test(name)).map(async (name) => Number(await readFile(path.join(chain, name), 'utf8'))),
  );
const haproxyTotals = async (): Promise<{ retries: number; redispatches: number }> => {
  const backend = parseStats(await runtimeCommand(path.join(chain, 'haproxy', 'admin.sock'), 'show stat')).get('proxies/BACKEND');
  return { retries: Number(backend?.wretr ?? 0), redispatches: Number(backend?.wredis ?? 0) };
};
const buildIdOf = async (port: string): Promise<string | undefined> => {
  const answer = await fetch(`http://127.0.0.1:${port}/readyz`).catch(() => undefined);
  return answer?.ok ? ((await answer.json()) as { body: { buildId: string } }).body.buildId : undefined;
};
const failed = (result: WrkResult): number => result.errorCount;
const describe = (what: string, result: WrkResult, extra = ''): void =>
  console.log(
    `${what}: ${result.requests} requests in ${result.seconds.toFixed(0)} s, ${failed(result)} failed (non-2xx ${result.errors.status}, socket ${result.errorCount - result.errors.status})${extra}`,
  );

async function steady(): Promise<void> {
  const before = (await originLog()).length;
  describe('steady', await load(20));
  const fetched = (await originLog()).slice(before).map((line) => line.split(' ')[6] ?? '');
  // A build's files (its index's head and shards, its packs), not the pointer: Varnish fetches each whole, once, and answers the proxies' ranges itself.
  const files = fetched.filter((file) => /^\/builds\/[^/]+\/./.test(file) && !file.endsWith('/manifest.json'));
  const twice = files.length - new Set(files).size;
  console.log(`  origin requests: ${fetched.length}, of them a build's files under /builds/: ${files.length}, the same file twice: ${twice}`);
}

async function buildUnderLoad(): Promise<void> {
  const running = load(50);
  await sleep(5_000);
  execFileSync('npm', ['run', '--silent', 'build', '--', '--force', '--dist', dist], { cwd: repoRoot, stdio: ['ignore', 'ignore', 'inherit'] });
  const built = Date.now();
  const target = (JSON.parse(await readFile(path.join(path.dirname(dist), '.dist-builds', 'current.json'), 'utf8')) as { buildId: string }).buildId;
  const ports = (await readdir(chain)).flatMap((name) => /^proxy-(\d+)\.pid$/.exec(name)?.[1] ?? []);
  while ((await Promise.all(ports.map(buildIdOf))).some((id) => id !== target)) await sleep(200);
  const switched = (Date.now() - built) / 1000;
  describe('npm run build under load', await running, `; every proxy on ${target} ${switched.toFixed(1)} s after the command returned`);
}

async function killOne(): Promise<void> {
  const [pid] = await proxyPids();
  if (!pid) throw new Error('no proxy pid file');
  // Started again exactly as it was: its own command line, environment and folder.
  const argv = (await readFile(`/proc/${pid}/cmdline`, 'utf8')).split('\0').filter(Boolean);
  const environ = (await readFile(`/proc/${pid}/environ`, 'utf8')).split('\0').filter(Boolean);
  const env = Object.fromEntries(environ.map((entry) => [entry.slice(0, entry.indexOf('=')), entry.slice(entry.indexOf('=') + 1)]));
  const cwd = execFileSync('readlink', [`/proc/${pid}/cwd`], { encoding: 'utf8' }).trim();
  const before = await haproxyTotals();
  const running = load(30);
  await sleep(5_000);
  process.kill(pid, 'SIGKILL');
  await sleep(10_000);
  const port = env.PORT;
  const log = openSync(path.join(chain, `proxy-${port}.log`), 'a');
  const child = spawn(argv[0] as string, argv.slice(1), { cwd, env, detached: true, stdio: ['ignore', log, log] });
  child.unref();
  await writeFile(path.join(chain, `proxy-${port}.pid`), `${child.pid}\n`);
  const result = await running;
  const after = await haproxyTotals();
  describe(
    'one proxy killed and started again',
    result,
    `; HAProxy retried ${after.retries - before.retries}, redispatched ${after.redispatches - before.redispatches}`,
  );
}

async function originStopped(): Promise<void> {
  const nginx = ['-p', `${path.join(chain, 'origin')}/`, '-c', path.join(chain, 'origin', 'nginx.conf')];
  const varnishSick = (): boolean => / sick /.test(execFileSync('varnishadm', ['-n', path.join(chain, 'varnishd'), 'backend.list'], { encoding: 'utf8' }));
  execFileSync('nginx', [...nginx, '-s', 'quit']);
  while (!varnishSick()) await sleep(200);
  describe('origin stopped, Varnish reporting it sick', await load(15));
  execFileSync('nginx', nginx);
  while (varnishSick()) await sleep(200);
}

console.log(`bench:chain through http://${lb}, ${paths.length} lookups sampled from ${dist}, wrk -t2 -c8`);
await steady();
await buildUnderLoad();
await killOne();
await originStopped();

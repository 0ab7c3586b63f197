/**
 * `npm run bench`: the service under load next to its ceiling, in one run on one machine.
 *
 *   npm run bench -- [--smoke] [--rounds 3] [--duration 10] [--concurrency 8,64] [--samples 4000]
 *     [--warmup 3] [--workers 2] [--threads 2] [--seed 1] [--data data] [--dist DIR] [--out FILE] [--keep]
 *     [--only local-apikey,local-apikey-ratelimit]
 *
 * Builds a copy of data/ into a temporary dist (the build figures), then serves that build with
 * nginx (the files as they are, no auth: the ceiling) and with proxies in local and origin mode, and
 * loads each with wrk, alternating round-robin within every round so that machine noise spreads
 * evenly. Reports requests per second, p50 and p99 latency, errors, each configuration's ratio to
 * nginx in the same round, start-up, memory, the build figures and the issue's targets; writes it
 * all as JSON (bench-results/ by default). Exits 0 when the bench ran, whatever the targets say;
 * 1 when it broke; 2 when wrk or nginx is missing or an option is wrong.
 */
import { execFileSync, spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { rmSync } from 'node:fs';
import { access, mkdir, mkdtemp, readFile, realpath, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { SignJWT } from 'jose';
import type { Manifest } from '../../contract/manifest.ts';
import { buildCommand, measureBuild } from './build.ts';
import {
  configurationIds,
  configurationLabels,
  evaluateTargets,
  formatBuild,
  formatResults,
  formatServers,
  formatTargets,
  summarise,
  type ConfigurationId,
  type RunRecord,
  type ServerFigures,
} from './report.ts';
import {
  bundleProxy,
  cpuSeconds,
  findProgram,
  freePort,
  repoRoot,
  residentKb,
  startFloor,
  startNginx,
  startProxy,
  treePids,
  type RunningServer,
} from './servers.ts';
import { sampleUrlMix, type Lookup } from './urls.ts';
import { runWrk, writeWrkScript, type WrkResult } from './wrk.ts';

class UsageError extends Error {}

function positive(name: string, text: string): number {
  const value = Number(text);
  if (!Number.isInteger(value) || value < 1) throw new UsageError(`--${name} takes a whole number of at least 1 (got ${JSON.stringify(text)})`);
  return value;
}

/** --only's list, checked: nginx added first, in the table's order. */
function chosenConfigurations(list: string): ConfigurationId[] {
  const named = new Set(
    list
      .split(',')
      .map((id) => id.trim())
      .filter((id) => id !== ''),
  );
  const unknown = [...named].filter((id) => !(configurationIds as readonly string[]).includes(id));
  if (unknown.length > 0) throw new UsageError(`--only takes configurations among ${configurationIds.join(', ')} (got ${unknown.join(', ')})`);
  return configurationIds.filter((id) => id === 'nginx' || named.has(id));
}

interface Options {
  readonly smoke: boolean;
  readonly rounds: number;
  readonly duration: number;
  readonly concurrency: readonly number[];
  readonly samples: number;
  readonly warmup: number;
  readonly workers: number;
  readonly threads: number;
  readonly seed: number;
  readonly data: string;
  readonly dist: string | undefined;
  readonly out: string;
  readonly keep: boolean;
  /** The configurations to run; nginx always runs, as the ceiling every ratio is taken against. */
  readonly only: readonly ConfigurationId[];
}

function readOptions(): Options {
  const { values } = parseArgs({
    options: {
      smoke: { type: 'boolean', default: false },
      rounds: { type: 'string' },
      duration: { type: 'string' },
      concurrency: { type: 'string' },
      samples: { type: 'string' },
      warmup: { type: 'string' },
      workers: { type: 'string', default: '2' },
      threads: { type: 'string', default: '2' },
      seed: { type: 'string', default: '1' },
      data: { type: 'string', default: 'data' },
      dist: { type: 'string' },
      out: { type: 'string' },
      keep: { type: 'boolean', default: false },
      only: { type: 'string' },
    },
  });
  // --smoke: a few seconds in all, to show that the bench works (CI); any option given still wins.
  const smoke = values.smoke;
  const concurrency = (values.concurrency ?? (smoke ? '8' : '8,64')).split(',').map((level) => positive('concurrency', level.trim()));
  const warmup = Number(values.warmup ?? (smoke ? '0' : '3'));
  if (!Number.isInteger(warmup) || warmup < 0) throw new UsageError(`--warmup takes whole seconds, 0 or more (got ${JSON.stringify(values.warmup)})`);
  const stamp = new Date().toISOString().replace(/[-:]|\.\d+/g, '');
  return {
    smoke,
    rounds: positive('rounds', values.rounds ?? (smoke ? '1' : '3')),
    duration: positive('duration', values.duration ?? (smoke ? '1' : '10')),
    concurrency,
    samples: positive('samples', values.samples ?? (smoke ? '200' : '4000')),
    warmup,
    workers: positive('workers', values.workers),
    threads: positive('threads', values.threads),
    seed: positive('seed', values.seed),
    data: path.resolve(values.data),
    dist: values.dist === undefined ? undefined : path.resolve(values.dist),
    out: path.resolve(values.out ?? path.join(repoRoot, 'bench-results', `${stamp}.json`)),
    keep: values.keep,
    only: values.only === undefined ? configurationIds : chosenConfigurations(values.only),
  };
}

interface Configuration {
  readonly id: ConfigurationId;
  readonly server: RunningServer;
  readonly script: string;
  /** Measured in the first round only (per-request logging, reported as its own row). */
  readonly firstRoundOnly: boolean;
}

/** The first line a program prints about its version: nginx -v writes to stderr, wrk -v exits 1. */
function versionOf(program: string, args: readonly string[]): string {
  const { stdout, stderr } = spawnSync(program, args, { encoding: 'utf8' });
  return `${stdout ?? ''}${stderr ?? ''}`.trim().split('\n')[0] ?? '';
}

/** The commit measured, and any uncommitted change to what is measured (another engineer's work in progress). */
function gitState(): { commit: string; uncommitted: string[] } | undefined {
  const head = spawnSync('git', ['rev-parse', 'HEAD'], { cwd: repoRoot, encoding: 'utf8' });
  if (head.status !== 0) return undefined;
  const status = spawnSync('git', ['status', '--porcelain', '--', 'proxy', 'generator', 'deploy', 'nginx.conf', 'data', 'package-lock.json'], {
    cwd: repoRoot,
    encoding: 'utf8',
  });
  return { commit: head.stdout.trim(), uncommitted: status.stdout.split('\n').filter((line) => line.length > 0) };
}

/** Runs `task` for every item, `parallel` at a time. */
async function eachLimited<T>(items: readonly T[], parallel: number, task: (item: T) => Promise<void>): Promise<void> {
  let next = 0;
  const worker = async (): Promise<void> => {
    while (next < items.length) await task(items[next++] as T);
  };
  await Promise.all(Array.from({ length: parallel }, worker));
}

/**
 * Every distinct sampled lookup through one server, before any load: nginx must serve the file
 * with the manifest's size, a proxy must answer 200 with the manifest's ETag, which proves the query
 * URL finds the same body as the file path. Also warms caches and the JIT.
 */
async function preflight(name: string, url: string, lookups: readonly Lookup[], headers: Record<string, string>, id: ConfigurationId): Promise<void> {
  const failures: string[] = [];
  // The proxies wrap the body (the ETag proves it is the same); nginx and the floor send it as it is.
  const proxy = id !== 'nginx' && id !== 'node-floor';
  await eachLimited(lookups, 8, async (lookup) => {
    const target = id === 'nginx' ? lookup.nginxPath : lookup.proxyPath;
    const response = await fetch(`${url}${target}`, { headers }).catch((error: unknown) => error as Error);
    if (response instanceof Error) {
      failures.push(`${target}: ${response.message}`);
      return;
    }
    const body = Buffer.from(await response.arrayBuffer());
    if (response.status !== 200) failures.push(`${target}: ${response.status} ${body.toString().slice(0, 200)}`);
    else if (proxy && response.headers.get('etag') !== lookup.etag)
      failures.push(`${target}: ETag ${response.headers.get('etag')}, the manifest says ${lookup.etag} for ${lookup.file}`);
    else if (!proxy && body.length !== lookup.size) failures.push(`${target}: ${body.length} bytes, the manifest says ${lookup.size}`);
  });
  if (failures.length > 0) {
    throw new Error(`preflight: ${failures.length} of ${lookups.length} lookups failed on ${name}:\n  ${failures.slice(0, 10).join('\n  ')}`);
  }
}

/** One load run, with the server's CPU time and memory read from /proc while it goes. */
async function measure(
  configuration: Configuration,
  options: Options,
  connections: number,
  seconds: number,
  wrk: string,
): Promise<WrkResult & { cpu: { user: number; system: number }; peak: Record<string, number> }> {
  const pids = treePids(configuration.server);
  const cpuTotal = (): { user: number; system: number } =>
    pids.map(cpuSeconds).reduce((sum, times) => ({ user: sum.user + times.user, system: sum.system + times.system }), { user: 0, system: 0 });
  const before = cpuTotal();
  const peak: Record<string, number> = {};
  const sample = (): void => {
    for (const pid of pids) peak[pid] = Math.max(peak[pid] ?? 0, residentKb(pid) ?? 0);
  };
  const sampler = setInterval(sample, 250);
  try {
    const result = await runWrk({
      wrk,
      script: configuration.script,
      url: configuration.server.url,
      threads: Math.min(options.threads, connections),
      connections,
      seconds,
    });
    sample();
    const after = cpuTotal();
    return { ...result, cpu: { user: after.user - before.user, system: after.system - before.system }, peak };
  } finally {
    clearInterval(sampler);
  }
}

function rssMb(server: RunningServer): number[] {
  return treePids(server).map((pid) => (residentKb(pid) ?? 0) / 1024);
}

async function main(): Promise<void> {
  const options = readOptions();
  const wrk = findProgram('wrk');
  const nginxBinary = findProgram('nginx', ['/usr/sbin/nginx', '/usr/local/sbin/nginx', '/usr/local/nginx/sbin/nginx']);
  const missing = [wrk ? undefined : 'wrk', nginxBinary ? undefined : 'nginx'].filter((name) => name !== undefined);
  if (!wrk || !nginxBinary) {
    throw new UsageError(
      `${missing.join(' and ')} not found: install with \`apt-get install -y ${missing.join(' ')}\` (Debian, as root; wrk 4.1.0 is what the figures were taken with)`,
    );
  }
  const machine = {
    cores: os.availableParallelism(),
    cpu: os.cpus()[0]?.model ?? 'unknown',
    memoryGb: Math.round(os.totalmem() / 1e9),
    kernel: `${os.type()} ${os.release()}`,
    node: process.version,
    nginx: versionOf(nginxBinary, ['-v']).replace(/^nginx version: /, ''),
    wrk: versionOf(wrk, ['-v']).split(' [')[0] ?? '',
  };
  const git = gitState();
  const started = Date.now();
  const workDir = await mkdtemp(path.join(os.tmpdir(), 'refdata-bench-'));
  // Removed also when the bench is stopped by a signal (its builds take 300 MB each).
  const removeWorkDir = (): void => rmSync(workDir, { recursive: true, force: true });
  if (!options.keep) process.once('exit', removeWorkDir);
  const servers: RunningServer[] = [];
  try {
    console.log(`npm run bench: ${machine.cores} cores (${machine.cpu}), node ${machine.node}, nginx ${machine.nginx}, ${machine.wrk}; work in ${workDir}`);
    if (git)
      console.log(
        `commit ${git.commit}${git.uncommitted.length > 0 ? `, with uncommitted changes to: ${git.uncommitted.map((line) => line.slice(3)).join(', ')}` : ''}`,
      );
    console.log(
      `building ${path.relative(repoRoot, options.data) || '.'} into a temporary dist, ${options.rounds} time(s): full build, cp -r of it, no-op rebuild …`,
    );
    const build = await measureBuild(options.data, workDir, options.rounds);
    let served = build.buildDir;
    if (options.dist) {
      const present = await access(path.join(options.dist, 'manifest.json')).then(
        () => true,
        () => false,
      );
      if (!present) {
        console.log(`${options.dist} has no build: building it`);
        execFileSync(buildCommand[0], [...buildCommand.slice(1), '--data', options.data, '--dist', options.dist], { cwd: repoRoot, stdio: 'inherit' });
      }
      served = await realpath(options.dist);
    }
    const manifest = JSON.parse(await readFile(path.join(served, 'manifest.json'), 'utf8')) as Manifest;
    const mix = sampleUrlMix(manifest, options.samples, options.seed);
    if (mix.unreadableKeys > 0) throw new Error(`${mix.unreadableKeys} body files have keys that do not read back as query values (test/bench/urls.ts)`);
    console.log(
      `serving ${served}: ${mix.lookups.length} sampled lookups (${mix.distinct} distinct, mean body ${Math.round(mix.meanBytes)} bytes; single ${mix.byClass.single}, list ${mix.byClass.list}, large ${mix.byClass.large})`,
    );

    // Throwaway credentials for this run only.
    const apiKey = `bench-${randomBytes(18).toString('base64url')}`;
    const jwtSecret = randomBytes(32).toString('base64url');
    const originHeader = `X-Origin-Secret: ${randomBytes(24).toString('hex')}`;
    const jwt = await new SignJWT({})
      .setProtectedHeader({ alg: 'HS256', typ: 'JWT' })
      .setSubject('bench')
      .setIssuedAt()
      .setExpirationTime('6h')
      .sign(new TextEncoder().encode(jwtSecret));
    const [secretName, secretValue] = originHeader.split(': ') as [string, string];

    const nginx = await startNginx({ nginx: nginxBinary, root: served, prefix: path.join(workDir, 'nginx'), originHeader });
    servers.push(nginx);
    // No local copy of the origin's bodies: every miss of the memory cache goes to nginx, as measured before it existed.
    const originSettings = { ORIGIN_URL: `${nginx.url}/`, ORIGIN_HEADER: originHeader, ORIGIN_CACHE_DIR: 'off', API_KEYS: apiKey, LOG_LEVEL: 'warn' };
    const proxySettings: Record<Exclude<ConfigurationId, 'nginx' | 'node-floor'>, Record<string, string>> = {
      'local-apikey': { DIST_DIR: served, API_KEYS: apiKey, LOG_LEVEL: 'warn' },
      'local-apikey-metrics': { DIST_DIR: served, API_KEYS: apiKey, LOG_LEVEL: 'warn', METRICS_PORT: String(await freePort()) },
      // A budget no run can spend: every request is counted and shared, none refused.
      'local-apikey-ratelimit': { DIST_DIR: served, API_KEYS: apiKey, LOG_LEVEL: 'warn', RATE_LIMIT: '999999999/60' },
      'local-apikey-log-info': { DIST_DIR: served, API_KEYS: apiKey, LOG_LEVEL: 'info' },
      'local-jwt': { DIST_DIR: served, JWT_SECRET: jwtSecret, LOG_LEVEL: 'warn' },
      'origin-warm': originSettings,
      // "Cold" is emulated: a 1 MB body cache holds almost none of the sampled bodies, so nearly every
      // request fetches its body from nginx, as right after a start or a new build.
      'origin-cold': { ...originSettings, BODY_CACHE_MB: '1' },
    };
    const headersOf = (id: ConfigurationId): Record<string, string> =>
      id === 'nginx' ? { [secretName]: secretValue } : id === 'node-floor' ? {} : { Authorization: `Bearer ${id === 'local-jwt' ? jwt : apiKey}` };

    const bundle = bundleProxy();
    const floorTargets = path.join(workDir, 'floor.targets');
    await writeFile(floorTargets, `${[...new Set(mix.lookups.map((lookup) => `${lookup.proxyPath}\t${lookup.file}`))].join('\n')}\n`);
    const configurations: Configuration[] = [];
    for (const id of options.only) {
      // One at a time, so that each start-up is timed on an otherwise idle machine.
      const server =
        id === 'nginx'
          ? nginx
          : id === 'node-floor'
            ? await startFloor({ targets: floorTargets, root: served, workers: options.workers })
            : await startProxy({ name: id, settings: proxySettings[id], workers: options.workers, bundle });
      if (id !== 'nginx') servers.push(server);
      const paths = mix.lookups.map((lookup) => (id === 'nginx' ? lookup.nginxPath : lookup.proxyPath));
      const script = await writeWrkScript(workDir, id, paths, headersOf(id), options.threads);
      configurations.push({ id, server, script, firstRoundOnly: id === 'local-apikey-log-info' });
      console.log(`  ${configurationLabels[id]}: ${server.url}, ready in ${Math.round(server.startupMs)} ms`);
    }

    const distinct = [...new Map(mix.lookups.map((lookup) => [lookup.file, lookup])).values()];
    console.log(`preflight: ${distinct.length} distinct lookups through every server …`);
    for (const configuration of configurations) {
      await preflight(configurationLabels[configuration.id], configuration.server.url, distinct, headersOf(configuration.id), configuration.id);
    }
    const highest = Math.max(...options.concurrency);
    if (options.warmup > 0) {
      console.log(`warm-up: ${options.warmup} s of load on each server …`);
      for (const configuration of configurations) await measure(configuration, options, highest, options.warmup, wrk);
    }
    const afterWarmup = new Map(configurations.map((configuration) => [configuration.id, rssMb(configuration.server)]));

    const runs: RunRecord[] = [];
    const total = options.rounds * options.concurrency.length * (configurations.length - 1) + options.concurrency.length;
    console.log(
      `load: ${options.rounds} round(s) × concurrency ${options.concurrency.join(', ')} × ${configurations.length} configurations, ${options.duration} s each (${total} runs) …`,
    );
    for (let round = 0; round < options.rounds; round++) {
      // Each round starts one configuration later, so that none always runs first or after the same one.
      const order = configurations.map((_, index) => configurations[(index + round) % configurations.length] as Configuration);
      for (const concurrency of options.concurrency) {
        for (const configuration of order) {
          if (configuration.firstRoundOnly && round > 0) continue;
          const result = await measure(configuration, options, concurrency, options.duration, wrk);
          const { cpu, peak, ...figures } = result;
          const perRequest = (cpuSeconds: number): number => (cpuSeconds / Math.max(1, figures.requests)) * 1e6;
          runs.push({
            ...figures,
            round,
            concurrency,
            configuration: configuration.id,
            serverCpuMicrosPerRequest: { user: perRequest(cpu.user), system: perRequest(cpu.system) },
            peakRssKb: peak,
          });
          const errors = result.errorCount > 0 ? `, ${result.errorCount} errors ${JSON.stringify(result.errors)}` : '';
          console.log(
            `  round ${round + 1}, c=${concurrency}, ${configurationLabels[configuration.id]}: ${Math.round(result.requestsPerSecond)} req/s, p50 ${result.p50Ms.toFixed(2)} ms, p99 ${result.p99Ms.toFixed(2)} ms${errors}`,
          );
        }
      }
    }

    const serverFigures: ServerFigures[] = configurations.map((configuration) => {
      const pids = treePids(configuration.server);
      const mine = runs.filter((run) => run.configuration === configuration.id);
      return {
        configuration: configuration.id,
        startupMs: configuration.server.startupMs,
        afterWarmupMb: afterWarmup.get(configuration.id) ?? [],
        underLoadMb: pids.map((pid) => Math.max(...mine.map((run) => run.peakRssKb[pid] ?? 0)) / 1024),
      };
    });
    const results = Object.fromEntries(options.concurrency.map((concurrency) => [String(concurrency), summarise(runs, concurrency)]));
    const targets = evaluateTargets(results, build, serverFigures);

    const lines: string[] = [''];
    for (const concurrency of options.concurrency) {
      lines.push(
        `### ${concurrency} connections (median of ${options.rounds} round(s) × ${options.duration} s)`,
        '',
        formatResults(results[String(concurrency)] ?? []),
        '',
      );
    }
    lines.push(
      '### Build',
      '',
      formatBuild(build),
      '',
      '### Start-up and memory',
      '',
      formatServers(serverFigures),
      '',
      '### Targets',
      '',
      formatTargets(targets),
      '',
    );
    lines.push(
      'Notes: ratios are to nginx in the same round; "cold" is emulated with a 1 MB body cache, so nearly every body is fetched from nginx;',
      'the LOG_LEVEL=info row is measured in the first round only, its request log written to /dev/null; start-up is spawn to the first 200 from /readyz.',
    );
    if (options.smoke || options.data !== path.join(repoRoot, 'data'))
      lines.push('This was a smoke run or not the full data: the targets mean nothing here; run `npm run bench` for figures.');
    console.log(lines.join('\n'));

    const failed = targets.filter((item) => !item.pass);
    const json = {
      startedAt: new Date(started).toISOString(),
      seconds: (Date.now() - started) / 1000,
      command: `npm run bench -- ${process.argv.slice(2).join(' ')}`.trim(),
      machine,
      git: git ?? 'not a git checkout',
      options,
      urlMix: { ...mix, lookups: undefined, sample: mix.lookups.slice(0, 20).map((lookup) => ({ nginx: lookup.nginxPath, proxy: lookup.proxyPath })) },
      configurations: Object.fromEntries(options.only.map((id) => [id, configurationLabels[id]])),
      notes: {
        cold: 'emulated: the proxy runs with BODY_CACHE_MB=1, so nearly every body is fetched from nginx',
        logInfo: 'LOG_LEVEL=info measured in the first round only; request log written to /dev/null',
        ratios: 'median over rounds of each run divided by nginx in the same round and concurrency',
        startup: 'spawn to the first 200 from /readyz (the first worker ready)',
      },
      results,
      build,
      servers: serverFigures,
      targets,
      runs,
    };
    await mkdir(path.dirname(options.out), { recursive: true });
    await writeFile(options.out, `${JSON.stringify(json, null, 2)}\n`);
    console.log(
      `\n${targets.length - failed.length} of ${targets.length} targets pass${failed.length ? `; failing: ${failed.map((item) => item.name).join('; ')}` : ''}`,
    );
    console.log(`results: ${path.relative(process.cwd(), options.out)} (${Math.round((Date.now() - started) / 1000)} s in all)`);
  } finally {
    for (const server of servers.reverse()) await server.stop();
    if (!options.keep) {
      await rm(workDir, { recursive: true, force: true });
      process.off('exit', removeWorkDir);
    }
  }
}

// Stopped from outside: the servers are stopped too (servers.ts kills them on exit).
for (const signal of ['SIGINT', 'SIGTERM'] as const) process.once(signal, () => process.exit(130));

main().catch((error: unknown) => {
  console.error(error instanceof UsageError ? `npm run bench: ${error.message}` : error);
  process.exitCode = error instanceof UsageError ? 2 : 1;
});

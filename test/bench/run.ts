/**
 * `npm run bench`: the service under load next to honest references, in one run on one machine.
 *
 *   npm run bench -- [--smoke] [--rounds 3] [--duration 10] [--concurrency 8,64] [--samples 4000]
 *     [--random-count 60000] [--mix sampled,small,random,skewed,flags] [--warmup 3] [--workers 2]
 *     [--threads 2] [--seed 1] [--data data] [--dist DIR] [--out FILE] [--keep]
 *     [--only local-apikey,local-apikey-log-info]
 *
 * Builds a copy of data/ into a temporary dist (the build figures), then serves that build with the
 * proxy in local and origin mode and the same bodies with the references (references.ts: nginx
 * tuned, the ceiling; nginx as deployed, the origin; the node:http floors; a Fastify server), which
 * read the sampled bodies as plain files (referenceRoot.ts) or, the pread floor, from the build's
 * packs, and loads each with wrk on every request mix (mixes.ts: drawn by operation, and at random
 * over the whole build), alternating round-robin within every round so that machine noise spreads
 * evenly. Reports, per mix and concurrency, requests per second, p50 and p99 latency, CPU time per
 * request, errors and each configuration's ratio to each reference in the same round; then
 * capacity, start-up, memory, the build figures and the targets; writes it all as JSON
 * (bench-results/ by default). Exits 0 when the bench ran, whatever the targets say; 1 when it
 * broke; 2 when wrk or nginx is missing or an option is wrong.
 */
import { execFileSync, spawnSync } from 'node:child_process';
import { rmSync } from 'node:fs';
import { access, mkdir, mkdtemp, realpath, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { buildCommand, measureBuild } from './build.ts';
import { startConfigurations, type Configuration } from './configurations.ts';
import { formatBuild, formatCapacity, formatRandomAccess, formatResults, formatServers, formatShares, formatTargets } from './format.ts';
import { measure, preflight, rssMb } from './load.ts';
import { type BenchMixId, mixLabels, sampleBuildMixes } from './mixes.ts';
import { readOptions, UsageError, type Options } from './options.ts';
import { writeReferenceRoot } from './referenceRoot.ts';
import { configurationIds, summarise, type Results, type RunRecord, type ServerFigures } from './report.ts';
import { findProgram } from '../support/programs.ts';
import { repoRoot, treePids, type RunningServer } from './servers.ts';
import { evaluateTargets, targetFloor } from './targets.ts';
import type { Lookup, UrlMix } from './urls.ts';

/** The first line a program prints about its version: nginx -v writes to stderr, wrk -v exits 1. */
function versionOf(program: string, args: readonly string[]): string {
  const { stdout, stderr } = spawnSync(program, args, { encoding: 'utf8' });
  return `${stdout ?? ''}${stderr ?? ''}`.trim().split('\n')[0] ?? '';
}

/** The commit measured, and any uncommitted change to what is measured (another engineer's work in progress). */
function gitState(): { commit: string; uncommitted: string[] } | undefined {
  const head = spawnSync('git', ['rev-parse', 'HEAD'], { cwd: repoRoot, encoding: 'utf8' });
  if (head.status !== 0) return undefined;
  const status = spawnSync('git', ['status', '--porcelain', '--', 'proxy', 'generator', 'deploy', 'nginx.conf', 'data', 'package-lock.json', 'test/bench'], {
    cwd: repoRoot,
    encoding: 'utf8',
  });
  return { commit: head.stdout.trim(), uncommitted: status.stdout.split('\n').filter((line) => line.length > 0) };
}

/** The build to serve: the bench's own (timed), or --dist, built there first when it has none. */
async function servedBuild(options: Options, built: string): Promise<string> {
  if (!options.dist) return built;
  const present = await access(path.join(options.dist, 'manifest.json')).then(
    () => true,
    () => false,
  );
  if (!present) {
    console.log(`${options.dist} has no build: building it`);
    execFileSync(buildCommand[0], [...buildCommand.slice(1), '--data', options.data, '--dist', options.dist], { cwd: repoRoot, stdio: 'inherit' });
  }
  return realpath(options.dist);
}

/** Every round alternates the configurations, each round starting one later, for every mix and concurrency. */
async function loadAll(configurations: readonly Configuration[], options: Options, wrk: string): Promise<RunRecord[]> {
  const runs: RunRecord[] = [];
  for (let round = 0; round < options.rounds; round++) {
    // Each round starts one configuration later, so that none always runs first or after the same one.
    const order = configurations.map((_, index) => configurations[(index + round) % configurations.length] as Configuration);
    for (const mix of options.mixes) {
      for (const concurrency of options.concurrency) {
        for (const configuration of order) {
          const { cpu, peak, ...figures } = await measure(configuration, mix, options, concurrency, options.duration, wrk);
          const perRequest = (seconds: number): number => (seconds / Math.max(1, figures.requests)) * 1e6;
          runs.push({
            ...figures,
            round,
            mix,
            concurrency,
            configuration: configuration.id,
            serverCpuMicrosPerRequest: { user: perRequest(cpu.user), system: perRequest(cpu.system) },
            peakRssKb: peak,
          });
          const errors = figures.errorCount > 0 ? `, ${figures.errorCount} errors ${JSON.stringify(figures.errors)}` : '';
          console.log(
            `  round ${round + 1}, ${mix}, c=${concurrency}, ${configuration.label}: ${Math.round(figures.requestsPerSecond)} req/s, p50 ${figures.p50Ms.toFixed(2)} ms, p99 ${figures.p99Ms.toFixed(2)} ms${errors}`,
          );
        }
      }
    }
  }
  return runs;
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
    const served = await servedBuild(options, build.buildDir);
    console.log(`drawing the request mixes from ${served}'s lookup index …`);
    // The fixed floor's one body: the median-sized of the small mix, drawn even when that mix is not loaded.
    const drawn = await sampleBuildMixes(
      served,
      [...new Set<BenchMixId>([...options.mixes, 'small'])],
      { byOperation: options.samples, wholeBuild: options.randomCount },
      options.seed,
    );
    const small = drawn.get('small')?.lookups ?? [];
    const fixedBody = [...small].sort((a, b) => a.size - b.size)[Math.floor(small.length / 2)] as Lookup;
    const mixes = new Map(options.mixes.map((id) => [id, drawn.get(id) as UrlMix]));
    console.log(`serving ${served}:`);
    for (const [id, mix] of mixes) {
      if (mix.unreadableKeys > 0) throw new Error(`${mix.unreadableKeys} body files have keys that do not read back as query values (test/bench/urls.ts)`);
      const from = mix.population === undefined ? '' : `, drawn from the ${mix.population} bodies a query names`;
      console.log(
        `  ${mixLabels[id]}: ${mix.lookups.length} lookups, ${mix.distinct} distinct, mean body ${Math.round(mix.meanBytes)} bytes (single ${mix.byClass.single}, list ${mix.byClass.list}, large ${mix.byClass.large})${from}`,
      );
    }
    console.log(`  the fixed floor's body: ${fixedBody.file}, ${fixedBody.size} bytes`);
    const distinct = [...new Map([...mixes.values()].flatMap((mix) => mix.lookups).map((lookup) => [lookup.file, lookup])).values()];
    // One root for every reference: nginx as deployed is both a reference (the bodies by path) and
    // the origin of the proxies in origin mode (the build's index and packs), as one deployed nginx is.
    const references = await writeReferenceRoot({
      buildDir: served,
      root: path.join(workDir, 'references'),
      files: [...distinct.map((lookup) => lookup.file), fixedBody.file],
      build: 'linked',
    });
    console.log(
      `the references serve ${references.root}: ${references.bodies} bodies read from the build's packs as files (${Math.round(references.bytes / 1024)} KB), beside a hard-linked copy of the build`,
    );

    const configurations = await startConfigurations(options, nginxBinary, { build: served, references: references.root, mixes, fixedBody }, workDir, servers);
    console.log(`preflight: ${distinct.length} distinct lookups through every server …`);
    for (const configuration of configurations) await preflight(configuration, distinct, configuration.headers, fixedBody.size);
    console.log(`preflight: every lookup answered alike by ${configurations.map((configuration) => configuration.id).join(', ')}`);
    const highest = Math.max(...options.concurrency);
    if (options.warmup > 0) {
      const seconds = Math.max(1, Math.round(options.warmup / options.mixes.length));
      console.log(`warm-up: ${seconds} s of load on each server for each mix …`);
      for (const configuration of configurations) for (const mix of options.mixes) await measure(configuration, mix, options, highest, seconds, wrk);
    }
    const afterWarmup = new Map(configurations.map((configuration) => [configuration.id, rssMb(configuration.server)]));

    const perRound = options.mixes.length * options.concurrency.length;
    const total = options.rounds * perRound * configurations.length;
    console.log(
      `load: ${options.rounds} round(s) × mix ${options.mixes.join(', ')} × concurrency ${options.concurrency.join(', ')} × ${configurations.length} configurations, ${options.duration} s each (${total} runs, ${Math.ceil((total * options.duration) / 60)} min) …`,
    );
    const runs = await loadAll(configurations, options, wrk);

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
    const results: Results = Object.fromEntries(
      options.mixes.map((mix) => [mix, Object.fromEntries(options.concurrency.map((concurrency) => [String(concurrency), summarise(runs, mix, concurrency)]))]),
    );
    const targets = evaluateTargets(results, build, serverFigures);

    const lines: string[] = [''];
    for (const mix of options.mixes) {
      for (const concurrency of options.concurrency) {
        lines.push(
          `### ${mixLabels[mix]}; ${concurrency} connections (median of ${options.rounds} round(s) × ${options.duration} s)`,
          '',
          formatResults(results[mix]?.[String(concurrency)] ?? []),
          '',
        );
      }
    }
    const shares = formatShares(results);
    if (shares) lines.push('### The proxy as a share of each reference (req/s, same round)', '', shares, '');
    const randomAccess = formatRandomAccess(results);
    if (randomAccess) lines.push('### Random access over the whole build: the proxy beside the pread floor and nginx (same round)', '', randomAccess, '');
    lines.push(`### Capacity at ${highest} connections (from the servers' CPU time)`, '', formatCapacity(results, highest), '');
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
      'Notes: ratios are medians over rounds of each run over the reference in the same round, mix and concurrency; "cold" is emulated with a',
      '1 MB body cache, so nearly every body is fetched from nginx; the request log of the LOG_LEVEL=info row is',
      `written to /dev/null; the floor targets use ${targetFloor}; start-up is spawn to the first 200.`,
    );
    if (options.smoke || options.data !== path.join(repoRoot, 'data'))
      lines.push('This was a smoke run or not the full data: the targets mean nothing here; run `npm run bench` for figures.');
    console.log(lines.join('\n'));

    const counted = targets.filter((item) => !item.stretch);
    const failed = counted.filter((item) => !item.pass);
    const json = {
      startedAt: new Date(started).toISOString(),
      seconds: (Date.now() - started) / 1000,
      command: `npm run bench -- ${process.argv.slice(2).join(' ')}`.trim(),
      machine,
      git: git ?? 'not a git checkout',
      options,
      urlMixes: Object.fromEntries(
        [...mixes].map(([id, mix]) => [
          id,
          {
            ...mix,
            label: mixLabels[id],
            lookups: undefined,
            sample: mix.lookups.slice(0, 20).map((lookup) => ({ nginx: lookup.nginxPath, proxy: lookup.proxyPath })),
          },
        ]),
      ),
      fixedFloorBody: { file: fixedBody.file, size: fixedBody.size },
      configurations: Object.fromEntries(configurations.map((configuration) => [configuration.id, configuration.label])),
      notes: {
        cold: 'emulated: the proxy runs with BODY_CACHE_MB=1, so nearly every body is fetched from nginx',
        logInfo: 'LOG_LEVEL=info: the request log is written to /dev/null',
        ratios: 'median over rounds of each run divided by the reference in the same round, mix and concurrency',
        floorTargets: `the floor targets use ${targetFloor}`,
        wholeBuild:
          "the random and skewed mixes are drawn from every body of the build a query names (population); node-floor-pread reads each body from the build's packs with one pread per request",
        capacity: "requests per core = 1e6 / the server's CPU µs per request (user + kernel); wrk's CPU is not counted",
        startup: 'spawn to the first 200 (from /readyz; /manifest.json for nginx)',
      },
      results,
      build,
      servers: serverFigures,
      targets,
      runs,
    };
    await mkdir(path.dirname(options.out), { recursive: true });
    await writeFile(options.out, `${JSON.stringify(json, null, 2)}\n`);
    // A full run of the committed code is a result the docs can cite: its report as a file of test/bench/results/.
    const full = !options.smoke && options.data === path.join(repoRoot, 'data') && options.only.length === configurationIds.length;
    if (full && git !== undefined && git.uncommitted.length === 0) {
      const resultFile = path.join(repoRoot, 'test', 'bench', 'results', `${new Date(started).toISOString().slice(0, 10)}-${git.commit.slice(0, 7)}.md`);
      const title = `# npm run bench at ${git.commit.slice(0, 7)}, ${new Date(started).toISOString().slice(0, 10)}`;
      await writeFile(resultFile, `${title}\n\n${lines.join('\n')}\n`);
      console.log(`report: ${path.relative(process.cwd(), resultFile)}`);
    }
    console.log(
      `\n${counted.length - failed.length} of ${counted.length} targets pass${failed.length ? `; failing: ${failed.map((item) => item.name).join('; ')}` : ''}`,
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

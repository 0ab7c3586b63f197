/**
 * `npm run bench:profile`: where a request's CPU time goes, in the proxy and in the node:http
 * floors it is measured against: what keeps the proxy from the floor.
 *
 *   npm run bench:profile -- [--mix small|random] [--duration 10] [--connections 8] [--warmup 3]
 *     [--dist dist] [--out bench-results/profile-<time>.json] [--keep]
 *
 * Four servers, one worker each, one at a time, all on one mix of `--dist` (the working tree's
 * dist/ by default, which must hold a build): the working tree's proxy as `npm start` runs it (the
 * bundle build:proxy writes) with an API key, at LOG_LEVEL=warn and at LOG_LEVEL=info, and two
 * node:http floors. On the `small` mix (4,000 lookups, seed 1) the floors are the enveloped one
 * (FLOOR_ENVELOPE=1) and the one by URL (floor.ts), which read the same bodies as files, written
 * from the build's packs (referenceRoot.ts). On the `random` mix (60,000 distinct bodies drawn
 * uniformly over the whole build, seed 1, as npm run bench draws it) they are the enveloped floor
 * and the pread floor (FLOOR_PREAD=1), which reads each body from the build's packs as it is
 * asked: the reference for random access. Each is
 * warmed with wrk, then loaded again (1 thread) while V8's sampling profiler records its worker
 * every millisecond (inspector.ts). Each profile's self time is summed by category and by function
 * (cpuProfile.ts) and divided by the requests wrk counted, and the categories are compared per
 * request, the proxy's against the floors'. The report goes to stdout and, as JSON, to --out.
 * --keep writes each profile as a .cpuprofile file beside the JSON, which Chrome DevTools
 * (Performance, Load profile) and speedscope show as a flame graph.
 */
import { randomBytes } from 'node:crypto';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { parseArgs } from 'node:util';
import type { Manifest } from '../../contract/manifest.ts';
import { bundleFiles, categories, categoryLabels, summariseProfile, type Category, type OwnCode, type ProfileSummary } from './cpuProfile.ts';
import { markdownTable, number } from './format.ts';
import { inspectOption, profileDuring } from './inspector.ts';
import { mixLabels, sampleBuildMixes, sampleMixes } from './mixes.ts';
import { UsageError } from './options.ts';
import { writeReferenceRoot } from './referenceRoot.ts';
import { startFloor, startPreadFloor } from './references.ts';
import { configurationLabels, type ConfigurationId } from './report.ts';
import { cpuSeconds } from '../support/proc.ts';
import { findProgram } from '../support/programs.ts';
import { readBuildManifest } from '../support/store.ts';
import { bundleProxy, repoRoot, startProxy, treePids, type RunningServer } from './servers.ts';
import { runWrk, writeWrkScript, type WrkResult } from './wrk.ts';

const allProfiledIds = [
  'local-apikey',
  'local-apikey-log-info',
  'node-floor-envelope',
  'node-floor',
  'node-floor-pread',
] as const satisfies readonly ConfigurationId[];
type ProfiledId = (typeof allProfiledIds)[number];
const shortNames: Record<ProfiledId, string> = {
  'local-apikey': 'proxy',
  'local-apikey-log-info': 'proxy, logs on',
  'node-floor-envelope': 'floor env.',
  'node-floor': 'floor',
  'node-floor-pread': 'floor pread',
};
/** The mixes profiled, and the servers each is profiled on. */
const profiledMixes = {
  small: ['local-apikey', 'local-apikey-log-info', 'node-floor-envelope', 'node-floor'],
  random: ['local-apikey', 'local-apikey-log-info', 'node-floor-envelope', 'node-floor-pread'],
} as const satisfies Record<string, readonly ProfiledId[]>;
type ProfiledMix = keyof typeof profiledMixes;
/** The lookups of the small mix, as bench:ab samples them. */
const lookupCount = 4000;
/** The distinct bodies of the random mix, as npm run bench draws them. */
const randomCount = 60_000;
const seed = 1;
/** --cpu-prof's default interval. */
const samplingMicros = 1000;
const topFunctions = 15;

function wholeNumber(name: string, text: string, least: number): number {
  const value = Number(text);
  if (!Number.isInteger(value) || value < least) throw new UsageError(`--${name} takes a whole number of at least ${least} (got ${JSON.stringify(text)})`);
  return value;
}

function readOptions() {
  const { values } = parseArgs({
    options: {
      mix: { type: 'string', default: 'small' },
      duration: { type: 'string', default: '10' },
      connections: { type: 'string', default: '8' },
      warmup: { type: 'string', default: '3' },
      dist: { type: 'string', default: path.join(repoRoot, 'dist') },
      out: { type: 'string' },
      keep: { type: 'boolean', default: false },
    },
  });
  const stamp = new Date().toISOString().replace(/[-:]|\.\d+/g, '');
  const out = path.resolve(values.out ?? path.join(repoRoot, 'bench-results', `profile-${stamp}.json`));
  if (!Object.hasOwn(profiledMixes, values.mix))
    throw new UsageError(`--mix takes ${Object.keys(profiledMixes).join(' or ')} (got ${JSON.stringify(values.mix)})`);
  return {
    mix: values.mix as ProfiledMix,
    duration: wholeNumber('duration', values.duration, 1),
    connections: wholeNumber('connections', values.connections, 1),
    warmup: wholeNumber('warmup', values.warmup, 0),
    dist: path.resolve(values.dist),
    out,
    keep: values.keep,
    /** Where --keep writes the .cpuprofile files: beside the JSON, named after it. */
    profileDir: `${out.replace(/\.json$/, '')}.cpuprofiles`,
  };
}
type Options = ReturnType<typeof readOptions>;

interface ProfiledRun {
  readonly id: ProfiledId;
  readonly wrk: WrkResult;
  readonly summary: ProfileSummary;
  /** The server's CPU time during the profiled load, all its threads (/proc), in seconds. */
  readonly cpu: { readonly user: number; readonly system: number };
  readonly profileFile: string | undefined;
}

const format = (value: number, digits = 1): string => number(value, digits);
const percent = (part: number, whole: number): string => `${format(whole > 0 ? (part / whole) * 100 : 0)} %`;
/** µs of profile per request, which is also ms per 1000 requests. */
const perRequest = (micros: number, run: ProfiledRun): number => micros / Math.max(1, run.wrk.requests);
const busyCategories = categories.filter((category) => category !== 'idle');

/** A Markdown table, the first column text, the others figures (right-aligned). */
function table(header: readonly string[], rows: readonly (readonly string[])[], textColumns = 1): string {
  return markdownTable(
    header,
    rows,
    header.map((_, column) => column >= textColumns),
  );
}

function formatRun(run: ProfiledRun): string {
  const { wrk, summary } = run;
  const busy = summary.busyMicros;
  const categoryRows = busyCategories.map((category) => [
    categoryLabels[category],
    format(perRequest(summary.byCategory[category], run)),
    percent(summary.byCategory[category], busy),
  ]);
  const functionRows = summary.byFunction
    .filter((entry) => entry.category !== 'idle')
    .slice(0, topFunctions)
    .map((entry) => [entry.label, entry.category, format(perRequest(entry.micros, run), 2), percent(entry.micros, busy)]);
  return [
    `## ${configurationLabels[run.id]}`,
    '',
    `wrk: ${format(wrk.requests, 0)} requests in ${format(wrk.seconds)} s (${format(wrk.requestsPerSecond, 0)} req/s, p99 ${format(wrk.p99Ms, 2)} ms), ${wrk.errorCount} errors`,
    `CPU profile: ${format(busy / 1000, 0)} ms outside (idle) in ${format(summary.samples, 0)} samples, ${format(summary.byCategory.idle / 1000, 0)} ms idle; ` +
      `${format(perRequest(busy, run) / 1000, 4)} ms (${format(perRequest(busy, run))} µs) per request`,
    `CPU time (/proc, all the process's threads): ${format(perRequest((run.cpu.user + run.cpu.system) * 1e6, run))} µs per request ` +
      `(user ${format(perRequest(run.cpu.user * 1e6, run))} + kernel ${format(perRequest(run.cpu.system * 1e6, run))})`,
    '',
    table(['category', 'ms per 1000 requests', 'share of non-idle'], [...categoryRows, ['total outside (idle)', format(perRequest(busy, run)), '100.0 %']]),
    '',
    table([`top ${topFunctions} functions by self time`, 'category', 'ms per 1000 requests', 'share of non-idle'], functionRows, 2),
  ].join('\n');
}

/** Every category per request, side by side, and what the proxy spends beyond the enveloped floor in each. */
function formatComparison(runs: ReadonlyMap<ProfiledId, ProfiledRun>): string {
  const proxy = runs.get('local-apikey');
  const floor = runs.get('node-floor-envelope');
  if (!proxy || !floor) throw new Error('the proxy and the enveloped floor must both have run');
  const micros = (run: ProfiledRun, category: Category | 'total'): number =>
    perRequest(category === 'total' ? run.summary.busyMicros : run.summary.byCategory[category], run);
  const rows = [...busyCategories, 'total' as const].map((category) => [
    category === 'total' ? 'total outside (idle)' : categoryLabels[category],
    ...[...runs.values()].map((run) => format(micros(run, category), 2)),
    format(micros(proxy, category) - micros(floor, category), 2),
  ]);
  const cpuTime = (run: ProfiledRun): number => perRequest((run.cpu.user + run.cpu.system) * 1e6, run);
  rows.push(['CPU time, /proc (user + kernel)', ...[...runs.values()].map((run) => format(cpuTime(run), 2)), format(cpuTime(proxy) - cpuTime(floor), 2)]);
  return [
    '## Per request, by category (µs of CPU profile per request)',
    '',
    table(['category', ...[...runs.keys()].map((id) => shortNames[id]), 'proxy − floor env.'], rows),
    '',
    `proxy ÷ enveloped floor: req/s ${format(proxy.wrk.requestsPerSecond / floor.wrk.requestsPerSecond, 3)}, ` +
      `profile µs per request ${format(micros(proxy, 'total') / micros(floor, 'total'), 3)}`,
  ].join('\n');
}

function runJson(run: ProfiledRun) {
  const { wrk, summary } = run;
  const share = (micros: number): number => micros / Math.max(1, summary.busyMicros);
  return {
    configuration: run.id,
    label: configurationLabels[run.id],
    requests: wrk.requests,
    seconds: wrk.seconds,
    requestsPerSecond: wrk.requestsPerSecond,
    p99Ms: wrk.p99Ms,
    errors: wrk.errorCount,
    samples: summary.samples,
    busyMs: summary.busyMicros / 1000,
    idleMs: summary.byCategory.idle / 1000,
    microsPerRequest: perRequest(summary.busyMicros, run),
    cpuMicrosPerRequest: { user: perRequest(run.cpu.user * 1e6, run), system: perRequest(run.cpu.system * 1e6, run) },
    categories: Object.fromEntries(
      categories.map((category) => [category, { microsPerRequest: perRequest(summary.byCategory[category], run), share: share(summary.byCategory[category]) }]),
    ),
    functions: summary.byFunction
      .slice(0, 50)
      .map((entry) => ({ function: entry.label, category: entry.category, microsPerRequest: perRequest(entry.micros, run), share: share(entry.micros) })),
    profileFile: run.profileFile,
  };
}

async function profileAll(options: Options, manifest: Manifest, workDir: string, started: RunningServer[]): Promise<Map<ProfiledId, ProfiledRun>> {
  const wrk = findProgram('wrk');
  if (!wrk) throw new UsageError('wrk not found: install it with `apt-get install -y wrk` (Debian, as root)');
  const lookups =
    options.mix === 'small'
      ? (sampleMixes(manifest, ['small'], lookupCount, seed).get('small')?.lookups ?? [])
      : ((await sampleBuildMixes(options.dist, ['random'], { byOperation: lookupCount, wholeBuild: randomCount }, seed)).get('random')?.lookups ?? []);
  // The floors read the bodies as files, as in npm run bench: from the build's packs into the work directory.
  const { root } = await writeReferenceRoot({
    buildDir: options.dist,
    root: path.join(workDir, 'references'),
    files: lookups.map((lookup) => lookup.file),
    build: 'manifest',
  });
  // What the floors answer, as configurations.ts writes it for npm run bench: "target<TAB>body file<TAB>etag".
  const targets = path.join(workDir, 'node.targets');
  await writeFile(targets, `${[...new Set(lookups.map((lookup) => `${lookup.proxyPath}\t${lookup.file}\t${lookup.etag}`))].join('\n')}\n`);
  const apiKey = `profile-${randomBytes(18).toString('base64url')}`;
  const paths = lookups.map((lookup) => lookup.proxyPath);
  const proxyScript = await writeWrkScript(workDir, 'proxy', paths, { Authorization: `Bearer ${apiKey}` }, 1);
  const floorScript = await writeWrkScript(workDir, 'floor', paths, {}, 1);
  const bundle = bundleProxy();
  // Every server started from here on opens an inspector: startProxy and startFloor pass this process's environment on (main restores it).
  process.env.NODE_OPTIONS = [process.env.NODE_OPTIONS, inspectOption].filter((option) => option).join(' ');
  const code: OwnCode = {
    bundles: await bundleFiles(path.dirname(bundle)),
    repoUrl: `${pathToFileURL(repoRoot).href}/`,
  };
  const proxySettings = { DIST_DIR: options.dist, API_KEYS: apiKey };
  const start: Record<ProfiledId, () => Promise<RunningServer>> = {
    'local-apikey': () => startProxy({ name: 'local-apikey', settings: { ...proxySettings, LOG_LEVEL: 'warn' }, workers: 1, bundle }),
    'local-apikey-log-info': () => startProxy({ name: 'local-apikey-log-info', settings: { ...proxySettings, LOG_LEVEL: 'info' }, workers: 1, bundle }),
    'node-floor-envelope': () => startFloor({ targets, root, workers: 1, envelope: true }),
    'node-floor': () => startFloor({ targets, root, workers: 1, envelope: false }),
    'node-floor-pread': () => startPreadFloor({ targets, build: options.dist, workers: 1 }),
  };
  if (options.keep) await mkdir(options.profileDir, { recursive: true });

  const runs = new Map<ProfiledId, ProfiledRun>();
  for (const id of profiledMixes[options.mix]) {
    const server = await start[id]();
    started.push(server);
    const script = id.startsWith('node-floor') ? floorScript : proxyScript;
    const load = (seconds: number): Promise<WrkResult> => runWrk({ wrk, script, url: server.url, threads: 1, connections: options.connections, seconds });
    if (options.warmup > 0) await load(options.warmup);
    const pids = treePids(server);
    const before = pids.map(cpuSeconds);
    const { profile, result } = await profileDuring(server, samplingMicros, () => load(options.duration));
    const cpu = { user: 0, system: 0 };
    for (const [index, pid] of pids.entries()) {
      const { user, system } = cpuSeconds(pid);
      cpu.user += user - (before[index]?.user ?? 0);
      cpu.system += system - (before[index]?.system ?? 0);
    }
    await server.stop();
    const profileFile = options.keep ? path.join(options.profileDir, `${id}.cpuprofile`) : undefined;
    if (profileFile) await writeFile(profileFile, JSON.stringify(profile));
    const run = { id, wrk: result, summary: summariseProfile(profile, code), cpu, profileFile };
    runs.set(id, run);
    console.log(`${formatRun(run)}\n`);
  }
  return runs;
}

async function main(): Promise<void> {
  const options = readOptions();
  const manifest = await readBuildManifest(options.dist).catch((error: unknown) => {
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
    throw new UsageError(`${options.dist} holds no build: run \`npm run build\` first, or give --dist`);
  });
  console.log(
    `# bench:profile: ${mixLabels[options.mix]}; wrk 1 thread, ${options.connections} connections, ${options.warmup} s warm-up, then ${options.duration} s profiled ` +
      `(V8's sampler every ${samplingMicros} µs); one worker per server; build ${manifest.buildId} in ${options.dist}; Node ${process.version}\n`,
  );
  const workDir = await mkdtemp(path.join(os.tmpdir(), 'refdata-profile-'));
  const started: RunningServer[] = [];
  const nodeOptions = process.env.NODE_OPTIONS;
  try {
    const runs = await profileAll(options, manifest, workDir, started);
    console.log(formatComparison(runs));
    await mkdir(path.dirname(options.out), { recursive: true });
    const json = {
      createdAt: new Date().toISOString(),
      node: process.version,
      mix: options.mix,
      options: { ...options, threads: 1, lookups: options.mix === 'small' ? lookupCount : randomCount, seed, samplingMicros, buildId: manifest.buildId },
      runs: [...runs.values()].map(runJson),
    };
    await writeFile(options.out, `${JSON.stringify(json, null, 2)}\n`);
    console.log(`\nJSON: ${path.relative(process.cwd(), options.out)}`);
    if (options.keep)
      console.log(`CPU profiles (Chrome DevTools, Performance, Load profile; or speedscope): ${path.relative(process.cwd(), options.profileDir)}/`);
    const errors = [...runs.values()].reduce((sum, run) => sum + run.wrk.errorCount, 0);
    if (errors > 0) {
      console.error(`${errors} requests failed: the figures count them`);
      process.exitCode = 1;
    }
  } finally {
    if (nodeOptions === undefined) delete process.env.NODE_OPTIONS;
    else process.env.NODE_OPTIONS = nodeOptions;
    for (const server of started) await server.stop();
    await rm(workDir, { recursive: true, force: true });
  }
}

main().catch((error: unknown) => {
  console.error(error instanceof UsageError ? error.message : error);
  process.exitCode = error instanceof UsageError ? 2 : 1;
});

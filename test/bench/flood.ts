/**
 * `npm run bench:flood`: what a flood of calendars without a token, from one address, leaves a
 * paying client. The proxy runs as `npm start` runs it (two workers, production settings); a
 * paying client asks the small mix's lookups with its key, alone, then beside a flood of
 * `format=ics` calendars of every country and year (thousands of distinct URLs, as a cache-busting
 * attacker would), alternating, each run bounded in time. The same runs are made with
 * ANONYMOUS_LIMIT off, the reference: what the budget per address buys.
 *
 *   npm run bench:flood [-- --dist dist --seconds 8 --rounds 3 --connections 16 --flood-connections 64]
 *
 * Printed: the paying client's requests a second alone and beside the flood (medians of the
 * rounds) and their ratio, and what the flood got (answered, refused with 429), per setting.
 */
import { mkdtemp, realpath, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { sampleBuildMixes } from './mixes.ts';
import { median } from './report.ts';
import { bundleProxy, startProxy, type RunningServer } from './servers.ts';
import { runWrk, writeWrkScript, type WrkResult } from './wrk.ts';

const key = 'flood-bench-key-0123456789abcdef';
const calendar = '/addressmanagement/api/workcalendar/getbycountrycode';

const { values } = parseArgs({
  options: {
    dist: { type: 'string', default: process.env.DIST_DIR || 'dist' },
    seconds: { type: 'string', default: '8' },
    rounds: { type: 'string', default: '3' },
    connections: { type: 'string', default: '16' },
    'flood-connections': { type: 'string', default: '64' },
  },
});
const seconds = Number(values.seconds);
const rounds = Number(values.rounds);
const connections = Number(values.connections);
const floodConnections = Number(values['flood-connections']);
const distDir = await realpath(values.dist).catch(() => {
  throw new Error(`${values.dist}: no build there; run npm run build first, or give --dist`);
});

/** The alpha-2 codes of the build's countries and its holiday years, from the proxy itself. */
async function calendarPaths(proxy: RunningServer): Promise<string[]> {
  const headers = { Authorization: `Bearer ${key}` };
  const countries = (await (await fetch(`${proxy.url}/addressmanagement/api/country/getall`, { headers })).json()) as { body: { alpha2Code: string }[] };
  const meta = (await (await fetch(`${proxy.url}/meta`, { headers })).json()) as { body: { holidayYears: { first: number; last: number } } };
  const { first, last } = meta.body.holidayYears;
  const paths: string[] = [];
  for (let year = first; year <= last; year++)
    for (const { alpha2Code } of countries.body) paths.push(`${calendar}?CountryCode=${alpha2Code}&Year=${year}&format=ics`);
  // Shuffled with a fixed seed, so that consecutive requests are for unrelated calendars.
  let seed = 20261129;
  for (let index = paths.length - 1; index > 0; index--) {
    seed = (seed * 1103515245 + 12345) % 2 ** 31;
    const other = seed % (index + 1);
    [paths[index], paths[other]] = [paths[other] as string, paths[index] as string];
  }
  return paths;
}

interface SettingResult {
  readonly setting: string;
  readonly alone: number[];
  readonly beside: number[];
  readonly flood: WrkResult[];
}

const wrk = process.env.WRK ?? 'wrk';
const workDir = await mkdtemp(path.join(tmpdir(), 'bench-flood-'));
const bundle = bundleProxy();
const mixes = await sampleBuildMixes(distDir, ['small'], { byOperation: 2_000, wholeBuild: 2_000 }, 7);
const paying = (mixes.get('small')?.lookups ?? []).map((lookup) => lookup.proxyPath);
const results: SettingResult[] = [];
try {
  for (const [setting, limit] of [
    ['ANONYMOUS_LIMIT=600/60 (default)', '600/60'],
    ['ANONYMOUS_LIMIT=off', 'off'],
  ] as const) {
    const proxy = await startProxy({
      name: 'flood',
      settings: { DIST_DIR: distDir, API_KEYS: key, LOG_LEVEL: 'warn', ANONYMOUS_LIMIT: limit },
      workers: 2,
      bundle,
    });
    try {
      const payingScript = await writeWrkScript(workDir, 'paying', paying, { Authorization: `Bearer ${key}` }, 1);
      const floodScript = await writeWrkScript(workDir, 'flood', await calendarPaths(proxy), {}, 1);
      const load = (script: string, count: number) => runWrk({ wrk, script, url: proxy.url, threads: 1, connections: count, seconds });
      await load(payingScript, connections); // warm-up
      const result: SettingResult = { setting, alone: [], beside: [], flood: [] };
      for (let round = 0; round < rounds; round++) {
        result.alone.push((await load(payingScript, connections)).requestsPerSecond);
        const [beside, flood] = await Promise.all([load(payingScript, connections), load(floodScript, floodConnections)]);
        result.beside.push(beside.requestsPerSecond);
        result.flood.push(flood);
      }
      results.push(result);
    } finally {
      await proxy.stop();
    }
  }
} finally {
  await rm(workDir, { recursive: true, force: true });
}

console.log(
  `bench:flood on ${distDir}: paying client ${connections} connections (small mix, ${paying.length} lookups); flood ${floodConnections} connections of calendars without a token; ${rounds} rounds of ${seconds} s, alternating`,
);
console.log('| setting | paying alone req/s | paying beside the flood req/s | ratio | flood req/s | flood refused (429) |');
console.log('|---|---|---|---|---|---|');
for (const { setting, alone, beside, flood } of results) {
  const floodRate = median(flood.map((run) => run.requestsPerSecond));
  const refused = flood.reduce((sum, run) => sum + run.errors.status, 0) / flood.reduce((sum, run) => sum + run.requests, 0);
  console.log(
    `| ${setting} | ${median(alone).toFixed(0)} | ${median(beside).toFixed(0)} | ${(median(beside) / median(alone)).toFixed(2)} | ${floodRate.toFixed(0)} | ${(refused * 100).toFixed(1)} % |`,
  );
}

/**
 * From runs to results: medians over rounds, each configuration's ratio to nginx measured in the
 * same round, the issue's targets, and the report as Markdown tables (readable in a terminal,
 * pasted as they are into the README).
 */
import type { BuildFigures } from './build.ts';
import type { WrkResult } from './wrk.ts';

export const configurationIds = [
  'nginx',
  'node-floor',
  'local-apikey',
  'local-apikey-metrics',
  'local-apikey-ratelimit',
  'local-apikey-log-info',
  'local-jwt',
  'origin-warm',
  'origin-cold',
] as const;
export type ConfigurationId = (typeof configurationIds)[number];

export const configurationLabels: Record<ConfigurationId, string> = {
  nginx: 'nginx, the files directly (no auth)',
  'node-floor': 'node:http floor: bodies from memory by URL (no auth, no envelope)',
  'local-apikey': 'proxy, local, API key',
  'local-apikey-metrics': 'proxy, local, API key, METRICS_PORT set',
  'local-apikey-ratelimit': 'proxy, local, API key, RATE_LIMIT set (never reached)',
  'local-apikey-log-info': 'proxy, local, API key, LOG_LEVEL=info',
  'local-jwt': 'proxy, local, JWT HS256',
  'origin-warm': 'proxy, origin, warm cache',
  'origin-cold': 'proxy, origin, "cold" (BODY_CACHE_MB=1)',
};

export interface RunRecord extends WrkResult {
  readonly round: number;
  readonly concurrency: number;
  readonly configuration: ConfigurationId;
  /** CPU time of the server's processes during the run, per request: user space and kernel. */
  readonly serverCpuMicrosPerRequest: { readonly user: number; readonly system: number };
  /** Highest resident memory of each process of the server's tree during the run, by pid. */
  readonly peakRssKb: Record<string, number>;
}

export interface ResultRow {
  readonly configuration: ConfigurationId;
  readonly label: string;
  readonly runs: number;
  readonly requestsPerSecond: number;
  readonly p50Ms: number;
  readonly p99Ms: number;
  readonly errors: number;
  /** Median over rounds of the run's figure divided by nginx's in the same round. */
  readonly requestsPerSecondRatio: number;
  readonly p99Ratio: number;
  readonly serverCpuMicrosPerRequest: { readonly user: number; readonly system: number };
}

export interface ServerFigures {
  readonly configuration: ConfigurationId;
  readonly startupMs: number;
  /** Resident memory by process after the warm-up, idle: the primary (or master) first. */
  readonly afterWarmupMb: readonly number[];
  /** The highest resident memory of each process under load, over every run. */
  readonly underLoadMb: readonly number[];
}

export interface Target {
  readonly name: string;
  readonly measured: number;
  readonly limit: number;
  readonly comparison: '>=' | '<=';
  readonly pass: boolean;
}

export function median(values: readonly number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  if (sorted.length === 0) return Number.NaN;
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1 ? (sorted[middle] as number) : ((sorted[middle - 1] as number) + (sorted[middle] as number)) / 2;
}

export function summarise(runs: readonly RunRecord[], concurrency: number): ResultRow[] {
  const atLevel = runs.filter((run) => run.concurrency === concurrency);
  const nginxIn = (round: number): RunRecord | undefined => atLevel.find((run) => run.configuration === 'nginx' && run.round === round);
  return configurationIds.flatMap((configuration) => {
    const mine = atLevel.filter((run) => run.configuration === configuration);
    if (mine.length === 0) return [];
    const ratios = (pick: (run: RunRecord) => number): number =>
      median(
        mine.flatMap((run) => {
          const reference = nginxIn(run.round);
          return reference ? [pick(run) / pick(reference)] : [];
        }),
      );
    return [
      {
        configuration,
        label: configurationLabels[configuration],
        runs: mine.length,
        requestsPerSecond: median(mine.map((run) => run.requestsPerSecond)),
        p50Ms: median(mine.map((run) => run.p50Ms)),
        p99Ms: median(mine.map((run) => run.p99Ms)),
        errors: mine.reduce((sum, run) => sum + run.errorCount, 0),
        requestsPerSecondRatio: ratios((run) => run.requestsPerSecond),
        p99Ratio: ratios((run) => run.p99Ms),
        serverCpuMicrosPerRequest: {
          user: median(mine.map((run) => run.serverCpuMicrosPerRequest.user)),
          system: median(mine.map((run) => run.serverCpuMicrosPerRequest.system)),
        },
      },
    ];
  });
}

function target(name: string, measured: number, comparison: '>=' | '<=', limit: number): Target {
  return { name, measured, limit, comparison, pass: comparison === '>=' ? measured >= limit : measured <= limit };
}

export function evaluateTargets(results: Record<string, readonly ResultRow[]>, build: BuildFigures, servers: readonly ServerFigures[]): Target[] {
  const targets: Target[] = [];
  for (const [concurrency, rows] of Object.entries(results)) {
    const row = (id: ConfigurationId): ResultRow | undefined => rows.find((candidate) => candidate.configuration === id);
    for (const id of ['local-apikey', 'local-jwt'] as const) {
      const found = row(id);
      if (!found) continue;
      targets.push(target(`${configurationLabels[id]}, c=${concurrency}: req/s vs nginx`, found.requestsPerSecondRatio, '>=', 0.7));
      targets.push(target(`${configurationLabels[id]}, c=${concurrency}: p99 vs nginx`, found.p99Ratio, '<=', 2));
    }
    // Issue 13: counting every request for /metrics costs under 5 % of throughput.
    const plain = row('local-apikey');
    const counted = row('local-apikey-metrics');
    if (plain && counted)
      targets.push(
        target(
          `metrics: ${configurationLabels['local-apikey-metrics']} vs without, c=${concurrency}: req/s`,
          counted.requestsPerSecond / plain.requestsPerSecond,
          '>=',
          0.95,
        ),
      );
    // Counting every request against its token's budget, shared across workers: the same bound.
    const limited = row('local-apikey-ratelimit');
    if (plain && limited)
      targets.push(
        target(
          `rate limit: ${configurationLabels['local-apikey-ratelimit']} vs without, c=${concurrency}: req/s`,
          limited.requestsPerSecond / plain.requestsPerSecond,
          '>=',
          0.95,
        ),
      );
    const warm = row('origin-warm');
    if (warm) targets.push(target(`${configurationLabels['origin-warm']}, c=${concurrency}: req/s vs nginx`, warm.requestsPerSecondRatio, '>=', 0.5));
  }
  targets.push(target('full build vs cp -r of its output (time)', build.fullToCopy, '<=', 2));
  targets.push(target('no-op rebuild vs full build (time)', build.noopToFull, '<=', 0.1));
  // The workers serve; a cluster's primary only hands out connections, so it is not a worker.
  const workerPeaks = servers
    .filter((server) => server.configuration !== 'nginx' && server.configuration !== 'node-floor')
    .flatMap((server) => server.underLoadMb.slice(server.underLoadMb.length > 1 ? 1 : 0));
  targets.push(target('proxy memory per worker under load (MB, highest)', Math.max(...workerPeaks), '<=', 256));
  return targets;
}

const number = (value: number, digits = 0): string =>
  Number.isFinite(value) ? value.toLocaleString('en-US', { minimumFractionDigits: digits, maximumFractionDigits: digits }) : '–';

function markdownTable(header: readonly string[], rows: readonly (readonly string[])[], rightAligned: readonly boolean[]): string {
  const widths = header.map((title, column) => Math.max(title.length, ...rows.map((row) => (row[column] ?? '').length)));
  const line = (cells: readonly string[]): string =>
    `| ${cells.map((cell, column) => (rightAligned[column] ? cell.padStart(widths[column] ?? 0) : cell.padEnd(widths[column] ?? 0))).join(' | ')} |`;
  const rule = `|${widths.map((width, column) => (rightAligned[column] ? `${'-'.repeat(width + 1)}:` : '-'.repeat(width + 2))).join('|')}|`;
  return [line(header), rule, ...rows.map(line)].join('\n');
}

export function formatResults(rows: readonly ResultRow[]): string {
  return markdownTable(
    ['configuration', 'req/s', 'p50 ms', 'p99 ms', 'errors', 'req/s vs nginx', 'p99 vs nginx', 'server CPU µs/req (user + kernel)'],
    rows.map((row) => [
      row.label,
      number(row.requestsPerSecond),
      number(row.p50Ms, 2),
      number(row.p99Ms, 2),
      number(row.errors),
      number(row.requestsPerSecondRatio, 2),
      number(row.p99Ratio, 2),
      `${number(row.serverCpuMicrosPerRequest.user)} + ${number(row.serverCpuMicrosPerRequest.system)}`,
    ]),
    [false, true, true, true, true, true, true, true],
  );
}

export function formatBuild(build: BuildFigures): string {
  return markdownTable(
    ['build figure', 'value'],
    [
      [`full build (npm run build's command, wall clock, median of ${build.rounds})`, `${number(build.fullSeconds, 2)} s`],
      ['cp -r of its output', `${number(build.copySeconds, 2)} s (full build = ${number(build.fullToCopy, 2)} × cp -r)`],
      [
        'no-op rebuild (same data, same dist)',
        `${number(build.noopSeconds, 2)} s (${number(build.noopToFull * 100, 1)} % of a full build)${build.noopWroteBuild ? ', wrote a new build' : ''}`,
      ],
      ['files written', `${number(build.files)} (${number(build.filesPerSecond)} files/s)`],
      ['size', `${number(build.bytes / 1e6, 1)} MB of files, ${number(build.diskKb / 1024, 1)} MB on disk (du -sk)`],
    ],
    [false, false],
  );
}

export function formatServers(servers: readonly ServerFigures[]): string {
  const mb = (values: readonly number[]): string => values.map((value) => number(value)).join(' / ');
  return markdownTable(
    ['server', 'start-up ms', 'RSS MB after warm-up (primary / workers)', 'RSS MB under load, highest'],
    servers.map((server) => [configurationLabels[server.configuration], number(server.startupMs), mb(server.afterWarmupMb), mb(server.underLoadMb)]),
    [false, true, true, true],
  );
}

export function formatTargets(targets: readonly Target[]): string {
  return markdownTable(
    ['target', 'measured', 'limit', 'result'],
    targets.map((item) => [item.name, number(item.measured, 2), `${item.comparison} ${item.limit}`, item.pass ? 'PASS' : 'FAIL']),
    [false, true, true, false],
  );
}

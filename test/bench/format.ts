/**
 * The report as Markdown tables: readable in a terminal, pasted as they are into a result file.
 */
import type { BuildFigures } from './build.ts';
import { benchMixIds, type BenchMixId, wholeBuildMixIds } from './mixes.ts';
import {
  capacityOf,
  configurationIds,
  configurationLabels,
  referenceIds,
  referenceShortNames,
  type ConfigurationId,
  type ReferenceId,
  type Results,
  type ResultRow,
  type ServerFigures,
} from './report.ts';
import type { Target } from './targets.ts';

export const number = (value: number | undefined, digits = 0): string =>
  value !== undefined && Number.isFinite(value) ? value.toLocaleString('en-US', { minimumFractionDigits: digits, maximumFractionDigits: digits }) : '–';

/** A Markdown table, its columns padded to their widest cell, the figures' right-aligned. */
export function markdownTable(header: readonly string[], rows: readonly (readonly string[])[], rightAligned: readonly boolean[]): string {
  const widths = header.map((title, column) => Math.max(title.length, ...rows.map((row) => (row[column] ?? '').length)));
  const line = (cells: readonly string[]): string =>
    `| ${cells.map((cell, column) => (rightAligned[column] ? cell.padStart(widths[column] ?? 0) : cell.padEnd(widths[column] ?? 0))).join(' | ')} |`;
  const rule = `|${widths.map((width, column) => (rightAligned[column] ? `${'-'.repeat(width + 1)}:` : '-'.repeat(width + 2))).join('|')}|`;
  return [line(header), rule, ...rows.map(line)].join('\n');
}

/** The references that ran, in their order. */
function referencesIn(rows: readonly ResultRow[]): ReferenceId[] {
  return referenceIds.filter((reference) => rows.some((row) => row.configuration === reference));
}

/** One mix at one concurrency: every configuration's figures and its req/s over each reference's, then p99 over the ceiling's. */
export function formatResults(rows: readonly ResultRow[]): string {
  const references = referencesIn(rows);
  const p99References = references.filter((reference) => reference === 'nginx-tuned' || reference === 'nginx');
  return markdownTable(
    [
      'configuration',
      'req/s',
      'p50 ms',
      'p99 ms',
      'errors',
      'CPU µs/req (user + kernel)',
      ...references.map((reference) => `÷ ${referenceShortNames[reference]}`),
      ...p99References.map((reference) => `p99 ÷ ${referenceShortNames[reference]}`),
    ],
    rows.map((row) => [
      row.label,
      number(row.requestsPerSecond),
      number(row.p50Ms, 2),
      number(row.p99Ms, 2),
      number(row.errors),
      `${number(row.serverCpuMicrosPerRequest.user)} + ${number(row.serverCpuMicrosPerRequest.system)}`,
      ...references.map((reference) => number(row.ratios[reference]?.requestsPerSecond, 2)),
      ...p99References.map((reference) => number(row.ratios[reference]?.p99, 2)),
    ]),
    [false, true, true, true, true, true, ...references.map(() => true), ...p99References.map(() => true)],
  );
}

/**
 * The proxy (API key, and with request logs) as a share of each reference, for every mix and
 * concurrency in one table: the figures the targets are judged on, at a glance.
 */
export function formatShares(results: Results): string | undefined {
  const lines: string[][] = [];
  for (const mix of benchMixIds) {
    for (const [concurrency, rows] of Object.entries(results[mix] ?? {})) {
      for (const id of ['local-apikey', 'local-apikey-log-info'] as const satisfies readonly ConfigurationId[]) {
        const row = rows.find((candidate) => candidate.configuration === id);
        if (!row) continue;
        lines.push([mix, concurrency, configurationLabels[id], ...referenceIds.map((reference) => number(row.ratios[reference]?.requestsPerSecond, 2))]);
      }
    }
  }
  if (lines.length === 0) return undefined;
  return markdownTable(['mix', 'connections', 'configuration', ...referenceIds.map((reference) => `req/s ÷ ${referenceShortNames[reference]}`)], lines, [
    false,
    true,
    false,
    ...referenceIds.map(() => true),
  ]);
}

/**
 * The proxy (local, API key) on the mixes drawn over the whole build, beside the floor that reads
 * each body with one pread (what it is compared with there) and nginx: req/s over theirs in the
 * same round, and the p99 latency of each.
 */
export function formatRandomAccess(results: Results): string | undefined {
  const lines: string[][] = [];
  for (const mix of wholeBuildMixIds) {
    for (const [concurrency, rows] of Object.entries(results[mix] ?? {})) {
      const rowOf = (id: ConfigurationId): ResultRow | undefined => rows.find((row) => row.configuration === id);
      const proxy = rowOf('local-apikey');
      if (!proxy) continue;
      lines.push([
        mix,
        concurrency,
        number(proxy.requestsPerSecond),
        ...(['node-floor-pread', 'nginx-tuned', 'nginx'] as const).map((reference) => number(proxy.ratios[reference]?.requestsPerSecond, 2)),
        ...(['local-apikey', 'node-floor-pread', 'nginx-tuned', 'nginx'] as const).map((id) => number(rowOf(id)?.p99Ms, 2)),
        number(proxy.ratios['nginx-tuned']?.p99, 2),
      ]);
    }
  }
  if (lines.length === 0) return undefined;
  return markdownTable(
    [
      'mix',
      'connections',
      'proxy req/s',
      '÷ floor pread',
      '÷ nginx tuned',
      '÷ nginx',
      'p99 ms: proxy',
      'floor pread',
      'nginx tuned',
      'nginx',
      'proxy p99 ÷ nginx tuned',
    ],
    lines,
    [false, true, true, true, true, true, true, true, true, true, true],
  );
}

/** Requests per core and cores per 10,000 requests/s, from the servers' CPU time, at one concurrency. */
export function formatCapacity(results: Results, concurrency: number): string {
  const mixes = benchMixIds.filter((mix) => results[mix]?.[String(concurrency)]);
  const rowOf = (mix: BenchMixId, id: ConfigurationId): ResultRow | undefined => results[mix]?.[String(concurrency)]?.find((row) => row.configuration === id);
  const lines = configurationIds.flatMap((id) => {
    if (!mixes.some((mix) => rowOf(mix, id))) return [];
    return [
      [
        configurationLabels[id],
        ...mixes.flatMap((mix) => {
          const row = rowOf(mix, id);
          if (!row) return ['–', '–'];
          const { requestsPerCore, coresPer10k } = capacityOf(row);
          return [number(requestsPerCore), number(coresPer10k, 2)];
        }),
      ],
    ];
  });
  return markdownTable(['configuration', ...mixes.flatMap((mix) => [`${mix}: req/s per core`, `${mix}: cores per 10k req/s`])], lines, [
    false,
    ...mixes.flatMap(() => [true, true]),
  ]);
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
    targets.map((item) => [
      item.name,
      number(item.measured, 2),
      `${item.comparison} ${item.limit}`,
      `${item.pass ? 'PASS' : 'FAIL'}${item.stretch ? ' (stretch)' : ''}`,
    ]),
    [false, true, true, false],
  );
}

/**
 * The targets, judged on one run's results: the proxy against nginx as deployed (on the sampled
 * mix), metrics and the rate limit costing under 5 %, the proxy against the node:http floor,
 * Fastify and the tuned nginx (on the small mix), the build's and memory's. A bench, not a test: a target not met is reported, and the run still succeeds.
 */
import type { BuildFigures } from './build.ts';
import type { BenchMixId } from './mixes.ts';
import { configurationLabels, isReference, type ConfigurationId, type ReferenceId, type Results, type ResultRow, type ServerFigures } from './report.ts';

export interface Target {
  readonly name: string;
  readonly measured: number;
  readonly limit: number;
  readonly comparison: '>=' | '<=';
  readonly pass: boolean;
  /** A stretch goal: reported, not counted among the targets not met. */
  readonly stretch?: boolean;
}

/**
 * The floor the floor targets are measured against: the one writing the same bytes as the proxy
 * for every lookup of the mix, so that the ratio is the proxy's work alone. The fixed floor (one
 * body, no lookup) is reported beside it.
 */
export const targetFloor: ReferenceId = 'node-floor';

function target(name: string, measured: number, comparison: '>=' | '<=', limit: number, stretch?: boolean): Target {
  const pass = comparison === '>=' ? measured >= limit : measured <= limit;
  return stretch ? { name, measured, limit, comparison, pass, stretch } : { name, measured, limit, comparison, pass };
}

type Row = (id: ConfigurationId) => ResultRow | undefined;

function rowsOf(results: Results, mix: BenchMixId): [string, Row][] {
  return Object.entries(results[mix] ?? {}).map(([concurrency, rows]) => [concurrency, (id) => rows.find((row) => row.configuration === id)]);
}

/** Against nginx as deployed and the cost of metrics and budgets, on the sampled mix. */
function sampledTargets(results: Results): Target[] {
  const targets: Target[] = [];
  for (const [concurrency, row] of rowsOf(results, 'sampled')) {
    const at = `sampled, c=${concurrency}`;
    for (const id of ['local-apikey', 'local-jwt'] as const) {
      const found = row(id)?.ratios.nginx;
      if (!found) continue;
      targets.push(target(`${configurationLabels[id]}, ${at}: req/s vs nginx as deployed`, found.requestsPerSecond, '>=', 0.7));
      targets.push(target(`${configurationLabels[id]}, ${at}: p99 vs nginx as deployed`, found.p99, '<=', 2));
    }
    // Counting every request for /metrics, or against its token's budget, costs under 5 %.
    const plain = row('local-apikey');
    for (const [id, what] of [
      ['local-apikey-metrics', 'metrics'],
      ['local-apikey-ratelimit', 'rate limit'],
    ] as const) {
      const counted = row(id);
      if (plain && counted)
        targets.push(target(`${what}: ${configurationLabels[id]} vs without, ${at}: req/s`, counted.requestsPerSecond / plain.requestsPerSecond, '>=', 0.95));
    }
    const warm = row('origin-warm')?.ratios.nginx;
    if (warm) targets.push(target(`${configurationLabels['origin-warm']}, ${at}: req/s vs nginx as deployed`, warm.requestsPerSecond, '>=', 0.5));
  }
  return targets;
}

/** Against the floors, Fastify and the tuned nginx, on the small mix: what a request costs, where the proxy's own work shows most. */
function smallTargets(results: Results): Target[] {
  const targets: Target[] = [];
  for (const [concurrency, row] of rowsOf(results, 'small')) {
    const at = `small, c=${concurrency}`;
    const proxy = row('local-apikey');
    const logged = row('local-apikey-log-info');
    const floor = proxy?.ratios[targetFloor];
    if (floor) {
      targets.push(target(`${configurationLabels['local-apikey']}, ${at}: req/s vs ${targetFloor}`, floor.requestsPerSecond, '>=', 0.85));
      targets.push(target(`${configurationLabels['local-apikey']}, ${at}: req/s vs ${targetFloor} (stretch)`, floor.requestsPerSecond, '>=', 0.9, true));
    }
    const fastify = proxy?.ratios.fastify;
    if (fastify) targets.push(target(`${configurationLabels['local-apikey']}, ${at}: req/s vs fastify`, fastify.requestsPerSecond, '>=', 3));
    const tuned = proxy?.ratios['nginx-tuned'];
    if (tuned) targets.push(target(`${configurationLabels['local-apikey']}, ${at}: p99 vs nginx-tuned`, tuned.p99, '<=', 2));
    // Request logs are on by default (LOG_LEVEL=info).
    const loggedFloor = logged?.ratios[targetFloor];
    if (loggedFloor)
      targets.push(target(`${configurationLabels['local-apikey-log-info']}, ${at}: req/s vs ${targetFloor}`, loggedFloor.requestsPerSecond, '>=', 0.75));
  }
  return targets;
}

export function evaluateTargets(results: Results, build: BuildFigures, servers: readonly ServerFigures[]): Target[] {
  const targets = [...sampledTargets(results), ...smallTargets(results)];
  targets.push(target('full build vs cp -r of its output (time)', build.fullToCopy, '<=', 2));
  targets.push(target('no-op rebuild vs full build (time)', build.noopToFull, '<=', 0.1));
  // The proxies' workers serve; a cluster's primary only hands out connections, so it is not a worker.
  const workerPeaks = servers
    .filter((server) => !isReference(server.configuration))
    .flatMap((server) => server.underLoadMb.slice(server.underLoadMb.length > 1 ? 1 : 0));
  if (workerPeaks.length > 0) targets.push(target('proxy memory per worker under load (MB, highest)', Math.max(...workerPeaks), '<=', 256));
  return targets;
}

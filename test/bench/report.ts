/**
 * From runs to results: for every request mix and concurrency, medians over rounds and each
 * configuration's ratio to each reference server measured in the same round (targets.ts judges
 * them, format.ts prints them).
 */
import type { BenchMixId } from './mixes.ts';
import type { WrkResult } from './wrk.ts';

/** What every other configuration is measured against, in every run of the bench. */
export const referenceIds = [
  'nginx-tuned',
  'nginx',
  'node-floor-fixed',
  'node-floor',
  'node-floor-envelope',
  'node-floor-pread',
  'fastify',
  'fastify-json',
] as const;
export type ReferenceId = (typeof referenceIds)[number];

/** The references, then the proxy's configurations, in the tables' order. */
export const configurationIds = [
  ...referenceIds,
  'local-apikey',
  'local-apikey-metrics',
  'local-apikey-ratelimit',
  'local-apikey-log-info',
  'local-jwt',
  'origin-warm',
  'origin-cold',
] as const;
export type ConfigurationId = (typeof configurationIds)[number];

export function isReference(id: ConfigurationId): id is ReferenceId {
  return (referenceIds as readonly string[]).includes(id);
}

export const configurationLabels: Record<ConfigurationId, string> = {
  'nginx-tuned': 'nginx tuned: the files, cached open, no log (the ceiling)',
  nginx: 'nginx as deployed: the origin, nginx.conf (no auth)',
  'node-floor-fixed': 'node:http floor: one fixed body, no work at all',
  'node-floor': 'node:http floor: bodies from memory by URL (no auth, no envelope)',
  'node-floor-envelope': "node:http floor: by URL, the proxy's envelope and headers (no auth, no parsing)",
  'node-floor-pread': "node:http floor: by URL, each body one pread from the build's packs, the proxy's envelope and headers",
  fastify: 'Fastify: bodies from memory by URL, envelope, API key',
  'fastify-json': 'Fastify: records from memory, serialised per response, API key',
  'local-apikey': 'proxy, local, API key',
  'local-apikey-metrics': 'proxy, local, API key, METRICS_PORT set',
  'local-apikey-ratelimit': 'proxy, local, API key, RATE_LIMIT set (never reached)',
  'local-apikey-log-info': 'proxy, local, API key, LOG_LEVEL=info',
  'local-jwt': 'proxy, local, JWT HS256',
  'origin-warm': 'proxy, origin, warm cache',
  'origin-cold': 'proxy, origin, "cold" (BODY_CACHE_MB=1)',
};

/** Short names for the ratio columns. */
export const referenceShortNames: Record<ReferenceId, string> = {
  'nginx-tuned': 'nginx tuned',
  nginx: 'nginx',
  'node-floor-fixed': 'floor fixed',
  'node-floor': 'floor',
  'node-floor-envelope': 'floor env.',
  'node-floor-pread': 'floor pread',
  fastify: 'Fastify',
  'fastify-json': 'Fastify JSON',
};

export interface RunRecord extends WrkResult {
  readonly round: number;
  readonly mix: BenchMixId;
  readonly concurrency: number;
  readonly configuration: ConfigurationId;
  /** CPU time of the server's processes during the run, per request: user space and kernel. */
  readonly serverCpuMicrosPerRequest: { readonly user: number; readonly system: number };
  /** Highest resident memory of each process of the server's tree during the run, by pid. */
  readonly peakRssKb: Record<string, number>;
}

export interface Ratio {
  /** Median over rounds of the run's requests/s divided by the reference's in the same round. */
  readonly requestsPerSecond: number;
  /** The same for p99 latency. */
  readonly p99: number;
}

export interface ResultRow {
  readonly configuration: ConfigurationId;
  readonly label: string;
  readonly runs: number;
  readonly requestsPerSecond: number;
  readonly p50Ms: number;
  readonly p99Ms: number;
  readonly errors: number;
  /** To each reference that ran. */
  readonly ratios: Partial<Record<ReferenceId, Ratio>>;
  readonly serverCpuMicrosPerRequest: { readonly user: number; readonly system: number };
}

/** Results by mix, then by concurrency (as a string: JSON's keys). */
export type Results = Partial<Record<BenchMixId, Record<string, readonly ResultRow[]>>>;

export interface ServerFigures {
  readonly configuration: ConfigurationId;
  readonly startupMs: number;
  /** Resident memory by process after the warm-up, idle: the primary (or master) first. */
  readonly afterWarmupMb: readonly number[];
  /** The highest resident memory of each process under load, over every run. */
  readonly underLoadMb: readonly number[];
}

export function median(values: readonly number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  if (sorted.length === 0) return Number.NaN;
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1 ? (sorted[middle] as number) : ((sorted[middle - 1] as number) + (sorted[middle] as number)) / 2;
}

/** One mix at one concurrency: a row per configuration that ran, in the table's order. */
export function summarise(runs: readonly RunRecord[], mix: BenchMixId, concurrency: number): ResultRow[] {
  const here = runs.filter((run) => run.mix === mix && run.concurrency === concurrency);
  const referenceIn = (reference: ReferenceId, round: number): RunRecord | undefined =>
    here.find((run) => run.configuration === reference && run.round === round);
  return configurationIds.flatMap((configuration) => {
    const mine = here.filter((run) => run.configuration === configuration);
    if (mine.length === 0) return [];
    const ratio = (reference: ReferenceId, pick: (run: RunRecord) => number): number =>
      median(
        mine.flatMap((run) => {
          const measured = referenceIn(reference, run.round);
          return measured ? [pick(run) / pick(measured)] : [];
        }),
      );
    const ratios: Partial<Record<ReferenceId, Ratio>> = {};
    for (const reference of referenceIds) {
      if (!here.some((run) => run.configuration === reference)) continue;
      ratios[reference] = { requestsPerSecond: ratio(reference, (run) => run.requestsPerSecond), p99: ratio(reference, (run) => run.p99Ms) };
    }
    return [
      {
        configuration,
        label: configurationLabels[configuration],
        runs: mine.length,
        requestsPerSecond: median(mine.map((run) => run.requestsPerSecond)),
        p50Ms: median(mine.map((run) => run.p50Ms)),
        p99Ms: median(mine.map((run) => run.p99Ms)),
        errors: mine.reduce((sum, run) => sum + run.errorCount, 0),
        ratios,
        serverCpuMicrosPerRequest: {
          user: median(mine.map((run) => run.serverCpuMicrosPerRequest.user)),
          system: median(mine.map((run) => run.serverCpuMicrosPerRequest.system)),
        },
      },
    ];
  });
}

/**
 * Capacity from the server's own CPU time (wrk's is not counted): requests one core answers in a
 * second when busy with nothing else, and the cores 10,000 requests/s keep busy.
 */
export function capacityOf(row: ResultRow): { requestsPerCore: number; coresPer10k: number } {
  const micros = row.serverCpuMicrosPerRequest.user + row.serverCpuMicrosPerRequest.system;
  return { requestsPerCore: 1e6 / micros, coresPer10k: (10_000 * micros) / 1e6 };
}

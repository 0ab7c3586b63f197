/**
 * Prometheus metrics (prom-client): what operators watch. Each worker counts in prom-client's
 * global registry; /metrics is served on its own listener (METRICS_PORT, loopback by default, so
 * it needs no token and is reachable only from the host), by the primary with the counts of every
 * serving worker added up (AggregatorRegistry.aggregate), or by the process itself without a
 * cluster. The primary asks only the workers that listen: one still starting, or gone, is not
 * waited for, so a scrape while a worker is replaced still answers.
 *
 *   refdata_requests_total{area,route,status}        answers, by operation (or service path) and status
 *   refdata_request_duration_seconds{route}          time to the last byte, by operation (or service path)
 *   refdata_auth_failures_total{reason}              refused tokens, by failure code
 *   refdata_body_cache_lookups_total{result}         hit (answered from memory) or miss
 *   refdata_body_cache_bytes                         bytes of bodies in memory
 *   refdata_index_cache_bytes                        bytes of lookup index shards in memory
 *   refdata_origin_fetches_total{outcome}            origin mode: ok, or the failure code
 *   refdata_build_info{build_id,data_version,version} 1, for the build being served
 *   refdata_build_age_seconds                        how old the build served is (the oldest a worker serves)
 *   process_*, nodejs_*{worker}                      prom-client's defaults (resident memory, CPU, heap, event-loop
 *                                                    delay, GC, handles), per process: worker="1".."N" in a
 *                                                    cluster (a replaced worker keeps its number) and "primary";
 *                                                    worker="1" for a lone process
 *
 * Labels are bounded: a route is one of the route table's paths, a service path, or `other`; a
 * worker is a slot of WORKERS. The request path only adds to plain numbers (a map lookup and
 * additions); prom-client's counters read them when scraped (`collect`), so no label set is
 * validated or hashed per request.
 */
import cluster, { type Worker } from 'node:cluster';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { serviceVersion } from '../../contract/version.ts';
import { findRoute, routeParts } from '../../contract/routes.ts';
import type { BodyCache, BodyStore } from '../store/store.ts';
import type { ShardCache } from '../store/indexReader.ts';

type PromClient = typeof import('prom-client');
type Registry = PromClient['register'];
let loadedPromClient: PromClient | undefined;

/**
 * prom-client, loaded when metrics are asked for (METRICS_PORT), not at start: a proxy without
 * metrics never evaluates it, and a worker listens that much sooner.
 */
async function promClient(): Promise<PromClient> {
  loadedPromClient ??= await import('prom-client');
  return loadedPromClient;
}

export interface Metrics {
  /** A request answered: its path, status and seconds from arrival to the last byte. */
  request(pathname: string, status: number, seconds: number): void;
  /** A token refused, by the failure's code. */
  authFailure(code: string): void;
  /** A body looked up in memory. */
  bodyCache(hit: boolean): void;
  /** A file fetched from the origin: `ok` or the failure's code. */
  originFetch(outcome: string): void;
  /** A request failed on the service's side (a 5xx), by its code: logged or not. */
  failure(code: string): void;
}

/** Metrics off (no METRICS_PORT): every call does nothing. */
export const noMetrics: Metrics = { request() {}, authFailure() {}, bodyCache() {}, originFetch() {}, failure() {} };

const servicePaths = new Set(['/', '/healthz', '/readyz', '/meta', '/meta/changes', '/openapi.json', '/docs']);

/** The bounded route label of a request path, and its area. */
function labelsOf(pathname: string): { route: string; area: string } {
  const route = findRoute(pathname);
  if (route) return { route: route.path, area: routeParts(route).area };
  if (servicePaths.has(pathname)) return { route: pathname, area: 'service' };
  if (pathname.startsWith('/docs/')) return { route: '/docs', area: 'service' };
  if (pathname === '/exports' || pathname.startsWith('/exports/')) return { route: '/exports', area: 'service' };
  return { route: 'other', area: 'other' };
}

/** One route's histogram: counts per bucket, their sum and their number. */
interface RouteHistogram {
  readonly counts: number[];
  sum: number;
  total: number;
}

/**
 * A histogram labelled by route whose observations are a few additions, exported in the shape
 * prom-client's own Histogram gives its registry (cumulative `_bucket{le}`, `_sum`, `_count`,
 * summed across workers): prom-client's observe() validates and hashes labels on every call.
 * Returns the histogram of a route, made on its first request and kept with it by the caller.
 */
function registerRouteHistogram(register: Registry, name: string, help: string, bounds: readonly number[]): (route: string) => RouteHistogram {
  const byRoute = new Map<string, RouteHistogram>();
  const metric = {
    name,
    help,
    type: 'histogram',
    aggregator: 'sum',
    async get() {
      const values: { labels: Record<string, string | number>; value: number; metricName: string }[] = [];
      for (const [route, histogram] of byRoute) {
        let cumulative = 0;
        bounds.forEach((bound, index) => {
          cumulative += histogram.counts[index] ?? 0;
          values.push({ labels: { route, le: bound }, value: cumulative, metricName: `${name}_bucket` });
        });
        values.push(
          { labels: { route, le: '+Inf' }, value: histogram.total, metricName: `${name}_bucket` },
          { labels: { route }, value: histogram.sum, metricName: `${name}_sum` },
          { labels: { route }, value: histogram.total, metricName: `${name}_count` },
        );
      }
      return { name, help, type: 'histogram', values, aggregator: 'sum' };
    },
  };
  register.registerMetric(metric as unknown as Parameters<typeof register.registerMetric>[0]);
  return (route) => {
    let histogram = byRoute.get(route);
    if (histogram === undefined) {
      histogram = { counts: bounds.map(() => 0), sum: 0, total: 0 };
      byRoute.set(route, histogram);
    }
    return histogram;
  };
}

function observe(histogram: RouteHistogram, bounds: readonly number[], value: number): void {
  histogram.total++;
  histogram.sum += value;
  for (let index = 0; index < bounds.length; index++) {
    if (value <= (bounds[index] as number)) {
      histogram.counts[index] = (histogram.counts[index] ?? 0) + 1;
      return;
    }
  }
}

const durationBounds = [0.0001, 0.00025, 0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 1] as const;

/** The label of a process's default metrics: its worker slot in a cluster, `primary`, or 1 for a lone process. */
const workerLabel = 'worker';

/** Where the gauges read what they show. */
interface MetricSources {
  readonly store: () => BodyStore;
  readonly cache: BodyCache;
  readonly shards?: ShardCache;
}

/** The gauges read from the store when scraped: what its caches hold, and the build served. */
function registerStoreGauges(Gauge: PromClient['Gauge'], sources: MetricSources): void {
  new Gauge({
    name: 'refdata_body_cache_bytes',
    help: 'Bytes of bodies held in memory.',
    collect() {
      this.set(sources.cache.calculatedSize);
    },
  });
  new Gauge({
    name: 'refdata_index_cache_bytes',
    help: 'Bytes of lookup index shards held in memory.',
    collect() {
      this.set(sources.shards?.calculatedSize ?? 0);
    },
  });
  new Gauge({
    name: 'refdata_build_info',
    help: 'The build being served and the service version (value 1).',
    labelNames: ['build_id', 'data_version', 'version'],
    // 1 per build however many workers serve it: a cluster's workers are taken together by max, not summed.
    aggregator: 'max',
    collect() {
      const { buildId, dataVersion } = sources.store().manifest;
      this.reset();
      this.set({ build_id: buildId, data_version: dataVersion, version: serviceVersion }, 1);
    },
  });
  new Gauge({
    name: 'refdata_build_age_seconds',
    help: 'Seconds since the build being served was made (its builtAt); across workers, the oldest.',
    aggregator: 'max',
    collect() {
      this.set(Math.max(0, (Date.now() - Date.parse(sources.store().manifest.builtAt)) / 1000));
    },
  });
}

/** The metrics of this process, registered once in prom-client's global registry. */
export async function createMetrics(sources: MetricSources): Promise<Metrics> {
  const { Counter, Gauge, collectDefaultMetrics, register } = await promClient();
  register.clear();
  // A cluster worker's defaults are labelled with its slot by the primary when it is scraped (scrapeWorkers).
  if (cluster.isWorker) {
    answerScrapes(register);
    collectDefaultMetrics();
  } else collectDefaultMetrics({ labels: { [workerLabel]: '1' } });
  /** By status and path as sent: the labels it counts under, how many answers so far, and its route's histogram. */
  const answered = new Map<string, { readonly labels: { area: string; route: string; status: string }; count: number; readonly duration: RouteHistogram }>();
  new Counter({
    name: 'refdata_requests_total',
    help: 'Requests answered, by area, operation (route) and status.',
    labelNames: ['area', 'route', 'status'],
    collect() {
      this.reset();
      for (const { labels, count } of answered.values()) this.inc(labels, count);
    },
  });
  const durationOf = registerRouteHistogram(
    register,
    'refdata_request_duration_seconds',
    "Time from a request's arrival to its last byte, by operation (route).",
    durationBounds,
  );
  const authFailures = new Counter({ name: 'refdata_auth_failures_total', help: 'Tokens refused, by reason (the failure code).', labelNames: ['reason'] });
  const lookups = { hit: 0, miss: 0 };
  new Counter({
    name: 'refdata_body_cache_lookups_total',
    help: 'Bodies looked up in memory: hit or miss.',
    labelNames: ['result'],
    collect() {
      this.reset();
      this.inc({ result: 'hit' }, lookups.hit);
      this.inc({ result: 'miss' }, lookups.miss);
    },
  });
  const failures = new Counter({
    name: 'refdata_failures_total',
    help: 'Requests that failed on the service side (5xx), by code: each counted, only the first of a kind in 10 s logged.',
    labelNames: ['code'],
  });
  const originFetches = new Counter({
    name: 'refdata_origin_fetches_total',
    help: 'Files fetched from the origin: ok, or the failure code.',
    labelNames: ['outcome'],
  });
  registerStoreGauges(Gauge, sources);

  return {
    request(pathname, status, seconds) {
      const key = `${status} ${pathname}`;
      let counted = answered.get(key);
      if (counted !== undefined) counted.count++;
      else {
        const { route, area } = labelsOf(pathname);
        const fresh = { labels: { area, route, status: String(status) }, count: 1, duration: durationOf(route) };
        // Paths outside the table are kept apart only up to a bound: a scanner cannot grow the map.
        if (route !== 'other' || answered.size < 10_000) answered.set(key, fresh);
        else answered.set(`${status} other`, { ...fresh, count: (answered.get(`${status} other`)?.count ?? 0) + 1 });
        counted = fresh;
      }
      observe(counted.duration, durationBounds, seconds);
    },
    authFailure(code) {
      authFailures.labels(code).inc();
    },
    bodyCache(hit) {
      if (hit) lookups.hit++;
      else lookups.miss++;
    },
    originFetch(outcome) {
      originFetches.labels(outcome).inc();
    },
    failure(code) {
      failures.labels(code).inc();
    },
  };
}

/** The primary asks a worker for its counts, and the worker answers with them (getMetricsAsJSON). */
interface ScrapeRequest {
  readonly metricsScrape: number;
}
interface ScrapeReply {
  readonly metricsScraped: number;
  readonly metrics: Awaited<ReturnType<Registry['getMetricsAsJSON']>>;
}

function isScrapeRequest(message: unknown): message is ScrapeRequest {
  return typeof (message as Partial<ScrapeRequest> | null)?.metricsScrape === 'number';
}

function isScrapeReply(message: unknown): message is ScrapeReply {
  return typeof (message as Partial<ScrapeReply> | null)?.metricsScraped === 'number' && Array.isArray((message as ScrapeReply).metrics);
}

/** In a worker: answers the primary's requests for this worker's counts. */
function answerScrapes(register: Registry): void {
  process.on('message', (message: unknown) => {
    if (!isScrapeRequest(message)) return;
    void register.getMetricsAsJSON().then((metrics) => {
      if (process.connected) process.send?.({ metricsScraped: message.metricsScrape, metrics } satisfies ScrapeReply);
    });
  });
}

/** How long the primary waits for a serving worker's counts before the scrape fails. */
const scrapeTimeoutMs = 5_000;
let scrapes = 0;

/** A serving worker and its slot (1 to WORKERS), which a replacement takes over. */
export interface SlottedWorker {
  readonly worker: Worker;
  readonly slot: number;
}

type MetricsJson = ScrapeReply['metrics'];

/** prom-client's default metrics (process_*, nodejs_*), labelled with the process they describe; the service's own are left to be added up. */
function labelDefaults(metrics: MetricsJson, worker: string): MetricsJson {
  return metrics.map((metric) =>
    metric.name.startsWith('process_') || metric.name.startsWith('nodejs_')
      ? { ...metric, values: metric.values.map((value) => ({ ...value, labels: { ...value.labels, [workerLabel]: worker } })) }
      : metric,
  );
}

/** In the primary: the counts of every worker that serves, added up, beside each process's own defaults; a worker that exits meanwhile is left out. */
function scrapeWorkers({ AggregatorRegistry, register }: PromClient, workers: readonly SlottedWorker[]): Promise<string> {
  const id = ++scrapes;
  const replies = workers.map(
    ({ worker, slot }) =>
      new Promise<MetricsJson | undefined>((resolve, reject) => {
        const timer = setTimeout(
          () => finish(() => reject(new Error(`worker ${worker.process.pid} did not answer within ${scrapeTimeoutMs / 1000} s`))),
          scrapeTimeoutMs,
        );
        const onMessage = (message: unknown): void => {
          if (isScrapeReply(message) && message.metricsScraped === id) finish(() => resolve(labelDefaults(message.metrics, String(slot))));
        };
        const onExit = (): void => finish(() => resolve(undefined));
        const finish = (settle: () => void): void => {
          clearTimeout(timer);
          worker.off('message', onMessage);
          worker.off('exit', onExit);
          settle();
        };
        worker.on('message', onMessage);
        worker.once('exit', onExit);
        if (worker.isConnected()) worker.send({ metricsScrape: id } satisfies ScrapeRequest);
        else finish(() => resolve(undefined));
      }),
  );
  return Promise.all([...replies, register.getMetricsAsJSON()]).then((all) =>
    AggregatorRegistry.aggregate(all.filter((metrics) => metrics !== undefined)).metrics(),
  );
}

export interface RunningMetricsServer {
  readonly url: string;
  close(): Promise<void>;
}

/**
 * GET /metrics in Prometheus' text format on its own listener: this process's counts, or, in a
 * cluster's primary, those of the workers `serving` lists, added up, with each process's defaults.
 * Anything else is 404.
 */
export async function startMetricsServer(port: number, host: string, serving?: () => readonly SlottedWorker[]): Promise<RunningMetricsServer> {
  const prom = await promClient();
  const { register } = prom;
  // The primary's own defaults; a lone process collects its own in createMetrics.
  if (serving) prom.collectDefaultMetrics({ labels: { [workerLabel]: 'primary' } });
  const server = http.createServer((request, response) => {
    if (request.url !== '/metrics' || (request.method !== 'GET' && request.method !== 'HEAD')) {
      response.writeHead(404, { 'Content-Type': 'text/plain; charset=utf-8' }).end('GET /metrics\n');
      return;
    }
    const text = serving ? scrapeWorkers(prom, serving()) : register.metrics();
    text.then(
      (body) =>
        response.writeHead(200, { 'Content-Type': register.contentType, 'Cache-Control': 'no-store' }).end(request.method === 'HEAD' ? undefined : body),
      (error: Error) => response.writeHead(503, { 'Content-Type': 'text/plain; charset=utf-8' }).end(`metrics unavailable: ${error.message}\n`),
    );
  });
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => {
      const address = server.address() as AddressInfo;
      const shownHost = address.family === 'IPv6' ? `[${address.address}]` : address.address;
      resolve({ url: `http://${shownHost}:${address.port}`, close: () => new Promise((done) => server.close(() => done())) });
    });
  });
}

/**
 * /metrics (proxy/observe/metrics.ts): Prometheus' text format on its own loopback listener, counting what
 * operators watch; in a cluster, every worker's counts added up by the primary.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { serviceVersion } from '../../contract/version.ts';
import { loadConfig } from '../../proxy/config/config.ts';
import type { RunningService } from '../../proxy/service.ts';
import { freePort } from '../support/programs.ts';
import { startCluster, type RunningCluster } from '../support/cluster.ts';
import { buildFixture, startTestService, testKey } from '../support/service.ts';

const region = '/addressmanagement/api/region/getall';
const auth = { Authorization: `Bearer ${testKey}` };

/** The value of one sample of the exposition, by name and labels exactly as written; undefined when absent. */
function sample(text: string, series: string): number | undefined {
  const line = text.split('\n').find((candidate) => candidate.startsWith(`${series} `));
  return line === undefined ? undefined : Number(line.slice(series.length + 1));
}

describe('one process', () => {
  let distDir: string;
  let service: RunningService;
  beforeAll(async () => {
    distDir = await buildFixture();
    service = await startTestService(distDir, { API_KEYS: testKey, METRICS_PORT: '0' });
  });
  afterAll(() => service.close());

  it('is off unless METRICS_PORT is set, and then listens on loopback unless METRICS_HOST says otherwise', () => {
    expect(loadConfig({}).metrics).toBeUndefined();
    expect(loadConfig({ METRICS_PORT: '9464' }).metrics).toEqual({ port: 9464, host: '127.0.0.1' });
    expect(service.metrics?.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
  });

  it('counts answers by area, operation and status, refused tokens by reason, body cache lookups, and names the build', async () => {
    const url = service.running.url;
    for (let count = 0; count < 2; count++) expect((await fetch(`${url}${region}`, { headers: auth })).status).toBe(200);
    expect((await fetch(`${url}/addressmanagement/api/region/getbyid?id=00000000-0000-4000-8000-000000000000`, { headers: auth })).status).toBe(404);
    expect((await fetch(`${url}${region}`)).status).toBe(401);
    expect((await fetch(`${url}/healthz`)).status).toBe(200);
    expect((await fetch(`${url}/no/such/path/${'x'.repeat(20)}`, { headers: auth })).status).toBe(404);

    const response = await fetch(`${service.metrics?.url}/metrics`);
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toMatch(/^text\/plain; version=0\.0\.4/);
    const text = await response.text();
    expect(sample(text, `refdata_requests_total{area="addressmanagement",route="${region}",status="200"}`)).toBe(2);
    expect(sample(text, `refdata_requests_total{area="addressmanagement",route="${region}",status="401"}`)).toBe(1);
    expect(sample(text, 'refdata_requests_total{area="addressmanagement",route="/addressmanagement/api/region/getbyid",status="404"}')).toBe(1);
    expect(sample(text, 'refdata_requests_total{area="service",route="/healthz",status="200"}')).toBe(1);
    expect(sample(text, 'refdata_requests_total{area="other",route="other",status="404"}')).toBe(1);
    expect(sample(text, 'refdata_auth_failures_total{reason="ERR_AUTH_REQUIRED"}')).toBe(1);
    expect(sample(text, `refdata_request_duration_seconds_count{route="${region}"}`)).toBe(3);
    expect(sample(text, 'refdata_request_duration_seconds_count{route="/healthz"}')).toBe(1);
    expect(sample(text, `refdata_request_duration_seconds_bucket{route="${region}",le="+Inf"}`)).toBe(3);
    const hits = sample(text, 'refdata_body_cache_lookups_total{result="hit"}') ?? 0;
    const misses = sample(text, 'refdata_body_cache_lookups_total{result="miss"}') ?? 0;
    expect(hits + misses).toBe(2);
    expect(misses).toBeGreaterThanOrEqual(1);
    expect(sample(text, 'refdata_body_cache_bytes')).toBeGreaterThan(0);
    // A local build's index is read in place: no shard of it is held in memory.
    expect(sample(text, 'refdata_index_cache_bytes')).toBe(0);
    const { buildId, dataVersion } = service.build.current().manifest;
    expect(sample(text, `refdata_build_info{build_id="${buildId}",data_version="${dataVersion}",version="${serviceVersion}"}`)).toBe(1);
    const age = sample(text, 'refdata_build_age_seconds') ?? -1;
    const builtAt = Date.parse(service.build.current().manifest.builtAt);
    expect(age).toBeGreaterThanOrEqual(0);
    expect(age).toBeLessThanOrEqual((Date.now() - builtAt) / 1000 + 1);
  });

  it("has the process's own: resident memory, CPU, heap, event-loop delay, GC and handles, labelled worker 1", async () => {
    const text = await (await fetch(`${service.metrics?.url}/metrics`)).text();
    expect(sample(text, 'process_resident_memory_bytes{worker="1"}')).toBeGreaterThan(10 * 1024 * 1024);
    expect(sample(text, 'process_cpu_seconds_total{worker="1"}')).toBeGreaterThan(0);
    expect(sample(text, 'nodejs_heap_size_used_bytes{worker="1"}')).toBeGreaterThan(0);
    expect(sample(text, 'nodejs_eventloop_lag_p99_seconds{worker="1"}')).toBeGreaterThanOrEqual(0);
    expect(text).toContain('# TYPE nodejs_gc_duration_seconds histogram');
    expect(sample(text, 'nodejs_active_handles_total{worker="1"}')).toBeGreaterThan(0);
  });

  it("is not served on the API's listener, and its own listener answers nothing else", async () => {
    expect((await fetch(`${service.running.url}/metrics`, { headers: auth })).status).toBe(404);
    expect((await fetch(`${service.metrics?.url}/`)).status).toBe(404);
  });
});

describe('a cluster', () => {
  let metricsPort: number;
  let cluster: RunningCluster;
  beforeAll(async () => {
    metricsPort = await freePort();
    cluster = await startCluster({ METRICS_PORT: String(metricsPort), DIST_DIR: await buildFixture(), API_KEYS: testKey, WORKERS: '2', LOG_LEVEL: 'info' });
  }, 60_000);
  afterAll(() => cluster.stop());
  const scrape = (): Promise<Response> => fetch(`http://127.0.0.1:${metricsPort}/metrics`);

  /** The processes whose own metrics a scrape holds: the workers' slots and the primary. */
  const processes = async (): Promise<(string | undefined)[]> =>
    [...(await (await scrape()).text()).matchAll(/^process_resident_memory_bytes\{worker="([^"]+)"\}/gm)].map((match) => match[1]).sort();

  it('adds up the counts of every worker', async () => {
    // The cluster answers once its first worker listens: wait for the second too.
    await expect.poll(processes, { timeout: 20_000 }).toEqual(['1', '2', 'primary']);
    // A new connection each time, so the primary hands requests to both workers.
    for (let count = 0; count < 20; count++) {
      expect((await fetch(`${cluster.url}${region}`, { headers: { ...auth, Connection: 'close' } })).status).toBe(200);
    }
    const text = await (await scrape()).text();
    expect(sample(text, `refdata_requests_total{area="addressmanagement",route="${region}",status="200"}`)).toBe(20);
    expect(sample(text, `refdata_request_duration_seconds_count{route="${region}"}`)).toBe(20);
    // One build served by two workers reads 1, not 2.
    const buildInfo = text.split('\n').filter((line) => line.startsWith('refdata_build_info{'));
    expect(buildInfo).toHaveLength(1);
    expect(buildInfo[0]).toMatch(new RegExp(`,version="${serviceVersion.replaceAll('.', '\\.')}"} 1$`));
    expect(text.split('\n').filter((line) => line.startsWith('refdata_build_age_seconds '))).toHaveLength(1);
    // Each process's memory apart: the workers by slot, and the primary.
    for (const worker of ['1', '2', 'primary'])
      expect(sample(text, `process_resident_memory_bytes{worker="${worker}"}`), worker).toBeGreaterThan(10 * 1024 * 1024);
    expect(text.split('\n').filter((line) => line.startsWith('process_resident_memory_bytes{'))).toHaveLength(3);
  });

  it('answers while a worker is being replaced, from the workers that serve', { timeout: 60_000 }, async () => {
    const started = (): number[] =>
      cluster
        .output()
        .split('\n')
        .filter((line) => line.includes('"event":"worker-started"'))
        .map((line) => (JSON.parse(line) as { pid: number }).pid);
    const [victim] = started();
    expect(victim).toBeDefined();
    process.kill(victim as number, 'SIGKILL');
    // The replacement is forked and still loading when the scrape comes: it is not waited for.
    await cluster.waitFor(() => started().length === 3);
    const response = await scrape();
    expect(response.status).toBe(200);
    expect(await response.text()).toContain('refdata_build_info');
    // Once the replacement serves, it is worker 1 or 2 again (the slot of the one it replaces): the labels stay bounded.
    await expect.poll(processes, { timeout: 20_000 }).toEqual(['1', '2', 'primary']);
  });
});

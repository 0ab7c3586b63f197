/**
 * `npm run bench` works: its smoke version (one round of one second per configuration and mix, on
 * the fixture dataset so that it takes seconds, not minutes) runs every configuration (the
 * references: nginx tuned and as deployed, the node:http floors, the pread floor among them, both
 * Fastify servers; and every proxy) against real servers, on the sampled mix, the small one and the
 * random mix over the whole build (on the fixture, every body a query names: each is checked through
 * every server before the load, the pread floor's answers included), and writes the JSON the
 * result files' figures come from. The figures themselves are not checked: a smoke run on a shared CI
 * machine measures nothing worth asserting; that every ratio and target was computed is.
 *
 * Without wrk or nginx this file skips loudly, except under CI (process.env.CI), where it fails:
 * .ci/run installs both.
 */
import { spawn } from 'node:child_process';
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { configurationIds, referenceIds } from './report.ts';
import { findProgram } from '../support/programs.ts';
import { repoRoot, tempDir } from '../support/service.ts';
import { reportMissing } from '../support/tools.ts';

const missing = [
  findProgram('wrk') ? undefined : 'wrk',
  findProgram('nginx', ['/usr/sbin/nginx', '/usr/local/sbin/nginx', '/usr/local/nginx/sbin/nginx']) ? undefined : 'nginx',
].filter((name) => name !== undefined);

/** Every configuration the bench defines is measured, in its order. */
const configurations = [...configurationIds];

interface Row {
  configuration: string;
  requestsPerSecond: number;
  errors: number;
  p50Ms: number;
  p99Ms: number;
  ratios: Record<string, { requestsPerSecond: number; p99: number }>;
  serverCpuMicrosPerRequest: { user: number; system: number };
}

interface BenchJson {
  readonly results: Record<string, Record<string, Row[]>>;
  readonly build: { fullSeconds: number; copySeconds: number; noopSeconds: number; files: number; bytes: number; diskKb: number; filesPerSecond: number };
  readonly servers: { configuration: string; startupMs: number; afterWarmupMb: number[]; underLoadMb: number[] }[];
  readonly targets: { name: string; pass: boolean }[];
  readonly fixedFloorBody: { file: string; size: number };
  readonly urlMixes: Record<string, { distinct: number; population?: number; unreadableKeys: number }>;
}

function runBench(args: readonly string[]): Promise<{ code: number | null; output: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn('npm', ['run', 'bench', '--', ...args], { cwd: repoRoot, stdio: ['ignore', 'pipe', 'pipe'] });
    let output = '';
    child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
    child.once('error', reject);
    child.once('exit', (code) => resolve({ code, output }));
  });
}

if (missing.length > 0) {
  reportMissing(
    'test/bench/smoke.test.ts',
    missing.join(' and '),
    `${missing.join(' and ')} not installed: apt-get install -y ${missing.join(' ')}`,
    'npm run bench is',
  );
}

describe.skipIf(missing.length > 0)('npm run bench -- --smoke', () => {
  it('measures every configuration on three mixes, one drawn over the whole build, without an error, against every reference, and writes results, targets, build, start-up and memory as JSON', {
    timeout: 180_000,
  }, async () => {
    const out = path.join(await tempDir('refdata-bench-test-'), 'results.json');
    const { code, output } = await runBench(['--smoke', '--mix', 'sampled,small,random', '--data', 'test/fixtures/data', '--out', out]);
    expect(code, output).toBe(0);
    const json = JSON.parse(await readFile(out, 'utf8')) as BenchJson;

    expect(Object.keys(json.results)).toEqual(['sampled', 'small', 'random']);
    // The fixture build is smaller than the smoke's random mix: every body a query names is asked, once.
    const random = json.urlMixes.random;
    expect(random?.population).toBeGreaterThan(200);
    expect(random?.distinct).toBe(random?.population);
    expect(random?.unreadableKeys).toBe(0);
    // Every distinct lookup of the three mixes answered alike (status, length, ETag) by every server, the pread floor too.
    expect(output).toMatch(/^preflight: every lookup answered alike by .*\bnode-floor-pread\b/m);
    for (const [mix, byConcurrency] of Object.entries(json.results)) {
      const rows = byConcurrency['8'] ?? [];
      expect(
        rows.map((row) => row.configuration),
        mix,
      ).toEqual(configurations);
      for (const row of rows) {
        const what = `${mix}, ${row.configuration}`;
        expect(row.requestsPerSecond, what).toBeGreaterThan(0);
        expect(row.errors, what).toBe(0);
        expect(row.p99Ms, what).toBeGreaterThanOrEqual(row.p50Ms);
        expect(row.serverCpuMicrosPerRequest.user + row.serverCpuMicrosPerRequest.system, what).toBeGreaterThan(0);
        expect(Object.keys(row.ratios), what).toEqual([...referenceIds]);
        for (const [reference, ratio] of Object.entries(row.ratios)) {
          expect(ratio.requestsPerSecond, `${what} ÷ ${reference}`).toBeGreaterThan(0);
          if (reference === row.configuration) expect(ratio.requestsPerSecond, what).toBe(1);
        }
      }
    }

    const { build } = json;
    for (const figure of ['fullSeconds', 'copySeconds', 'noopSeconds', 'files', 'bytes', 'diskKb', 'filesPerSecond'] as const) {
      expect(build[figure], figure).toBeGreaterThan(0);
    }

    expect(json.servers.map((server) => server.configuration)).toEqual(configurations);
    for (const server of json.servers) {
      expect(server.startupMs, server.configuration).toBeGreaterThan(0);
      expect(Math.min(...server.afterWarmupMb, ...server.underLoadMb), server.configuration).toBeGreaterThan(0);
    }
    expect(json.fixedFloorBody.size).toBeGreaterThan(0);

    const targets = json.targets.map((target) => target.name);
    expect(targets).toContain('proxy memory per worker under load (MB, highest)');
    expect(targets).toContain('proxy, local, API key, sampled, c=8: req/s vs nginx as deployed');
    for (const name of ['req/s vs node-floor', 'req/s vs node-floor (stretch)', 'req/s vs fastify', 'p99 vs nginx-tuned'])
      expect(targets).toContain(`proxy, local, API key, small, c=8: ${name}`);
    expect(targets).toContain('proxy, local, API key, LOG_LEVEL=info, small, c=8: req/s vs node-floor');
    expect(output).toMatch(/\| proxy, origin, warm cache +\|/);
    expect(output).toMatch(/### The proxy as a share of each reference/);
    expect(output).toMatch(/### Capacity at 8 connections/);
    expect(output).toMatch(/### Random access over the whole build/);
    expect(output).toMatch(/\| random \| +8 \|/);
  });
});

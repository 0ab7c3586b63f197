/**
 * `npm run bench` works: its smoke version (one round of one second per configuration, on the
 * fixture dataset so that it takes seconds, not minutes) runs every configuration against real
 * nginx and proxies and writes the JSON the README's figures come from. The figures themselves are
 * not checked: a smoke run on a shared CI machine measures nothing worth asserting.
 *
 * Without wrk or nginx this file skips loudly, except under CI (process.env.CI), where it fails:
 * .ci/run installs both.
 */
import { spawn } from 'node:child_process';
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { configurationIds } from './report.ts';
import { findProgram } from './servers.ts';
import { repoRoot, tempDir } from '../support/service.ts';
import { reportMissing } from '../support/tools.ts';

const missing = [
  findProgram('wrk') ? undefined : 'wrk',
  findProgram('nginx', ['/usr/sbin/nginx', '/usr/local/sbin/nginx', '/usr/local/nginx/sbin/nginx']) ? undefined : 'nginx',
].filter((name) => name !== undefined);

/** Every configuration the bench defines is measured, in its order. */
const configurations = [...configurationIds];

interface BenchJson {
  readonly results: Record<string, { configuration: string; requestsPerSecond: number; errors: number; p50Ms: number; p99Ms: number }[]>;
  readonly build: { fullSeconds: number; copySeconds: number; noopSeconds: number; files: number; bytes: number; diskKb: number; filesPerSecond: number };
  readonly servers: { configuration: string; startupMs: number; afterWarmupMb: number[]; underLoadMb: number[] }[];
  readonly targets: { name: string; pass: boolean }[];
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
  it('measures every configuration without an error and writes the results, build figures, start-up and memory as JSON', { timeout: 100_000 }, async () => {
    const out = path.join(await tempDir('refdata-bench-test-'), 'results.json');
    const { code, output } = await runBench(['--smoke', '--data', 'test/fixtures/data', '--out', out]);
    expect(code, output).toBe(0);
    const json = JSON.parse(await readFile(out, 'utf8')) as BenchJson;

    const rows = json.results['8'] ?? [];
    expect(rows.map((row) => row.configuration)).toEqual(configurations);
    for (const row of rows) {
      expect(row.requestsPerSecond, row.configuration).toBeGreaterThan(0);
      expect(row.errors, row.configuration).toBe(0);
      expect(row.p99Ms, row.configuration).toBeGreaterThanOrEqual(row.p50Ms);
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
    expect(json.targets.map((target) => target.name)).toContain('proxy memory per worker under load (MB, highest)');
    expect(output).toMatch(/\| proxy, origin, warm cache +\|/);
  });
});

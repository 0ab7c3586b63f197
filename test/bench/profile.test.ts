/**
 * `npm run bench:profile` works: the proxy (with request logs off and on) and two node:http floors
 * started on the fixture build, each profiled under wrk on the small mix and on the random one, with every configuration's time per
 * request split by category, compared, and written as JSON. The figures themselves are not
 * checked: a one-second run on a shared CI machine measures nothing. The summing of a profile is
 * checked exactly, on a profile made by hand.
 *
 * Without wrk the run skips loudly, except under CI (process.env.CI), where it fails: .ci/run
 * installs it.
 */
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { bundleModules, summariseProfile, type CpuProfile, type OwnCode } from './cpuProfile.ts';
import { configurationLabels } from './report.ts';
import { findProgram } from '../support/programs.ts';
import { buildFixture, tempDir } from '../support/service.ts';
import { reportMissing, runNpmScript } from '../support/tools.ts';

const wrkMissing = findProgram('wrk') === undefined;

describe('a CPU profile summed up', () => {
  const chunkUrl = 'file:///repo/.proxy-build/chunks/service-ABC.mjs';
  const code: OwnCode = {
    bundles: new Map([
      ['file:///repo/.proxy-build/main.mjs', bundleModules('// proxy/main.ts\nmain();\n')],
      [
        chunkUrl,
        bundleModules(
          '// proxy/service.ts\nstart();\n\n// proxy/http/listener.ts\nfunction answerLookup() {}\n\n// proxy/observe/log.ts\nfunction logLine() {}\n',
        ),
      ],
    ]),
    repoUrl: 'file:///repo/',
  };
  const frame = (functionName: string, url = '', lineNumber = -1) => ({ functionName, url, lineNumber });
  const profile: CpuProfile = {
    nodes: [
      { id: 1, callFrame: frame('(root)'), children: [2, 4, 5, 6, 7, 8, 9] },
      { id: 2, callFrame: frame('answerLookup', chunkUrl, 4) },
      { id: 3, callFrame: frame('writev') },
      { id: 4, callFrame: frame('writevGeneric', 'node:internal/stream_base_commons', 122), children: [3] },
      { id: 5, callFrame: frame('logLine', chunkUrl, 7) },
      { id: 6, callFrame: frame('(garbage collector)') },
      { id: 7, callFrame: frame('(idle)') },
      { id: 8, callFrame: frame('', 'file:///repo/test/bench/floor.ts', 40) },
      { id: 9, callFrame: frame('randomUUID', 'node:internal/crypto/random', 9) },
    ],
    startTime: 1000,
    // Samples at 1100, 1110, 1130, 1160, 1200, 1250, 1310, 1380 and 1460; each lasts until the next, the last until 1465.
    samples: [2, 3, 3, 5, 6, 7, 2, 8, 9],
    timeDeltas: [100, 10, 20, 30, 40, 50, 60, 70, 80],
    endTime: 1465,
  };

  it('gives each sample the time until the next one, and sums it by category, a native function in its caller’s', () => {
    const summary = summariseProfile(profile, code);
    expect(summary.samples).toBe(9);
    expect(summary.byCategory).toEqual({ proxy: 80, floor: 80, logging: 40, http: 0, net: 50, crypto: 5, other: 0, gc: 50, program: 0, idle: 60 });
    expect(summary.busyMicros).toBe(305);
  });

  it('sums it by function, named by file and line, a bundle’s line by its source module', () => {
    expect(summariseProfile(profile, code).byFunction).toEqual([
      { label: 'answerLookup proxy/http/listener.ts (service-ABC.mjs:5)', category: 'proxy', micros: 80 },
      { label: '(anonymous) floor.ts:41', category: 'floor', micros: 80 },
      { label: '(idle)', category: 'idle', micros: 60 },
      { label: 'writev (native)', category: 'net', micros: 50 },
      { label: '(garbage collector)', category: 'gc', micros: 50 },
      { label: 'logLine proxy/observe/log.ts (service-ABC.mjs:8)', category: 'logging', micros: 40 },
      { label: 'randomUUID node:internal/crypto/random:10', category: 'crypto', micros: 5 },
    ]);
  });
});

if (wrkMissing) reportMissing('test/bench/profile.test.ts', 'wrk', 'wrk not installed: apt-get install -y wrk', 'npm run bench:profile is');

describe.skipIf(wrkMissing)('npm run bench:profile', () => {
  it('profiles the proxy, logged and not, and both floors under wrk, and prints and writes each one’s time per request by category', {
    timeout: 120_000,
  }, async () => {
    const dist = await buildFixture();
    const out = path.join(await tempDir('refdata-profile-test-'), 'profile.json');
    const { code, output } = await runNpmScript('bench:profile', ['--duration', '1', '--warmup', '1', '--dist', dist, '--out', out]);
    expect(code, output).toBe(0);
    for (const id of ['local-apikey', 'local-apikey-log-info', 'node-floor-envelope', 'node-floor'] as const)
      expect(output, id).toContain(`## ${configurationLabels[id]}`);
    const perRequest = [...output.matchAll(/ms \(([\d,.]+) µs\) per request/g)].map((match) => Number(match[1]?.replaceAll(',', '')));
    expect(perRequest, output).toHaveLength(4);
    for (const micros of perRequest) expect(micros, output).toBeGreaterThan(0);
    expect(output).toContain('## Per request, by category');

    const json = JSON.parse(await readFile(out, 'utf8')) as {
      runs: { configuration: string; requests: number; errors: number; samples: number; categories: Record<string, { microsPerRequest: number }> }[];
    };
    expect(json.runs.map((run) => run.configuration)).toEqual(['local-apikey', 'local-apikey-log-info', 'node-floor-envelope', 'node-floor']);
    for (const run of json.runs) {
      expect(run.requests, run.configuration).toBeGreaterThan(0);
      expect(run.errors, run.configuration).toBe(0);
      expect(run.samples, run.configuration).toBeGreaterThan(0);
    }
    const [proxy, logged] = json.runs;
    expect(proxy?.categories.proxy?.microsPerRequest, output).toBeGreaterThan(0);
    expect(logged?.categories.logging?.microsPerRequest, output).toBeGreaterThan(0);
  });

  it('profiles the random mix over the whole build beside the pread floor, which reads each body from the packs', { timeout: 120_000 }, async () => {
    const dist = await buildFixture();
    const out = path.join(await tempDir('refdata-profile-test-'), 'profile.json');
    const { code, output } = await runNpmScript('bench:profile', ['--mix', 'random', '--duration', '1', '--warmup', '1', '--dist', dist, '--out', out]);
    expect(code, output).toBe(0);
    expect(output).toContain('# bench:profile: random: ');
    const json = JSON.parse(await readFile(out, 'utf8')) as { mix: string; runs: { configuration: string; requests: number; errors: number }[] };
    expect(json.mix).toBe('random');
    expect(json.runs.map((run) => run.configuration)).toEqual(['local-apikey', 'local-apikey-log-info', 'node-floor-envelope', 'node-floor-pread']);
    for (const run of json.runs) {
      expect(run.requests, run.configuration).toBeGreaterThan(0);
      expect(run.errors, run.configuration).toBe(0);
    }
  });

  it('refuses a mix it does not profile, naming those it does', async () => {
    const { code, output } = await runNpmScript('bench:profile', ['--mix', 'flags']);
    expect(code).toBe(2);
    expect(output).toContain('--mix takes small or random (got "flags")');
  });

  it('refuses a --dist without a build, saying what to do', async () => {
    const empty = path.join(await tempDir('refdata-profile-test-'), 'nothing');
    const { code, output } = await runNpmScript('bench:profile', ['--dist', empty]);
    expect(code).toBe(2);
    expect(output).toContain('holds no build: run `npm run build` first, or give --dist');
  });
});

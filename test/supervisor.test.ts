/**
 * The cluster's primary keeps the service up: workers killed with SIGKILL, all at once, are
 * replaced; when replacements cannot start and nothing serves, the primary exits non-zero so that
 * systemd or a container runtime restarts the service.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { rename } from 'node:fs/promises';
import path from 'node:path';
import { beforeEach, describe, expect, it } from 'vitest';
import { RestartBudget, restartPolicy } from '../proxy/supervisor.ts';
import { childPids, freePort } from './bench/servers.ts';
import { buildFixture, repoRoot, testKey } from './support.ts';

describe('the restart budget', () => {
  let clock = 0;
  const budget = (): RestartBudget => new RestartBudget(restartPolicy, () => clock);
  beforeEach(() => {
    clock = 1_000_000;
  });

  it('restarts after 100 ms, doubling with each exit in the last minute, at most 10 s', () => {
    const decisions = budget();
    const delays = Array.from({ length: 10 }, () => decisions.afterExit(1));
    expect(delays).toEqual([100, 200, 400, 800, 1600, 3200, 6400, 10_000, 10_000, 10_000].map((restartInMs) => ({ restartInMs })));
  });

  it('forgets exits older than a minute', () => {
    const decisions = budget();
    decisions.afterExit(1);
    decisions.afterExit(1);
    clock += restartPolicy.windowMs + 1;
    expect(decisions.afterExit(1)).toEqual({ restartInMs: 100 });
  });

  it('gives up only when no worker serves and five exits fell within the minute', () => {
    const decisions = budget();
    for (let exit = 1; exit < restartPolicy.giveUpAfter; exit++) expect(decisions.afterExit(0)).not.toBe('give-up');
    expect(decisions.afterExit(1)).not.toBe('give-up');
    expect(decisions.afterExit(0)).toBe('give-up');
  });
});

interface Primary {
  readonly child: ChildProcess;
  readonly url: string;
  output(): string;
}

/**
 * The service as `npm start` runs it with WORKERS=2 (through tsx's loader, so the primary is this
 * process), on a fixed port: with PORT=0 workers started after all others died would get a new one.
 */
async function startPrimary(distDir: string): Promise<Primary> {
  const environment = { ...process.env, PORT: String(await freePort()), DIST_DIR: distDir, API_KEYS: testKey, WORKERS: '2', LOG_LEVEL: 'info' };
  const child = spawn(process.execPath, ['--import', 'tsx', path.join(repoRoot, 'proxy/main.ts')], { cwd: repoRoot, env: environment, stdio: 'pipe' });
  let output = '';
  child.stdout.on('data', (chunk) => (output += chunk.toString()));
  child.stderr.on('data', (chunk) => (output += chunk.toString()));
  const url = await new Promise<string>((resolve, reject) => {
    const check = (): void => {
      const match = /listening on (http:\/\/\S+) /.exec(output);
      if (match?.[1]) resolve(match[1]);
    };
    child.stdout.on('data', check);
    child.once('exit', (code) => reject(new Error(`the service exited with ${code} before listening:\n${output}`)));
  });
  return { child, url, output: () => output };
}

/** Waits until `count` workers other than `replaced` run under the primary. */
async function workersOf(primary: Primary, count: number, replaced: readonly number[] = []): Promise<number[]> {
  for (;;) {
    if (primary.child.exitCode !== null) throw new Error(`the primary exited with ${primary.child.exitCode}:\n${primary.output()}`);
    const pids = childPids(primary.child.pid ?? -1, 'node').filter((pid) => !replaced.includes(pid));
    if (pids.length === count) return pids;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

function exitOf(child: ChildProcess): Promise<number | null> {
  if (child.exitCode !== null) return Promise.resolve(child.exitCode);
  return new Promise((resolve) => child.once('exit', (code) => resolve(code)));
}

/** Asks until the service answers a lookup, as a client retrying would. */
async function answersAgain(url: string): Promise<number> {
  for (;;) {
    const status = await fetch(`${url}/addressmanagement/api/region/getall`, { headers: { Authorization: `Bearer ${testKey}` } })
      .then((response) => response.status)
      .catch(() => 0);
    if (status !== 0) return status;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

describe('the primary', () => {
  it('replaces every worker when all are killed at once, and keeps serving', { timeout: 60_000 }, async () => {
    const primary = await startPrimary(await buildFixture());
    try {
      const first = await workersOf(primary, 2);
      for (const pid of first) process.kill(pid, 'SIGKILL');
      await workersOf(primary, 2, first);
      expect(await answersAgain(primary.url)).toBe(200);
      expect(primary.child.exitCode).toBeNull();
      expect(primary.output()).toContain('"event":"worker-exited"');
    } finally {
      primary.child.kill('SIGTERM');
      await exitOf(primary.child);
    }
  });

  it('exits with status 1 when nothing serves and replacements keep dying', { timeout: 60_000 }, async () => {
    const distDir = await buildFixture();
    const primary = await startPrimary(distDir);
    const workers = await workersOf(primary, 2);
    // Replacements now fail at start (no build), as they would with a broken disk.
    await rename(distDir, `${distDir}.gone`);
    for (const pid of workers) process.kill(pid, 'SIGKILL');
    expect(await exitOf(primary.child)).toBe(1);
    expect(primary.output()).toContain('"event":"supervisor-gave-up"');
  });
});

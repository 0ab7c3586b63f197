/**
 * The cluster's primary keeps the service up: workers killed with SIGKILL, all at once, are
 * replaced; when replacements cannot start and nothing serves, the primary exits non-zero so that
 * systemd or a container runtime restarts the service.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { readdir, readFile, realpath, rename } from 'node:fs/promises';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { beforeEach, describe, expect, it } from 'vitest';
import { LookupHead, lookupIndexFileName } from '../../contract/lookupIndex.ts';
import { RestartBudget, restartPolicy } from '../../proxy/process/supervisor.ts';
import { childPids } from '../support/proc.ts';
import { freePort } from '../support/programs.ts';
import { buildFixture, repoRoot, tempDir, testKey } from '../support/service.ts';
import { packedBody } from '../support/store.ts';

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
async function startPrimary(distDir: string, settings: NodeJS.ProcessEnv = {}): Promise<Primary> {
  const primary = await spawnPrimary(distDir, settings);
  await listening(primary);
  return primary;
}

/** The primary started, not yet listening: its url is where it will listen. */
async function spawnPrimary(distDir: string, settings: NodeJS.ProcessEnv = {}): Promise<Primary> {
  const port = await freePort();
  const environment = { ...process.env, PORT: String(port), DIST_DIR: distDir, API_KEYS: testKey, WORKERS: '2', LOG_LEVEL: 'info', ...settings };
  const child = spawn(process.execPath, ['--import', 'tsx', path.join(repoRoot, 'proxy/main.ts')], { cwd: repoRoot, env: environment, stdio: 'pipe' });
  let output = '';
  child.stdout.on('data', (chunk) => (output += chunk.toString()));
  child.stderr.on('data', (chunk) => (output += chunk.toString()));
  return { child, url: `http://127.0.0.1:${port}`, output: () => output };
}

/** Resolves once the service says it listens. */
function listening(primary: Primary): Promise<void> {
  return new Promise<void>((resolve, reject) => {
    const check = (): void => {
      if (/listening on http:\/\/\S+ /.test(primary.output())) resolve();
    };
    primary.child.stdout?.on('data', check);
    primary.child.once('exit', (code) => reject(new Error(`the service exited with ${code} before listening:\n${primary.output()}`)));
    check();
  });
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

/** Resolves once `count` workers have said they listen (LOG_LEVEL=info), replacements included. */
function listeningWorkers(primary: Primary, count: number): Promise<void> {
  return outputHolds(primary, (output) => output.split('"event":"worker-listening"').length - 1 >= count, `${count} worker-listening events`);
}

/** Resolves when the service's output holds `text`, checked as each piece of output arrives. */
function printed(primary: Primary, text: string): Promise<void> {
  return outputHolds(primary, (output) => output.includes(text), text);
}

/** Resolves when `condition` holds of the service's output, checked as each piece of it arrives. */
function outputHolds(primary: Primary, condition: (output: string) => boolean, what: string): Promise<void> {
  return new Promise((resolve, reject) => {
    const streams = [primary.child.stdout, primary.child.stderr];
    const done = (): void => {
      for (const stream of streams) stream?.off('data', check);
      primary.child.off('exit', exited);
    };
    const check = (): void => {
      if (!condition(primary.output())) return;
      done();
      resolve();
    };
    const exited = (code: number | null): void => {
      done();
      reject(new Error(`the primary exited with ${code} before printing ${what}:\n${primary.output()}`));
    };
    for (const stream of streams) stream?.on('data', check);
    primary.child.once('exit', exited);
    check();
  });
}

/**
 * A static host over a build that can be taken down (every connection then dropped) or held (every
 * request waits until release()).
 */
async function startOrigin(root: string) {
  const state = { down: false, held: false };
  const heldRequests: (() => void)[] = [];
  const waiters: { count: number; resolve: () => void }[] = [];
  const serve = (request: http.IncomingMessage, response: http.ServerResponse): void => {
    if (state.down) return void request.socket.destroy();
    realpath(root)
      .then((dir) => readFile(path.join(dir, (request.url ?? '/').split('?')[0] ?? '/')))
      .then((body) => response.writeHead(200, { 'Content-Length': body.length }).end(body))
      .catch(() => response.writeHead(404).end());
  };
  const server = http.createServer((request, response) => {
    if (!state.held) return serve(request, response);
    heldRequests.push(() => serve(request, response));
    for (const waiter of waiters.filter((candidate) => heldRequests.length >= candidate.count)) waiter.resolve();
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return Object.assign(state, {
    url: `http://127.0.0.1:${port}/`,
    /** Resolves once `count` requests are held. */
    waiting: (count: number): Promise<void> => new Promise<void>((resolve) => (heldRequests.length >= count ? resolve() : waiters.push({ count, resolve }))),
    release: (): void => {
      state.held = false;
      for (const answer of heldRequests.splice(0)) answer();
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  });
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

  it('in origin mode, replaces a killed worker while the origin is down, from the build its siblings saved', { timeout: 60_000 }, async () => {
    const distDir = await buildFixture();
    const origin = await startOrigin(distDir);
    const copyDir = await tempDir();
    const primary = await startPrimary(distDir, { ORIGIN_URL: origin.url, ORIGIN_CACHE_DIR: copyDir });
    try {
      const lookup = `${primary.url}/financemanagement/api/currency/getbycode?code=TRY`;
      const ask = (): Promise<number> =>
        fetch(lookup, { headers: { Authorization: `Bearer ${testKey}`, Connection: 'close' } }).then(
          (response) => response.status,
          (error: unknown) => {
            throw new Error(`${(error as Error).message}: ${String((error as Error).cause)}\n${primary.output()}`);
          },
        );
      expect(await ask()).toBe(200);
      let names: string[] = [];
      // Saved behind the response: wait until the body and the index shard that lists it are in the copy.
      const buildDir = await realpath(distDir);
      const head = new LookupHead(await readFile(path.join(buildDir, lookupIndexFileName)));
      const file = 'financemanagement/api/currency/getbycode/try.json';
      const saved = [(await packedBody(distDir, file))?.etag, head.shards[head.shardOf(file)]?.etag].map((etag) => `${etag?.slice(1, -1)}.json`);
      while (!saved.every((name) => names.includes(name))) {
        names = await readdir(path.join(copyDir, 'bodies')).catch(() => []);
        await new Promise((resolve) => setTimeout(resolve, 20));
      }
      // Both workers listening before one is killed: killing the only one listening would close
      // the cluster's listener until another listens.
      await listeningWorkers(primary, 2);
      origin.down = true;
      const [killed] = await workersOf(primary, 2);
      process.kill(killed as number, 'SIGKILL');
      await printed(primary, '"event":"origin-unreachable-at-start"');
      await workersOf(primary, 2, [killed as number]);
      await listeningWorkers(primary, 3);
      // Connections are dealt to both workers in turn: every answer is the saved body.
      for (let request = 0; request < 6; request++) expect(await ask()).toBe(200);
      expect(primary.output().match(/"event":"worker-exited"/g)).toHaveLength(1);
    } finally {
      primary.child.kill('SIGTERM');
      await exitOf(primary.child);
      await origin.close();
    }
  });

  it('logs workers killed before any listened (as the kernel kills them out of memory) and starts others', { timeout: 60_000 }, async () => {
    const distDir = await buildFixture();
    const origin = await startOrigin(distDir);
    // Every worker's start waits on the origin until it is let through: both are killed while waiting.
    origin.held = true;
    const primary = await spawnPrimary(distDir, { ORIGIN_URL: origin.url });
    try {
      await origin.waiting(2);
      const first = await workersOf(primary, 2);
      expect(primary.output()).not.toContain('listening on');
      for (const pid of first) process.kill(pid, 'SIGKILL');
      await printed(primary, '"signal":"SIGKILL"');
      origin.release();
      await listening(primary);
      expect(await answersAgain(primary.url)).toBe(200);
      const exits = primary
        .output()
        .split('\n')
        .filter((line) => line.includes('"event":"worker-exited"'))
        .map((line) => JSON.parse(line) as { signal: string; msg: string });
      expect(exits).toHaveLength(2);
      for (const exit of exits) {
        expect(exit.signal).toBe('SIGKILL');
        expect(exit.msg).toMatch(/out of memory/);
      }
    } finally {
      primary.child.kill('SIGTERM');
      await exitOf(primary.child);
      await origin.close();
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

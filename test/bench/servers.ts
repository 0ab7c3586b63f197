/**
 * The servers under load, each its own process tree on a loopback port picked here: nginx rendered
 * from nginx.conf by deploy/nginx.ts (as deployed), and proxies started as `npm start` starts them
 * (the bundle `npm run build:proxy` writes, run by node, with settings in the environment); and
 * what starts any of them (references.ts starts the reference servers with it).
 */
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import http from 'node:http';
import { rmSync } from 'node:fs';
import { userInfo } from 'node:os';
import path from 'node:path';
import { writeNginxConfig } from '../../deploy/nginx.ts';
import { settingNames } from '../../proxy/config/config.ts';
import { childPids } from '../support/proc.ts';
import { freePort } from '../support/programs.ts';

export const repoRoot = path.resolve(import.meta.dirname, '..', '..');

/** One GET over a fresh connection: the status, the headers and the body's length. */
export function get(url: string, headers: Record<string, string> = {}): Promise<{ status: number; headers: http.IncomingHttpHeaders; bytes: number }> {
  return new Promise((resolve, reject) => {
    const request = http.get(url, { headers, agent: false }, (response) => {
      let bytes = 0;
      response.on('data', (chunk: Buffer) => (bytes += chunk.length));
      response.on('end', () => resolve({ status: response.statusCode ?? 0, headers: response.headers, bytes }));
      response.on('error', reject);
    });
    request.setTimeout(10_000, () => request.destroy(new Error(`no answer from ${url} within 10 s`)));
    request.on('error', reject);
  });
}

export interface RunningServer {
  readonly name: string;
  /** `http://127.0.0.1:<port>` */
  readonly url: string;
  /** The process the tree hangs from: nginx's master, the proxy's cluster primary. */
  readonly pid: number;
  /** Spawn to the first successful answer. */
  readonly startupMs: number;
  /** The processes serving requests (nginx's or the cluster's workers), found once they run. */
  workerPids(): number[];
  /** What the process wrote to stderr, for failure messages (the last 4 KB). */
  stderr(): string;
  stop(): Promise<void>;
}

/** Each started process with its workers: nginx's workers outlive a master killed with SIGKILL. */
const running = new Map<ChildProcess, () => number[]>();
/** Nothing outlives the bench, not even when it fails halfway. */
process.once('exit', () => {
  for (const [child, workers] of running) {
    for (const pid of workers()) {
      try {
        process.kill(pid, 'SIGKILL');
      } catch {
        // already gone
      }
    }
    child.kill('SIGKILL');
  }
});

function track(child: ChildProcess, workers: () => number[]): { stderr: () => string; exited: Promise<void> } {
  running.set(child, workers);
  let stderr = '';
  child.stderr?.on('data', (chunk: Buffer) => (stderr = (stderr + chunk.toString()).slice(-4096)));
  const exited = new Promise<void>((resolve) =>
    child.once('exit', () => {
      running.delete(child);
      resolve();
    }),
  );
  return { stderr: () => stderr, exited };
}

async function stopChild(child: ChildProcess, exited: Promise<void>, signal: NodeJS.Signals): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  child.kill(signal);
  const force = setTimeout(() => child.kill('SIGKILL'), 10_000);
  await exited;
  clearTimeout(force);
}

/** Polls `url` until it answers `status`; fails early when the process exits. */
async function waitForAnswer(url: string, headers: Record<string, string>, status: number, child: ChildProcess, stderr: () => string): Promise<void> {
  const deadline = Date.now() + 60_000;
  for (;;) {
    if (child.exitCode !== null || child.signalCode !== null)
      throw new Error(`${url}: the process exited (${child.exitCode ?? child.signalCode}) before answering:\n${stderr()}`);
    const answered = await get(url, headers).then(
      (reply) => reply.status === status,
      () => false,
    );
    if (answered) return;
    if (Date.now() > deadline) throw new Error(`${url} did not answer ${status} within 60 s:\n${stderr()}`);
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

/**
 * Waits until the tree has `count` workers running `command` (the first answer may come before the
 * last one runs); a primary run through tsx has esbuild's service as a child too, which is no worker.
 */
async function waitForWorkers(pid: number, count: number, command: string): Promise<number[]> {
  const deadline = Date.now() + 60_000;
  for (;;) {
    const workers = childPids(pid, command);
    if (workers.length >= count) return workers;
    if (Date.now() > deadline) throw new Error(`process ${pid} has ${workers.length} workers after 60 s, expected ${count}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

export interface NginxOptions {
  readonly nginx: string;
  /** The directory to serve (absolute): the bench's is the references' root, the build with the sampled bodies as files (referenceRoot.ts). */
  readonly root: string;
  /** Where nginx.conf, origin-secret.conf, the pid file and temp files go. */
  readonly prefix: string;
  /** `X-Origin-Secret: …`, as the proxies send it. */
  readonly originHeader: string;
}

/** nginx over a build, rendered as deployed, in the foreground, without an access log. */
export async function startNginx(options: NginxOptions): Promise<RunningServer> {
  const port = await freePort();
  const prefix = `${options.prefix}/`;
  const configFile = await writeNginxConfig(prefix, {
    root: options.root,
    listen: `127.0.0.1:${port}`,
    originHeader: options.originHeader,
    // As root, workers would otherwise run as www-data, which cannot read a 0700 temporary directory.
    user: userInfo().username,
    accessLog: 'off',
    errorLog: 'stderr',
  });
  const [name, value] = options.originHeader.split(/:\s*/, 2) as [string, string];
  return runNginx({ name: 'nginx', nginx: options.nginx, prefix, configFile, port, probeHeaders: { [name]: value } });
}

export interface NginxRun {
  readonly name: string;
  readonly nginx: string;
  /** The prefix directory (-p), ending in a slash. */
  readonly prefix: string;
  readonly configFile: string;
  readonly port: number;
  /** What a request needs to be answered 200 for /manifest.json (the origin secret). */
  readonly probeHeaders: Record<string, string>;
  /** worker_processes, when the configuration names a number (nginx.conf says `auto`). */
  readonly workers?: number;
}

/** nginx in the foreground on a rendered configuration, ready once /manifest.json answers 200. */
export async function runNginx(run: NginxRun): Promise<RunningServer> {
  const started = performance.now();
  const child = spawn(run.nginx, ['-p', run.prefix, '-c', run.configFile, '-e', 'stderr', '-g', 'daemon off;'], { stdio: ['ignore', 'ignore', 'pipe'] });
  let workers: number[] = [];
  const { stderr, exited } = track(child, () => workers);
  const url = `http://127.0.0.1:${run.port}`;
  await waitForAnswer(`${url}/manifest.json`, run.probeHeaders, 200, child, stderr);
  const startupMs = performance.now() - started;
  if (run.workers !== undefined) workers = await waitForWorkers(child.pid as number, run.workers, 'nginx');
  else {
    // `worker_processes auto`: one per core, all started by the time the first answers, or nearly.
    await waitForWorkers(child.pid as number, 1, 'nginx');
    await new Promise((resolve) => setTimeout(resolve, 300));
    workers = childPids(child.pid as number);
  }
  return { name: run.name, url, pid: child.pid as number, startupMs, workerPids: () => workers, stderr, stop: () => stopChild(child, exited, 'SIGTERM') };
}

export interface ProxyOptions {
  readonly name: string;
  /** The proxy's settings (docs/configuration.md); HOST and PORT are set here. */
  readonly settings: Record<string, string>;
  readonly workers: number;
  /** The bundle from bundleProxy(). */
  readonly bundle: string;
}

/**
 * Writes the proxy's bundle as `npm start` does first (prestart, build:proxy's flags), into a folder
 * of this process's own under .proxy-build/: a test that rebundles the shared folder meanwhile
 * cannot swap the chunks of a bundle a bench is running or profiling. The folder is removed on exit.
 */
export function bundleProxy(): string {
  const folder = path.join(repoRoot, '.proxy-build', 'bench', String(process.pid));
  if (!bundleFolders.has(folder)) {
    rmSync(folder, { recursive: true, force: true });
    bundleFolders.add(folder);
    if (bundleFolders.size === 1)
      process.once('exit', () => {
        for (const each of bundleFolders) rmSync(each, { recursive: true, force: true });
      });
  }
  execFileSync('npm', ['run', '--silent', 'build:proxy', '--', `--outdir=${folder}`], { cwd: repoRoot, stdio: 'inherit' });
  return path.join(folder, 'main.mjs');
}

const bundleFolders = new Set<string>();

/**
 * A proxy as a systemd unit runs it: node itself on the bundle, production settings. Its request
 * log (stdout) goes to /dev/null: pino still formats and writes every line, the cheapest sink there is.
 */
export async function startProxy(options: ProxyOptions): Promise<RunningServer> {
  const port = await freePort();
  const environment: NodeJS.ProcessEnv = { ...process.env };
  // Settings the caller's shell has are removed first: a run is configured by its settings alone.
  for (const name of settingNames) delete environment[name];
  Object.assign(environment, { NODE_ENV: 'production', HOST: '127.0.0.1', PORT: String(port), WORKERS: String(options.workers) }, options.settings);
  return startNodeServer(options.name, [options.bundle], environment, port, options.workers);
}

/** A node process (a cluster of `workers`) on `port`, ready once /readyz answers 200. */
export async function startNodeServer(
  name: string,
  args: readonly string[],
  environment: NodeJS.ProcessEnv,
  port: number,
  workerCount: number,
): Promise<RunningServer> {
  const started = performance.now();
  const child = spawn(process.execPath, args, { cwd: repoRoot, env: environment, stdio: ['ignore', 'ignore', 'pipe'] });
  let workers: number[] = [];
  const { stderr, exited } = track(child, () => workers);
  const url = `http://127.0.0.1:${port}`;
  await waitForAnswer(`${url}/readyz`, {}, 200, child, stderr);
  const startupMs = performance.now() - started;
  workers = workerCount > 1 ? await waitForWorkers(child.pid as number, workerCount, path.basename(process.execPath)) : [child.pid as number];
  // SIGINT: stopped gracefully without SIGTERM's drain (SHUTDOWN_DELAY_MS), which nothing here waits for.
  return { name, url, pid: child.pid as number, startupMs, workerPids: () => workers, stderr, stop: () => stopChild(child, exited, 'SIGINT') };
}

/** Every process of a server's tree: the master or primary first, then its workers. */
export function treePids(server: RunningServer): number[] {
  const workers = server.workerPids();
  return workers.includes(server.pid) ? workers : [server.pid, ...workers];
}

/**
 * The server programs the tests run for real (nginx, varnishd, HAProxy), started one way: in the
 * foreground as a child of the test process, what they write kept for failure messages, waited
 * for until they answer, stopped with SIGTERM (SIGKILL if that is not enough), and never left
 * running after the test process. nginx is here too, rendered by deploy/nginx.ts, because three
 * test files start it.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { readFile } from 'node:fs/promises';
import http from 'node:http';
import { userInfo } from 'node:os';
import path from 'node:path';
import { writeNginxConfig } from '../../deploy/nginx.ts';
import { findProgram, freePort } from './programs.ts';
import { tempDir } from './service.ts';

export interface RawResponse {
  readonly status: number;
  readonly headers: http.IncomingHttpHeaders;
  readonly body: Buffer;
}

/** A request exactly as written, on a connection of its own: fetch would normalise `/../` away before a server could refuse it. */
export function rawRequest(port: number, target: string, headers: Record<string, string> = {}, method = 'GET'): Promise<RawResponse> {
  return new Promise((resolve, reject) => {
    const request = http.request({ host: '127.0.0.1', port, path: target, method, headers, agent: false }, (response) => {
      const chunks: Buffer[] = [];
      response.on('data', (chunk: Buffer) => chunks.push(chunk));
      response.on('end', () => resolve({ status: response.statusCode ?? 0, headers: response.headers, body: Buffer.concat(chunks) }));
    });
    request.on('error', reject);
    request.end();
  });
}

export interface Daemon {
  /** `http://127.0.0.1:<port>/`, for ORIGIN_URL. */
  readonly url: string;
  readonly port: number;
  /** The process started: nginx's or HAProxy's master. */
  readonly pid: number;
  /** What the program wrote, stdout and stderr, for assertions and failure messages. */
  output(): string;
  /** Sends `signal` (SIGHUP, SIGUSR2: a reload), without waiting for what it does. */
  signal(signal: NodeJS.Signals): void;
  /** Resolves once the program has exited. */
  exited(): Promise<void>;
  /** SIGTERM (SIGKILL after 5 s); resolves when it has exited. Safe to call twice. */
  stop(): Promise<void>;
}

export interface DaemonOptions {
  /** What a failure message calls it. */
  readonly name: string;
  readonly binary: string;
  readonly args: readonly string[];
  /** The loopback port it listens on. */
  readonly port: number;
  /** True once it serves; a rejection counts as not yet. */
  readonly ready: () => Promise<boolean>;
  /** How long it may take to be ready before the start fails (10 s unless given). */
  readonly readyWithinMs?: number;
}

/** Runs the program in the foreground until `ready` answers true; fails with what it wrote if it exits or takes too long. */
export async function startDaemon({ name, binary, args, port, ready, readyWithinMs = 10_000 }: DaemonOptions): Promise<Daemon> {
  // A process group of its own: a master killed with SIGKILL takes its workers with it (nginx's
  // workers outlive their master otherwise).
  const child: ChildProcess = spawn(binary, args, { stdio: ['ignore', 'pipe', 'pipe'], detached: true });
  const killGroup = (signal: NodeJS.Signals): void => {
    try {
      process.kill(-(child.pid as number), signal);
    } catch {
      child.kill(signal);
    }
  };
  let output = '';
  child.stdout?.on('data', (chunk: Buffer) => (output += chunk.toString()));
  child.stderr?.on('data', (chunk: Buffer) => (output += chunk.toString()));
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const killOnExit = (): void => killGroup('SIGKILL'); // never outlive the test process
  process.once('exit', killOnExit);
  const stop = async (): Promise<void> => {
    if (child.exitCode === null && child.signalCode === null) {
      child.kill('SIGTERM');
      const force = setTimeout(() => killGroup('SIGKILL'), 5_000);
      await exited;
      clearTimeout(force);
    }
    process.off('exit', killOnExit);
  };
  const deadline = Date.now() + readyWithinMs;
  while (!(await ready().catch(() => false))) {
    if (child.exitCode !== null) throw new Error(`${name} exited with ${child.exitCode} at start:\n${output}`);
    if (Date.now() > deadline) {
      await stop();
      throw new Error(`${name} was not ready on 127.0.0.1:${port} within ${readyWithinMs / 1000} s:\n${output}`);
    }
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  return {
    url: `http://127.0.0.1:${port}/`,
    port,
    pid: child.pid as number,
    output: () => output,
    signal: (signal) => void child.kill(signal),
    exited: () => exited,
    stop,
  };
}

export const nginxBinary = findProgram('nginx', ['/usr/sbin/nginx', '/usr/local/sbin/nginx', '/usr/local/nginx/sbin/nginx']);

/** The rendered nginx.conf in a temporary prefix (or `prefix`), as nginx's `-p` and `-c` take it, logging requests to `access.log` there. */
export async function renderNginxForTest(root: string, port: number, originHeader: string, prefix?: string): Promise<{ prefix: string; configFile: string }> {
  const directory = prefix ?? `${await tempDir('refdata-nginx-')}/`;
  const configFile = await writeNginxConfig(directory, {
    root,
    listen: `127.0.0.1:${port}`,
    originHeader,
    // As root (CI), workers run as root too: the builds are in 0700 temporary directories.
    user: userInfo().username,
    accessLog: path.join(directory, 'access.log'),
    errorLog: 'stderr',
  });
  return { prefix: directory, configFile };
}

export interface RunningNginx extends Daemon {
  /** The paths nginx was asked for, one per request, in the order it logged them. */
  requestedPaths(): Promise<string[]>;
}

/**
 * nginx over `root` with its pid, temporary files and access log in a temporary prefix; `port` and
 * `prefix` to come back where it was, with the access log it had.
 */
export async function startNginx(root: string, originHeader: string, port?: number, prefixToReuse?: string): Promise<RunningNginx> {
  if (!nginxBinary) throw new Error('nginx is not installed: apt-get install -y nginx');
  const listenPort = port ?? (await freePort());
  const { prefix, configFile } = await renderNginxForTest(root, listenPort, originHeader, prefixToReuse);
  const daemon = await startDaemon({
    name: 'nginx',
    binary: nginxBinary,
    args: ['-p', prefix, '-c', configFile, '-e', 'stderr', '-g', 'daemon off;'],
    port: listenPort,
    ready: () => rawRequest(listenPort, '/').then(() => true),
  });
  const requestedPaths = async (): Promise<string[]> => {
    const log = await readFile(path.join(prefix, 'access.log'), 'utf8').catch(() => '');
    return [...log.matchAll(/"(?:GET|HEAD) (\S+) HTTP/g)].map((match) => match[1] as string);
  };
  return { ...daemon, requestedPaths };
}

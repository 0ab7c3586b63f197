/**
 * The scale-out chain on loopback: a real nginx over a build (nginx.conf rendered by
 * deploy/nginx.ts) and a real varnishd in front of it (deploy/varnish.vcl rendered by
 * deploy/varnish.ts), each in the foreground in a temporary directory of its own.
 */
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { readFile } from 'node:fs/promises';
import http from 'node:http';
import { userInfo } from 'node:os';
import path from 'node:path';
import { writeNginxConfig } from '../../deploy/nginx.ts';
import { writeVarnishConfig } from '../../deploy/varnish.ts';
import { findProgram, freePort } from '../bench/servers.ts';
import { tempDir } from './service.ts';

export const nginxBinary = findProgram('nginx', ['/usr/sbin/nginx', '/usr/local/sbin/nginx']);
export const varnishdBinary = findProgram('varnishd', ['/usr/sbin/varnishd', '/usr/local/sbin/varnishd']);
const varnishadmBinary = findProgram('varnishadm', ['/usr/bin/varnishadm']);

export interface RawResponse {
  readonly status: number;
  readonly headers: http.IncomingHttpHeaders;
  readonly body: Buffer;
}

/** A request exactly as written, on a connection of its own. */
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
  /** What the program wrote to stderr, for failure messages. */
  stderr(): string;
  /** SIGTERM; resolves when it has exited. Safe to call twice. */
  stop(): Promise<void>;
}

/** Runs `binary` in the foreground until `ready` answers true (or 10 s pass), killed with the test process. */
async function startDaemon(name: string, binary: string, args: readonly string[], port: number, ready: () => Promise<boolean>): Promise<Daemon> {
  const child: ChildProcess = spawn(binary, args, { stdio: ['ignore', 'ignore', 'pipe'] });
  let stderr = '';
  child.stderr?.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const killOnExit = (): void => void child.kill('SIGKILL');
  process.once('exit', killOnExit);
  const stop = async (): Promise<void> => {
    if (child.exitCode === null && child.signalCode === null) {
      child.kill('SIGTERM');
      const force = setTimeout(() => child.kill('SIGKILL'), 5_000);
      await exited;
      clearTimeout(force);
    }
    process.off('exit', killOnExit);
  };
  const deadline = Date.now() + 10_000;
  while (!(await ready().catch(() => false))) {
    if (child.exitCode !== null) throw new Error(`${name} exited with ${child.exitCode} at start:\n${stderr}`);
    if (Date.now() > deadline) {
      await stop();
      throw new Error(`${name} was not ready on 127.0.0.1:${port} within 10 s:\n${stderr}`);
    }
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  return { url: `http://127.0.0.1:${port}/`, port, stderr: () => stderr, stop };
}

export interface RunningNginx extends Daemon {
  /** The paths nginx was asked for, one per request, in the order it logged them. */
  requestedPaths(): Promise<string[]>;
}

/** nginx over `root` with its access log in its prefix; `port` to come back where it was. */
export async function startNginx(root: string, originHeader: string, port?: number, prefix?: string): Promise<RunningNginx> {
  const listenPort = port ?? (await freePort());
  const directory = prefix ?? `${await tempDir('refdata-nginx-')}/`;
  const accessLog = path.join(directory, 'access.log');
  const configFile = await writeNginxConfig(directory, {
    root,
    listen: `127.0.0.1:${listenPort}`,
    originHeader,
    // As root (CI), workers run as root too: the builds are in 0700 temporary directories.
    user: userInfo().username,
    accessLog,
    errorLog: 'stderr',
  });
  const args = ['-p', directory, '-c', configFile, '-e', 'stderr', '-g', 'daemon off;'];
  const answers = () => rawRequest(listenPort, '/').then(() => true);
  const daemon = await startDaemon('nginx', nginx(), args, listenPort, answers);
  const requestedPaths = async (): Promise<string[]> => {
    const log = await readFile(accessLog, 'utf8').catch(() => '');
    return [...log.matchAll(/"(?:GET|HEAD) (\S+) HTTP/g)].map((match) => match[1] as string);
  };
  return { ...daemon, requestedPaths };
}

function nginx(): string {
  if (!nginxBinary) throw new Error('nginx is not installed');
  return nginxBinary;
}

export interface RunningVarnish extends Daemon {
  /** varnishd's view of the origin: true once its probe has found nginx up, false once down. */
  originHealthy(): boolean;
}

/**
 * varnishd with the rendered VCL, in front of `origin` (`127.0.0.1:<port>`), its working directory
 * (-n) a temporary one so that nothing is shared with a system instance. `-j none`: as root (CI) the
 * default jail would run the cache as the varnish user, who cannot read the 0700 temporary directories.
 */
export async function startVarnish(origin: string, originHeader: string, secretHeaders: Record<string, string>): Promise<RunningVarnish> {
  if (!varnishdBinary) throw new Error('varnishd is not installed');
  const port = await freePort();
  const workDir = await tempDir('refdata-varnish-');
  const vcl = await writeVarnishConfig(path.join(workDir, 'varnish.vcl'), { origin, originHeader });
  const args = ['-F', '-j', 'none', '-n', workDir, '-a', `127.0.0.1:${port}`, '-T', '127.0.0.1:0', '-f', vcl, '-s', 'malloc,64m'];
  const answers = async () => (await rawRequest(port, '/manifest.json', secretHeaders)).status === 200;
  const daemon = await startDaemon('varnishd', varnishdBinary, args, port, answers);
  const originHealthy = (): boolean => {
    if (!varnishadmBinary) throw new Error('varnishadm is not installed (it comes with varnish)');
    const listing = execFileSync(varnishadmBinary, ['-n', workDir, 'backend.list'], { encoding: 'utf8' });
    // "boot.origin   probe   0/3   healthy" (7.1): the line of the one backend.
    return /\borigin\b.*\bhealthy\b/.test(listing) && !/\borigin\b.*\bsick\b/.test(listing);
  };
  return { ...daemon, originHealthy };
}

/** Resolves once `condition` holds; fails naming `what` after 20 s (both cores may be busy with other tests). */
export async function waitFor(what: string, condition: () => boolean | Promise<boolean>): Promise<void> {
  const deadline = Date.now() + 20_000;
  while (!(await condition())) {
    if (Date.now() > deadline) throw new Error(`gave up waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

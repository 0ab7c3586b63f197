/**
 * A real HAProxy for tests: deploy/haproxy.cfg rendered by deploy/haproxy.ts as a deployment
 * renders it, run in the foreground (master-worker, as Debian's unit runs it), and read through its
 * runtime API (`show stat`) for what it thinks of each proxy.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import net from 'node:net';
import path from 'node:path';
import { writeHaproxyConfig } from '../../deploy/haproxy.ts';
import { findProgram, freePort } from '../bench/servers.ts';
import { tempDir } from './service.ts';

export const haproxyBinary = findProgram('haproxy', ['/usr/sbin/haproxy', '/usr/local/sbin/haproxy']);

/** One row of `show stat`, by its column names (pxname, svname, status, stot, wretr, wredis …). */
export type StatRow = Readonly<Record<string, string>>;

export interface RunningHaproxy {
  readonly url: string;
  readonly port: number;
  readonly configFile: string;
  /** What HAProxy wrote (its request log and its alerts), stdout and stderr. */
  output(): string;
  /** `show stat`: the frontend, the backend and each server, keyed `<pxname>/<svname>`. */
  stats(): Promise<Map<string, StatRow>>;
  /** Resolves once HAProxy reports the proxy `server` (p1, p2 …) in `status` (UP, DOWN); fails after 20 s. */
  waitForServer(server: string, status: 'UP' | 'DOWN'): Promise<void>;
  stop(): Promise<void>;
}

/** Sends one command to the runtime API and returns its whole answer (the socket closes after it). */
export function runtimeCommand(socketPath: string, command: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const socket = net.createConnection(socketPath);
    let answer = '';
    socket.setEncoding('utf8');
    socket.on('connect', () => socket.write(`${command}\n`));
    socket.on('data', (chunk: string) => (answer += chunk));
    socket.on('end', () => resolve(answer));
    socket.on('error', reject);
  });
}

export function parseStats(csv: string): Map<string, StatRow> {
  const [header = '', ...lines] = csv.trim().split('\n');
  const columns = header.replace(/^# /, '').split(',');
  const rows = new Map<string, StatRow>();
  for (const line of lines) {
    const cells = line.split(',');
    const row = Object.fromEntries(columns.map((column, index) => [column, cells[index] ?? '']));
    rows.set(`${row.pxname}/${row.svname}`, row);
  }
  return rows;
}

/** HAProxy on a free loopback port in front of `servers` (`127.0.0.1:port` each); resolves once every one is UP. */
export async function startHaproxy(servers: readonly string[]): Promise<RunningHaproxy> {
  const binary = haproxyBinary as string;
  const port = await freePort();
  const directory = await tempDir('refdata-haproxy-');
  const statsSocket = path.join(directory, 'admin.sock');
  const configFile = await writeHaproxyConfig(directory, { listen: `127.0.0.1:${port}`, servers, statsSocket, log: 'stdout' });
  const child: ChildProcess = spawn(binary, ['-W', '-db', '-f', configFile], { stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  child.stdout?.on('data', (chunk: Buffer) => (output += chunk.toString()));
  child.stderr?.on('data', (chunk: Buffer) => (output += chunk.toString()));
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const killOnExit = (): void => void child.kill('SIGKILL'); // never outlive the test process
  process.once('exit', killOnExit);
  const stop = async (): Promise<void> => {
    if (child.exitCode === null && child.signalCode === null) {
      child.kill('SIGTERM');
      await exited;
    }
    process.off('exit', killOnExit);
  };
  const stats = async (): Promise<Map<string, StatRow>> => parseStats(await runtimeCommand(statsSocket, 'show stat'));
  const waitForServer = async (server: string, status: 'UP' | 'DOWN'): Promise<void> => {
    const deadline = Date.now() + 20_000;
    for (;;) {
      if (child.exitCode !== null) throw new Error(`haproxy exited with ${child.exitCode}:\n${output}`);
      const seen = await stats().then(
        (rows) => rows.get(`proxies/${server}`)?.status,
        () => undefined, // the socket is not there yet
      );
      if (seen === status) return;
      if (Date.now() > deadline) throw new Error(`haproxy did not report ${server} ${status} within 20 s (last: ${seen}):\n${output}`);
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  };
  try {
    for (const [index] of servers.entries()) await waitForServer(`p${index + 1}`, 'UP');
  } catch (error) {
    await stop();
    throw error;
  }
  return { url: `http://127.0.0.1:${port}`, port, configFile, output: () => output, stats, waitForServer, stop };
}

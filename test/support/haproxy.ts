/**
 * A real HAProxy for tests: deploy/haproxy.cfg rendered by deploy/haproxy.ts as a deployment
 * renders it, run in the foreground (master-worker, as Debian's unit runs it), and read through its
 * runtime API (`show stat`) for what it thinks of each proxy.
 */
import net from 'node:net';
import path from 'node:path';
import { writeHaproxyConfig } from '../../deploy/haproxy.ts';
import { findProgram, freePort } from '../bench/servers.ts';
import { startDaemon } from './daemon.ts';
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
function runtimeCommand(socketPath: string, command: string): Promise<string> {
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

function parseStats(csv: string): Map<string, StatRow> {
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
  if (!haproxyBinary) throw new Error('haproxy is not installed: apt-get install -y haproxy');
  const port = await freePort();
  const directory = await tempDir('refdata-haproxy-');
  const statsSocket = path.join(directory, 'admin.sock');
  const configFile = await writeHaproxyConfig(directory, { listen: `127.0.0.1:${port}`, servers, statsSocket, log: 'stdout' });
  const stats = async (): Promise<Map<string, StatRow>> => parseStats(await runtimeCommand(statsSocket, 'show stat'));
  // Before the runtime API answers, the socket is not there yet: not ready.
  const everyServerUp = async (): Promise<boolean> => {
    const rows = await stats();
    return servers.every((_, index) => rows.get(`proxies/p${index + 1}`)?.status === 'UP');
  };
  const daemon = await startDaemon({
    name: 'haproxy',
    binary: haproxyBinary,
    args: ['-W', '-db', '-f', configFile],
    port,
    ready: everyServerUp,
    readyWithinMs: 20_000,
  });
  let exited = false;
  void daemon.exited().then(() => (exited = true));
  const waitForServer = async (server: string, status: 'UP' | 'DOWN'): Promise<void> => {
    const deadline = Date.now() + 20_000;
    for (;;) {
      if (exited) throw new Error(`haproxy exited:\n${daemon.output()}`);
      const seen = await stats().then(
        (rows) => rows.get(`proxies/${server}`)?.status,
        () => undefined,
      );
      if (seen === status) return;
      if (Date.now() > deadline) throw new Error(`haproxy did not report ${server} ${status} within 20 s (last: ${seen}):\n${daemon.output()}`);
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  };
  return { url: `http://127.0.0.1:${port}`, port, configFile, output: daemon.output, stats, waitForServer, stop: daemon.stop };
}

/**
 * A real HAProxy for tests: deploy/haproxy.cfg rendered by deploy/haproxy.ts as a deployment
 * renders it, run in the foreground in master-worker mode with a master CLI (as Debian's unit runs
 * it), read through its runtime API (`show stat`) for what it thinks of each proxy, and reloaded as
 * `systemctl reload haproxy` reloads it.
 */
import { execFileSync } from 'node:child_process';
import net from 'node:net';
import path from 'node:path';
import { writeHaproxyConfig } from '../../deploy/haproxy.ts';
import { findProgram, freePort } from './programs.ts';
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
  /** The master CLI's `show proc`: the worker serving now, and the old ones still finishing. */
  processes(): Promise<Processes>;
  /**
   * Renders the configuration again with `servers` and reloads it as Debian's unit does (`haproxy
   * -c`, then SIGUSR2 to the master); resolves once a new worker answers the runtime API and
   * reports every server UP, with the workers that were serving before.
   */
  reload(servers: readonly string[]): Promise<Processes>;
  /** Resolves once no old worker is left: every connection it had has finished. */
  waitForOldWorkers(): Promise<void>;
  /** Sends one command to the runtime API (`disable server proxies/p1`) and returns its answer. */
  command(text: string): Promise<string>;
  stop(): Promise<void>;
}

export interface Processes {
  readonly workers: readonly number[];
  readonly oldWorkers: readonly number[];
}

/** Sends one command to the runtime API and returns its whole answer (the socket closes after it). */
export function runtimeCommand(socketPath: string, command: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const socket = net.createConnection(socketPath);
    let answer = '';
    socket.setEncoding('utf8');
    // Ending our side is what makes the master CLI answer and close, as socat does at the end of its input.
    socket.on('connect', () => socket.end(`${command}\n`));
    socket.on('data', (chunk: string) => (answer += chunk));
    socket.on('end', () => resolve(answer));
    socket.on('error', reject);
    socket.setTimeout(5_000, () => socket.destroy(new Error(`no answer to ${command} on ${socketPath} within 5 s`)));
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

/** The pids under `# workers` and `# old workers` in the master CLI's `show proc`. */
function parseProcesses(listing: string): Processes {
  const processes = { workers: [] as number[], oldWorkers: [] as number[] };
  let section: number[] | undefined;
  for (const line of listing.split('\n')) {
    if (line.startsWith('# ')) section = { '# workers': processes.workers, '# old workers': processes.oldWorkers }[line.trim()];
    else if (/^\d+\s+worker\b/.test(line)) section?.push(Number.parseInt(line, 10));
  }
  return processes;
}

/** HAProxy on a free loopback port in front of `servers` (`127.0.0.1:port` each, `,weight=N` allowed); resolves once every one is UP. */
export async function startHaproxy(servers: readonly string[]): Promise<RunningHaproxy> {
  if (!haproxyBinary) throw new Error('haproxy is not installed: apt-get install -y haproxy');
  const binary = haproxyBinary;
  const port = await freePort();
  const directory = await tempDir('refdata-haproxy-');
  const statsSocket = path.join(directory, 'admin.sock');
  const masterSocket = path.join(directory, 'master.sock');
  const render = (list: readonly string[]): Promise<string> =>
    writeHaproxyConfig(directory, { listen: `127.0.0.1:${port}`, servers: list, statsSocket, log: 'stdout' });
  const configFile = await render(servers);
  const stats = async (): Promise<Map<string, StatRow>> => parseStats(await runtimeCommand(statsSocket, 'show stat'));
  // Before the runtime API answers, the socket is not there yet: not ready.
  const everyServerUp = async (list: readonly string[]): Promise<boolean> => {
    const rows = await stats();
    return list.every((_, index) => rows.get(`proxies/p${index + 1}`)?.status === 'UP');
  };
  const daemon = await startDaemon({
    name: 'haproxy',
    binary,
    args: ['-W', '-db', '-S', masterSocket, '-f', configFile],
    port,
    ready: () => everyServerUp(servers),
    readyWithinMs: 20_000,
  });
  let exited = false;
  void daemon.exited().then(() => (exited = true));
  /** Asks `probe` every 100 ms until it gives a value; a rejection counts as not yet (a socket being replaced). */
  const until = async <T>(what: string, probe: () => Promise<T | undefined>): Promise<T> => {
    const deadline = Date.now() + 20_000;
    for (;;) {
      if (exited) throw new Error(`haproxy exited while waiting for ${what}:\n${daemon.output()}`);
      const value = await probe().catch(() => undefined);
      if (value !== undefined) return value;
      if (Date.now() > deadline) throw new Error(`haproxy: no ${what} within 20 s:\n${daemon.output()}`);
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  };
  const waitForServer = async (server: string, status: 'UP' | 'DOWN'): Promise<void> => {
    await until(`${server} ${status}`, async () => ((await stats()).get(`proxies/${server}`)?.status === status ? true : undefined));
  };
  const processes = async (): Promise<Processes> => parseProcesses(await runtimeCommand(masterSocket, 'show proc'));
  const reload = async (list: readonly string[]): Promise<Processes> => {
    const before = await processes();
    await render(list);
    execFileSync(binary, ['-c', '-q', '-f', configFile]);
    daemon.signal('SIGUSR2');
    await until('new worker', async () => {
      const now = await processes();
      return now.workers.some((pid) => !before.workers.includes(pid)) ? now : undefined;
    });
    const serving = (await processes()).workers;
    await until('answer from the new worker', async () => {
      const pid = /^Pid: (\d+)$/m.exec(await runtimeCommand(statsSocket, 'show info'))?.[1];
      return serving.includes(Number(pid)) && (await everyServerUp(list)) ? true : undefined;
    });
    return before;
  };
  const waitForOldWorkers = async (): Promise<void> => {
    await until('exit of the old workers', async () => ((await processes()).oldWorkers.length === 0 ? true : undefined));
  };
  return {
    url: `http://127.0.0.1:${port}`,
    port,
    configFile,
    output: daemon.output,
    stats,
    waitForServer,
    processes,
    reload,
    waitForOldWorkers,
    command: (text) => runtimeCommand(statsSocket, text),
    stop: daemon.stop,
  };
}

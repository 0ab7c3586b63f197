/**
 * Renders deploy/haproxy.cfg, the load balancer in front of several proxies, with the address it
 * listens on, the proxies' addresses, its runtime socket and where it logs.
 *
 *   npx tsx deploy/haproxy.ts --out DIR --listen 0.0.0.0:80 --server 10.0.0.11:8080 \
 *     --server 10.0.0.12:8080,weight=2 [--stats-socket PATH] [--log stdout|stderr|ADDR:PORT|/dev/log]
 *
 * test/system/haproxy.test.ts renders through the same function, so the tested configuration is
 * the deployed one.
 */
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { isIP } from 'node:net';
import path from 'node:path';
import { parseOptions, RenderError, runAsCommand, UsageError } from './commandLine.ts';

export { RenderError };

export const templateFile = path.resolve(import.meta.dirname, 'haproxy.cfg');

export interface HaproxyOptions {
  /** Where clients connect: `address:port`, `[v6]:port`. */
  readonly listen: string;
  /**
   * The proxies, `address:port` each, named p1, p2 … in that order (so a proxy added at the end
   * leaves the others' names, and their counters in `show stat`, as they were). `,weight=N` after
   * one (0 to 256, 1 unless given) gives it N shares of the requests; 0, none.
   */
  readonly servers: readonly string[];
  /** Absolute path of the runtime API's socket (admin level, mode 0600). */
  readonly statsSocket: string;
  /** `stdout`, `stderr`, `/dev/log` or a syslog server's `address:port`. */
  readonly log?: string;
}

/** An explicit IP address and port, as HAProxy reads it in `bind` and `server`. */
function checkAddress(option: string, value: string): void {
  const match = /^(?:\[([0-9A-Fa-f:.]+)\]|([0-9.]+)):(\d{1,5})$/.exec(value);
  const address = match?.[1] ?? match?.[2];
  const port = Number(match?.[3]);
  if (!match || address === undefined || isIP(address) === 0 || port < 1 || port > 65535) {
    throw new RenderError(`${option} ${JSON.stringify(value)}: expected address:port with an explicit IP address, e.g. 10.0.0.11:8080 or [fd00::11]:8080`);
  }
}

/** HAProxy wants an IPv6 address bare before its port (`::1:8080`), without brackets. */
const haproxyAddress = (value: string): string => value.replace(/^\[(.*)\]:(\d+)$/, '$1:$2');

/** One --server, `address:port` or `address:port,weight=N`: its address, and the `server` line's options. */
function parseServer(value: string): { address: string; options: string } {
  const [address = '', ...options] = value.split(',');
  checkAddress('--server', address);
  if (options.length === 0) return { address, options: '' };
  const weight = options.length === 1 ? /^weight=(\d{1,3})$/.exec(options[0] as string)?.[1] : undefined;
  if (weight === undefined || Number(weight) > 256) {
    throw new RenderError(`--server ${JSON.stringify(value)}: the only option is ,weight=N with N from 0 (no requests) to 256, e.g. 10.0.0.11:8080,weight=2`);
  }
  return { address, options: ` weight ${Number(weight)}` };
}

export async function renderHaproxyConfig(options: HaproxyOptions): Promise<string> {
  checkAddress('--listen', options.listen);
  if (options.servers.length === 0) throw new RenderError('no --server given: name every proxy, e.g. --server 10.0.0.11:8080 --server 10.0.0.12:8080');
  const servers = options.servers.map(parseServer);
  const addresses = servers.map((server) => server.address);
  const duplicate = addresses.find((address, index) => addresses.indexOf(address) !== index);
  if (duplicate !== undefined) throw new RenderError(`--server ${duplicate} is given twice: name each proxy once`);
  if (!path.isAbsolute(options.statsSocket) || !/^[A-Za-z0-9_./@+-]+$/.test(options.statsSocket)) {
    throw new RenderError(`--stats-socket ${JSON.stringify(options.statsSocket)}: give an absolute path of letters, digits and _ . / @ + -`);
  }
  const log = options.log ?? 'stdout';
  if (!['stdout', 'stderr', '/dev/log'].includes(log)) checkAddress('--log', log);
  const values: Record<string, string> = {
    LISTEN: haproxyAddress(options.listen),
    SERVERS: servers.map((server, index) => `    server p${index + 1} ${haproxyAddress(server.address)}${server.options}`).join('\n'),
    STATS_SOCKET: options.statsSocket,
    LOG: haproxyAddress(log),
  };
  const template = await readFile(templateFile, 'utf8');
  const rendered = template.replace(/@([A-Z_]+)@/g, (placeholder, name: string) => {
    const value = values[name];
    if (value === undefined) throw new RenderError(`${templateFile} has a placeholder ${placeholder} this renderer does not know`);
    return value;
  });
  return `# Rendered from deploy/haproxy.cfg by deploy/haproxy.ts: edit the template, not this file.\n${rendered}`;
}

/** Writes `<outDir>/haproxy.cfg`; returns its path. */
export async function writeHaproxyConfig(outDir: string, options: HaproxyOptions): Promise<string> {
  const config = await renderHaproxyConfig(options);
  await mkdir(outDir, { recursive: true });
  const configFile = path.join(outDir, 'haproxy.cfg');
  await writeFile(configFile, config);
  return configFile;
}

const defaults = { statsSocket: '/run/haproxy/admin.sock', log: 'stdout' } as const;

const usage = `usage: npx tsx deploy/haproxy.ts --out DIR --listen ADDR:PORT --server ADDR:PORT [--server ADDR:PORT …] [options]

Writes DIR/haproxy.cfg, rendered from deploy/haproxy.cfg.

  --out DIR              where the configuration is written (required)
  --listen ADDR:PORT     where clients connect (required)
  --server ADDR:PORT[,weight=N]
                         a proxy (HOST and PORT it was started with); once per proxy, named
                         p1, p2 … in order (required). N shares of the requests, 0 to 256
                         (default 1); 0 sends it none
  --stats-socket PATH    the runtime API's socket (default ${defaults.statsSocket})
  --log TARGET           stdout, stderr, /dev/log or a syslog server's ADDR:PORT (default ${defaults.log})
  -h, --help             print this and exit
`;

function parseCommandLine(args: readonly string[]) {
  return parseOptions(args, {
    out: { type: 'string' },
    listen: { type: 'string' },
    server: { type: 'string', multiple: true, default: [] },
    'stats-socket': { type: 'string', default: defaults.statsSocket },
    log: { type: 'string', default: defaults.log },
    help: { type: 'boolean', short: 'h', default: false },
  });
}

async function main(args: readonly string[]): Promise<void> {
  const values = parseCommandLine(args);
  if (values.help) {
    process.stdout.write(usage);
    return;
  }
  if (!values.out || !values.listen) {
    throw new UsageError(`missing ${[values.out ? '' : '--out DIR', values.listen ? '' : '--listen ADDR:PORT'].filter(Boolean).join(' and ')}`);
  }
  const configFile = await writeHaproxyConfig(path.resolve(values.out), {
    listen: values.listen,
    servers: values.server,
    statsSocket: values['stats-socket'],
    log: values.log,
  });
  console.log(`wrote ${configFile}`);
  console.log(`check:  haproxy -c -f ${configFile}`);
  console.log("reload: systemctl reload haproxy   (Debian's unit checks the file, then sends SIGUSR2 to the master)");
  console.log(`without systemd: haproxy -W -db -S /run/haproxy-master.sock -f ${configFile}; reload with kill -USR2 <its pid>`);
}

runAsCommand(import.meta.url, 'deploy/haproxy.ts', usage, main);

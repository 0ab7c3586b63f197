/**
 * A real S3-compatible store for tests: OpenStack Swift with its s3api middleware, from Debian's
 * packages (swift-proxy, swift-account, swift-container, swift-object, and memcached, which
 * Swift's tempauth needs), as one machine's "all in one": a ring of one device in a temporary
 * folder, every server on its own loopback port, one user whose key signs requests.
 *
 * Swift's s3api checks SigV4 signatures (a wrong secret is SignatureDoesNotMatch, a wrong region
 * AuthorizationHeaderMalformed) and serves nothing without one, so a test can show that a proxy
 * signs correctly and that the bucket is private.
 */
import { execFile, spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { access, constants, mkdir, writeFile } from 'node:fs/promises';
import net from 'node:net';
import { userInfo } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { freePort } from './programs.ts';
import { tempDir } from './service.ts';

const python = '/usr/bin/python3';
const servers = ['account', 'container', 'object', 'proxy'] as const;
const programs = [...servers.map((server) => `/usr/bin/swift-${server}-server`), '/usr/bin/memcached', python];

/** What to install when a program is missing; undefined when all are there. */
export async function missingS3Server(): Promise<string | undefined> {
  const missing: string[] = [];
  for (const program of programs) {
    if (
      !(await access(program, constants.X_OK).then(
        () => true,
        () => false,
      ))
    )
      missing.push(program);
  }
  if (missing.length === 0) return undefined;
  return `${missing.join(', ')} missing: install the S3-compatible store these tests run against with apt-get install swift-proxy swift-account swift-container swift-object memcached (.ci/run does)`;
}

export interface RunningS3Server {
  /** The s3api endpoint, as AWS_ENDPOINT_URL_S3. */
  readonly endpoint: string;
  /** The region the store is configured with: not AWS's default, so a proxy must really send AWS_REGION. */
  readonly region: string;
  /** A key of the account buckets are made in: AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY. */
  readonly accessKeyId: string;
  readonly secretAccessKey: string;
  /** What the servers wrote (Swift logs to stderr with -v). */
  output(): string;
  stop(): Promise<void>;
}

/** Builds the three rings (one device, one replica) with the servers' ports, in Swift's own Python. */
const ringScript = `
import sys
from swift.common.ring import RingBuilder
directory = sys.argv[1]
for name, port in zip(('account', 'container', 'object'), sys.argv[2:5]):
    builder = RingBuilder(6, 1, 1)
    builder.add_dev({'id': 0, 'region': 1, 'zone': 1, 'ip': '127.0.0.1', 'port': int(port), 'device': 'd1', 'weight': 100})
    builder.rebalance()
    builder.get_ring().save(f'{directory}/{name}.ring.gz')
`;

/** What every server shares: one process on its loopback port, as the user running the tests (who owns the folder), quiet but for warnings. */
function serverDefaults(port: number, directory: string): string {
  return `[DEFAULT]
bind_ip = 127.0.0.1
bind_port = ${port}
workers = 0
user = ${userInfo().username}
swift_dir = ${directory}
log_level = WARNING
`;
}

function storageServerConfig(server: string, port: number, directory: string): string {
  return `${serverDefaults(port, directory)}devices = ${path.join(directory, 'devices')}
mount_check = false
disable_fallocate = true

[pipeline:main]
pipeline = ${server}-server

[app:${server}-server]
use = egg:swift#${server}
`;
}

function proxyServerConfig(port: number, memcachePort: number, directory: string, region: string, user: string, secret: string): string {
  return `${serverDefaults(port, directory)}
[pipeline:main]
pipeline = catch_errors healthcheck proxy-logging cache s3api tempauth proxy-logging proxy-server

[app:proxy-server]
use = egg:swift#proxy
account_autocreate = true

[filter:s3api]
use = egg:swift#s3api
location = ${region}
allow_multipart_uploads = false

[filter:tempauth]
use = egg:swift#tempauth
user_${user} = ${secret} .admin

[filter:cache]
use = egg:swift#memcache
memcache_servers = 127.0.0.1:${memcachePort}

[filter:healthcheck]
use = egg:swift#healthcheck

[filter:catch_errors]
use = egg:swift#catch_errors

[filter:proxy-logging]
use = egg:swift#proxy_logging
`;
}

/** Resolves once something accepts connections on the loopback port. */
async function accepting(port: number, child: ChildProcess, output: () => string): Promise<void> {
  const deadline = Date.now() + 60_000;
  for (;;) {
    const connected = await new Promise<boolean>((resolve) => {
      const socket = net.connect(port, '127.0.0.1', () => {
        socket.end();
        resolve(true);
      });
      socket.once('error', () => resolve(false));
    });
    if (connected) return;
    if (child.exitCode !== null || Date.now() > deadline) {
      throw new Error(`${child.spawnargs.join(' ')} did not listen on 127.0.0.1:${port}:\n${output()}`);
    }
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

/** Swift all-in-one on loopback; resolves once every server accepts connections. */
export async function startS3Server(): Promise<RunningS3Server> {
  const missing = await missingS3Server();
  if (missing) throw new Error(missing);
  const directory = await tempDir('refdata-swift-');
  await mkdir(path.join(directory, 'devices', 'd1'), { recursive: true });
  const [accountPort, containerPort, objectPort, proxyPort, memcachePort] = [
    await freePort(),
    await freePort(),
    await freePort(),
    await freePort(),
    await freePort(),
  ] as [number, number, number, number, number];
  const region = 'eu-central-1';
  const [account, user] = ['refdata', 'uploader'];
  const secretAccessKey = randomBytes(20).toString('hex');
  const hash = randomBytes(8).toString('hex');
  await writeFile(
    path.join(directory, 'swift.conf'),
    `[swift-hash]\nswift_hash_path_suffix = ${hash}\nswift_hash_path_prefix = ${hash}\n\n[storage-policy:0]\nname = Policy-0\ndefault = yes\n`,
  );
  await promisify(execFile)(python, ['-c', ringScript, directory, String(accountPort), String(containerPort), String(objectPort)]);
  const ports = { account: accountPort, container: containerPort, object: objectPort, proxy: proxyPort };
  for (const server of servers) {
    const config =
      server === 'proxy'
        ? proxyServerConfig(proxyPort, memcachePort, directory, region, `${account}_${user}`, secretAccessKey)
        : storageServerConfig(server, ports[server], directory);
    await writeFile(path.join(directory, `${server}-server.conf`), config);
  }

  let output = '';
  const children: ChildProcess[] = [];
  const run = (program: string, args: readonly string[]): ChildProcess => {
    const child = spawn(program, args, { stdio: ['ignore', 'pipe', 'pipe'] });
    child.stdout?.on('data', (chunk: Buffer) => (output += chunk.toString()));
    child.stderr?.on('data', (chunk: Buffer) => (output += chunk.toString()));
    children.push(child);
    return child;
  };
  const killAll = (): void => {
    for (const child of children) child.kill('SIGKILL');
  };
  process.once('exit', killAll); // never outlive the test process
  const stop = async (): Promise<void> => {
    await Promise.all(
      children.map((child) =>
        child.exitCode === null && child.signalCode === null
          ? new Promise<void>((resolve) => {
              child.once('exit', () => resolve());
              child.kill('SIGTERM');
            })
          : undefined,
      ),
    );
    process.off('exit', killAll);
  };

  try {
    const started: [ChildProcess, number][] = [
      [run('/usr/bin/memcached', ['-l', '127.0.0.1', '-p', String(memcachePort), '-U', '0', '-m', '16', '-u', userInfo().username]), memcachePort],
    ];
    for (const server of servers) started.push([run(`/usr/bin/swift-${server}-server`, [path.join(directory, `${server}-server.conf`), '-v']), ports[server]]);
    await Promise.all(started.map(([child, port]) => accepting(port, child, () => output)));
  } catch (error) {
    await stop();
    throw error;
  }
  return {
    endpoint: `http://127.0.0.1:${proxyPort}`,
    region,
    accessKeyId: `${account}:${user}`,
    secretAccessKey,
    output: () => output,
    stop,
  };
}

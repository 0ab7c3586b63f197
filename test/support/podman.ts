/**
 * Podman for the container test: the one way it runs containers on the machines the tests run on,
 * a Node 20 base image made without a registry, and names for what a test process makes, so that
 * what a killed run left behind is removed by the next.
 *
 * The base image: the Containerfile builds on `node:20-bookworm-slim` unless told otherwise, but no
 * container registry is reachable here. So Debian 12 is bootstrapped from its own mirror
 * (mmdebstrap, minbase) and given the node running the tests and its npm, at the paths and with the
 * user the official image has (/usr/local/bin, `node` with uid 1000, root by default). It is kept
 * between runs under a tag naming the node version and the recipe, and made again when either changes.
 */
import { spawn } from 'node:child_process';
import { createHash } from 'node:crypto';
import { readFileSync, realpathSync } from 'node:fs';
import { rm } from 'node:fs/promises';
import path from 'node:path';
import { findProgram } from './programs.ts';
import { tempDir } from './service.ts';

export const podmanBinary = findProgram('podman');
export const runcBinary = findProgram('runc', ['/usr/sbin/runc', '/usr/bin/runc']);
export const mmdebstrapBinary = findProgram('mmdebstrap');

/**
 * Before every command: runc rather than crun, Debian 12's default, which refuses a host with both
 * cgroup versions mounted ("crun: cgroups in hybrid mode not supported").
 */
const globalOptions = ['--runtime', runcBinary ?? 'runc'];

/**
 * For `podman build` and `podman run`: limits no process here is refused. Podman's defaults as root
 * (1048576 open files and processes) are above these machines' hard limits, which not even root
 * may raise ("error setting rlimit type 7: operation not permitted"), and podman passes on fewer
 * processes than the test process has (32768 of 96365 here; type 6 refused above that). So: the
 * test process's own hard limit on open files, and a process limit far below both (it counts the
 * processes of the container's user on the whole host; the service runs one per core).
 */
export function limitOptions(): string[] {
  const limits = readFileSync('/proc/self/limits', 'utf8');
  const hardLimit = (name: string): number => {
    const hard = new RegExp(`^${name}\\s+\\S+\\s+(\\S+)`, 'm').exec(limits)?.[1];
    if (hard === undefined) throw new Error(`no "${name}" line in /proc/self/limits`);
    return hard === 'unlimited' ? Number.POSITIVE_INFINITY : Number(hard);
  };
  const files = Math.min(hardLimit('Max open files'), 1_048_576);
  const processes = Math.min(hardLimit('Max processes'), 4_096);
  return ['--ulimit', `nofile=${files}:${files}`, '--ulimit', `nproc=${processes}:${processes}`];
}

export interface CommandResult {
  readonly code: number | null;
  readonly stdout: string;
  readonly stderr: string;
}

export interface CommandOptions {
  /** Killed (SIGKILL) after this long, and the promise rejected; 60 s unless given. */
  readonly timeoutMs?: number;
  /** Variables added to the test process's environment: `-e NAME` passes one on without putting it on the command line. */
  readonly env?: NodeJS.ProcessEnv;
}

/** A program run to its end, whatever its exit code; rejected only when it cannot start or takes longer than `timeoutMs`. */
export function runCommand(binary: string, args: readonly string[], { timeoutMs = 60_000, env = {} }: CommandOptions = {}): Promise<CommandResult> {
  return new Promise((resolve, reject) => {
    const child = spawn(binary, args, { stdio: ['ignore', 'pipe', 'pipe'], env: { ...process.env, ...env } });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`${path.basename(binary)} ${args.join(' ')} took more than ${timeoutMs / 1000} s:\n${stdout}${stderr}`));
    }, timeoutMs);
    child.once('error', (error) => {
      clearTimeout(timer);
      reject(error);
    });
    child.once('close', (code) => {
      clearTimeout(timer);
      resolve({ code, stdout, stderr });
    });
  });
}

/** `podman <args>`, whatever its exit code. */
export function runPodman(args: readonly string[], options?: CommandOptions): Promise<CommandResult> {
  if (!podmanBinary) throw new Error('podman is not installed: apt-get install -y podman runc');
  return runCommand(podmanBinary, [...globalOptions, ...args], options);
}

/** `podman <args>`: its standard output, trimmed; rejected with all it wrote unless it exits 0. */
export async function podman(args: readonly string[], options?: CommandOptions): Promise<string> {
  const { code, stdout, stderr } = await runPodman(args, options);
  if (code !== 0) throw new Error(`podman ${args.join(' ')} exited with ${code}:\n${stdout}${stderr}`);
  return stdout.trim();
}

/** The names of what this process makes: containers `refdata-test-<pid>-<purpose>`, the image `localhost/refdata-test:<pid>`. */
export const testImage = `localhost/refdata-test:${process.pid}`;
export const containerName = (purpose: string): string => `refdata-test-${process.pid}-${purpose}`;

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/** Removes the containers and images of test processes that are gone (a run killed before its cleanup). */
export async function removeStale(): Promise<void> {
  const stale = (names: string, pattern: RegExp): string[] =>
    names.split('\n').filter((name) => {
      const pid = Number(pattern.exec(name)?.[1]);
      return Number.isInteger(pid) && pid > 0 && pid !== process.pid && !isAlive(pid);
    });
  const containers = stale(await podman(['ps', '--all', '--format', '{{.Names}}']), /^refdata-test-(\d+)-/);
  if (containers.length > 0) await podman(['rm', '--force', '--time', '0', ...containers]);
  const images = stale(await podman(['images', '--format', '{{.Repository}}:{{.Tag}}']), /^localhost\/refdata-test:(\d+)$/);
  if (images.length > 0) await podman(['rmi', '--force', ...images]);
}

/** Where a CA bundle the tests' node trusts besides its own is kept in the base image (a TLS-inspecting network's). */
const extraCaPath = '/usr/local/share/refdata-test/extra-ca-certs.pem';

/**
 * The node running the tests and its npm, as the official image installs them; the `node` user and
 * group (uid and gid 1000); and, when NODE_EXTRA_CA_CERTS names a bundle, that bundle, so that npm
 * inside a build reaches the registry as it does outside.
 */
function baseRecipe(): { hooks: string[]; changes: string[]; fingerprint: string } {
  const npmBinary = findProgram('npm');
  if (!npmBinary) throw new Error('npm is not on PATH');
  // npm's bin/npm-cli.js, two levels inside the package.
  const npmPackage = path.dirname(path.dirname(realpathSync(npmBinary)));
  const extraCa = process.env.NODE_EXTRA_CA_CERTS;
  const quote = (text: string): string => `'${text.replaceAll("'", `'\\''`)}'`;
  const hooks = [
    `mkdir -p "$1/usr/local/lib/node_modules" && cp ${quote(process.execPath)} "$1/usr/local/bin/node" && cp -a ${quote(npmPackage)} "$1/usr/local/lib/node_modules/npm"`,
    'ln -s ../lib/node_modules/npm/bin/npm-cli.js "$1/usr/local/bin/npm" && ln -s ../lib/node_modules/npm/bin/npx-cli.js "$1/usr/local/bin/npx"',
    'chroot "$1" groupadd --gid 1000 node && chroot "$1" useradd --uid 1000 --gid node --shell /bin/bash --create-home node',
    ...(extraCa ? [`mkdir -p "$1${path.dirname(extraCaPath)}" && cp ${quote(extraCa)} "$1${extraCaPath}"`] : []),
  ];
  const changes = [
    'ENV PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin',
    ...(extraCa ? [`ENV NODE_EXTRA_CA_CERTS=${extraCaPath}`] : []),
    'CMD ["node"]',
  ];
  const fingerprint = createHash('sha256')
    .update(JSON.stringify({ hooks, changes, npm: readFileSync(path.join(npmPackage, 'package.json'), 'utf8') }))
    .update(extraCa ? readFileSync(extraCa) : '')
    .digest('hex')
    .slice(0, 12);
  return { hooks, changes, fingerprint };
}

/**
 * A Node 20 base image with the official image's contract, made once (about 25 s: mmdebstrap and
 * `podman import`) and kept: `localhost/refdata-test-node:<node version>-<recipe>`.
 */
export async function nodeBaseImage(): Promise<string> {
  const { hooks, changes, fingerprint } = baseRecipe();
  const repository = 'localhost/refdata-test-node';
  const image = `${repository}:${process.versions.node}-${fingerprint}`;
  if ((await runPodman(['image', 'exists', image])).code === 0) return image;
  if (!mmdebstrapBinary) throw new Error('mmdebstrap is not installed: apt-get install -y mmdebstrap');
  const directory = await tempDir('refdata-base-');
  const tarball = path.join(directory, 'rootfs.tar');
  try {
    const bootstrap = await runCommand(mmdebstrapBinary, ['--variant=minbase', ...hooks.map((hook) => `--customize-hook=${hook}`), 'bookworm', tarball], {
      timeoutMs: 300_000,
    });
    if (bootstrap.code !== 0) throw new Error(`mmdebstrap exited with ${bootstrap.code}:\n${bootstrap.stderr}`);
    await podman(['import', ...changes.flatMap((change) => ['--change', change]), tarball, image], { timeoutMs: 120_000 });
  } finally {
    await rm(directory, { recursive: true, force: true });
  }
  // The machine's node is linked against the libc and libstdc++ of the machine: a node that does not
  // run on Debian 12's would fail every build later, with a less clear message.
  const version = await podman(['run', '--rm', ...limitOptions(), image, 'node', '--version']).catch(async (error: unknown) => {
    await runPodman(['rmi', image]);
    throw error;
  });
  if (version !== process.version) throw new Error(`the base image's node says ${version}, not ${process.version}`);
  // The bases of other node versions or recipes are not needed again.
  const older = (await podman(['images', '--format', '{{.Repository}}:{{.Tag}}']))
    .split('\n')
    .filter((name) => name.startsWith(`${repository}:`) && name !== image);
  if (older.length > 0) await runPodman(['rmi', ...older]);
  return image;
}

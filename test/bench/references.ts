/**
 * The reference servers every configuration of `npm run bench` is measured against, in the same
 * round: nginx tuned to serve the sampled bodies as files as fast as it can (the ceiling), the node:http
 * floors (floor.ts: the limit for any Node server) and Fastify (fastifyServer.ts: the framework a
 * team would otherwise pick, with the proxy's prebuilt bodies and serialising records). nginx as deployed, the fourth, is servers.ts startNginx.
 * All read the bodies as plain files from the references' root (referenceRoot.ts), but the pread
 * floor, which reads each from the build's packs when it is asked, as the proxy does.
 */
import { execFileSync } from 'node:child_process';
import { mkdir, writeFile } from 'node:fs/promises';
import { userInfo } from 'node:os';
import path from 'node:path';
import { freePort } from '../support/programs.ts';
import { runNginx, startNodeServer, type RunningServer } from './servers.ts';

export interface TunedNginxOptions {
  readonly nginx: string;
  /** The references' root (referenceRoot.ts, absolute). */
  readonly root: string;
  /** Where nginx.conf, the pid file and temp files go. */
  readonly prefix: string;
  readonly workers: number;
  /** How many distinct files the run requests: the file cache holds more than that. */
  readonly files: number;
}

/** Descriptors a worker needs besides its cached files: its connections (wrk opens at most a few hundred) and logs. */
const connectionsPerWorker = 1024;

/** The hard limit on open files this process may raise nginx's workers to (root may go past it). */
function hardFileLimit(): number {
  return Number(execFileSync('sh', ['-c', 'ulimit -Hn'], { encoding: 'utf8' }).trim()) || Number.POSITIVE_INFINITY;
}

/**
 * The ceiling: what nginx.conf (as deployed, the origin) does beyond serving a file is left out: the
 * origin secret, the symbolic-link check on every path component (disable_symlinks), the charset
 * filter (the type carries the charset instead), added headers, and an access log; its file
 * cache holds every file the run requests, kept for the whole run.
 */
export function renderTunedNginx(root: string, port: number, workers: number, cachedFiles: number): string {
  return `# Written by test/bench/references.ts for one run of npm run bench: the tuned ceiling, not a deployment.
user ${userInfo().username};
worker_processes ${workers};
worker_rlimit_nofile ${cachedFiles + connectionsPerWorker + 64};
pid nginx.pid;
error_log stderr warn;

events {
    worker_connections ${connectionsPerWorker};
}

http {
    client_body_temp_path client_body_temp;
    proxy_temp_path proxy_temp;
    fastcgi_temp_path fastcgi_temp;
    uwsgi_temp_path uwsgi_temp;
    scgi_temp_path scgi_temp;

    access_log off;
    server_tokens off;
    types {
        "application/json; charset=utf-8" json;
    }
    default_type application/octet-stream;

    sendfile on;
    tcp_nopush on;
    tcp_nodelay on;
    keepalive_timeout 75s;
    keepalive_requests 1000000;

    open_file_cache max=${cachedFiles} inactive=1h;
    open_file_cache_valid 1h;
    open_file_cache_min_uses 1;
    open_file_cache_errors on;

    server {
        listen 127.0.0.1:${port} default_server;
        root ${root};
        location / {
        }
    }
}
`;
}

export async function startTunedNginx(options: TunedNginxOptions): Promise<RunningServer> {
  // A quarter more than the files requested, so that no entry is ever evicted, within the hard
  // limit on open files (which root cannot pass everywhere: a worker past it answers 500): where
  // the limit is lower, the cache holds as many as it allows and evicts the least used.
  const room = hardFileLimit() - connectionsPerWorker - 64;
  const cachedFiles = Math.min(Math.ceil(options.files * 1.25) + 64, room);
  if (cachedFiles < Math.min(options.files, 1_000)) {
    throw new Error(
      `nginx-tuned needs open files for its file cache of the ${options.files} files requested, ` +
        `over this shell's hard limit (ulimit -Hn = ${hardFileLimit()}): raise it, or request fewer files with --samples and --random-count`,
    );
  }
  const port = await freePort();
  const prefix = `${options.prefix}/`;
  await mkdir(prefix, { recursive: true });
  const configFile = path.join(prefix, 'nginx.conf');
  await writeFile(configFile, renderTunedNginx(options.root, port, options.workers, cachedFiles));
  return runNginx({ name: 'nginx-tuned', nginx: options.nginx, prefix, configFile, port, probeHeaders: {}, workers: options.workers });
}

export interface NodeReferenceOptions {
  /** "target<TAB>body file<TAB>etag" lines: what the server answers. */
  readonly targets: string;
  /** The references' root (referenceRoot.ts) the body files are read from. */
  readonly root: string;
  readonly workers: number;
}

function nodeEnvironment(port: number, workers: number, settings: Record<string, string>): NodeJS.ProcessEnv {
  return { ...process.env, ...settings, PORT: String(port), HOST: '127.0.0.1', WORKERS: String(workers) };
}

/** floor.ts by URL: each sampled target's own body from memory. */
export async function startFloor(options: NodeReferenceOptions & { readonly envelope: boolean }): Promise<RunningServer> {
  const port = await freePort();
  const environment = nodeEnvironment(port, options.workers, {
    FLOOR_TARGETS: options.targets,
    FLOOR_ROOT: options.root,
    ...(options.envelope ? { FLOOR_ENVELOPE: '1' } : {}),
  });
  return startNodeServer(
    options.envelope ? 'node-floor-envelope' : 'node-floor',
    ['--import', 'tsx', 'test/bench/floor.ts'],
    environment,
    port,
    options.workers,
  );
}

/** floor.ts pread: each target's body read from the packs of the build at `build` (absolute) when it is asked. */
export async function startPreadFloor(options: { readonly targets: string; readonly build: string; readonly workers: number }): Promise<RunningServer> {
  const port = await freePort();
  const environment = nodeEnvironment(port, options.workers, { FLOOR_TARGETS: options.targets, FLOOR_BUILD: options.build, FLOOR_PREAD: '1' });
  return startNodeServer('node-floor-pread', ['--import', 'tsx', 'test/bench/floor.ts'], environment, port, options.workers);
}

/** floor.ts fixed: `file` (relative to `root`) for every request. */
export async function startFixedFloor(options: { readonly file: string; readonly root: string; readonly workers: number }): Promise<RunningServer> {
  const port = await freePort();
  const environment = nodeEnvironment(port, options.workers, { FLOOR_FIXED: options.file, FLOOR_ROOT: options.root });
  return startNodeServer('node-floor-fixed', ['--import', 'tsx', 'test/bench/floor.ts'], environment, port, options.workers);
}

/**
 * fastifyServer.ts: the same lookups, the same envelope, an API key checked in a preHandler; the
 * bodies as bytes (`fastify`) or as records serialised on every response (`fastify-json`).
 */
export async function startFastify(options: NodeReferenceOptions & { readonly apiKey: string; readonly bodies: 'bytes' | 'objects' }): Promise<RunningServer> {
  const port = await freePort();
  const environment = nodeEnvironment(port, options.workers, {
    FASTIFY_TARGETS: options.targets,
    FASTIFY_ROOT: options.root,
    FASTIFY_API_KEY: options.apiKey,
    FASTIFY_BODIES: options.bodies,
    NODE_ENV: 'production',
  });
  const name = options.bodies === 'bytes' ? 'fastify' : 'fastify-json';
  return startNodeServer(name, ['--import', 'tsx', 'test/bench/fastifyServer.ts'], environment, port, options.workers);
}

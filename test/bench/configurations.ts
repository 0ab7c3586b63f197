/**
 * Starting every configuration `npm run bench` measures, each on its own loopback port with its own
 * throwaway credentials, and writing its wrk script for every request mix.
 */
import { randomBytes } from 'node:crypto';
import { writeFile } from 'node:fs/promises';
import path from 'node:path';
import { SignJWT } from 'jose';
import type { BenchMixId } from './mixes.ts';
import type { Options } from './options.ts';
import { configurationLabels, type ConfigurationId, type ReferenceId } from './report.ts';
import { startFastify, startFixedFloor, startFloor, startPreadFloor, startTunedNginx } from './references.ts';
import { freePort } from '../support/programs.ts';
import { bundleProxy, startNginx, startProxy, type RunningServer } from './servers.ts';
import type { Lookup, UrlMix } from './urls.ts';
import { writeWrkScript } from './wrk.ts';

export interface Configuration {
  readonly id: ConfigurationId;
  readonly label: string;
  readonly server: RunningServer;
  /** What every request to it carries (a token, the origin secret). */
  readonly headers: Record<string, string>;
  /** One wrk script per mix. */
  readonly scripts: ReadonlyMap<BenchMixId, string>;
}

export interface Workload {
  /** The build directory the proxies serve (DIST_DIR, absolute), whose packs the pread floor reads. */
  readonly build: string;
  /**
   * What the references serve (referenceRoot.ts, absolute): every body of the mixes and the fixed
   * floor's as a file at its path, and a hard-linked copy of the build, which nginx as deployed
   * serves to the proxies in origin mode.
   */
  readonly references: string;
  readonly mixes: ReadonlyMap<BenchMixId, UrlMix>;
  /** The one body the fixed floor sends. */
  readonly fixedBody: Lookup;
}

type ProxyId = Exclude<ConfigurationId, ReferenceId>;

/**
 * Starts the configurations of options.only, one at a time so that each start-up is timed on an
 * otherwise idle machine, nginx as deployed first (the origin of the proxies in origin mode).
 * Every server started is pushed to `started` at once, so that the caller stops it whatever fails.
 */
export async function startConfigurations(
  options: Options,
  nginxBinary: string,
  workload: Workload,
  workDir: string,
  started: RunningServer[],
): Promise<Configuration[]> {
  const { build, references, mixes, fixedBody } = workload;
  // Throwaway credentials for this run only.
  const apiKey = `bench-${randomBytes(18).toString('base64url')}`;
  const jwtSecret = randomBytes(32).toString('base64url');
  const originHeader = `X-Origin-Secret: ${randomBytes(24).toString('hex')}`;
  const jwt = await new SignJWT({})
    .setProtectedHeader({ alg: 'HS256', typ: 'JWT' })
    .setSubject('bench')
    .setIssuedAt()
    .setExpirationTime('6h')
    .sign(new TextEncoder().encode(jwtSecret));
  const [secretName, secretValue] = originHeader.split(': ') as [string, string];

  const nginx = await startNginx({ nginx: nginxBinary, root: references, prefix: path.join(workDir, 'nginx'), originHeader });
  started.push(nginx);
  // No local copy of the origin's bodies: every miss of the memory cache goes to nginx, as measured before it existed.
  const originSettings = { ORIGIN_URL: `${nginx.url}/`, ORIGIN_HEADER: originHeader, ORIGIN_CACHE_DIR: 'off', API_KEYS: apiKey, LOG_LEVEL: 'warn' };
  const proxySettings = async (id: ProxyId): Promise<Record<string, string>> => {
    const local = { DIST_DIR: build, API_KEYS: apiKey, LOG_LEVEL: 'warn' };
    switch (id) {
      case 'local-apikey':
        return local;
      case 'local-apikey-metrics':
        return { ...local, METRICS_PORT: String(await freePort()) };
      // A budget no run can spend: every request is counted and shared, none refused.
      case 'local-apikey-ratelimit':
        return { ...local, RATE_LIMIT: '999999999/60' };
      case 'local-apikey-log-info':
        return { ...local, LOG_LEVEL: 'info' };
      case 'local-jwt':
        return { DIST_DIR: build, JWT_SECRET: jwtSecret, LOG_LEVEL: 'warn' };
      case 'origin-warm':
        return originSettings;
      // "Cold" is emulated: a 1 MB body cache holds almost none of the sampled bodies, so nearly every
      // request fetches its body from nginx, as right after a start or a new build.
      case 'origin-cold':
        return { ...originSettings, BODY_CACHE_MB: '1' };
    }
  };
  const headersOf = (id: ConfigurationId): Record<string, string> => {
    if (id === 'nginx') return { [secretName]: secretValue };
    if (id === 'nginx-tuned' || id.startsWith('node-floor')) return {};
    return { Authorization: `Bearer ${id === 'local-jwt' ? jwt : apiKey}` };
  };

  // What the Node references answer: every lookup of every mix, by the target the proxy is asked.
  const lookups = [...mixes.values()].flatMap((mix) => mix.lookups);
  const targets = path.join(workDir, 'node.targets');
  const lines = new Set(lookups.map((lookup) => `${lookup.proxyPath}\t${lookup.file}\t${lookup.etag}`));
  await writeFile(targets, `${[...lines].join('\n')}\n`);
  const files = new Set(lookups.map((lookup) => lookup.file)).size;
  const bundle = options.only.some((id) => id.startsWith('local-') || id.startsWith('origin-')) ? bundleProxy() : '';

  const start = async (id: ConfigurationId): Promise<RunningServer> => {
    const { workers } = options;
    switch (id) {
      case 'nginx':
        return nginx;
      case 'nginx-tuned':
        return startTunedNginx({ nginx: nginxBinary, root: references, prefix: path.join(workDir, 'nginx-tuned'), workers, files });
      case 'node-floor':
        return startFloor({ targets, root: references, workers, envelope: false });
      case 'node-floor-envelope':
        return startFloor({ targets, root: references, workers, envelope: true });
      case 'node-floor-pread':
        return startPreadFloor({ targets, build, workers });
      case 'node-floor-fixed':
        return startFixedFloor({ file: fixedBody.file, root: references, workers });
      case 'fastify':
        return startFastify({ targets, root: references, workers, apiKey, bodies: 'bytes' });
      case 'fastify-json':
        return startFastify({ targets, root: references, workers, apiKey, bodies: 'objects' });
      default:
        return startProxy({ name: id, settings: await proxySettings(id), workers, bundle });
    }
  };

  const configurations: Configuration[] = [];
  for (const id of options.only) {
    const server = await start(id);
    if (server !== nginx) started.push(server);
    const headers = headersOf(id);
    const scripts = new Map<BenchMixId, string>();
    for (const [mix, { lookups: mixLookups }] of mixes) {
      const paths = mixLookups.map((lookup) => (id === 'nginx' || id === 'nginx-tuned' ? lookup.nginxPath : lookup.proxyPath));
      scripts.set(mix, await writeWrkScript(workDir, `${id}-${mix}`, paths, headers, options.threads));
    }
    configurations.push({ id, label: configurationLabels[id], server, headers, scripts });
    console.log(`  ${configurationLabels[id]}: ${server.url}, ready in ${Math.round(server.startupMs)} ms`);
  }
  return configurations;
}

/**
 * `npm start`: configuration, the development key when no auth is configured, the build (local or
 * origin), then the server: one process per core under node:cluster (WORKERS), supervised by the
 * primary (supervisor.ts); SIGHUP reloads the build, SIGTERM and SIGINT stop gracefully.
 */
import cluster from 'node:cluster';
import { randomBytes } from 'node:crypto';
import { readFile, writeFile } from 'node:fs/promises';
import { ServiceError } from '../contract/errors.ts';
import { ConfigError, hasAuthSetting, loadConfig, type Config } from './config.ts';
import { createLogger, type Logger } from './log.ts';
import { checkListenable } from './http/server.ts';
import { startMetricsServer } from './metrics.ts';
import { startService } from './service.ts';
import { supervise, type ListeningMessage, type Supervision } from './supervisor.ts';

const devTokenFile = '.dev-token';

/**
 * With no auth setting at all, outside production, a random key is made once, kept in .dev-token
 * (git-ignored) and reused on later starts, so a fresh clone runs with `npm start` alone.
 */
async function developmentKey(): Promise<string> {
  const existing = (await readFile(devTokenFile, 'utf8').catch(() => '')).trim();
  if (existing.length >= 16) return existing;
  const key = `dev-${randomBytes(24).toString('base64url')}`;
  await writeFile(devTokenFile, `${key}\n`, { mode: 0o600 });
  return key;
}

/** The development key when no auth setting is given at all; production refuses to run that way. */
async function developmentKeyFor(config: Config): Promise<string | undefined> {
  if (hasAuthSetting(config)) return undefined;
  if (config.production) {
    throw new ConfigError([
      'no way to accept tokens is configured: set API_KEYS, API_KEYS_FILE, JWT_SECRET, JWT_PUBLIC_KEY or JWKS_URL (NODE_ENV=production makes no development key)',
    ]);
  }
  return developmentKey();
}

/** One serving process: with WORKERS=1 the only one, otherwise a cluster worker. */
async function serve(config: Config, devKey: string | undefined, log: Logger): Promise<void> {
  const { running, build } = await startService(config, { extraKeys: devKey ? [devKey] : [], log });
  const { buildId, dataVersion } = build.current().manifest;
  if (cluster.isWorker) {
    process.send?.({ listening: running.url, buildId, dataVersion } satisfies ListeningMessage);
    log.info({ event: 'worker-listening', buildId }, 'worker listening');
  } else announce(running.url, buildId, dataVersion, devKey);
  process.on('SIGHUP', () => void build.reload('SIGHUP'));
  const stop = (signal: string): void => {
    log.info({ event: 'stopping', signal }, 'finishing open requests, then stopping');
    build.close();
    void running.close().then(() => log.flush(() => process.exit(0)));
  };
  process.once('SIGTERM', stop);
  process.once('SIGINT', stop);
}

function announce(url: string, buildId: string, dataVersion: string, devKey: string | undefined): void {
  console.log(`reference data service listening on ${url} (build ${buildId}, data ${dataVersion})`);
  if (devKey) {
    console.log(`no auth setting given: using the development key in ${devTokenFile}. Try:`);
    console.log(`  curl -H "Authorization: Bearer ${devKey}" "${url}/addressmanagement/api/country/getbyalpha2code?alpha2code=TR"`);
  }
}

async function main(): Promise<void> {
  const config = loadConfig();
  // Made before any fork, so every worker reads the same key from .dev-token.
  const devKey = await developmentKeyFor(config);
  if (cluster.isPrimary && config.workers > 1) {
    // The primary logs rarely, and its last line (giving up) must not be lost to process.exit.
    const log = createLogger(config.logLevel, { sync: true });
    // A port another process holds is a one-line refusal here, not every worker failing in turn.
    if (config.port !== 0) await checkListenable(config.port, config.host);
    // Listening before any fork: a metrics port in use stops the start before a worker exists.
    let supervision: Supervision | undefined;
    if (config.metrics) await startMetricsServer(config.metrics.port, config.metrics.host, () => supervision?.serving() ?? []);
    supervision = supervise({
      workers: config.workers,
      log,
      onFirstListening: (message) => announce(message.listening, message.buildId, message.dataVersion, devKey),
    });
    return;
  }
  await serve(config, devKey, createLogger(config.logLevel));
}

main().catch((error: unknown) => {
  console.error(error instanceof ServiceError ? `cannot start: ${error.message}` : error);
  process.exit(1);
});

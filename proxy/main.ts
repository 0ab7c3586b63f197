/**
 * `npm start`: configuration, the development key when no auth is configured, the build (local or
 * origin), then the server: one process per core under node:cluster (WORKERS), supervised by the
 * primary (supervisor.ts); SIGHUP reloads the build; SIGTERM drains (SHUTDOWN_DELAY_MS), then stops
 * gracefully; SIGINT stops gracefully at once.
 */
import cluster from 'node:cluster';
import { randomBytes } from 'node:crypto';
import { readFile, writeFile } from 'node:fs/promises';
import { ServiceError } from '../contract/errors.ts';
import { ConfigError, hasAuthSetting, loadConfig, type Config } from './config/config.ts';
import { createLogger, type Logger } from './observe/log.ts';
import type { RunningServer } from './http/server.ts';
import { checkListenable } from './process/listenable.ts';
import { supervise, type ListeningMessage, type Supervision } from './process/supervisor.ts';

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
  // Loaded here, not at the top: a cluster's primary never serves, and starts its workers sooner
  // for not evaluating the serving code and its packages.
  const { startService } = await import('./service.ts');
  const { running, build } = await startService(config, { extraKeys: devKey ? [devKey] : [], log });
  const { buildId, dataVersion } = build.current().manifest;
  if (cluster.isWorker) {
    process.send?.({ listening: running.url, buildId, dataVersion } satisfies ListeningMessage);
    log.info({ event: 'worker-listening', buildId }, 'worker listening');
  } else announce(running.url, buildId, dataVersion, devKey);
  process.on('SIGHUP', () => void build.reload('SIGHUP'));
  stopOnSignals(running, config.shutdownDelayMs, log, () => build.close());
}

/**
 * SIGTERM stops in two steps. First the process drains for `delayMs`: /readyz answers 503 so that
 * a load balancer's checks take it out, while every request is still answered (each closing its
 * connection, so that clients reconnect elsewhere). Then the listener and the idle connections
 * close, requests in flight get up to shutdownGraceMs, and the process exits 0. SIGINT (Ctrl-C)
 * and a second signal skip the wait. The build is closed last: a request in flight may still need
 * a body from the origin.
 */
function stopOnSignals(running: RunningServer, delayMs: number, log: Logger, closeBuild: () => Promise<void>): void {
  let drainTimer: NodeJS.Timeout | undefined;
  let closing = false;
  const close = (): void => {
    if (closing) return;
    closing = true;
    clearTimeout(drainTimer);
    const closed = running.close();
    // Logged once the listener is closed: a connection made after this line is refused.
    log.info({ event: 'stopping' }, 'closed the listener and idle connections; finishing open requests');
    void closed
      .then(closeBuild)
      .catch((error: unknown) => log.warn({ event: 'close-failed', error: (error as Error).message }))
      .finally(() => log.flush(() => process.exit(0)));
  };
  const stop = (signal: NodeJS.Signals): void => {
    if (drainTimer !== undefined || signal === 'SIGINT' || delayMs === 0) {
      close();
      return;
    }
    running.drain();
    log.info({ event: 'draining', signal, delayMs }, 'answering /readyz 503 and serving on until the delay has passed');
    drainTimer = setTimeout(close, delayMs);
  };
  process.on('SIGTERM', stop);
  process.on('SIGINT', stop);
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
    if (config.metrics)
      await (await import('./observe/metrics.ts')).startMetricsServer(config.metrics.port, config.metrics.host, () => supervision?.servingSlots() ?? []);
    supervision = supervise({
      workers: config.workers,
      log,
      authFailures: config.limits.authFailures,
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

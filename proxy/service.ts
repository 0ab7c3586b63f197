/**
 * The service wired from a Config: authenticator, build (local or origin, live), server. main.ts
 * adds signals and the cluster around it; the tests start exactly this.
 */
import { createAdmission, type Admission, type PrimaryLink } from './auth/admission.ts';
import { createAuthenticator } from './auth/authenticate.ts';
import type { Config } from './config/config.ts';
import { openLocalLiveStore, openOriginLiveStore, type LiveStore } from './store/live.ts';
import type { Logger } from './observe/log.ts';
import { createOriginClient, originTimeouts, type OriginTimeouts } from './store/origin.ts';
import { noOriginCopy, openOriginCopy } from './store/originCopy.ts';
import { prepareLookups } from './http/lookups.ts';
import { startServer, type RunningServer } from './http/server.ts';
import cluster from 'node:cluster';
import { createMetrics, noMetrics, startMetricsServer, type Metrics, type RunningMetricsServer } from './observe/metrics.ts';
import { createStoreCaches, type BodyStore, type StoreCaches } from './store/store.ts';

export interface ServiceOptions {
  /** Extra accepted keys (the development key). */
  readonly extraKeys?: readonly string[];
  readonly log: Logger;
  /** The clock, for tests that freeze it. */
  readonly now?: () => number;
  /** The origin's timeouts, for tests that make a stalled origin fail fast. */
  readonly originTimeouts?: OriginTimeouts;
}

export interface RunningService {
  readonly running: RunningServer;
  readonly build: LiveStore;
  /** The metrics listener, when METRICS_PORT is set and this process serves them (no cluster). */
  readonly metrics: RunningMetricsServer | undefined;
  /** Stops watching for builds and closes the server gracefully. */
  close(): Promise<void>;
}

/** What openBuild takes besides the configuration and the log: each has a default for a service of its own. */
interface BuildOptions {
  readonly timeouts?: OriginTimeouts;
  readonly caches?: StoreCaches;
  readonly metrics?: Metrics;
  /** The clock an origin's stores read (Retry-After memories). */
  readonly now?: () => number;
}

export async function openBuild(
  config: Config,
  log: Logger,
  {
    timeouts = originTimeouts,
    caches = createStoreCaches(config.bodyCacheBytes, config.indexCacheBytes),
    metrics = noMetrics,
    now = Date.now,
  }: BuildOptions = {},
): Promise<LiveStore> {
  if (config.origin) {
    const copy = config.origin.cacheDir === undefined ? noOriginCopy : await openOriginCopy(config.origin.cacheDir, log);
    return openOriginLiveStore(await createOriginClient(config.origin, timeouts, metrics, now), caches, copy, log);
  }
  return openLocalLiveStore(config.distDir, caches, log);
}

/** A worker's messages to the primary: the counts and tokens it shares, its questions on the budget of invalid tokens. */
const sendToPrimary: PrimaryLink = (message) => {
  if (process.connected) process.send?.(message);
};

/** What the primary sends: the other workers' counts and tokens, its answers (admission.ts). */
function listenToPrimary(admission: Admission): void {
  process.on('message', (message: unknown) => admission.receive(message));
}

export async function startService(config: Config, { extraKeys = [], log, now, originTimeouts: timeouts }: ServiceOptions): Promise<RunningService> {
  const authenticate = await createAuthenticator({ auth: config.auth, extraKeys, ...(now ? { now } : {}) });
  const admission = createAdmission(authenticate, config.limits, cluster.isWorker ? sendToPrimary : undefined, now);
  if (cluster.isWorker) listenToPrimary(admission);
  const caches = createStoreCaches(config.bodyCacheBytes, config.indexCacheBytes);
  let current: (() => BodyStore) | undefined;
  const metrics = config.metrics
    ? await createMetrics({ store: () => (current as () => BodyStore)(), cache: caches.bodies, shards: caches.shards })
    : noMetrics;
  const build = await openBuild(config, log, { ...(timeouts ? { timeouts } : {}), caches, metrics, ...(now ? { now } : {}) });
  current = build.current;
  const running = await startServer(
    {
      store: build.current,
      admission,
      scopes: config.auth.scopes,
      cors: { origins: config.corsOrigins },
      log,
      metrics,
      notReady: build.notReady,
    },
    config.port,
    config.host,
  );
  setImmediate(() => prepareLookups(build.current()));
  // In a cluster the primary serves the workers' metrics added up (main.ts); alone, this process does.
  const metricsServer = config.metrics && !cluster.isWorker ? await startMetricsServer(config.metrics.port, config.metrics.host) : undefined;
  return {
    running,
    build,
    metrics: metricsServer,
    close: async () => {
      await Promise.all([build.close(), running.close(), metricsServer?.close()]);
    },
  };
}

/**
 * The service wired from a Config: authenticator, build (local or origin, live), server. main.ts
 * adds signals and the cluster around it; the tests start exactly this.
 */
import { createAuthenticator } from './auth.ts';
import type { Config } from './config.ts';
import { openLocalLiveStore, openOriginLiveStore, type LiveStore } from './live.ts';
import type { Logger } from './log.ts';
import { createOriginClient, createPassThrough } from './origin.ts';
import { startServer, type RunningServer } from './server.ts';
import { createBodyCache } from './store.ts';

export interface ServiceOptions {
  /** Extra accepted keys (the development key). */
  readonly extraKeys?: readonly string[];
  readonly log: Logger;
  /** The clock, for tests that freeze it. */
  readonly now?: () => number;
}

export interface RunningService {
  readonly running: RunningServer;
  readonly build: LiveStore;
  /** Stops watching for builds and closes the server gracefully. */
  close(): Promise<void>;
}

export async function openBuild(config: Config, log: Logger): Promise<LiveStore> {
  const cache = createBodyCache(config.bodyCacheBytes);
  if (config.origin) return openOriginLiveStore(createOriginClient(config.origin), cache, log);
  return openLocalLiveStore(config.distDir, cache, log);
}

export async function startService(config: Config, { extraKeys = [], log, now }: ServiceOptions): Promise<RunningService> {
  const authenticate = await createAuthenticator({ auth: config.auth, extraKeys, ...(now ? { now } : {}) });
  const build = await openBuild(config, log);
  const running = await startServer(
    {
      store: build.current,
      passThrough: config.origin ? createPassThrough(config.origin) : undefined,
      authenticate,
      scopes: config.auth.scopes,
      cors: { origins: config.corsOrigins },
      log,
    },
    config.port,
    config.host,
  );
  return {
    running,
    build,
    close: async () => {
      build.close();
      await running.close();
    },
  };
}

/**
 * The service wired from a Config: authenticator, build (local or origin, live), server. main.ts
 * adds signals and the cluster around it; the tests start exactly this.
 */
import { createAuthenticator } from './auth/authenticate.ts';
import type { Config } from './config.ts';
import { openLocalLiveStore, openOriginLiveStore, type LiveStore } from './live.ts';
import type { Logger } from './log.ts';
import { createOriginClient, originTimeouts, type OriginTimeouts } from './origin.ts';
import { noOriginCopy, openOriginCopy } from './originCopy.ts';
import { startServer, type RunningServer } from './http/server.ts';
import { createBodyCache } from './store.ts';

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
  /** Stops watching for builds and closes the server gracefully. */
  close(): Promise<void>;
}

export async function openBuild(config: Config, log: Logger, timeouts: OriginTimeouts = originTimeouts): Promise<LiveStore> {
  const cache = createBodyCache(config.bodyCacheBytes);
  if (config.origin) {
    const copy = config.origin.cacheDir === undefined ? noOriginCopy : await openOriginCopy(config.origin.cacheDir, log);
    return openOriginLiveStore(createOriginClient(config.origin, timeouts), cache, copy, log);
  }
  return openLocalLiveStore(config.distDir, cache, log);
}

export async function startService(config: Config, { extraKeys = [], log, now, originTimeouts: timeouts }: ServiceOptions): Promise<RunningService> {
  const authenticate = await createAuthenticator({ auth: config.auth, extraKeys, ...(now ? { now } : {}) });
  const build = await openBuild(config, log, timeouts);
  const running = await startServer(
    {
      store: build.current,
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

/**
 * The build being served, switched without a failed request: a new build is opened beside the
 * current one and swapped in with one assignment; requests already under way finish on the build
 * they started with (its directory is kept by the generator until the build after next).
 *
 * Local mode watches the dist link (and SIGHUP); origin mode asks the origin for its manifest every
 * few seconds, conditionally, so an unchanged build costs a 304.
 */
import { watch, type FSWatcher } from 'node:fs';
import { realpath } from 'node:fs/promises';
import path from 'node:path';
import type { Logger } from './log.ts';
import { openOriginStore, type OriginClient, type OriginStore } from './origin.ts';
import { openLocalStore, type BodyCache, type BodyStore } from './store.ts';

export const originPollMs = 10_000;

export interface LiveStore {
  /** The build to answer the next request from. */
  current(): BodyStore;
  /** Looks for a new build and switches to it; a failure keeps the current build and is logged. */
  reload(reason: string): Promise<void>;
  close(): void;
}

function liveStore(initial: BodyStore, reopen: (current: BodyStore) => Promise<BodyStore>, log: Logger, stop: () => void): LiveStore {
  let current = initial;
  let pending: Promise<void> | undefined;
  const reload = (reason: string): Promise<void> => {
    // Reloads triggered while one runs (a burst of file events) join it instead of piling up.
    pending ??= reopen(current)
      .then((next) => {
        if (next.manifest.buildId === current.manifest.buildId) return;
        log.info({ event: 'build-switched', reason, from: current.manifest.buildId, to: next.manifest.buildId, dataVersion: next.manifest.dataVersion });
        current = next;
      })
      .catch((error: unknown) => log.error({ event: 'build-switch-failed', reason, error: (error as Error).message }, 'keeping the current build'))
      .finally(() => (pending = undefined));
    return pending;
  };
  return { current: () => current, reload, close: stop };
}

export async function openLocalLiveStore(distDir: string, cache: BodyCache, log: Logger): Promise<LiveStore> {
  const reopen = async (current: BodyStore): Promise<BodyStore> =>
    (await realpath(distDir).catch(() => undefined)) === current.source ? current : openLocalStore(distDir, cache);
  let watcher: FSWatcher | undefined;
  const store = liveStore(await openLocalStore(distDir, cache), reopen, log, () => watcher?.close());
  // The generator replaces the dist link with a rename in its parent directory.
  const linkName = path.basename(path.resolve(distDir));
  watcher = watch(path.dirname(path.resolve(distDir)), (_event, name) => {
    if (name === linkName) void store.reload('dist changed');
  });
  watcher.unref();
  return store;
}

export async function openOriginLiveStore(origin: OriginClient, cache: BodyCache, log: Logger): Promise<LiveStore> {
  const reopen = (current: BodyStore): Promise<BodyStore> => openOriginStore(origin, cache, current as OriginStore);
  const timer = setInterval(() => void store.reload('origin poll'), originPollMs);
  timer.unref();
  const store = liveStore(await openOriginStore(origin, cache), reopen, log, () => {
    clearInterval(timer);
    void origin.close();
  });
  return store;
}

/**
 * The build being served, switched without a failed request: a new build is opened beside the
 * current one and swapped in with one assignment; requests already under way finish on the build
 * they started with. In local mode the process names the build it reads in a lease
 * (contract/builds.ts), so the generator never prunes it, and /readyz fails if it is gone all the
 * same (removed by hand): a load balancer then stops sending what this process cannot answer.
 *
 * Local mode watches the dist link (and SIGHUP); origin mode asks the origin for its manifest every
 * few seconds, conditionally, so an unchanged build costs a 304.
 */
import { watch, type FSWatcher } from 'node:fs';
import { access, mkdir, realpath, rename, rm, writeFile } from 'node:fs/promises';
import { hostname } from 'node:os';
import path from 'node:path';
import { processStartOf, readerLeaseName, readersDirOf, type ReaderLease } from '../../contract/builds.ts';
import { lookupIndexFileName } from '../../contract/lookupIndex.ts';
import type { Logger } from '../observe/log.ts';
import { openOriginStore, openSavedOriginStore, type OriginClient, type OriginStore } from './origin.ts';
import type { OriginCopy } from './originCopy.ts';
import { openLocalStore, type BodyStore, type StoreCaches } from './store.ts';

export const originPollMs = 10_000;

export interface LiveStore {
  /** The build to answer the next request from. */
  current(): BodyStore;
  /** Looks for a new build and switches to it; a failure keeps the current build and is logged. */
  reload(reason: string): Promise<void>;
  /**
   * Why this process should leave a load balancer's rotation (/readyz answers 503), or undefined:
   * the origin refuses its credentials, a fault of this proxy that its siblings need not share. An
   * origin that is down is not such a fault: every proxy would leave, and each can still serve
   * what it holds.
   */
  notReady(): string | undefined;
  /** Stops watching for builds and gives up the lease on the build read. */
  close(): Promise<void>;
}

function liveStore(
  initial: BodyStore,
  reopen: (current: BodyStore) => Promise<BodyStore>,
  log: Logger,
  stop: () => Promise<void>,
  switched: (store: BodyStore) => void = () => {},
): LiveStore {
  let current = initial;
  let pending: Promise<void> | undefined;
  const reload = (reason: string): Promise<void> => {
    // Reloads triggered while one runs (a burst of file events) join it instead of piling up.
    pending ??= reopen(current)
      .then((next) => {
        if (next.manifest.buildId === current.manifest.buildId) return;
        log.info({ event: 'build-switched', reason, from: current.manifest.buildId, to: next.manifest.buildId, dataVersion: next.manifest.dataVersion });
        const previous = current;
        current = next;
        // Its files closed now, so a pruned build frees its space; requests still on it reopen what they read.
        previous.close();
        switched(next);
      })
      .catch((error: unknown) => log.error({ event: 'build-switch-failed', reason, error: (error as Error).message }, 'keeping the current build'))
      .finally(() => (pending = undefined));
    return pending;
  };
  return { current: () => current, reload, notReady: () => undefined, close: stop };
}

/** How often a local proxy checks that the build it serves is still on the disk. */
export const buildPresenceCheckMs = 2_000;

/**
 * The lease naming the build this process reads, in the builds root the build lives in (a directory
 * named `.<dist>-builds`, as the generator makes it); elsewhere (a copy) there is nothing to protect.
 */
function leaseWriter(log: Logger): { write(buildDir: string): Promise<void>; remove(): Promise<void> } {
  let file: string | undefined;
  return {
    write: async (buildDir) => {
      const buildsRoot = path.dirname(buildDir);
      if (!/^\..+-builds$/.test(path.basename(buildsRoot))) return;
      const readers = readersDirOf(buildsRoot);
      const started = processStartOf(process.pid);
      const lease: ReaderLease = { host: hostname(), pid: process.pid, buildDir, ...(started === undefined ? {} : { started }) };
      const target = path.join(readers, readerLeaseName(lease.host, lease.pid));
      try {
        await mkdir(readers, { recursive: true });
        await writeFile(`${target}.partial`, JSON.stringify(lease));
        await rename(`${target}.partial`, target);
        if (file !== undefined && file !== target) await rm(file, { force: true });
        file = target;
      } catch (error) {
        log.warn({ event: 'lease-failed', buildDir, error: (error as Error).message }, 'could not name the build this process reads: a build may prune it');
      }
    },
    remove: async () => {
      if (file !== undefined) await rm(file, { force: true });
    },
  };
}

export async function openLocalLiveStore(distDir: string, caches: StoreCaches, log: Logger): Promise<LiveStore> {
  const reopen = async (current: BodyStore): Promise<BodyStore> =>
    (await realpath(distDir).catch(() => undefined)) === current.source ? current : openLocalStore(distDir, caches);
  let watcher: FSWatcher | undefined;
  const lease = leaseWriter(log);
  const initial = await openLocalStore(distDir, caches);
  await lease.write(initial.source);
  // Whether the build served is still there, checked every few seconds, off the request path.
  let gone: string | undefined;
  const checkPresence = (): void => {
    const { source, manifest } = store.current();
    void access(path.join(source, lookupIndexFileName)).then(
      () => (gone = undefined),
      () => {
        if (gone === undefined)
          log.error({ event: 'build-gone', buildId: manifest.buildId, buildDir: source }, 'the build this process serves is gone from the disk');
        gone = `the build ${manifest.buildId} this process serves is gone from ${source}; a new build or a restart brings one`;
      },
    );
  };
  const presence = setInterval(checkPresence, buildPresenceCheckMs);
  presence.unref();
  const store = liveStore(
    initial,
    reopen,
    log,
    () => {
      clearInterval(presence);
      watcher?.close();
      return lease.remove();
    },
    (next) => {
      gone = undefined;
      void lease.write(next.source);
    },
  );
  // The generator replaces the dist link with a rename in its parent directory.
  const linkName = path.basename(path.resolve(distDir));
  watcher = watch(path.dirname(path.resolve(distDir)), (_event, name) => {
    if (name === linkName) void store.reload('dist changed');
  });
  watcher.unref();
  return { ...store, notReady: () => gone };
}

/**
 * Origin mode. A worker that cannot reach the origin at start (502, 504, a broken manifest) opens
 * the build the local copy last saved, its own or a sibling's, and answers from it and from the
 * bodies the copy holds; the poll then switches to the origin's build as soon as it answers. Only
 * with no saved build does the start fail.
 */
export async function openOriginLiveStore(origin: OriginClient, caches: StoreCaches, copy: OriginCopy, log: Logger): Promise<LiveStore> {
  const reopen = (current: BodyStore): Promise<BodyStore> => openOriginStore(origin, caches, copy, current as OriginStore);
  const initial = await openOriginStore(origin, caches, copy).catch(async (error: unknown) => {
    const saved = await openSavedOriginStore(origin, caches, copy).catch(() => undefined);
    if (!saved) {
      await origin.close();
      throw error;
    }
    log.warn(
      { event: 'origin-unreachable-at-start', buildId: saved.manifest.buildId, error: (error as Error).message },
      'serving the build last saved in ORIGIN_CACHE_DIR until the origin answers',
    );
    return saved;
  });
  const timer = setInterval(() => void store.reload('origin poll'), originPollMs);
  timer.unref();
  const store = liveStore(initial, reopen, log, () => {
    clearInterval(timer);
    return origin.close();
  });
  return { ...store, notReady: origin.refusal };
}

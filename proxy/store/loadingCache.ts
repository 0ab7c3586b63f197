/**
 * A size-bounded LRU cache whose misses load once for every caller waiting on them.
 *
 * lru-cache's own `fetch` does the same but makes an AbortController and an abort listener per
 * miss: under a cold origin at 64 connections those were a fifth of the garbage V8 promoted and
 * then collected (docs/benchmarks.md, "Memory"). Here a miss is one promise in a map of loads in flight:
 * - concurrent misses of one key share the load;
 * - a load that fails is not kept: the next miss tries again;
 * - a load in flight is never cancelled: entries other loads push out of the cache still answer
 *   their callers, and a value larger than the whole cache is served without being kept.
 */
import { LRUCache } from 'lru-cache';
import type { Doorkeeper } from './doorkeeper.ts';

export class LoadingCache<Value extends object> {
  readonly #cache: LRUCache<string, Value>;
  readonly #loading = new Map<string, Promise<Value>>();

  readonly #sizeOf: (value: Value) => number;
  readonly #admission: Doorkeeper | undefined;

  /**
   * `admission` decides what `offer` keeps once the cache is full (doorkeeper.ts); its keys are
   * then ETags. Without one, `offer` keeps everything, as `set` does.
   */
  constructor(maxSize: number, sizeOf: (value: Value) => number, admission?: Doorkeeper) {
    this.#cache = new LRUCache<string, Value>({ maxSize, sizeCalculation: (value) => Math.max(sizeOf(value), 1) });
    this.#sizeOf = sizeOf;
    this.#admission = admission;
  }

  /** The value under `key` if it is in memory now: the synchronous fast path. */
  get(key: string): Value | undefined {
    return this.#cache.get(key);
  }

  /** Keeps `value` under `key`: a value loaded by its caller, synchronously. */
  set(key: string, value: Value): void {
    this.#cache.set(key, value);
  }

  /**
   * Keeps `value` under `key` while the cache has room; once it is full, only as its admission
   * decides (a key asked for again), so that a value asked for once pushes out none asked for more.
   */
  offer(key: string, value: Value): void {
    if (this.#admission === undefined || this.hasRoomFor(this.#sizeOf(value)) || this.#admission.admits(key)) this.#cache.set(key, value);
  }

  /** The value under `key`, running `load` only if it is neither cached nor already loading. */
  load(key: string, load: () => Promise<Value>): Promise<Value> {
    const kept = this.#cache.get(key);
    if (kept !== undefined) return Promise.resolve(kept);
    const loading = this.#loading.get(key);
    if (loading !== undefined) return loading;
    let started: Promise<Value>;
    try {
      started = load();
    } catch (error) {
      return Promise.reject(error);
    }
    const settled = started.then(
      (value) => {
        this.#loading.delete(key);
        this.#cache.set(key, value);
        return value;
      },
      (error: unknown) => {
        this.#loading.delete(key);
        throw error;
      },
    );
    this.#loading.set(key, settled);
    return settled;
  }

  /** Bytes (by `sizeOf`) of the values kept. */
  get calculatedSize(): number {
    return this.#cache.calculatedSize;
  }

  /** Whether a value of `size` would be kept without pushing another out. */
  hasRoomFor(size: number): boolean {
    return this.#cache.calculatedSize + Math.max(size, 1) <= this.#cache.maxSize;
  }

  /** Loads in flight. */
  get loading(): number {
    return this.#loading.size;
  }
}

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

export class LoadingCache<Value extends object> {
  readonly #cache: LRUCache<string, Value>;
  readonly #loading = new Map<string, Promise<Value>>();

  constructor(maxSize: number, sizeOf: (value: Value) => number) {
    this.#cache = new LRUCache<string, Value>({ maxSize, sizeCalculation: (value) => Math.max(sizeOf(value), 1) });
  }

  /** The value under `key` if it is in memory now: the synchronous fast path. */
  get(key: string): Value | undefined {
    return this.#cache.get(key);
  }

  /** Keeps `value` under `key`: a value loaded by its caller, synchronously. */
  set(key: string, value: Value): void {
    this.#cache.set(key, value);
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

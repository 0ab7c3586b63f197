/**
 * Counts per key in fixed windows (a window starts with a key's first count and lasts the budget's
 * seconds), in memory bounded by a number of keys: an LRU (lru-cache), so a flood of distinct keys
 * (addresses, subjects) evicts the longest-unused windows instead of growing without end. A key
 * evicted while counting starts again at zero when it comes back, which is the cost of the bound:
 * at the default capacities that takes tens of thousands of other keys within one window.
 */
import { LRUCache } from 'lru-cache';
import type { Budget } from '../config/config.ts';

/** A key's window: what it has counted, and when (epoch ms) the window ends. */
export interface Window {
  readonly count: number;
  readonly resetAt: number;
}

interface MutableWindow {
  count: number;
  resetAt: number;
}

export class WindowCounter {
  readonly #windows: LRUCache<string, MutableWindow>;
  readonly #windowMs: number;

  constructor(
    readonly budget: Budget,
    /** The most keys held at once. */
    readonly capacity: number,
    private readonly now: () => number = Date.now,
  ) {
    this.#windows = new LRUCache<string, MutableWindow>({ max: capacity });
    this.#windowMs = budget.seconds * 1000;
  }

  /** How many keys are held now. */
  get size(): number {
    return this.#windows.size;
  }

  /** The key's window as it stands, counting nothing (a fresh one when it has none running). */
  peek(key: string): Window {
    const time = this.now();
    const window = this.#windows.get(key);
    return window !== undefined && window.resetAt > time ? window : { count: 0, resetAt: time + this.#windowMs };
  }

  /** Adds `points` (a negative number takes back, never below zero) and returns the window after. */
  add(key: string, points: number): Window {
    const time = this.now();
    let window = this.#windows.get(key);
    if (window === undefined || window.resetAt <= time) {
      if (points <= 0) return { count: 0, resetAt: time + this.#windowMs };
      window = { count: 0, resetAt: time + this.#windowMs };
      this.#windows.set(key, window);
    }
    window.count = Math.max(0, window.count + points);
    return window;
  }
}

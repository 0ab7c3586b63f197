/**
 * The body cache (proxy/store.ts) under pressure: more bodies in flight than it can hold. Each
 * caller must get its own body, whatever was evicted meanwhile; that is what origin mode with a
 * small BODY_CACHE_MB relies on right after a start.
 */
import { describe, expect, it } from 'vitest';
import { createBodyCache } from '../proxy/store.ts';

/** A load that answers after a few milliseconds, like a fetch from the origin. */
function slowLoad(fill: number, bytes: number, delayMs: number): () => Promise<Buffer> {
  return () => new Promise((resolve) => setTimeout(() => resolve(Buffer.alloc(bytes, fill)), delayMs));
}

describe('body cache', () => {
  it('gives every concurrent miss its own body when the loads in flight overflow the cache', async () => {
    const cache = createBodyCache(1000);
    const bodies = await Promise.all(
      Array.from({ length: 50 }, (_, index) => cache.fetch(`etag-${index}`, { context: slowLoad(index, 300, 2 + (index % 7)) })),
    );
    bodies.forEach((body, index) => {
      expect(body?.length, `body ${index}`).toBe(300);
      expect(body?.[0], `body ${index}`).toBe(index);
    });
    expect(cache.calculatedSize).toBeLessThanOrEqual(1000);
  });

  it('serves a body larger than the whole cache without keeping it', async () => {
    const cache = createBodyCache(1000);
    const body = await cache.fetch('etag-large', { context: slowLoad(7, 5000, 1) });
    expect(body?.length).toBe(5000);
    expect(cache.get('etag-large')).toBeUndefined();
  });

  it('loads a body once for concurrent callers, then answers from memory', async () => {
    const cache = createBodyCache(1000);
    let loads = 0;
    const load = (): Promise<Buffer> => {
      loads++;
      return slowLoad(1, 10, 5)();
    };
    await Promise.all(Array.from({ length: 5 }, () => cache.fetch('etag-shared', { context: load })));
    expect(cache.get('etag-shared')?.length).toBe(10);
    expect(loads).toBe(1);
  });
});

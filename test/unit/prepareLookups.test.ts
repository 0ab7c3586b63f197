/**
 * What a worker works out once it listens (proxy/http/lookups.ts prepareLookups): the ambiguous
 * lookups by file, read from the manifest once, so that no client's lookup pays for it; a damaged
 * list stops nothing there, and the lookup that needs it still reports it.
 */
import { describe, expect, it } from 'vitest';
import { ambiguousMatches, prepareLookups } from '../../proxy/http/lookups.ts';
import type { BodyStore } from '../../proxy/store/store.ts';

function storeWithAmbiguous(read: () => unknown): { store: BodyStore; reads: () => number } {
  let count = 0;
  const manifest = {
    get ambiguous() {
      count += 1;
      return read();
    },
  };
  return { store: { manifest } as unknown as BodyStore, reads: () => count };
}

describe('prepareLookups', () => {
  it('reads the ambiguous lookups once, before any lookup asks', () => {
    const { store, reads } = storeWithAmbiguous(() => [{ file: 'addressmanagement/api/district/getbyname/merkez.json', chosen: 'a', others: ['b', 'c'] }]);
    prepareLookups(store);
    expect(reads()).toBe(1);
    expect(ambiguousMatches(store.manifest, 'addressmanagement/api/district/getbyname/merkez.json')).toBe(3);
    expect(ambiguousMatches(store.manifest, 'addressmanagement/api/district/getbyname/other.json')).toBeUndefined();
    expect(reads()).toBe(1);
  });

  it('leaves a damaged list to the lookup that needs it', () => {
    const { store } = storeWithAmbiguous(() => {
      throw new Error('the build is damaged: its ambiguous lookups do not parse');
    });
    expect(() => prepareLookups(store)).not.toThrow();
    expect(() => ambiguousMatches(store.manifest, 'any.json')).toThrow(/ambiguous lookups do not parse/);
  });
});

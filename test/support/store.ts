/** Reading a body store as the lookup handler does: waiting for the index shards a find needs. */
import { IndexPending, type Lookup } from '../../proxy/store/manifestIndex.ts';
import type { BodyStore } from '../../proxy/store/store.ts';

/** `store.find`, waiting for the shards it needs (at most a few) as proxy/http/lookups.ts does. */
export async function findSettled(store: BodyStore, routePath: string, keys: readonly string[]): Promise<Lookup | undefined> {
  for (let waits = 0; ; waits++) {
    try {
      return store.find(routePath, keys);
    } catch (error) {
      if (!(error instanceof IndexPending) || waits >= 32) throw error;
      await error.loaded;
    }
  }
}

/** Every body file of a store with its entry, read shard by shard. */
export async function allLookups(store: BodyStore): Promise<Lookup[]> {
  const lookups: Lookup[] = [];
  for await (const lookup of store.lookups()) lookups.push(lookup);
  return lookups;
}

/**
 * Request targets (path and query, exactly as sent) already resolved against the current build:
 * a repeated request skips parsing, normalising and finding its body.
 */
import type { Route } from '../../contract/routes.ts';
import type { Lookup } from '../store/indexReader.ts';
import type { BodyStore } from '../store/store.ts';
import { Doorkeeper } from '../store/doorkeeper.ts';

/** A body in one language: its tag (Content-Language), or none for a country without names at all. */
export interface LanguageBody {
  readonly tag?: string;
  readonly found: Lookup;
}

/** A lookup's bodies in each language, the country's own first. */
export type LanguageBodies = readonly [LanguageBody, ...LanguageBody[]];

export interface ResolvedTarget {
  readonly route: Route;
  readonly found: Lookup;
  /** The language of `found`'s names (Content-Language), where the route has languages and the query named one. */
  readonly language?: string;
  /** Where the query named no language: the body in each, Accept-Language choosing per request (languageChoice.ts). */
  readonly languages?: LanguageBodies;
  /** How many records the single lookup's key names, where it names several (the manifest's `ambiguous`). */
  readonly matches?: number;
  /** A search answered from candidates (search.ts): the folded query `found`'s candidates are filtered by. */
  readonly search?: string;
}

/** Targets longer than this are resolved every time (no client of this API sends one). */
export const maxRememberedTarget = 512;
/** At most 10,000 targets of at most 512 characters: a few megabytes at worst. */
export const rememberedTargets = 10_000;

/**
 * Only lookups that found a body are remembered, and only from the second time their body is
 * asked for among the last rememberedTargets (doorkeeper.ts): lookups spread over the whole build
 * are resolved each time and leave nothing behind. Any error is worked out again each time. A new
 * build forgets them all. Two generations of plain maps, not an LRU: a request that finds its
 * target pays a lookup or two and no bookkeeping. New targets go into the current generation; when
 * it holds half the bound, it becomes the previous one and the previous one goes, so a target asked
 * again within the last rememberedTargets / 2 to rememberedTargets new ones stays (one found in
 * the previous generation moves to the current). Evicting the oldest entry of one map instead
 * (`map.keys().next()`) walks over every entry deleted before it, on every new target.
 */
export class TargetMemo {
  #store: BodyStore | undefined;
  #current = new Map<string, ResolvedTarget>();
  #previous = new Map<string, ResolvedTarget>();
  readonly #admission = new Doorkeeper(rememberedTargets);

  /** What `target` resolved to in `store`, if it was remembered; a new store forgets every target. */
  get(store: BodyStore, target: string): ResolvedTarget | undefined {
    if (store !== this.#store) {
      this.#current = new Map();
      this.#previous = new Map();
      this.#store = store;
      return undefined;
    }
    const found = this.#current.get(target);
    if (found !== undefined) return found;
    const older = this.#previous.get(target);
    if (older !== undefined) this.#add(target, older);
    return older;
  }

  /** Remembers what `target` resolved to in the store last passed to get(), once its body is asked for again. */
  remember(target: string, resolved: ResolvedTarget): ResolvedTarget {
    if (target.length <= maxRememberedTarget && this.#admission.admits(resolved.found.entry.etag)) this.#add(target, resolved);
    return resolved;
  }

  #add(target: string, resolved: ResolvedTarget): void {
    if (this.#current.size >= rememberedTargets / 2) {
      this.#previous = this.#current;
      this.#current = new Map();
    }
    this.#current.set(target, resolved);
  }
}

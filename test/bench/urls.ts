/**
 * The request mixes' lookups, and the mixes drawn by operation (sampleUrlMix), reproducible from a
 * seed. Each lookup has two spellings of the same body: its path as nginx serves it as a file from
 * the references' root (referenceRoot.ts, `/addressmanagement/api/country/getbyalpha2code/tr.json`)
 * and the query the proxy answers with that body
 * (`/addressmanagement/api/country/getbyalpha2code?alpha2code=tr`, spelling.ts).
 *
 * A mix is drawn in passes over the build's bodies (sampleManifest over a manifest in memory,
 * sampleBuild shard by shard over a build's index), keeping only what it draws, so that drawing
 * from a build of millions of bodies holds no list of them.
 */
import type { Manifest, ManifestEntry } from '../../contract/manifest.ts';
import type { Route } from '../../contract/routes.ts';
import { lookupEntries } from '../support/store.ts';
import { type Spelling, spellingOf } from './spelling.ts';

export type OperationClass = 'single' | 'list' | 'large';

/**
 * Share of requests per class; each operation of a class gets an equal part of it. Mostly small
 * single records, some lists, a few of the largest bodies.
 */
export const classShares: Readonly<Record<OperationClass, number>> = { single: 0.8, list: 0.15, large: 0.05 };

/** The operations with the largest bodies (86 KB to 860 KB on the full data) and holidays by year. */
const largeOperations = new Set([
  '/addressmanagement/api/country/getall',
  '/addressmanagement/api/country/getbyregionid',
  '/addressmanagement/api/webdomain/getall',
  '/addressmanagement/api/webdomain/getbyistoplevel',
  '/addressmanagement/api/countryholiday/getbycountryid',
  '/addressmanagement/api/countryspecialday/getbycountryid',
]);

export function classOf(route: Route): OperationClass {
  if (largeOperations.has(route.path)) return 'large';
  return route.shape === 'single' ? 'single' : 'list';
}

export interface Lookup {
  readonly operation: string;
  readonly operationClass: OperationClass;
  /** The body's path, as the manifest and the build's index list it (and as a file of the references' root). */
  readonly file: string;
  readonly nginxPath: string;
  readonly proxyPath: string;
  readonly size: number;
  readonly etag: string;
}

export interface UrlMix {
  /** In request order: every load run walks this list round-robin. */
  readonly lookups: readonly Lookup[];
  readonly distinct: number;
  readonly meanBytes: number;
  /** Requests per class, and per operation, in the sample. */
  readonly byClass: Record<OperationClass, number>;
  readonly byOperation: Record<string, number>;
  /** Body files left out because their key does not read back as a query value (should be 0). */
  readonly unreadableKeys: number;
  /** The bodies the mix was drawn from, where it was drawn from every body a query names (wholeBuild.ts). */
  readonly population?: number;
}

/** mulberry32: a small, well-mixed 32-bit PRNG, enough to make the sample reproducible. */
export function seededRandom(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let mixed = Math.imul(state ^ (state >>> 15), 1 | state);
    mixed = (mixed + Math.imul(mixed ^ (mixed >>> 7), 61 | mixed)) ^ mixed;
    return ((mixed ^ (mixed >>> 14)) >>> 0) / 4294967296;
  };
}

/** A body of the build as the index lists it, with its spelling: what a pass over the build hands each sampler. */
export interface SpelledBody {
  readonly file: string;
  readonly entry: ManifestEntry;
  readonly spelling: Spelling | undefined;
}

/**
 * Draws a mix from a build's bodies in one or two passes, each seeing every body once in the
 * index's order (mixes.ts runs them), keeping only what it draws.
 */
export interface BodySampler {
  readonly passes: 1 | 2;
  visit(pass: 1 | 2, body: SpelledBody): void;
  /** Called after each pass. */
  endPass(pass: 1 | 2): void;
}

/** The lookup of a body with a query spelling. */
export function lookupOf(file: string, entry: ManifestEntry, route: Route, proxyPath: string): Lookup {
  return { operation: route.path, operationClass: classOf(route), file, nginxPath: `/${file}`, proxyPath, size: entry.size, etag: entry.etag };
}

/** A mix of `lookups` in request order, with its figures. */
export function urlMixOf(lookups: readonly Lookup[], unreadableKeys: number, population?: number): UrlMix {
  const byClass: Record<OperationClass, number> = { single: 0, list: 0, large: 0 };
  const byOperation: Record<string, number> = {};
  for (const lookup of lookups) {
    byClass[lookup.operationClass]++;
    byOperation[lookup.operation] = (byOperation[lookup.operation] ?? 0) + 1;
  }
  const meanBytes = lookups.reduce((sum, lookup) => sum + lookup.size, 0) / Math.max(1, lookups.length);
  const distinct = new Set(lookups.map((lookup) => lookup.file)).size;
  return { lookups, distinct, meanBytes, byClass, byOperation, unreadableKeys, ...(population === undefined ? {} : { population }) };
}

/** Which body files a mix may draw from: all of them unless said otherwise. */
export type MixSelection = (route: Route, entry: ManifestEntry) => boolean;

/**
 * `count` lookups drawn with the class shares above from the lookups' body files `include`
 * accepts (neither searches nor bodies in another language); an operation left with no file drops
 * out, and the shares are those of the classes that remain. The first pass counts each operation's
 * files, the second picks the drawn ones: what is kept is the draws, whatever the build's size.
 */
export class ClassShareSampler implements BodySampler {
  readonly passes = 2;
  readonly #count: number;
  readonly #seed: number;
  readonly #include: MixSelection;
  readonly #files = new Map<Route, number>();
  #unreadableKeys = 0;
  /** The draws in request order, then, per operation, the lookup each drawn file number is. */
  readonly #draws: { readonly route: Route; readonly number: number }[] = [];
  readonly #drawn = new Map<Route, Map<number, Lookup | undefined>>();
  readonly #seen = new Map<Route, number>();

  constructor(count: number, seed: number, include: MixSelection = () => true) {
    this.#count = count;
    this.#seed = seed;
    this.#include = include;
  }

  visit(pass: 1 | 2, { file, entry, spelling }: SpelledBody): void {
    if (spelling?.kind !== 'lookup' || !this.#include(spelling.route, entry)) return;
    const { route, proxyPath } = spelling;
    if (proxyPath === undefined) {
      if (pass === 1) this.#unreadableKeys++;
      return;
    }
    const number = (pass === 1 ? this.#files : this.#seen).get(route) ?? 0;
    (pass === 1 ? this.#files : this.#seen).set(route, number + 1);
    const drawn = pass === 2 ? this.#drawn.get(route) : undefined;
    if (drawn?.has(number)) drawn.set(number, lookupOf(file, entry, route, proxyPath));
  }

  endPass(pass: 1 | 2): void {
    if (pass === 1) this.#draw();
  }

  /** Which file of which operation each request asks, from the counts of the first pass. */
  #draw(): void {
    const operations = [...this.#files.keys()].sort((a, b) => a.path.localeCompare(b.path));
    if (operations.length === 0) throw new Error('no body file of the build fits this request mix');
    const perClass = new Map<OperationClass, number>();
    for (const route of operations) perClass.set(classOf(route), (perClass.get(classOf(route)) ?? 0) + 1);
    let total = 0;
    const cumulative = operations.map((route) => {
      total += classShares[classOf(route)] / (perClass.get(classOf(route)) ?? 1);
      return total;
    });
    const random = seededRandom(this.#seed);
    for (let index = 0; index < this.#count; index++) {
      const point = random() * total;
      const chosen = cumulative.findIndex((bound) => point < bound);
      const route = operations[chosen === -1 ? operations.length - 1 : chosen] as Route;
      const number = Math.floor(random() * (this.#files.get(route) ?? 0));
      this.#draws.push({ route, number });
      const drawn = this.#drawn.get(route) ?? new Map<number, Lookup | undefined>();
      drawn.set(number, undefined);
      this.#drawn.set(route, drawn);
    }
  }

  mix(): UrlMix {
    const lookups = this.#draws.map(({ route, number }) => {
      const lookup = this.#drawn.get(route)?.get(number);
      if (!lookup) throw new Error(`${route.path}: its body file ${number} vanished between the passes`);
      return lookup;
    });
    return urlMixOf(lookups, this.#unreadableKeys);
  }
}

/** The samplers that take part in a pass. */
function samplersIn(pass: 1 | 2, samplers: readonly BodySampler[]): BodySampler[] {
  return samplers.filter((sampler) => sampler.passes >= pass);
}

/** Runs `samplers` over a manifest in memory: each pass walks its files in their order. */
export function sampleManifest(manifest: Manifest, samplers: readonly BodySampler[]): void {
  for (const pass of [1, 2] as const) {
    const active = samplersIn(pass, samplers);
    for (const [file, entry] of active.length > 0 ? Object.entries(manifest.files) : []) {
      const body = { file, entry, spelling: spellingOf(file) };
      for (const sampler of active) sampler.visit(pass, body);
    }
    for (const sampler of active) sampler.endPass(pass);
  }
}

/**
 * Runs `samplers` over the build `distDir` links to, each pass reading its lookup index shard by
 * shard (the order of its manifest's files), so that no list of its bodies is held.
 */
export async function sampleBuild(distDir: string, samplers: readonly BodySampler[]): Promise<void> {
  for (const pass of [1, 2] as const) {
    const active = samplersIn(pass, samplers);
    if (active.length === 0) continue;
    for await (const [file, entry] of lookupEntries(distDir)) {
      const body = { file, entry, spelling: spellingOf(file) };
      for (const sampler of active) sampler.visit(pass, body);
    }
    for (const sampler of active) sampler.endPass(pass);
  }
}

/** `count` lookups drawn from the manifest's files `include` accepts, with the class shares above. */
export function sampleUrlMix(manifest: Manifest, count: number, seed: number, include: MixSelection = () => true): UrlMix {
  const sampler = new ClassShareSampler(count, seed, include);
  sampleManifest(manifest, [sampler]);
  return sampler.mix();
}

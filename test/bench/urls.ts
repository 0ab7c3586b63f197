/**
 * The request mix: lookups sampled from the manifest of the build being served, weighted by
 * operation, reproducible from a seed. Each lookup has two spellings of the same body: its path as
 * nginx serves it as a file from the references' root (referenceRoot.ts,
 * `/addressmanagement/api/country/getbyalpha2code/tr.json`) and the query the proxy answers with
 * that body (`/addressmanagement/api/country/getbyalpha2code?alpha2code=tr`).
 */
import { languageKey, normaliseKey } from '../../contract/keys.ts';
import type { Manifest, ManifestEntry } from '../../contract/manifest.ts';
import { findRoute, type ParamKind, type Route } from '../../contract/routes.ts';

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
}

/**
 * A key is a valid query value of its kind, with one exception: a folded name writes a letter outside
 * ASCII as `_<hex code point>_` (keys.ts), which the name folding would read as separators, so
 * those escapes are turned back into their letters.
 */
function queryValue(kind: ParamKind, key: string): string {
  if (kind !== 'name') return key;
  return key.replace(/_([0-9a-f]+)_/g, (_escape, hex: string) => String.fromCodePoint(Number.parseInt(hex, 16)));
}

/**
 * A name key too long for a file name is its start and a hash of the whole (keys.ts shortenKey): no
 * query value can be read back from it, so those few files (long names in non-Latin scripts) are
 * left out of the mix by design, not counted as unreadable.
 */
const shortenedNameKey = /\.[0-9a-f]{26}$/;

/**
 * Whether a body file's keys are one per parameter (an optional one may be missing). A body in
 * another language has the language's key after the first (contract/routes.ts languageBodyKeys):
 * the mixes leave those out, as they ask no language.
 */
function keysFit(route: Route, keys: readonly string[]): boolean {
  const required = route.params.filter((param) => !param.optional).length;
  if (keys.length < required || keys.length > route.params.length) return false;
  const [, second] = keys;
  const secondParam = route.params[1];
  return !(route.languages && second !== undefined && secondParam && languageKey(second).ok && !normaliseKey(secondParam.kind, second).ok);
}

/** The proxy's query URL for a body file, or undefined when a key does not normalise back to itself. */
function queryFor(route: Route, keys: readonly string[]): string | undefined {
  const pairs: string[] = [];
  for (const [position, param] of route.params.entries()) {
    if (param.optional && position >= keys.length) break;
    const key = keys[position] ?? '';
    const value = queryValue(param.kind, key);
    const normalised = normaliseKey(param.kind, value);
    if (!normalised.ok || normalised.key !== key) return undefined;
    pairs.push(`${param.name}=${encodeURIComponent(value)}`);
  }
  return pairs.length === 0 ? route.path : `${route.path}?${pairs.join('&')}`;
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

interface Candidate {
  readonly file: string;
  readonly proxyPath: string;
}

/** Which body files a mix may draw from: all of them unless said otherwise. */
export type MixSelection = (route: Route, entry: ManifestEntry) => boolean;

/**
 * `count` lookups drawn with the class shares above from the body files `include` accepts; an
 * operation left with no file drops out, and the shares are those of the classes that remain.
 */
export function sampleUrlMix(manifest: Manifest, count: number, seed: number, include: MixSelection = () => true): UrlMix {
  const byRoute = new Map<Route, Candidate[]>();
  let unreadableKeys = 0;
  for (const [file, entry] of Object.entries(manifest.files)) {
    // Every operation's path is /<area>/api/<record>/<operation>; the keys follow, one segment each.
    const segments = file.replace(/\.json$/, '').split('/');
    const route = findRoute(`/${segments.slice(0, 4).join('/')}`);
    const keys = segments.slice(4);
    // A search's files are prefixes and candidates, and a bank's IBAN file is keyed by its code, not
    // by the queries that read them: left out.
    if (!route || route.search || route.params.some((param) => param.kind === 'iban') || !keysFit(route, keys) || !include(route, entry)) continue;
    if (route.params.some((param, position) => param.kind === 'name' && shortenedNameKey.test(keys[position] ?? ''))) continue;
    const proxyPath = queryFor(route, keys);
    if (proxyPath === undefined) {
      unreadableKeys++;
      continue;
    }
    const candidates = byRoute.get(route) ?? [];
    candidates.push({ file, proxyPath });
    byRoute.set(route, candidates);
  }

  const operations = [...byRoute.keys()].sort((a, b) => a.path.localeCompare(b.path));
  if (operations.length === 0) throw new Error('no body file of the build fits this request mix');
  const perClass = new Map<OperationClass, number>();
  for (const route of operations) perClass.set(classOf(route), (perClass.get(classOf(route)) ?? 0) + 1);
  let total = 0;
  const cumulative = operations.map((route) => {
    total += classShares[classOf(route)] / (perClass.get(classOf(route)) ?? 1);
    return total;
  });

  const random = seededRandom(seed);
  const lookups: Lookup[] = [];
  const byClass: Record<OperationClass, number> = { single: 0, list: 0, large: 0 };
  const byOperation: Record<string, number> = {};
  for (let index = 0; index < count; index++) {
    const point = random() * total;
    const chosen = cumulative.findIndex((bound) => point < bound);
    const route = operations[chosen === -1 ? operations.length - 1 : chosen] as Route;
    const candidates = byRoute.get(route) as Candidate[];
    const { file, proxyPath } = candidates[Math.floor(random() * candidates.length)] as Candidate;
    const entry = manifest.files[file];
    if (!entry) throw new Error(`${file} vanished from the manifest`);
    const operationClass = classOf(route);
    lookups.push({ operation: route.path, operationClass, file, nginxPath: `/${file}`, proxyPath, size: entry.size, etag: entry.etag });
    byClass[operationClass]++;
    byOperation[route.path] = (byOperation[route.path] ?? 0) + 1;
  }
  const meanBytes = lookups.reduce((sum, lookup) => sum + lookup.size, 0) / Math.max(1, lookups.length);
  return { lookups, distinct: new Set(lookups.map((lookup) => lookup.file)).size, meanBytes, byClass, byOperation, unreadableKeys };
}

/**
 * How a query names a body file of the build: the URL the proxy answers with exactly that body, read
 * back from the file's path (`addressmanagement/api/country/getbyalpha2code/tr.json` is
 * `/addressmanagement/api/country/getbyalpha2code?alpha2code=tr`), through the keys' own
 * normalisation (contract/keys.ts), so that a key that does not read back shows here.
 */
import { languageKey, normaliseKey } from '../../contract/keys.ts';
import { findRoute, type ParamKind, type Route, type RouteParam } from '../../contract/routes.ts';
import { candidatesMark } from '../../contract/search.ts';

/**
 * A key is a valid query value of its kind, with one exception: a folded name writes a letter outside
 * ASCII as `_<hex code point>_` (keys.ts), which the name folding would read as separators, so
 * those escapes are turned back into their letters.
 */
function queryValue(kind: ParamKind, key: string): string {
  if (kind !== 'name') return key;
  return key.replace(/_([0-9a-f]+)_/g, (_escape, hex: string) => String.fromCodePoint(Number.parseInt(hex, 16)));
}

/** Whether `key` is what its query value normalises to. */
function readsBack(kind: ParamKind, key: string): boolean {
  const normalised = normaliseKey(kind, queryValue(kind, key));
  return normalised.ok && normalised.key === key;
}

/**
 * A name key too long for a file name is its start and a hash of the whole (keys.ts shortenKey): no
 * query value can be read back from it, so those few files (long names in non-Latin scripts) are
 * left out of the mix by design, not counted as unreadable.
 */
const shortenedNameKey = /\.[0-9a-f]{26}$/;

/** Whether the keys are one per parameter (an optional one may be missing). */
function keysFit(params: readonly RouteParam[], keys: readonly string[]): boolean {
  const required = params.filter((param) => !param.optional).length;
  return keys.length >= required && keys.length <= params.length;
}

/**
 * The language of a body in another language: its key after the first (contract/routes.ts
 * languageBodyKeys), where the second parameter could not take it.
 */
function languageIn(route: Route, keys: readonly string[]): string | undefined {
  const [, second] = keys;
  const secondParam = route.params[1];
  if (!route.languages || second === undefined || !languageKey(second).ok) return undefined;
  return secondParam && normaliseKey(secondParam.kind, second).ok ? undefined : second;
}

/** The proxy's query URL for keys in the parameters' order, or undefined when a key does not normalise back to itself. */
function queryFor(route: Route, keys: readonly string[]): string | undefined {
  const pairs: string[] = [];
  for (const [position, param] of route.params.entries()) {
    if (param.optional && position >= keys.length) break;
    const key = keys[position] ?? '';
    if (!readsBack(param.kind, key)) return undefined;
    pairs.push(`${param.name}=${encodeURIComponent(queryValue(param.kind, key))}`);
  }
  return pairs.length === 0 ? route.path : `${route.path}?${pairs.join('&')}`;
}

/**
 * How a query names a body file: a lookup by its keys; a search's answer to a prefix
 * (`…/searchbyname?name=ist`); a lookup in another language than the records' own (`…&language=en`).
 */
export type SpellingKind = 'lookup' | 'search' | 'language';

export interface Spelling {
  readonly route: Route;
  readonly kind: SpellingKind;
  /** The query the proxy answers with exactly this body; undefined when a key does not read back as a query value (a fault here). */
  readonly proxyPath: string | undefined;
}

/** A lookup's file, or its file in another language. */
function lookupSpelling(route: Route, keys: readonly string[]): Spelling | undefined {
  const language = languageIn(route, keys);
  const own = language === undefined ? keys : [keys[0] ?? '', ...keys.slice(2)];
  if (!keysFit(route.params, own)) return undefined;
  if (route.params.some((param, position) => param.kind === 'name' && shortenedNameKey.test(own[position] ?? ''))) return undefined;
  const query = queryFor(route, own);
  if (language === undefined || query === undefined) return { route, kind: 'lookup', proxyPath: query };
  return { route, kind: 'language', proxyPath: `${query}${query.includes('?') ? '&' : '?'}${route.languages?.param}=${language}` };
}

/**
 * A search's answer file: the scope's keys, then the prefix (generator/bodies/search.ts), asked
 * as the query first. A candidates file answers no query by itself (the proxy filters it), and a
 * prefix ending where a name has a separator (`bosna-`) folds to a shorter one: no query names them.
 */
function searchSpelling(route: Route, keys: readonly string[]): Spelling | undefined {
  const prefix = keys.at(-1);
  const asked = [prefix ?? '', ...keys.slice(0, -1)];
  const [prefixParam] = route.params;
  if (prefix === undefined || prefix.startsWith(candidatesMark) || !prefixParam || !readsBack(prefixParam.kind, prefix)) return undefined;
  return keysFit(route.params, asked) ? { route, kind: 'search', proxyPath: queryFor(route, asked) } : undefined;
}

/**
 * How a query names the body file `file` (a path of the build's index), or undefined when none does
 * by design: a search's candidates, a name key shortened to fit a file name, a bank's IBAN file
 * (keyed by the bank's code, not by the IBANs that read it).
 */
export function spellingOf(file: string): Spelling | undefined {
  // Every operation's path is /<area>/api/<record>/<operation>; the keys follow, one segment each.
  const segments = file.replace(/\.json$/, '').split('/');
  const route = findRoute(`/${segments.slice(0, 4).join('/')}`);
  if (!route || route.params.some((param) => param.kind === 'iban')) return undefined;
  const keys = segments.slice(4);
  return route.search ? searchSpelling(route, keys) : lookupSpelling(route, keys);
}

/**
 * The lookup operations (the contract's 44 and the extensions beside them): the route and its keys
 * (or the target already resolved), the scope, the budget, then the body in the envelope, encoded
 * as asked, or 304.
 */
import type http from 'node:http';
import { newGlobalId, successHead, successTail } from '../../contract/envelope.ts';
import { cacheControl, jsonType } from '../../contract/http.ts';
import { findRoute, routeParts, routes, type Route } from '../../contract/routes.ts';
import type { ManifestHead } from '../../contract/lookupIndex.ts';
import { whenIndexed, type Lookup } from '../store/indexReader.ts';
import type { BodyStore } from '../store/store.ts';
import { codingOf, encodeResponse } from './compression.ts';
import type { Exchange, Handler } from './exchange.ts';
import { chooseByAcceptLanguage, findInNamedLanguage, resolveLanguage } from './languageChoice.ts';
import { chooseEncoding, codedEtag, matchesIfNoneMatch, noCorsHeaders } from './negotiation.ts';
import { formatOf, noOperation, notFound, resolveKeys } from './query.ts';
import { whenReady } from './respond.ts';
import { findSearch, makeAnswer } from './search.ts';
import type { ResolvedTarget } from './targets.ts';

/** `addressmanagement` or `financemanagement`, what a scope guards: worked out once per route. */
const areas = new Map(routes.map((route) => [route, routeParts(route).area]));
const areaOf = (route: Route): string => areas.get(route) ?? routeParts(route).area;

/**
 * A lookup. Its target is resolved against the build's index, synchronously while the shards it
 * needs are in memory; when one is not, it is read, and the lookup resolves again (resolution is
 * pure, and remembered only once it succeeds).
 */
export const answerLookup: Handler = (exchange) => whenIndexed(() => answerResolved(exchange));

/**
 * A lookup whose shards are in memory: a target seen before skips parsing, normalising and finding
 * its body; the scope is checked either way, and before the keys, so that a token without it
 * learns nothing about them.
 */
function answerResolved(exchange: Exchange): void | Promise<void> {
  const { context, request } = exchange;
  const store = context.store();
  const target = request.url ?? exchange.pathname;
  const remembered = context.targets.get(store, target);
  if (remembered) exchange.authorize(areaOf(remembered.route));
  const lookup = remembered ?? context.targets.remember(target, resolveTarget(exchange, store));
  exchange.admit();
  // Chosen once the request is let in: a refused one costs no header parsing.
  const answered = lookup.languages ? chooseByAcceptLanguage(request.headers['accept-language'], lookup.languages) : undefined;
  const language: Language | undefined = lookup.route.languages ? { tag: answered?.tag ?? lookup.language } : undefined;
  if (lookup.search !== undefined) return whenReady(makeAnswer(store, lookup), (answer) => sendBody(exchange, store, answer.lookup, { made: answer.body }));
  return sendBody(exchange, store, answered?.found ?? lookup.found, { language, matches: lookup.matches });
}

/** The route, scope, keys and body a request names, or the failure that says what is wrong with it. */
function resolveTarget(exchange: Exchange, store: BodyStore): ResolvedTarget {
  const route = findRoute(exchange.pathname);
  if (!route) throw noOperation(exchange.pathname);
  exchange.authorize(areaOf(route));
  return findTarget(route, exchange.query, store);
}

/** The keys and body (in each language, where it has several) a route's query names. */
export function findTarget(route: Route, queryText: string, store: BodyStore): ResolvedTarget {
  const query = resolveKeys(route, queryText, store);
  if (route.search) return findSearch(route, query, store);
  if (route.formats) formatOf(route, query.params);
  if (route.aliasOf) return findAlias(route, query, store);
  const inLanguage = route.languages && findInNamedLanguage(route, route.languages, query, store);
  if (inLanguage) return inLanguage;
  const found = store.find(route.path, query.keys);
  if (!found) throw notFound(route, query, store);
  if (route.languages) return resolveLanguage(route, route.languages, query, found, store);
  const matches = route.shape === 'single' ? ambiguousMatches(store.manifest, found.file) : undefined;
  return matches === undefined ? { route, found } : { route, found, matches };
}

/**
 * A lookup answered with another's bodies (a country's days by its alpha-2 code): its first key
 * stands for the parent's id (the manifest's `aliases`), the bodies are those by id.
 */
function findAlias(route: Route, query: ReturnType<typeof resolveKeys>, store: BodyStore): ResolvedTarget {
  const target = findRoute(route.aliasOf ?? '');
  const [first = '', ...rest] = query.keys;
  const id = store.manifest.aliases[route.path]?.[first];
  const keys = id === undefined ? undefined : [id, ...rest];
  const found = keys && target && store.find(target.path, keys);
  if (!keys || !target || !found) throw notFound(route, query, store);
  return target.languages ? { ...resolveLanguage(target, target.languages, { ...query, keys }, found, store), route } : { route, found };
}

/** The records each ambiguous single lookup names, by body file, worked out once per build. */
const matchesByManifest = new WeakMap<ManifestHead, ReadonlyMap<string, number>>();

/**
 * How many records a single lookup's body file stands for, where its key names several (the
 * chosen one and the others of the manifest's `ambiguous`); undefined for the others.
 */
export function ambiguousMatches(manifest: ManifestHead, file: string): number | undefined {
  let matches = matchesByManifest.get(manifest);
  if (matches === undefined) {
    matches = new Map(manifest.ambiguous.map((entry) => [entry.file, 1 + entry.others.length]));
    matchesByManifest.set(manifest, matches);
  }
  return matches.get(file);
}

/**
 * Works out now what the first single lookup of `store` would otherwise pay for (the ambiguous
 * lookups by file: tens of milliseconds on the world's build), as soon as the server listens and
 * before clients come. A damaged list is left for that lookup to report.
 */
export function prepareLookups(store: BodyStore): void {
  try {
    ambiguousMatches(store.manifest, '');
  } catch {
    // The lookup that needs the list fails with the same error, and says so.
  }
}

/** What the envelope adds to a body, in bytes: the same for every response (a globalId is a UUID). */
const envelopeBytes = successHead(newGlobalId()).length + successTail.length;

/** A lookup whose names come in several languages: the language of its answer, where it has names. */
export interface Language {
  readonly tag: string | undefined;
}

/** What a body's answer adds: its language, how many records its name names, a body made rather than stored. */
export interface BodyOptions {
  readonly language?: Language | undefined;
  readonly matches?: number | undefined;
  readonly made?: Buffer | undefined;
}

/**
 * A body in the envelope once the request is let in (a lookup, the exports index, a change list):
 * 304 when the client's copy is current, else the body encoded as asked.
 */
export function sendBody(exchange: Exchange, store: BodyStore, { file, entry }: Lookup, { language, matches, made }: BodyOptions = {}): void | Promise<void> {
  const { request, limits, cors, context } = exchange;
  // Built in one literal (this is every lookup's path), one shape with a budget and one without;
  // the CORS headers added only when there are any.
  const headers: http.OutgoingHttpHeaders =
    limits === undefined
      ? {
          ETag: entry.etag,
          'Cache-Control': cacheControl,
          'X-Data-Version': store.manifest.dataVersion,
          Vary: context.lookupVary,
          'X-Request-Id': exchange.ids.requestId,
        }
      : {
          ETag: entry.etag,
          'Cache-Control': cacheControl,
          'X-Data-Version': store.manifest.dataVersion,
          Vary: context.lookupVary,
          'X-Request-Id': exchange.ids.requestId,
          'RateLimit-Policy': limits['RateLimit-Policy'],
          RateLimit: limits.RateLimit,
        };
  if (cors !== noCorsHeaders) Object.assign(headers, cors);
  // A name several records share: the answer is the documented choice, and says how many there are.
  if (matches !== undefined) headers['X-Ambiguous-Matches'] = String(matches);
  if (language) {
    headers.Vary = context.languageVary;
    if (language.tag !== undefined) headers['Content-Language'] = language.tag;
  }
  const encoding = exchange.method === 'GET' ? chooseEncoding(request.headers['accept-encoding']) : 'identity';
  if (matchesIfNoneMatch(request.headers['if-none-match'], entry.etag)) {
    headers.ETag = codedEtag(entry.etag, codingOf(encoding, envelopeBytes + entry.size));
    return exchange.sendNotModified(headers);
  }
  const cached = made ?? store.cached(entry);
  if (made === undefined) context.metrics.bodyCache(cached !== undefined);
  return whenReady(cached ?? store.read(file, entry), (body) =>
    whenReady(encodeResponse(successHead(exchange.ids.globalId), body, successTail, entry.etag, encoding), (encoded) =>
      exchange.sendEncoded(jsonType, headers, encoded),
    ),
  );
}

/**
 * The prefix searches (contract/search.ts): a query's answer file where the build has one, else
 * the answer made from the candidates of its longest prefix that has them. Only the `searchbyname`
 * operations come here; every other lookup is a file found as it always is.
 */
import { createHash } from 'node:crypto';
import { LRUCache } from 'lru-cache';
import { ServiceError } from '../../contract/errors.ts';
import type { ManifestEntry } from '../../contract/manifest.ts';
import { candidatesMark, keyCharacters, rankedAnswer, type CandidatesFile } from '../../contract/search.ts';
import { recordTypes, routes, type Route } from '../../contract/routes.ts';
import { labelOf } from '../../contract/recordTypes.ts';
import type { Lookup } from '../store/indexReader.ts';
import type { BodyStore } from '../store/store.ts';
import { echo, unservedCountry, type ResolvedKeys } from './query.ts';
import { whenReady } from './respond.ts';
import type { ResolvedTarget } from './targets.ts';

/** A search's answer made by the proxy: its body and the entry that names it (ETag, size). */
export interface MadeAnswer {
  readonly lookup: Lookup;
  readonly body: Buffer;
}

/** The answer of a query no name matches, in every scope. */
const none = Buffer.from('[]');

/** Each record type's getbyid path: where a scope's id is checked. */
const byIdPaths = new Map(routes.filter((route) => route.path.endsWith('/getbyid')).map((route) => [route.record, route.path]));

/**
 * A query key's SHA-256, base64url: what tells two answers made from one candidates file apart, in
 * their ETags and in the cache of answers made. A client chooses its query, so a hash it could
 * collide on purpose would hand one query's answer (and ETag) to another's clients.
 */
function queryTag(key: string): string {
  return createHash('sha256').update(key).digest('base64url');
}

/**
 * The file a search names: its answer, else the candidates of its longest prefix that has them,
 * else none (an empty list). A scope that names no record (a country id none has) is a 404.
 */
export function findSearch(route: Route, query: ResolvedKeys, store: BodyStore): ResolvedTarget {
  const [text = '', ...scope] = query.keys;
  const minLength = route.search?.minLength ?? 1;
  const characters = keyCharacters(text);
  if (characters.length < minLength) {
    throw new ServiceError(
      'ERR_PARAM_INVALID',
      `Query parameter ${route.params[0]?.name} is ${echo(query.given[0] ?? '')}: a search needs at least ${minLength} letters or digits; type ${minLength - characters.length} more.`,
    );
  }
  route.params.slice(1).forEach((param, position) => {
    const key = scope[position];
    // A scope parameter names a record by its id: countryId a country, districtId a district.
    const type = recordTypes.find((candidate) => `${candidate}Id` === param.field);
    const byId = type && byIdPaths.get(type);
    if (key !== undefined && byId && !store.find(byId, [key])) {
      throw new ServiceError('ERR_NOT_FOUND', `No ${labelOf(type)} has ${param.name} ${echo(query.given[position + 1] ?? '')}.`);
    }
  });
  // A country whose addresses the build leaves out has no search files: a 404 that says so, not an empty list.
  const countryScoped = route.params.some((param, position) => param.field === 'countryId' && position <= scope.length);
  const unserved = countryScoped ? unservedCountry(route, ['', ...scope], store) : undefined;
  if (unserved !== undefined) throw new ServiceError('ERR_NOT_FOUND', `No ${labelOf(route.record)} can be searched there: ${unserved}.`);
  const answer = store.find(route.path, [...scope, text]);
  if (answer) return { route, found: answer };
  const candidates = candidatesOf(characters, minLength, (key) => store.find(route.path, [...scope, key]));
  if (candidates) return { route, found: candidates, search: text };
  return { route, found: { file: '', entry: { etag: '"none"', size: none.length } }, search: text };
}

/**
 * The candidates file of a query (its characters, whose full answer file the build lacks), found in
 * a number of lookups that grows with the logarithm of the query's length, not with it. Along a
 * query's prefixes the build has, from `minLength` characters on, an answer file for each prefix
 * that more than leafSize records match, then the candidates of the first one that fewer do, then
 * nothing (contract/search.ts): the longest prefix with a file of either kind is found by
 * bisection. Below `minLength` a prefix has no answer file, only candidates where its scope has few
 * records: those few prefixes are asked one by one.
 */
export function candidatesOf(characters: readonly string[], minLength: number, find: (key: string) => Lookup | undefined): Lookup | undefined {
  const prefix = (count: number): string => characters.slice(0, count).join('');
  const asked = new Map<number, Lookup | undefined>();
  const candidatesAt = (count: number): Lookup | undefined => {
    if (!asked.has(count)) asked.set(count, find(`${candidatesMark}${prefix(count)}`));
    return asked.get(count);
  };
  for (let count = 0; count < minLength && count <= characters.length; count++) {
    const found = candidatesAt(count);
    if (found) return found;
  }
  // The full query's answer file was asked for already: it has none.
  const hasFile = (count: number): boolean => candidatesAt(count) !== undefined || (count < characters.length && find(prefix(count)) !== undefined);
  let low = minLength;
  let high = characters.length;
  if (low > high || !hasFile(low)) return undefined;
  while (low < high) {
    const middle = Math.ceil((low + high) / 2);
    if (hasFile(middle)) low = middle;
    else high = middle - 1;
  }
  return candidatesAt(low);
}

/** Candidates files as read, by ETag: a few hundred of a few kilobytes. */
const parsed = new LRUCache<string, CandidatesFile>({ max: 500 });
/** Answers made, by their ETag (the candidates file's and the query's SHA-256): at most about 8 MB of them. */
const made = new LRUCache<string, Buffer>({ maxSize: 8 * 1024 * 1024, sizeCalculation: (body) => body.length || 1 });

/** The answer a search target names, made from its candidates (read through the store's cache). */
export function makeAnswer(store: BodyStore, target: ResolvedTarget): MadeAnswer | Promise<MadeAnswer> {
  const query = target.search ?? '';
  const { file, entry } = target.found;
  const etag = `${entry.etag.slice(0, -1)}-${queryTag(query)}"`;
  const answered = (body: Buffer): MadeAnswer => ({ lookup: { file, entry: { ...entry, etag, size: body.length } as ManifestEntry }, body });
  if (file === '') return answered(none);
  const known = made.get(etag);
  if (known) return answered(known);
  const fromCandidates = (candidates: CandidatesFile): MadeAnswer => {
    const body = Buffer.from(rankedAnswer(candidates.c, query));
    made.set(etag, body);
    return answered(body);
  };
  const fromFile = (bytes: Buffer): MadeAnswer => {
    const candidates = JSON.parse(bytes.toString('utf8')) as CandidatesFile;
    parsed.set(entry.etag, candidates);
    return fromCandidates(candidates);
  };
  const read = parsed.get(entry.etag);
  if (read) return fromCandidates(read);
  const cached = store.cached(entry);
  return whenReady(cached ?? store.read(file, entry), fromFile);
}

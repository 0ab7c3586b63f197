/**
 * The prefix searches (contract/search.ts): a query's answer file where the build has one, else
 * the answer made from the candidates of its longest prefix that has them. Only the `searchbyname`
 * operations come here; every other lookup is a file found as it always is.
 */
import { LRUCache } from 'lru-cache';
import { ServiceError } from '../../contract/errors.ts';
import type { ManifestEntry } from '../../contract/manifest.ts';
import { candidatesMark, keyCharacters, rankedAnswer, type CandidatesFile } from '../../contract/search.ts';
import { recordLabels, recordTypes, routes, type Route } from '../../contract/routes.ts';
import type { Lookup } from '../store/manifestIndex.ts';
import type { BodyStore } from '../store/store.ts';
import { echo, type ResolvedKeys } from './query.ts';
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

/** FNV-1a of a query key, in hex: what tells two answers made from one candidates file apart. */
function queryTag(key: string): string {
  let hash = 0x811c9dc5;
  for (let index = 0; index < key.length; index++) {
    hash ^= key.charCodeAt(index);
    hash = Math.imul(hash, 0x01000193);
  }
  return (hash >>> 0).toString(16);
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
      throw new ServiceError('ERR_NOT_FOUND', `No ${recordLabels[type]} has ${param.name} ${echo(query.given[position + 1] ?? '')}.`);
    }
  });
  const answer = store.find(route.path, [...scope, text]);
  if (answer) return { route, found: answer };
  for (let count = characters.length; count >= 0; count--) {
    const candidates = store.find(route.path, [...scope, `${candidatesMark}${characters.slice(0, count).join('')}`]);
    if (candidates) return { route, found: candidates, search: text };
  }
  return { route, found: { file: '', entry: { etag: '"none"', size: none.length } }, search: text };
}

/** Candidates files as read, by ETag: a few hundred of a few kilobytes. */
const parsed = new LRUCache<string, CandidatesFile>({ max: 500 });
/** Answers made, by their ETag: at most about 8 MB of them. */
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
  return cached ? fromFile(cached) : store.read(file, entry).then(fromFile);
}

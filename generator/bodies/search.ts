/**
 * The prefix search's files (contract/search.ts): per scope, the answers of the prefixes more than
 * leafSize records match, and the candidates of the first prefixes that leafSize or fewer do.
 */
import { foldName } from '../../contract/keys.ts';
import { candidatesMark, keyCharacterAt, keyCharacters, leafSize, rankedAnswer, wordStarts, type SearchCandidate } from '../../contract/search.ts';
import { bodyPath, type Route } from '../../contract/routes.ts';
import { aliasesOf } from './ambiguity.ts';
import type { GroupFilter, Indexing } from './indexing.ts';
import type { DataRecord } from '../records/schemas.ts';

/** Names longer than this (folded) are not searched by prefix: no one types them out. */
const longestSearchedKey = 200;

/**
 * A record of a scope as a candidate of every prefix of its keys: its folded names (`n`), its
 * later words (`w`) and how it is shown (`b`). matchTier ranks it for a prefix as it ranks the
 * candidate filtered to that prefix, so an answer is ranked from the entries themselves.
 */
type Entry = SearchCandidate;

/** Unicode's root collation, for the order of equally prominent records. */
const collator = new Intl.Collator('und');

/** The scopes a record is searched in: each tuple of its scope parameters' keys (none, where they are optional). */
export function searchScopes(route: Route, record: DataRecord, { keys }: Pick<Indexing, 'keys'>): string[] {
  const scopeParams = route.params.slice(1);
  const fewest = scopeParams.filter((param) => !param.optional).length;
  const scopeKeys = scopeParams.map((param) => keys.ownKey(route.record, record, param));
  if (scopeKeys.some((key) => key === undefined)) return [];
  const found: string[] = [];
  for (let count = scopeParams.length; count >= fewest; count--) found.push(scopeKeys.slice(0, count).join('/'));
  return found;
}

/** The scopes of a search route (those `only` admits), with their records. */
function scopes(route: Route, records: readonly DataRecord[], indexing: Indexing, only?: GroupFilter): Map<string, DataRecord[]> {
  const byScope = new Map<string, DataRecord[]>();
  for (const record of records) {
    for (const scope of searchScopes(route, record, indexing)) {
      if (only !== undefined && !only(scope)) continue;
      const inScope = byScope.get(scope);
      if (inScope) inScope.push(record);
      else byScope.set(scope, [record]);
    }
  }
  return byScope;
}

function entriesOf(route: Route, records: readonly DataRecord[], { projection }: Indexing): Entry[] {
  const [query] = route.params;
  const search = route.search;
  if (!query || !search) return [];
  const prominence = (record: DataRecord) => (search.prominence === undefined ? 0 : Number(record[search.prominence] ?? 0));
  const ordered = [...records].sort((a, b) => prominence(b) - prominence(a) || collator.compare(String(a[query.field]), String(b[query.field])));
  return ordered.map((record) => {
    const texts = [
      record[query.field],
      ...(query.aliasFields ?? []).flatMap((field) =>
        field in record && typeof record[field] === 'string' ? [record[field]] : aliasesOf(record, field).map(({ value }) => value),
      ),
    ];
    const names = [...new Set(texts.filter((text): text is string => typeof text === 'string').map(foldName))].filter(
      (name) => name.length > 0 && name.length <= longestSearchedKey,
    );
    const words = [...new Set(names.flatMap(wordStarts))].filter((word) => !names.includes(word));
    return { n: names, w: words, b: projection.project(route.record, record, route.omit) };
  });
}

/** The entry as a candidate of `prefix`: its names and words that start with it. */
function candidateOf(entry: Entry, prefix: string): SearchCandidate {
  return { n: entry.n.filter((name) => name.startsWith(prefix)), w: entry.w.filter((word) => word.startsWith(prefix)), b: entry.b };
}

/** The characters that follow `prefix` in the entry's keys that start with it and go on. */
function followingCharacters(entry: Entry, prefix: string): string[] {
  const following: string[] = [];
  for (const keys of [entry.n, entry.w]) {
    for (const key of keys) {
      if (key.length === prefix.length || !key.startsWith(prefix)) continue;
      const character = keyCharacterAt(key, prefix.length);
      if (!following.includes(character)) following.push(character);
    }
  }
  return following;
}

export function indexSearch(route: Route, records: readonly DataRecord[], indexing: Indexing, only?: GroupFilter): void {
  const { bodies } = indexing;
  for (const [scope, inScope] of scopes(route, records, indexing, only)) {
    // An entry without a name to search by is no candidate of any prefix.
    const entries = entriesOf(route, inScope, indexing).filter((entry) => entry.n.length + entry.w.length > 0);
    const scopeKeys = scope === '' ? [] : scope.split('/');
    const file = (key: string) => bodyPath(route, [...scopeKeys, key]);
    // Depth first: a prefix's matching entries, split by the next character while more than leafSize
    // match. Every entry that reaches a prefix has a key starting with it: each is its candidate.
    const visit = (prefix: string, matching: readonly Entry[]): void => {
      if (matching.length <= leafSize) {
        bodies.set(file(`${candidatesMark}${prefix}`), JSON.stringify({ c: matching.map((entry) => candidateOf(entry, prefix)) }));
        return;
      }
      // No query shorter than the route allows is answered: such a prefix gets no answer of its own.
      if (keyCharacters(prefix).length >= (route.search?.minLength ?? 1)) bodies.set(file(prefix), rankedAnswer(matching, prefix));
      const next = new Map<string, Entry[]>();
      for (const entry of matching) {
        for (const character of followingCharacters(entry, prefix)) {
          const children = next.get(character);
          if (children) children.push(entry);
          else next.set(character, [entry]);
        }
      }
      for (const [character, children] of next) visit(`${prefix}${character}`, children);
    };
    visit('', entries);
  }
}

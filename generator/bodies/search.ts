/**
 * The prefix search's files (contract/search.ts): per scope, the answers of the prefixes more than
 * leafSize records match, and the candidates of the first prefixes that leafSize or fewer do.
 */
import { foldName } from '../../contract/keys.ts';
import { candidatesMark, keyCharacters, leafSize, rankedAnswer, wordStarts, type SearchCandidate } from '../../contract/search.ts';
import { bodyPath, type Route } from '../../contract/routes.ts';
import { aliasesOf } from './ambiguity.ts';
import type { GroupFilter, Indexing } from './indexing.ts';
import type { DataRecord } from '../schemas.ts';

/** Names longer than this (folded) are not searched by prefix: no one types them out. */
const longestSearchedKey = 200;

/** A record of a scope with its folded names and later words. */
interface Entry {
  readonly names: readonly string[];
  readonly words: readonly string[];
  readonly shown: string;
}

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
    return { names, words, shown: projection.project(route.record, record, route.omit ?? []) };
  });
}

/** The entry as a candidate of `prefix`: its names and words that start with it. */
function candidateOf(entry: Entry, prefix: string): SearchCandidate | undefined {
  const n = entry.names.filter((name) => name.startsWith(prefix));
  const w = entry.words.filter((word) => word.startsWith(prefix));
  return n.length + w.length === 0 ? undefined : { n, w, b: entry.shown };
}

export function indexSearch(route: Route, records: readonly DataRecord[], indexing: Indexing, only?: GroupFilter): void {
  const { bodies } = indexing;
  for (const [scope, inScope] of scopes(route, records, indexing, only)) {
    const entries = entriesOf(route, inScope, indexing);
    const scopeKeys = scope === '' ? [] : scope.split('/');
    const file = (key: string) => bodyPath(route, [...scopeKeys, key]);
    // Depth first: a prefix's matching entries, split by the next character while more than leafSize match.
    const visit = (prefix: string, matching: readonly Entry[]): void => {
      const candidates = matching.flatMap((entry) => candidateOf(entry, prefix) ?? []);
      if (candidates.length <= leafSize) {
        bodies.set(file(`${candidatesMark}${prefix}`), JSON.stringify({ c: candidates }));
        return;
      }
      // No query shorter than the route allows is answered: such a prefix gets no answer of its own.
      if (keyCharacters(prefix).length >= (route.search?.minLength ?? 1)) bodies.set(file(prefix), rankedAnswer(candidates, prefix));
      const next = new Map<string, Entry[]>();
      for (const entry of matching) {
        const following = new Set<string>();
        for (const key of [...entry.names, ...entry.words]) {
          if (!key.startsWith(prefix) || key.length === prefix.length) continue;
          following.add(keyCharacters(key.slice(prefix.length))[0] ?? '');
        }
        for (const character of following) {
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

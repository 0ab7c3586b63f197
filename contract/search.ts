/**
 * Prefix search (the `searchbyname` operations): how names are matched and ranked, and the files
 * the generator writes so that a search costs the proxy no more than a small filter.
 *
 * A query matches a record when one of its names, folded as lookups fold them (keys.ts foldName),
 * starts with the folded query, or one of its words does (`bosna-hersek` is found by `her`). Ranked:
 * a whole name equal to the query, then a name that starts with it, then a word that does; ties by
 * the record's prominence (a country's population; the other records have none), then by its name
 * in Unicode's root collation. At most `searchLimit` records are answered.
 *
 * Files, per scope (the records a search is limited to: every country; a country's subdivisions
 * or districts; a district's neighbourhoods) and per prefix of the folded names:
 * - where more than `leafSize` records match a prefix, the answer itself (`<prefix>.json`, a list
 *   like any list lookup's), and the prefix is split by its next character;
 * - where `leafSize` or fewer match it (and more matched the prefix one character shorter, or it is
 *   the empty prefix), the candidates (`~<prefix>.json`): each record as it is shown, with its
 *   names and words that start with the prefix. A query with no answer file is answered from the
 *   candidates of its longest prefix that has them, filtered and ranked by the proxy.
 * Keys never hold `~`, so the two kinds of file never share a name.
 */

/** The most records a search answers. */
export const searchLimit = 20;

/** The most records a candidates file holds: what the proxy filters for one query. */
export const leafSize = 100;

/** Marks a candidates file among a search's files. */
export const candidatesMark = '~';

/** A record a prefix matches: its names (whole, folded) and later words that start with the prefix, and how it is shown. */
export interface SearchCandidate {
  /** Folded whole names that start with the prefix. */
  readonly n: readonly string[];
  /** Folded names from a later word on (`hersek` of `bosna-hersek`) that start with the prefix. */
  readonly w: readonly string[];
  /** The record as the answer shows it: JSON text. */
  readonly b: string;
}

/** A candidates file: the records of one prefix, in prominence-then-collation order. */
export interface CandidatesFile {
  readonly c: readonly SearchCandidate[];
}

/** How well a candidate matches a folded query: 0 a whole name equal to it, 1 a name starting with it, 2 a word; undefined none. */
export function matchTier(candidate: SearchCandidate, query: string): 0 | 1 | 2 | undefined {
  let tier: 0 | 1 | 2 | undefined;
  for (const name of candidate.n) {
    if (name === query) return 0;
    if (name.startsWith(query)) tier = 1;
  }
  if (tier !== undefined) return tier;
  return candidate.w.some((word) => word.startsWith(query)) ? 2 : undefined;
}

/**
 * The answer to a folded query from candidates in prominence-then-collation order: the matching
 * ones by tier, that order kept within a tier, at most searchLimit, as a JSON list.
 */
export function rankedAnswer(candidates: Iterable<SearchCandidate>, query: string): string {
  const byTier: [string[], string[], string[]] = [[], [], []];
  for (const candidate of candidates) {
    const tier = matchTier(candidate, query);
    // Past searchLimit a tier adds nothing to the answer; once the first tier is full, nothing does.
    if (tier === undefined || byTier[tier].length === searchLimit) continue;
    byTier[tier].push(candidate.b);
    if (byTier[0].length === searchLimit) break;
  }
  return `[${byTier.flat().slice(0, searchLimit).join(',')}]`;
}

/**
 * A folded key's characters: an ASCII character, or a character outside ASCII as keys.ts writes it
 * (`_43a_`), so that a prefix never ends inside one.
 */
export function keyCharacters(key: string): string[] {
  return key.match(/_[0-9a-f]+_|[^_]|_/g) ?? [];
}

/** The character of a folded key that starts at `at` (keyCharacters' of the key from there), or '' at its end. */
export function keyCharacterAt(key: string, at: number): string {
  if (at >= key.length) return '';
  if (key.charCodeAt(at) !== 0x5f) return key.charAt(at);
  escapedCharacter.lastIndex = at;
  return escapedCharacter.exec(key)?.[0] ?? '_';
}

const escapedCharacter = /_[0-9a-f]+_/y;

/** A folded name and each of its later words, to the name's end (`bosna-hersek`: `hersek`). */
export function wordStarts(key: string): string[] {
  const starts: string[] = [];
  for (let at = key.indexOf('-'); at !== -1; at = key.indexOf('-', at + 1)) starts.push(key.slice(at + 1));
  return starts;
}

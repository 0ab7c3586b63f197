/**
 * How the world's postal-code checks compare the served places of a country with an independent
 * list, by postal code (generator/check/germanPostalCodes.ts and the others configure it):
 *
 * - **Codes.** The share of the reference's codes that are served, and of the served codes that
 *   the reference has. Codes of a known set (France's overseas codes, which GeoNames files under
 *   their own countries; the US territories' ZIP Codes) are set apart from both shares and counted
 *   on their own, found under the country or any of the countries that set names. A reference code
 *   not served is a disagreement `code <code>`; a served code the reference lacks is counted, not a
 *   disagreement (every reference here leaves kinds of codes out: OpenStreetMap's boundaries are
 *   incomplete, a ZCTA exists only for ZIP Codes with an area).
 * - **Names**, for the codes both have where the reference names places: the code agrees when one
 *   of its served District names, else one of its served place names, agrees with one of the
 *   reference's names (`namesAgree`). Otherwise a disagreement `name <class> <code>`, the class
 *   given by the country's rule, else by classifyNameDifference (`merged`, `title`, `different`).
 * - **StateProvince**, where the reference gives a Land, département or state: the code agrees when
 *   every served subdivision of the code is one the reference's stands for. Otherwise a
 *   disagreement `stateProvince <class> <code>`: `border` when the reference's subdivision is one
 *   of several served (the code's area crosses a border), else the country's class or `different`.
 */
import { foldName } from '../../contract/keys.ts';
import type { Disagreement } from './check.ts';
import { placesByCode, type ServedPlace } from './servedPlaces.ts';
import { compareCodePoints } from '../records/ordering.ts';

export interface ReferenceCode {
  /** The places the reference lists for the code, as it writes them. */
  readonly names: readonly string[];
  /** The ISO 3166-2 suffixes the reference's subdivision for the code stands for; empty where it gives none. */
  readonly stateProvinces: readonly string[];
  /** The reference's subdivision as it writes it, for messages. */
  readonly stateLabel?: string;
}

export interface PostalComparison {
  /** The country compared, by alpha-2 code. */
  readonly country: string;
  readonly served: readonly ServedPlace[];
  readonly reference: ReadonlyMap<string, ReferenceCode>;
  /** The known set a reference code belongs to (`overseas`, `territories`), or undefined; such codes are counted apart. */
  readonly setApart?: (code: string) => string | undefined;
  /** Served places of other countries where the set-apart codes may be filed (GeoNames' GP, MQ … for France). */
  readonly servedElsewhere?: readonly ServedPlace[];
  /** Leading words a name may carry or not (Bad, Stadt, Ostseebad …): a difference only in one is of the class `title`. */
  readonly titleWords?: readonly string[];
  /** The class of a name disagreement (`communeNouvelle`), or undefined for the general classes of classifyNameDifference. */
  readonly classifyName?: (code: string, ours: readonly ServedPlace[], theirs: ReferenceCode) => string | undefined;
  /** The class of a StateProvince disagreement (`telangana`), or undefined for `border` or `different`. */
  readonly classifyStateProvince?: (code: string, ours: readonly string[], theirs: ReferenceCode) => string | undefined;
}

export type Agreement = 'equal' | 'prefix' | 'abbreviation';

interface Word {
  readonly folded: string;
  /**
   * Written as an abbreviation: with a full stop after it ("i." of "Neustadt i. Sa.") or as two or
   * three capitals ("OB" of "Haag i. OB"). It stands for a word that starts with its first letter
   * and holds its other letters in order ("St." for Sankt, "OPf." for Oberpfalz).
   */
  readonly abbreviated: boolean;
}

/** A word: letters and digits, an apostrophe inside it (folded away, as lookups fold "L'Aiguillon"), a full stop after it. */
const wordPattern = /[\p{L}\p{M}\p{N}'’ʼ]+\.?/gu;

/** A name as words, folded as lookups fold names: case, diacritics and punctuation set aside, "X-Y" is "X Y". */
export function wordsOf(name: string): Word[] {
  return [...name.matchAll(wordPattern)]
    .map(([word]) => ({ folded: foldName(word), abbreviated: word.endsWith('.') || /^\p{Lu}{2,3}$/u.test(word) }))
    .filter((word) => word.folded !== '');
}

/** Whether `short` abbreviates `long`: the same first letter, its other letters in order. */
function abbreviates(short: string, long: string): boolean {
  if (short[0] !== long[0] || short.length > long.length) return false;
  let at = 1;
  for (const letter of short.slice(1)) {
    at = long.indexOf(letter, at) + 1;
    if (at === 0) return false;
  }
  return true;
}

const wordsAgree = (a: Word, b: Word, abbreviations: boolean): boolean =>
  a.folded === b.folded || (abbreviations && ((a.abbreviated && abbreviates(a.folded, b.folded)) || (b.abbreviated && abbreviates(b.folded, a.folded))));

function wordListsAgree(left: readonly Word[], right: readonly Word[]): Agreement | undefined {
  if (left.length === 0 || right.length === 0) return undefined;
  const shorter = Math.min(left.length, right.length);
  const matches = (abbreviations: boolean) =>
    left.slice(0, shorter).every((word, index) => {
      const other = right[index];
      return other !== undefined && wordsAgree(word, other, abbreviations);
    });
  if (matches(false)) return left.length === right.length ? 'equal' : 'prefix';
  return matches(true) ? 'abbreviation' : undefined;
}

/**
 * Whether two names name one place, and how: `equal` once folded; `prefix` when the words of one
 * begin the other's ("Lyon" and "Lyon 01", "Berlin" and "Berlin-Mitte"); `abbreviation` when they
 * agree word for word once an abbreviation stands for the word it shortens ("Neustadt i. Sa." and
 * "Neustadt in Sachsen", "St. Georgen" and "Sankt Georgen", "Haag i. OB" and "Haag in
 * Oberbayern"). Undefined when they do not.
 */
export function namesAgree(a: string, b: string): Agreement | undefined {
  return wordListsAgree(wordsOf(a), wordsOf(b));
}

/**
 * The class of a name disagreement that no country's rule named:
 * - `title`: the names agree once a leading title word of `titleWords` is dropped from either
 *   ("Staffelstein" and "Bad Staffelstein", "Insel Hiddensee" and "Hiddensee");
 * - `merged`: a served name is a part of the reference's compound name, the name of a
 *   municipality it was merged into ("Neugersdorf" and "Ebersbach-Neugersdorf");
 * - `different`: otherwise.
 */
export function classifyNameDifference(
  ours: readonly string[],
  theirs: readonly string[],
  titleWords: readonly string[] = [],
): 'merged' | 'title' | 'different' {
  const titles = new Set(titleWords.map((word) => foldName(word)));
  const withoutTitle = (words: Word[]) => (words.length > 1 && titles.has(words[0]?.folded ?? '') ? words.slice(1) : words);
  const contains = (whole: readonly Word[], part: readonly Word[]) =>
    part.length < whole.length && whole.some((_, start) => part.every((word, index) => whole[start + index]?.folded === word.folded));
  const pairs = ours.flatMap((name) => theirs.map((other) => [wordsOf(name), wordsOf(other)] as const));
  if (titles.size > 0 && pairs.some(([left, right]) => wordListsAgree(withoutTitle(left), withoutTitle(right)) !== undefined)) return 'title';
  if (pairs.some(([left, right]) => contains(right, left))) return 'merged';
  return 'different';
}

const ratio = (part: number, whole: number): number => (whole === 0 ? 0 : part / whole);
const sample = (names: readonly string[], limit = 4): string => {
  const distinct = [...new Set(names)];
  return distinct.length > limit ? `${distinct.slice(0, limit).join(', ')} … (${distinct.length})` : distinct.join(', ');
};

export interface PostalComparisonResult {
  readonly figures: Record<string, number>;
  readonly disagreements: Disagreement[];
  readonly detail: Record<string, unknown>;
}

/** The counts the comparison of the codes both serve adds up. */
interface Tally {
  namesCompared: number;
  namesAgree: number;
  districtNamesAgree: number;
  readonly agreements: Record<string, number>;
  stateProvincesCompared: number;
  stateProvincesAgree: number;
}

/** One postal code both serve: our places under it, and the reference's entry. */
interface BothServe {
  readonly code: string;
  readonly served: ServedPlace[];
  readonly theirs: ReferenceCode;
}

/** Whether one of our district or place names under a code is one the reference gives it. */
function compareNames(comparison: PostalComparison, { code, served, theirs }: BothServe, tally: Tally, disagreements: Disagreement[]): void {
  tally.namesCompared += 1;
  const districtAgreement = firstAgreement(
    served.map((place) => place.district),
    theirs.names,
  );
  const agreement =
    districtAgreement ??
    firstAgreement(
      served.map((place) => place.place),
      theirs.names,
    );
  if (districtAgreement) tally.districtNamesAgree += 1;
  if (agreement) {
    tally.namesAgree += 1;
    tally.agreements[agreement] = (tally.agreements[agreement] ?? 0) + 1;
  } else {
    const ourNames = [...new Set([...served.map((place) => place.district), ...served.map((place) => place.place)])];
    const nameClass = comparison.classifyName?.(code, served, theirs) ?? classifyNameDifference(ourNames, theirs.names, comparison.titleWords);
    disagreements.push({
      key: `name ${nameClass} ${code}`,
      ours: sample(ourNames),
      theirs: sample(theirs.names),
    });
  }
}

/** Whether the subdivisions we serve a code in are among those the reference gives it. */
function compareStateProvinces(comparison: PostalComparison, { code, served, theirs }: BothServe, tally: Tally, disagreements: Disagreement[]): void {
  tally.stateProvincesCompared += 1;
  const servedSubdivisions = [...new Set(served.map((place) => place.stateProvince))].sort();
  if (servedSubdivisions.every((subdivision) => theirs.stateProvinces.includes(subdivision))) tally.stateProvincesAgree += 1;
  else {
    // A code whose area crosses a border: served on both sides, the reference names one.
    const crosses = servedSubdivisions.some((subdivision) => theirs.stateProvinces.includes(subdivision));
    const stateClass = comparison.classifyStateProvince?.(code, servedSubdivisions, theirs) ?? (crosses ? 'border' : 'different');
    disagreements.push({
      key: `stateProvince ${stateClass} ${code}`,
      ours: servedSubdivisions.map((subdivision) => `${comparison.country}-${subdivision}`).join(', '),
      theirs: theirs.stateLabel ?? theirs.stateProvinces.map((subdivision) => `${comparison.country}-${subdivision}`).join(', '),
    });
  }
}

export function comparePostalCodes(comparison: PostalComparison): PostalComparisonResult {
  const ours = placesByCode(comparison.served);
  const elsewhere = placesByCode(comparison.servedElsewhere ?? []);
  const disagreements: Disagreement[] = [];
  const setApart: Record<string, { codes: number; served: number; servedUnder: Record<string, number> }> = {};
  let referenceCodes = 0;
  let referenceCodesServed = 0;
  const tally: Tally = { namesCompared: 0, namesAgree: 0, districtNamesAgree: 0, agreements: {}, stateProvincesCompared: 0, stateProvincesAgree: 0 };

  for (const [code, theirs] of [...comparison.reference].sort(([a], [b]) => compareCodePoints(a, b))) {
    const set = comparison.setApart?.(code);
    const served = ours.get(code);
    if (set !== undefined) {
      const counts = setApart[set] ?? { codes: 0, served: 0, servedUnder: {} };
      setApart[set] = counts;
      counts.codes += 1;
      const found = served ?? elsewhere.get(code);
      if (found) {
        counts.served += 1;
        const country = found[0]?.country ?? '';
        counts.servedUnder[country] = (counts.servedUnder[country] ?? 0) + 1;
      }
      continue;
    }
    referenceCodes += 1;
    if (!served) {
      disagreements.push({ key: `code ${code}`, ours: 'absent', theirs: sample(theirs.names) || code });
      continue;
    }
    referenceCodesServed += 1;

    if (theirs.names.length > 0) compareNames(comparison, { code, served, theirs }, tally, disagreements);
    if (theirs.stateProvinces.length > 0) compareStateProvinces(comparison, { code, served, theirs }, tally, disagreements);
  }

  const servedCodes = [...ours.keys()];
  const servedInReference = servedCodes.filter((code) => comparison.reference.has(code));
  const onlyOurs = servedCodes.filter((code) => !comparison.reference.has(code)).sort();
  const figures: Record<string, number> = {
    servedPlaces: comparison.served.length,
    servedCodes: servedCodes.length,
    referenceCodes,
    referenceCodesServed: ratio(referenceCodesServed, referenceCodes),
    servedCodesInReference: ratio(servedInReference.length, servedCodes.length),
  };
  for (const [set, counts] of Object.entries(setApart)) {
    figures[`${set}Codes`] = counts.codes;
    figures[`${set}CodesServed`] = ratio(counts.served, counts.codes);
  }
  if (tally.namesCompared > 0) {
    figures.namesCompared = tally.namesCompared;
    figures.namesAgree = ratio(tally.namesAgree, tally.namesCompared);
    figures.districtNamesAgree = ratio(tally.districtNamesAgree, tally.namesCompared);
  }
  if (tally.stateProvincesCompared > 0) {
    figures.stateProvincesCompared = tally.stateProvincesCompared;
    figures.stateProvincesAgree = ratio(tally.stateProvincesAgree, tally.stateProvincesCompared);
  }
  return {
    figures,
    disagreements,
    detail: {
      namesAgreeBy: tally.agreements,
      setApart,
      servedCodesNotInReference: onlyOurs.length,
      servedCodesNotInReferenceExamples: onlyOurs.slice(0, 50),
    },
  };
}

function firstAgreement(ours: readonly string[], theirs: readonly string[]): Agreement | undefined {
  let found: Agreement | undefined;
  for (const name of new Set(ours)) {
    for (const other of theirs) {
      const agreement = namesAgree(name, other);
      if (agreement === 'equal') return agreement;
      if (agreement && (found === undefined || (found === 'abbreviation' && agreement === 'prefix'))) found = agreement;
    }
  }
  return found;
}

/**
 * The figures once the explained disagreements are counted as agreement (CheckReport's
 * explainedFigures): each share with only the open and new disagreements of its kind against it.
 */
export function postalExplainedFigures(figures: Readonly<Record<string, number>>, notExplained: readonly Disagreement[]): Record<string, number> {
  const count = (prefix: string) => notExplained.filter((disagreement) => disagreement.key.startsWith(prefix)).length;
  const explained: Record<string, number> = {};
  const shares: [string, string, string][] = [
    ['referenceCodesServed', 'referenceCodes', 'code '],
    ['namesAgree', 'namesCompared', 'name '],
    ['stateProvincesAgree', 'stateProvincesCompared', 'stateProvince '],
  ];
  for (const [share, whole, prefix] of shares) {
    const total = figures[whole];
    if (total !== undefined && total > 0) explained[`${share}CountingExplained`] = 1 - count(prefix) / total;
  }
  return explained;
}

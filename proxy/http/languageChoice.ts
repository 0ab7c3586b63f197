/**
 * The language of a lookup whose names come in several (contract/routes.ts `languages`: holidays
 * and special days): the `language` parameter when the query gives one, else the client's
 * Accept-Language (RFC 9110 §12.5.4), else the country's own. The generator wrote a body for each
 * language; this only chooses one.
 */
import { ServiceError } from '../../contract/errors.ts';
import { languageForm, languageKey } from '../../contract/keys.ts';
import { languageBodyKeys, type Route, type RouteLanguages } from '../../contract/routes.ts';
import type { Lookup } from '../store/indexReader.ts';
import type { BodyStore } from '../store/store.ts';
import { HeaderMemo } from './headerMemo.ts';
import { echo } from './query.ts';
import type { LanguageBodies, LanguageBody, ResolvedTarget } from './targets.ts';

/** A range of Accept-Language: a language key (`en` for en-GB) or `*`, and its weight. */
interface LanguageRange {
  readonly key: string;
  readonly q: number;
}

/** RFC 9110 §12.4.2: a weight is 0 to 1 with at most three decimals. */
const weightPattern = /^(?:0(?:\.[0-9]{0,3})?|1(?:\.0{0,3})?)$/;

/**
 * How much of an Accept-Language header is read: its first 16 elements within its first 256
 * characters. Browsers send three to six (`tr-TR,tr;q=0.9,en-US;q=0.8,en;q=0.7`); the rest of a
 * longer header is ignored, so a 15 KB one costs what a short one does.
 */
export const acceptLanguageBounds = { elements: 16, characters: 256 } as const;

/**
 * The ranges of an Accept-Language header, within acceptLanguageBounds. An element that is not
 * `range[;q=weight]` is skipped rather than refused: the header only states preferences, and a
 * server may ignore it (§12.5.4).
 */
export function parseAcceptLanguage(header: string): LanguageRange[] {
  const ranges: LanguageRange[] = [];
  for (const element of header.slice(0, acceptLanguageBounds.characters).split(',', acceptLanguageBounds.elements)) {
    const [range = '', ...parameters] = element.split(';').map((part) => part.trim());
    const key = range === '*' ? { ok: true as const, key: '*' } : languageKey(range);
    if (!key.ok) continue;
    let q = 1;
    for (const parameter of parameters) {
      const [name = '', value = ''] = parameter.split('=').map((part) => part.trim());
      if (name.toLowerCase() === 'q') q = weightPattern.test(value) ? Number(value) : Number.NaN;
    }
    if (!Number.isNaN(q)) ranges.push({ key: key.key, q });
  }
  return ranges;
}

/** The ranges of each distinct header read, at most 256 of them: each parsed once (about 1 µs an element). */
const rangesOf = new HeaderMemo(acceptLanguageBounds.characters, 256, parseAcceptLanguage);

/**
 * The body the client prefers: each language weighs what its most preferred range naming it says
 * (a range counts for the language of its primary subtag: en-GB for any English), or else `*`'s,
 * or 0. The heaviest wins; a tie, or nothing acceptable, goes to the country's own (the first
 * body), which is the answer without the header too, rather than a 406.
 */
export function chooseByAcceptLanguage(header: string | undefined, bodies: LanguageBodies): LanguageBody {
  const [own] = bodies;
  if (header === undefined || bodies.length === 1) return own;
  const ranges = rangesOf.get(header);
  const weightOf = ({ tag }: LanguageBody): number => {
    const key = tag === undefined ? undefined : languageKey(tag);
    let named = -1;
    let any = 0;
    for (const range of ranges) {
      if (range.key === '*') any = Math.max(any, range.q);
      else if (key?.ok && range.key === key.key) named = Math.max(named, range.q);
    }
    return named >= 0 ? named : any;
  };
  let chosen = own;
  let weight = weightOf(own);
  for (const body of bodies.slice(1)) {
    const candidate = weightOf(body);
    if (candidate > weight) [chosen, weight] = [body, candidate];
  }
  return chosen;
}

/**
 * A lookup's bodies in each language of its country (manifest.json `languages`), its own first; a
 * language whose names are all the own ones has no body of its own and answers the own body. Each
 * other language's body is looked up the first time it is chosen, not before: a request reads the
 * index for the one language it is answered in, whatever the number its country has.
 */
function bodiesOf(route: Route, keys: readonly string[], found: Lookup, store: BodyStore): LanguageBodies {
  const [own, ...others] = store.manifest.languages[keys[0] ?? ''] ?? [];
  if (own === undefined) return [{ found }];
  return [
    { tag: own, found },
    ...others.flatMap((tag): LanguageBody[] => {
      const key = languageKey(tag);
      if (!key.ok) return [];
      let inLanguage: Lookup | undefined;
      return [
        {
          tag,
          get found(): Lookup {
            inLanguage ??= store.find(route.path, languageBodyKeys(keys, key.key)) ?? found;
            return inLanguage;
          },
        },
      ];
    }),
  ];
}

/**
 * The body in the language the query's parameter names, found directly where that is another of
 * the country's languages than its own and the body exists: one read of the index instead of two
 * (the own body, then the other). Undefined otherwise (no parameter, the own language, a language
 * the country lacks, a value to refuse), for resolveLanguage to answer with its full rules.
 */
export function findInNamedLanguage(
  route: Route,
  languages: RouteLanguages,
  { params, keys }: { readonly params: ReadonlyMap<string, readonly string[]>; readonly keys: readonly string[] },
  store: BodyStore,
): ResolvedTarget | undefined {
  const values = params.get(languages.param.toLowerCase());
  if (values?.length !== 1) return undefined;
  const asked = languageKey(values[0] ?? '');
  if (!asked.ok) return undefined;
  const [own, ...others] = store.manifest.languages[keys[0] ?? ''] ?? [];
  const ownKey = own === undefined ? undefined : languageKey(own);
  if (ownKey === undefined || !ownKey.ok || ownKey.key === asked.key) return undefined;
  const tag = others.find((other) => {
    const key = languageKey(other);
    return key.ok && key.key === asked.key;
  });
  if (tag === undefined) return undefined;
  const found = store.find(route.path, languageBodyKeys(keys, asked.key));
  return found && { route, found, language: tag };
}

/**
 * The target of a lookup with languages: the body in the language the query names, or, without
 * one, every language's body, for Accept-Language to choose from on each request (a target
 * remembered by its URL alone must not fix one client's choice for the next).
 */
export function resolveLanguage(
  route: Route,
  languages: RouteLanguages,
  { params, keys }: { readonly params: ReadonlyMap<string, readonly string[]>; readonly keys: readonly string[] },
  found: Lookup,
  store: BodyStore,
): ResolvedTarget {
  const bodies = bodiesOf(route, keys, found, store);
  const values = params.get(languages.param.toLowerCase()) ?? [];
  if (values.length === 0) return { route, found, languages: bodies };
  if (values.length > 1) {
    throw new ServiceError('ERR_PARAM_REPEATED', `Query parameter ${languages.param} is given ${values.length} times: give it once, as ${languageForm}.`);
  }
  const raw = values[0] ?? '';
  const asked = languageKey(raw);
  if (!asked.ok) throw new ServiceError('ERR_PARAM_INVALID', `Query parameter ${languages.param} is ${echo(raw)}: expected ${asked.expected}.`);
  const keyOf = ({ tag }: LanguageBody): string | undefined => {
    const key = tag === undefined ? undefined : languageKey(tag);
    return key?.ok ? key.key : undefined;
  };
  const [own] = bodies;
  // A country without names in the language every country answers (English) answers its own.
  const inLanguage = bodies.find((body) => keyOf(body) === asked.key) ?? (asked.key === languages.alwaysAnswered ? own : undefined);
  if (inLanguage) return { route, found: inLanguage.found, ...(inLanguage.tag === undefined ? {} : { language: inLanguage.tag }) };
  const accepted = [...new Set([...bodies.flatMap((body) => keyOf(body) ?? []), languages.alwaysAnswered])];
  const give = accepted.map((key) => `${languages.param}=${key}`).join(' or ');
  const ownKey = keyOf(own);
  const choices =
    ownKey === undefined
      ? `this country has no days to name: give ${give}, or leave it out`
      : accepted.length === 1
        ? `this country's names are in ${ownKey} only: give ${give}, or leave it out`
        : `this country's names are in ${accepted.join(' and ')}: give ${give}, or leave it out for ${ownKey}`;
  throw new ServiceError(
    'ERR_LANGUAGE_UNAVAILABLE',
    `Query parameter ${languages.param} is ${echo(raw)}: ${choices} (any letter case; en-US and en_GB mean en).`,
  );
}

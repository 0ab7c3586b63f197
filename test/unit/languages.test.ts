/** Choosing a holiday lookup's language: the language key both sides use, and Accept-Language (RFC 9110 §12.5.4). */
import { describe, expect, it } from 'vitest';
import { languageKey } from '../../contract/keys.ts';
import type { Lookup } from '../../proxy/store/indexReader.ts';
import { findRoute, type Route } from '../../contract/routes.ts';
import { acceptLanguageBounds, chooseByAcceptLanguage, parseAcceptLanguage } from '../../proxy/http/languageChoice.ts';
import { findTarget } from '../../proxy/http/lookups.ts';
import type { LanguageBodies } from '../../proxy/http/targets.ts';
import type { BodyStore } from '../../proxy/store/store.ts';

const keyOf = (raw: string): string | undefined => {
  const result = languageKey(raw);
  return result.ok ? result.key : undefined;
};

const lookup = (file: string): Lookup => ({ file, entry: { size: 2, etag: `"${file}"` } });
const turkish = { tag: 'tr', found: lookup('tr') };
const english = { tag: 'en', found: lookup('en') };
/** Türkiye's bodies: its own language first, then English. */
const turkey: LanguageBodies = [turkish, english];
const chosen = (header: string | undefined, bodies: LanguageBodies = turkey): string | undefined => chooseByAcceptLanguage(header, bodies).tag;

describe('language keys', () => {
  it('are the primary subtag in lower case: EN, en-US, en_GB and en-Latn-GB are en', () => {
    for (const tag of ['en', 'EN', 'en-US', 'en_GB', 'en-Latn-GB', ' en ']) expect(keyOf(tag), tag).toBe('en');
    expect(keyOf('zh-CN')).toBe('zh');
    expect(keyOf('pap-CW')).toBe('pap');
  });

  it('refuse what is no language tag, naming the form expected', () => {
    for (const raw of ['', 'e', 'english', '1x', 'en-', 'en--US', 'en/US', '../etc', '*', `en-${'a'.repeat(40)}`]) expect(keyOf(raw), raw).toBeUndefined();
    expect(languageKey('english')).toEqual({ ok: false, expected: expect.stringMatching(/language tag such as en or tr/) });
  });
});

describe('Accept-Language', () => {
  it('reads ranges and their weights, skipping malformed elements', () => {
    expect(parseAcceptLanguage('de-DE, en;q=0.8, *;q=0.1')).toEqual([
      { key: 'de', q: 1 },
      { key: 'en', q: 0.8 },
      { key: '*', q: 0.1 },
    ]);
    expect(parseAcceptLanguage('en;q=2, tr;q=0.5x, fr;q=0.1234, 12, ;q=1, de;Q=0.3, , es;q=1.000')).toEqual([
      { key: 'de', q: 0.3 },
      { key: 'es', q: 1 },
    ]);
  });

  it("without the header, or with one naming neither language, answers the country's own", () => {
    expect(chosen(undefined)).toBe('tr');
    expect(chosen('')).toBe('tr');
    expect(chosen('de, fr;q=0.5')).toBe('tr');
    expect(chosen('%%%')).toBe('tr');
  });

  it('chooses English for en, en-US or en-GB, and by weight when both are named', () => {
    expect(chosen('en')).toBe('en');
    expect(chosen('en-US')).toBe('en');
    expect(chosen('de-DE,de;q=0.9,en-GB;q=0.8')).toBe('en');
    expect(chosen('tr;q=0.5, en;q=0.9')).toBe('en');
    expect(chosen('en;q=0.5, tr')).toBe('tr');
    expect(chosen('TR-tr, EN;q=0.9')).toBe('tr');
  });

  it("gives a tie, or nothing acceptable, to the country's own", () => {
    expect(chosen('en, tr')).toBe('tr');
    expect(chosen('en;q=0.7, tr;q=0.7')).toBe('tr');
    expect(chosen('en;q=0, tr;q=0')).toBe('tr');
    expect(chosen('en;q=0')).toBe('tr');
  });

  it('weighs a language the header does not name by *, and never above a range that names it', () => {
    expect(chosen('*')).toBe('tr');
    expect(chosen('tr;q=0.2, *;q=0.5')).toBe('en');
    expect(chosen('en;q=0, *')).toBe('tr');
    expect(chosen('en;q=0.1, en-GB;q=0.6, tr;q=0.5')).toBe('en');
  });

  it('answers a country with names in one language only in that one, whatever the client prefers', () => {
    const germany: LanguageBodies = [{ tag: 'de', found: lookup('de') }];
    expect(chosen('en', germany)).toBe('de');
    const nameless: LanguageBodies = [{ found: lookup('empty') }];
    expect(chooseByAcceptLanguage('en', nameless)).toEqual({ found: lookup('empty') });
  });
});

describe('a long Accept-Language', () => {
  // 1,500 elements in 15,000 characters, as a client may send one.
  const long = Array.from({ length: 1500 }, (_, index) => `en;q=0.${String(index % 1000).padStart(3, '0')}`)
    .join(',')
    .slice(0, 15_000);

  it(`is read only as far as its first ${acceptLanguageBounds.elements} elements in ${acceptLanguageBounds.characters} characters`, () => {
    expect(parseAcceptLanguage(long).length).toBeLessThanOrEqual(acceptLanguageBounds.elements);
    const padded = `${Array.from({ length: acceptLanguageBounds.elements }, () => 'xx').join(',')},en`;
    expect(parseAcceptLanguage(padded).map((range) => range.key)).not.toContain('en');
    expect(chosen(padded)).toBe('tr');
  });

  it('still chooses by what it reads', () => {
    expect(chosen(`en, ${long}`)).toBe('en');
  });
});

describe('Accept-Language headers seen before', () => {
  it('are answered the same, and right for any number of distinct headers', () => {
    for (let round = 0; round < 2; round++) {
      for (let index = 0; index < 600; index++) {
        expect(chosen(`en;q=0.${index % 2 === 0 ? 9 : 1}, tr;q=0.5, x-${index}`)).toBe(index % 2 === 0 ? 'en' : 'tr');
      }
    }
  });
});

describe('a holiday lookup that names its language', () => {
  const route = findRoute('/addressmanagement/api/countryholiday/getbycountryid') as Route;
  const turkeyId = '6f3c0c55-41a3-4a37-9b3e-2d2b8f6c1f0a';
  const germanyId = '0b7e5f4c-2f1e-4d6a-8c3b-9a1d2e3f4a5b';
  /** A store holding Türkiye's 2026 holidays in Turkish and English, Germany's in German only (its English names are the German ones). */
  function storeWithLanguages(): { store: BodyStore; finds: string[] } {
    const finds: string[] = [];
    const files = new Set([`${turkeyId}/2026`, `${turkeyId}/en/2026`, `${germanyId}/2026`]);
    const store = {
      manifest: { holidayYears: { first: 2000, last: 2050 }, languages: { [turkeyId]: ['tr', 'en'], [germanyId]: ['de', 'en'] } },
      find: (_path: string, keys: readonly string[]) => {
        finds.push(keys.join('/'));
        return files.has(keys.join('/')) ? lookup(keys.join('/')) : undefined;
      },
    } as unknown as BodyStore;
    return { store, finds };
  }

  it('reads only the body in that language, however the language is written', () => {
    for (const language of ['en', 'EN', 'en-US', 'en_GB']) {
      const { store, finds } = storeWithLanguages();
      const target = findTarget(route, `CountryId=${turkeyId}&Year=2026&language=${language}`, store);
      expect(target.found.file, language).toBe(`${turkeyId}/en/2026`);
      expect(target.language, language).toBe('en');
      expect(finds, language).toEqual([`${turkeyId}/en/2026`]);
    }
  });

  it("reads only the country's own body for its own language", () => {
    const { store, finds } = storeWithLanguages();
    const target = findTarget(route, `CountryId=${turkeyId}&Year=2026&language=tr`, store);
    expect(target).toMatchObject({ found: { file: `${turkeyId}/2026` }, language: 'tr' });
    expect(finds).toEqual([`${turkeyId}/2026`]);
  });

  it("answers the own body, in the language asked, where that language's names are the own ones", () => {
    const { store } = storeWithLanguages();
    expect(findTarget(route, `CountryId=${germanyId}&Year=2026&language=en`, store)).toMatchObject({ found: { file: `${germanyId}/2026` }, language: 'en' });
  });

  it('still refuses a language the country lacks, and answers 404 for a country or year it does not hold', () => {
    const { store } = storeWithLanguages();
    expect(() => findTarget(route, `CountryId=${turkeyId}&Year=2026&language=fr`, store)).toThrow(
      expect.objectContaining({ code: 'ERR_LANGUAGE_UNAVAILABLE' }),
    );
    expect(() => findTarget(route, `CountryId=${turkeyId}&Year=2027&language=en`, store)).toThrow(expect.objectContaining({ code: 'ERR_NOT_FOUND' }));
  });
});

/** Choosing a holiday lookup's language: the language key both sides use, and Accept-Language (RFC 9110 §12.5.4). */
import { describe, expect, it } from 'vitest';
import { languageKey } from '../../contract/keys.ts';
import type { Lookup } from '../../proxy/store/manifestIndex.ts';
import { acceptLanguageBounds, chooseByAcceptLanguage, parseAcceptLanguage } from '../../proxy/http/languages.ts';
import type { LanguageBodies } from '../../proxy/http/targets.ts';

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

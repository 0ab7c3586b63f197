import { describe, expect, it } from 'vitest';
import { foldName, ibanOf, normaliseKey } from '../../contract/keys.ts';
import { collectParams } from '../../proxy/http/query.ts';
import type { ParamKind } from '../../contract/routes.ts';

const keyOf = (kind: ParamKind, raw: string): string | undefined => {
  const result = normaliseKey(kind, raw);
  return result.ok ? result.key : undefined;
};

describe('name keys', () => {
  it('match İSTANBUL, istanbul, Istanbul and İstanbul', () => {
    for (const spelling of ['İSTANBUL', 'istanbul', 'Istanbul', 'İstanbul', 'ISTANBUL', 'ıstanbul']) {
      expect(keyOf('name', spelling), spelling).toBe('istanbul');
    }
  });

  it('match Türkiye, Turkiye and TÜRKİYE', () => {
    for (const spelling of ['Türkiye', 'Turkiye', 'TÜRKİYE', 'TURKIYE', 'türkiye']) expect(keyOf('name', spelling), spelling).toBe('turkiye');
  });

  it('ignore accents and the Turkish letters with cedilla and breve', () => {
    expect(foldName('Çankaya')).toBe(foldName('CANKAYA'));
    expect(foldName('Şişli')).toBe('sisli');
    expect(foldName('Ağrı')).toBe('agri');
    expect(foldName('Kadıköy')).toBe('kadikoy');
    expect(foldName('São Tomé and Príncipe')).toBe('sao-tome-and-principe');
    expect(foldName('Straße')).toBe(foldName('STRASSE'));
    expect(foldName('Åland Islands')).toBe('aland-islands');
    expect(foldName('Øresund')).toBe('oresund');
  });

  it('treat spaces and punctuation alike and drop apostrophes', () => {
    expect(foldName('Guinea-Bissau')).toBe(foldName('guinea bissau'));
    expect(foldName("Côte d'Ivoire")).toBe(foldName('Cote d’Ivoire'));
    expect(foldName("Côte d'Ivoire")).toBe(foldName('COTE DIVOIRE'));
    expect(foldName('  Bosnia   and Herzegovina ')).toBe('bosnia-and-herzegovina');
  });

  it('write letters outside ASCII as code points, so file names stay ASCII', () => {
    expect(foldName('Москва')).toBe('_43c__43e__441__43a__432__430_');
    expect(foldName('МОСКВА')).toBe(foldName('москва'));
  });

  it('refuse names with no letter or digit, and names over 200 characters', () => {
    expect(keyOf('name', ' - ')).toBeUndefined();
    expect(keyOf('name', '')).toBeUndefined();
    expect(keyOf('name', 'a'.repeat(201))).toBeUndefined();
  });

  it('shorten a key too long for a file name to its start and a hash of the whole', () => {
    expect(keyOf('name', '中'.repeat(40))).toBe('_4e2d_'.repeat(40)); // 240 characters: the longest kept whole
    const georgian = 'სამხრეთ ჯორჯია და სამხრეთ სენდვიჩის კუნძულები'; // South Georgia in Georgian (CLDR)
    const key = keyOf('name', georgian) ?? '';
    expect(key).toMatch(/^_10e1__10d0__10db_[a-z0-9_-]+\.[0-9a-f]{26}$/);
    expect(key).toHaveLength(240);
    expect(keyOf('name', georgian.toUpperCase())).toBe(key);
    expect(keyOf('name', `${georgian}ს`)).not.toBe(key); // same start, another name
  });

  it('keep the marks that are letters: Indic vowel signs, viramas, kana voicing marks', () => {
    // Hindi (CLDR): Togo and Tonga differ only in their vowel signs.
    expect(foldName('टोगो')).not.toBe(foldName('टोंगा'));
    expect(foldName('ドイツ')).not.toBe(foldName('トイツ'));
    expect(foldName('ドイツ')).toBe(foldName('ﾄﾞｲﾂ')); // half-width kana fold to full width
    // Accents still go, in Greek and Arabic too.
    expect(foldName('Ελλάδα')).toBe(foldName('ΕΛΛΑΔΑ'));
    expect(foldName('مِصْر')).toBe(foldName('مصر'));
  });
});

describe('other kinds', () => {
  it('uuid: any letter case, braces or none, hyphens or none, to lower case', () => {
    const canonical = '5f0c2d1e-8a4b-4c3d-9e2f-1a2b3c4d5e6f';
    for (const spelling of [canonical, canonical.toUpperCase(), `{${canonical}}`, canonical.replaceAll('-', ''), ` ${canonical} `]) {
      expect(keyOf('uuid', spelling), spelling).toBe(canonical);
    }
    for (const bad of ['5f0c2d1e', `{${canonical}`, `${canonical}0`, 'not-a-uuid', '../../etc/passwd', '']) {
      expect(keyOf('uuid', bad), bad).toBeUndefined();
    }
  });

  it('code: lower-cased, letters and digits only at the start', () => {
    expect(keyOf('code', 'TR')).toBe('tr');
    expect(keyOf('code', 'try')).toBe('try');
    expect(keyOf('code', '010')).toBe('010');
    for (const bad of ['..', '../manifest', 'a/b', '.hidden', 'Ç', '', 'x'.repeat(65)]) expect(keyOf('code', bad), bad).toBeUndefined();
  });

  it('domain: without leading dot, lower case, international names as punycode', () => {
    expect(keyOf('domain', '.COM.TR')).toBe('com.tr');
    expect(keyOf('domain', 'рф')).toBe('xn--p1ai');
    expect(keyOf('domain', '.РФ')).toBe('xn--p1ai');
    for (const bad of ['..', 'a..b', 'a/b', 'a b', '']) expect(keyOf('domain', bad), bad).toBeUndefined();
  });

  it('integer, boolean and year: validated', () => {
    expect(keyOf('integer', '90')).toBe('90');
    expect(keyOf('integer', '+90')).toBe('90');
    expect(keyOf('integer', '090')).toBe('90');
    for (const bad of ['ninety', '9 0', '-1', '1e3', '', '1234567890']) expect(keyOf('integer', bad), bad).toBeUndefined();
    expect(keyOf('boolean', 'TRUE')).toBe('true');
    expect(keyOf('boolean', 'false')).toBe('false');
    for (const bad of ['yes', '1', '']) expect(keyOf('boolean', bad), bad).toBeUndefined();
    expect(keyOf('year', '2024')).toBe('2024');
    for (const bad of ['24', '20245', 'MMXXIV', '']) expect(keyOf('year', bad), bad).toBeUndefined();
  });
});

describe('bank codes and IBANs', () => {
  it('read a numeric bank code with any number of leading zeros as one code', () => {
    for (const code of ['10', '010', '0010', '00010', ' 010 ']) expect(keyOf('bankCode', code), code).toBe('010');
    expect(keyOf('bankCode', '206')).toBe('206');
    expect(keyOf('bankCode', '1234')).toBe('1234');
    expect(keyOf('bankCode', 'ABC')).toBe('abc');
  });

  it('read an IBAN in any spacing and case as its country and bank, after the ISO 13616 checks', () => {
    expect(keyOf('iban', 'TR420001000000000000000001')).toBe('tr-010');
    expect(keyOf('iban', 'tr42 0001 0000 0000 0000 0000 01')).toBe('tr-010');
    expect(keyOf('iban', 'DE89 3704 0044 0532 0130 00')).toBe('de');
    const failure = (raw: string) => {
      const result = normaliseKey('iban', raw);
      return result.ok ? undefined : result.expected;
    };
    expect(failure('TR430001000000000000000001')).toMatch(/mod-97 check; these do not/);
    expect(failure('TR42000100000000000000001')).toMatch(/26 characters, as TR's are; this one has 25/);
    expect(failure('QQ420001000000000000000001')).toMatch(/QQ is no country that uses IBANs/);
    expect(failure('TR4200010')).toMatch(/26 characters/);
    expect(failure('42')).toMatch(/an IBAN such as TR42/);
  });

  it('compute the check digits of an IBAN (ISO 7064 mod 97-10), as published examples have them', () => {
    expect(ibanOf('TR', '0001000000000000000001')).toBe('TR420001000000000000000001');
    expect(ibanOf('DE', '370400440532013000')).toBe('DE89370400440532013000');
    expect(ibanOf('GB', 'WEST12345698765432')).toBe('GB82WEST12345698765432');
  });
});

describe('every key, whatever the input', () => {
  it('is a safe ASCII file name: no slash, no leading dot, no "..", at most 240 characters', () => {
    // A fixed-seed generator over tricky characters: path syntax, controls, marks, scripts, emoji.
    let seed = 20261121;
    const random = (): number => {
      seed = (seed * 1103515245 + 12345) % 2 ** 31;
      return seed / 2 ** 31;
    };
    const alphabet = [...'./\\%\0\n :?#&=~_-aZİıŞçÄ\u0307\u0301Ωж中🙂\u202e'];
    const kinds: ParamKind[] = ['uuid', 'code', 'bankCode', 'iban', 'name', 'domain', 'integer', 'boolean', 'year', 'postalCode'];
    for (let round = 0; round < 5000; round++) {
      const length = Math.floor(random() * 30);
      const raw = Array.from({ length }, () => alphabet[Math.floor(random() * alphabet.length)]).join('');
      for (const kind of kinds) {
        const key = keyOf(kind, raw);
        if (key === undefined) continue;
        expect(key, `${kind} ${JSON.stringify(raw)}`).toMatch(/^[a-z0-9_][a-z0-9._-]{0,239}$/);
        expect(key).not.toContain('..');
      }
    }
  });
});

describe('query parameters', () => {
  it('read every query as URLSearchParams does, names in any letter case, repeats kept', () => {
    const queries = [
      '',
      'id=abc',
      'CountryId=X&Year=2026',
      'countryid=a&COUNTRYID=b',
      'a=b=c&&=x&flag&x=',
      'name=%C4%B0stanbul',
      'name=New+York',
      'name=%zz&bad=%E0%A4%A',
      'a%20b=c',
      ';=1&?=2&#=3',
    ];
    for (const query of queries) {
      const expected = new Map<string, string[]>();
      for (const [name, value] of new URLSearchParams(query)) expected.set(name.toLowerCase(), [...(expected.get(name.toLowerCase()) ?? []), value]);
      expect(collectParams(query), query).toEqual(expected);
    }
  });
});

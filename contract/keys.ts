/**
 * One normalisation per parameter kind, imported by both the generator (to name the files it
 * writes) and the proxy (to find them). A key is what a value becomes: validated, folded, and
 * made of ASCII characters that are safe in a file name on any static host (nginx, S3, a CDN):
 * `[a-z0-9._-]`, never starting with a dot.
 */
import { hash } from 'node:crypto';
import { domainToASCII } from 'node:url';
import { countrySpecs, ValidationErrorsIBAN, validateIBAN } from 'ibantools';
import type { ParamKind } from './routes.ts';

export type KeyResult = { readonly ok: true; readonly key: string } | { readonly ok: false; readonly expected: string };

/** What a well-formed value of each kind looks like, for 400 messages. */
export const expectedForms: Record<ParamKind, string> = {
  uuid: 'a UUID such as 5f0c2d1e-8a4b-4c3d-9e2f-1a2b3c4d5e6f',
  code: "a code of letters and digits (also '.', '_' or '-'), at most 64 characters",
  bankCode: 'a bank code: three digits such as 010 in Türkiye (10, 0010 and 00010, as it stands in an IBAN, are the same)',
  iban: 'an IBAN such as TR42 0001 0000 0000 0000 0000 0001 (spaces and letter case ignored)',
  name: 'a name with at least one letter or digit, at most 200 characters',
  domain: 'a domain name such as com.tr, without the leading dot',
  integer: 'a whole number such as 90',
  boolean: 'true or false',
  year: 'a four-digit year such as 2026',
  postalCode:
    'a postal code such as 34710, 80331, SW1A 1AA or 00-001, as its country writes it: 3 to 10 letters and digits (a UK outward code such as W1 has 2), spaces, hyphens and letter case ignored',
};

const maxNameLength = 200;
/** File names are limited to 255 bytes on common file systems; `.json` needs five. */
const maxKeyLength = 240;
const uuidPattern = /^\{?([0-9a-f]{8})-?([0-9a-f]{4})-?([0-9a-f]{4})-?([0-9a-f]{4})-?([0-9a-f]{12})\}?$/i;
const codePattern = /^[a-z0-9][a-z0-9._-]{0,63}$/;
/** Labels of letters, digits and inner hyphens (RFC 1123), joined by single dots. */
const domainPattern = /^[a-z0-9]([a-z0-9-]*[a-z0-9])?(\.[a-z0-9]([a-z0-9-]*[a-z0-9])?)*$/;
/** What may stand in a domain before IDNA conversion, which would otherwise read `a/b` as host `a`. */
const domainInput = /^[\p{L}\p{N}\p{M}.-]+$/u;

/** Letters NFKD does not decompose into a base letter plus marks. */
const letterFolds: Record<string, string> = {
  ı: 'i',
  ß: 'ss',
  æ: 'ae',
  œ: 'oe',
  ø: 'o',
  đ: 'd',
  ð: 'd',
  þ: 'th',
  ł: 'l',
  ħ: 'h',
  ŧ: 't',
  ŋ: 'n',
  ĸ: 'k',
  ſ: 's',
};
const letterFoldPattern = new RegExp(`[${Object.keys(letterFolds).join('')}]`, 'gu');
/**
 * The marks that are accents, which folding removes: the combining diacritics Latin, Greek and
 * Cyrillic letters decompose into, Hebrew points and Arabic vowel signs (written or left out at
 * will). Every other mark is part of its letter and stays: Indic and Southeast Asian vowel signs
 * (without them टोगो, Togo, and टोंगा, Tonga, were one name), viramas, and the kana voicing marks
 * (ド is not ト).
 */
const accents = /[\u0300-\u036f\u1ab0-\u1aff\u1dc0-\u1dff\u20d0-\u20ff\ufe20-\ufe2f\u0591-\u05c7\u0610-\u061a\u064b-\u065f\u0670\u06d6-\u06ed]/gu;
/**
 * Apostrophes vanish ("Côte d'Ivoire" = "Cote dIvoire"); any other run of what is not a letter, a
 * mark left on one, or a digit is one separator.
 */
const apostrophes = /['’ʼʻ`´‘]/gu;
const separators = /[^\p{L}\p{M}\p{N}]+/gu;

/**
 * Folds a name for case- and accent-insensitive matching, Turkish-aware: `İSTANBUL`, `istanbul`,
 * `Istanbul` and `İstanbul` all become `istanbul`; `Türkiye`, `Turkiye` and `TÜRKİYE` become
 * `turkiye`. Spaces and punctuation fold to one `-`; letters outside ASCII that survive folding
 * (Cyrillic, CJK …) are written as `_<hex code point>_` so the key stays ASCII.
 */
export function foldName(raw: string): string {
  const folded = raw
    .toLowerCase() // İ becomes i + U+0307, removed with the other accents below
    .normalize('NFKD')
    .replace(accents, '')
    .normalize('NFC') // recomposes what is not an accent: Hangul syllables, ド from ト and its voicing mark
    .replace(letterFoldPattern, (letter) => letterFolds[letter] ?? letter)
    .replace(apostrophes, '')
    .replace(separators, '-')
    .replace(/^-+|-+$/g, '');
  let key = '';
  for (const char of folded) {
    key += char <= '\u007f' ? char : `_${char.codePointAt(0)?.toString(16)}_`;
  }
  return key;
}

/**
 * A folded name too long for a file name (a long name in a script written as `_hex_` code points:
 * 41 Georgian letters are 246 characters) as its start and a hash of the whole, 240 characters in
 * all. Folded names hold no `.`, so a shortened key never equals a folded one.
 */
function shortenKey(key: string): string {
  const digest = hash('sha256', key, 'hex').slice(0, 26);
  return `${key.slice(0, maxKeyLength - digest.length - 1)}.${digest}`;
}

/** What a language value looks like, for 400 messages. */
export const languageForm = 'a language tag such as en or tr (any letter case; en-US and en_GB mean en)';

/** A BCP 47 tag, or the `en_US` form python-holidays and POSIX locales write: a primary subtag of 2 or 3 letters, then subtags. */
const languageTagPattern = /^([a-z]{2,3})(?:[-_][a-z0-9]{1,8})*$/i;

/**
 * A language tag's key: its primary subtag in lower case (`EN`, `en-US` and `en_GB` are `en`). The
 * generator names a language's bodies with it and the proxy finds them with it; the service holds
 * one variety of each language, so the region or script a client names cannot choose another.
 */
export function languageKey(raw: string): KeyResult {
  const value = raw.trim();
  const match = value.length <= 35 ? languageTagPattern.exec(value) : null;
  return match?.[1] ? { ok: true, key: match[1].toLowerCase() } : { ok: false, expected: languageForm };
}

/** A UUID as it is written in the files: lower case, with hyphens. */
const canonicalUuid = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

function rejected(kind: ParamKind): KeyResult {
  return { ok: false, expected: expectedForms[kind] };
}

/** Validates and normalises one value of the given kind; the same call names files and finds them. */
export function normaliseKey(kind: ParamKind, raw: string): KeyResult {
  const value = raw.trim();
  switch (kind) {
    case 'uuid': {
      // Most clients send the canonical form: taken as it is, without taking it apart.
      if (canonicalUuid.test(value)) return { ok: true, key: value };
      const match = uuidPattern.exec(value);
      if (!match || value.startsWith('{') !== value.endsWith('}')) return rejected(kind);
      return { ok: true, key: match.slice(1, 6).join('-').toLowerCase() };
    }
    case 'code': {
      const key = value.toLowerCase();
      return codePattern.test(key) ? { ok: true, key } : rejected(kind);
    }
    case 'bankCode': {
      // Digits with or without leading zeros are one code (Ziraat: 10, 010, 0010, 00010); any
      // other code is kept as it is written, so that a lookup of it answers 404, not 400.
      if (/^[0-9]{1,5}$/.test(value)) return { ok: true, key: bankCodeKey(value) };
      return normaliseKey('code', value);
    }
    case 'iban':
      return ibanKey(value);
    case 'name': {
      if (value.length > maxNameLength) return rejected(kind);
      const key = foldName(value);
      if (key.length === 0) return rejected(kind);
      return { ok: true, key: key.length <= maxKeyLength ? key : shortenKey(key) };
    }
    case 'domain': {
      if (!domainInput.test(value)) return rejected(kind);
      const key = domainToASCII(value.replace(/^\.+|\.+$/g, '').toLowerCase());
      return key.length > 0 && key.length <= 253 && domainPattern.test(key) ? { ok: true, key } : rejected(kind);
    }
    case 'integer': {
      if (!/^\+?[0-9]{1,9}$/.test(value)) return rejected(kind);
      return { ok: true, key: String(Number.parseInt(value.replace('+', ''), 10)) };
    }
    case 'boolean': {
      const key = value.toLowerCase();
      return key === 'true' || key === 'false' ? { ok: true, key } : rejected(kind);
    }
    case 'year':
      return /^[0-9]{4}$/.test(value) ? { ok: true, key: value } : rejected(kind);
    case 'postalCode':
      return postalCodeKey(value);
  }
}

/**
 * The forms of a postal code that hold more than the part the service's data holds, by country:
 * GeoNames lists only the United Kingdom's outward code (SW1A), Canada's forward sortation area
 * (H0H) and the Netherlands' four digits (1012), and the United States' five-digit ZIP code. What
 * users type is the whole code, so the whole code finds its part. Each form is recognised by its
 * shape alone, without the country: no other country's codes have these shapes, so a lookup
 * without a country reads them the same way. `typed` is matched against the code in lower case
 * without spaces and hyphens, or as written where a form needs its separator (nine digits are a
 * ZIP+4 code only with it); its first group is the key.
 */
export interface PostalCodeForm {
  /** The ISO 3166-1 alpha-2 codes of the countries whose codes have this form. */
  readonly countries: readonly string[];
  readonly typed: RegExp;
  readonly asWritten?: true;
  /** For the documentation: a whole code and its key's form. */
  readonly example: string;
}
export const postalCodeForms: readonly PostalCodeForm[] = [
  // Also the postcodes of Jersey, Guernsey and the Isle of Man (JE2 4WF), GeoNames' JE, GG and IM.
  { countries: ['GB', 'JE', 'GG', 'IM'], typed: /^([a-z]{1,2}[0-9][a-z0-9]?)[0-9][a-z]{2}$/, example: 'SW1A 1AA → SW1A' },
  { countries: ['CA'], typed: /^([a-z][0-9][a-z])[0-9][a-z][0-9]$/, example: 'H0H 0H0 → H0H' },
  { countries: ['NL'], typed: /^([0-9]{4})[a-z]{2}$/, example: '1012 AB → 1012' },
  { countries: ['US'], typed: /^([0-9]{5})[ -][0-9]{4}$/, asWritten: true, example: '02134-1234 → 02134' },
];

/** A code that Unicode folding leaves as it is: ASCII letters, digits, spaces and hyphens. */
const plainPostalCode = /^[0-9A-Za-z -]*$/;
/** A UK outward code of two characters (W1, E1): the only postal codes shorter than three. */
const shortOutwardCode = /^[a-z][0-9]$/;
/** Hyphens and dashes a keyboard or a word processor may put in a code (Japanese input writes －, ー or −). */
const dashes = /[\u2010-\u2015\u2212\u30fc\uff0d]/gu;
/** Digits of any script (Arabic-Indic ٠١٢, Devanagari ०१२ …): Unicode keeps each script's ten in a row, from 0. */
const digitsOfAnyScript = /\p{Nd}/gu;
const digitPattern = /^\p{Nd}$/u;

/** A digit of any script as its ASCII digit: its place in its script's run of ten. */
function asciiDigit(digit: string): string {
  let codePoint = digit.codePointAt(0) ?? 48;
  let place = 0;
  while (digitPattern.test(String.fromCodePoint(codePoint - 1))) {
    codePoint -= 1;
    place += 1;
  }
  return String(place % 10);
}

/**
 * A postal code's key: the code in lower case without spaces and hyphens (`SW1A 1AA` and `sw1a1aa`
 * are one), the whole forms of postalCodeForms cut to the part the data holds, leading zeros kept
 * (02134 is not 2134: a code is a string). Full-width letters and digits (what Japanese input
 * writes) and digits of other scripts are read as ASCII; any other letter outside A–Z is refused,
 * as no postal code has one, so a key is always ASCII.
 */
export function postalCodeKey(raw: string): KeyResult {
  if (raw.length > 20) return rejected('postalCode');
  // Letters, digits, spaces and hyphens of ASCII (nearly every code) need no Unicode folding.
  const written = plainPostalCode.test(raw)
    ? raw.replace(/ +/g, ' ').trim()
    : raw
        .normalize('NFKC')
        .replace(dashes, '-')
        .replace(digitsOfAnyScript, (digit) => (digit <= '9' ? digit : asciiDigit(digit)))
        .replace(/\s+/g, ' ')
        .trim();
  const compact = written.replace(/[ -]/g, '').toLowerCase();
  let key = compact;
  for (const { typed, asWritten } of postalCodeForms) {
    const part = typed.exec(asWritten ? written : compact)?.[1];
    if (part !== undefined) key = part.toLowerCase();
  }
  return /^[a-z0-9]{3,10}$/.test(key) || shortOutwardCode.test(key) ? { ok: true, key } : rejected('postalCode');
}

/** A numeric bank code as the files name it: at least three digits, the leading zeros beyond them dropped. */
function bankCodeKey(digits: string): string {
  return (digits.replace(/^0+/, '') || '0').padStart(3, '0');
}

/**
 * Where an IBAN carries the bank's code, by country, as [first, last] positions of its BBAN (the
 * part after the country and check digits), for the countries whose banks the service holds:
 * Türkiye's IBAN is TR, two check digits, the bank's five-digit EFT code, a reserved 0 and the
 * 16-character account (TCMB's IBAN format, BDDK regulation of 2009).
 */
export const ibanBankCodes: Readonly<Record<string, readonly [number, number]>> = { TR: [0, 4] };

/** The key a bank has for the IBAN lookup: its country's alpha-2 code and its code (`tr-010`). */
export function ibanBankKey(alpha2Code: string, bankCode: string): KeyResult {
  const code = normaliseKey('bankCode', bankCode);
  return code.ok ? { ok: true, key: `${alpha2Code.toLowerCase()}-${code.key}` } : code;
}

/**
 * An IBAN's key, after the checks ISO 13616 defines, each failure saying what is wrong: the
 * country's bank and its code (`tr-010`) where the service holds that country's banks, else the
 * country alone (`de`), which no bank has, so the lookup answers a 404 naming the country.
 */
function ibanKey(raw: string): KeyResult {
  const iban = raw.replace(/[\s-]+/g, '').toUpperCase();
  if (!/^[A-Z]{2}[0-9A-Z]{2}[0-9A-Z]{1,30}$/.test(iban)) return { ok: false, expected: expectedForms.iban };
  const country = iban.slice(0, 2);
  const { errorCodes } = validateIBAN(iban);
  const spec = countrySpecs[country];
  if (errorCodes.includes(ValidationErrorsIBAN.NoIBANCountry)) {
    return { ok: false, expected: `an IBAN: ${country} is no country that uses IBANs (the first two letters are its ISO 3166-1 code, such as TR)` };
  }
  if (errorCodes.includes(ValidationErrorsIBAN.WrongBBANLength)) {
    return { ok: false, expected: `an IBAN of ${spec?.chars} characters, as ${country}'s are; this one has ${iban.length}` };
  }
  if (errorCodes.includes(ValidationErrorsIBAN.WrongBBANFormat) || errorCodes.includes(ValidationErrorsIBAN.ChecksumNotNumber)) {
    return {
      ok: false,
      expected: `an IBAN in ${country}'s format: ${country}, two check digits, then the account in the form the ISO 13616 registry gives ${country}`,
    };
  }
  if (errorCodes.length > 0) {
    return {
      ok: false,
      expected: 'an IBAN whose check digits (the 3rd and 4th characters) pass the ISO 13616 mod-97 check; these do not, so a character is mistyped',
    };
  }
  const at = ibanBankCodes[country];
  return at === undefined ? { ok: true, key: country.toLowerCase() } : ibanBankKey(country, iban.slice(4 + at[0], 4 + at[1] + 1));
}

/**
 * An IBAN of a bank, account number 1, for the countries of ibanBankCodes (a bank's key for the IBAN
 * lookup is read from it as a client's IBAN is, and the API's examples show it): Türkiye's BBAN is
 * the five-digit bank code, the reserved 0 and a 16-digit account.
 */
export function exampleIbanOf(alpha2Code: string, bankCode: string): string | undefined {
  if (alpha2Code !== 'TR' || !/^[0-9]{1,5}$/.test(bankCode)) return undefined;
  return ibanOf(alpha2Code, `${bankCode.padStart(5, '0')}0${'1'.padStart(16, '0')}`);
}

/** A well-formed IBAN of `country` whose account part is `bban`: its check digits computed (ISO 13616, ISO 7064 mod 97-10). */
export function ibanOf(country: string, bban: string): string {
  const digits = `${bban}${country}00`.replace(/[A-Z]/g, (letter) => String(letter.charCodeAt(0) - 55));
  let remainder = 0;
  for (const digit of digits) remainder = (remainder * 10 + Number(digit)) % 97;
  return `${country}${String(98 - remainder).padStart(2, '0')}${bban}`;
}

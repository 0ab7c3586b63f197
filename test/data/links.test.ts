/**
 * The imported banks, languages, time zones, web domains and the country links to them (and to
 * currencies), as `npm run data:import` wrote them in data/records, and the importer's promise
 * that re-importing unchanged sources changes no file.
 */
import { readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { z } from 'zod';
import { check as banksCheck, sameBankName } from '../../generator/check/banks.ts';
import { check as timeZonesCheck } from '../../generator/check/timeZones.ts';
import { toApiBankCode } from '../../generator/import/finance/banks.ts';
import { loadLegalTender } from '../../generator/import/finance/currencyLinks.ts';
import { ImportError } from '../../generator/import/shared/importError.ts';
import { loadLanguageDescriber, type LanguageFacts } from '../../generator/import/countries/languages.ts';
import { importReferenceData } from '../../generator/import/main.ts';
import { formatRecords } from '../../generator/import/shared/recordsFile.ts';
import { toAsciiDomain } from '../../generator/import/countries/webDomains.ts';
import {
  bankSchema,
  countryCurrencySchema,
  countryLanguageSchema,
  countrySchema,
  countryTimeZoneSchema,
  countryTopLevelWebDomainSchema,
  currencySchema,
  languageSchema,
  timeZoneSchema,
  webDomainSchema,
  type Country,
} from '../../generator/records/schemas.ts';
import { copyData, dataDir, readRecordFile, readValidated, removeCopies, uuidV4 } from '../support/data.ts';

const linkTypes = ['bank', 'countryCurrency', 'language', 'countryLanguage', 'timeZone', 'countryTimeZone', 'webDomain', 'countryTopLevelWebDomain'] as const;
const collator = new Intl.Collator('en');

afterAll(removeCopies);

let countries: Country[];
let banks: z.infer<typeof bankSchema>[];
let currencies: z.infer<typeof currencySchema>[];
let countryCurrencies: z.infer<typeof countryCurrencySchema>[];
let languages: z.infer<typeof languageSchema>[];
let countryLanguages: z.infer<typeof countryLanguageSchema>[];
let timeZones: z.infer<typeof timeZoneSchema>[];
let countryTimeZones: z.infer<typeof countryTimeZoneSchema>[];
let webDomains: z.infer<typeof webDomainSchema>[];
let countryWebDomains: z.infer<typeof countryTopLevelWebDomainSchema>[];

beforeAll(async () => {
  countries = await readValidated('country', countrySchema);
  currencies = await readValidated('currency', currencySchema);
  banks = await readValidated('bank', bankSchema);
  countryCurrencies = await readValidated('countryCurrency', countryCurrencySchema);
  languages = await readValidated('language', languageSchema);
  countryLanguages = await readValidated('countryLanguage', countryLanguageSchema);
  timeZones = await readValidated('timeZone', timeZoneSchema);
  countryTimeZones = await readValidated('countryTimeZone', countryTimeZoneSchema);
  webDomains = await readValidated('webDomain', webDomainSchema);
  countryWebDomains = await readValidated('countryTopLevelWebDomain', countryTopLevelWebDomainSchema);
});

function country(alpha2Code: string): Country {
  const found = countries.find((candidate) => candidate.alpha2Code === alpha2Code);
  if (!found) throw new Error(`no country ${alpha2Code}`);
  return found;
}

function byId<Item extends { id: string }>(items: readonly Item[], id: string): Item {
  const found = items.find((item) => item.id === id);
  if (!found) throw new Error(`no record with id ${id}`);
  return found;
}

function expectReferencesExist(links: readonly { countryId: string }[], field: string, targetIds: ReadonlySet<string>): void {
  const countryIds = new Set(countries.map((record) => record.id));
  for (const link of links) {
    expect(countryIds.has(link.countryId), `country ${link.countryId}`).toBe(true);
    const target = (link as Record<string, unknown>)[field];
    expect(targetIds.has(String(target)), `${field} ${String(target)}`).toBe(true);
  }
}

/** Links listed by country name, then by the linked record's sort key. */
function expectCountryOrder<Link extends { countryId: string }>(
  links: readonly Link[],
  keyOf: (link: Link) => string,
  compare: (a: string, b: string) => number,
): void {
  const nameOf = new Map(countries.map((record) => [record.id, record.name]));
  for (let index = 1; index < links.length; index += 1) {
    const before = links[index - 1];
    const after = links[index];
    if (!before || !after) continue;
    const byCountry = collator.compare(nameOf.get(before.countryId) ?? '', nameOf.get(after.countryId) ?? '');
    expect(byCountry <= 0, `${nameOf.get(before.countryId)} before ${nameOf.get(after.countryId)}`).toBe(true);
    if (before.countryId === after.countryId) expect(compare(keyOf(before), keyOf(after)), `${keyOf(before)} before ${keyOf(after)}`).toBeLessThan(0);
  }
}

function linkedTo<Link extends { countryId: string }>(links: readonly Link[], alpha2Code: string): Link[] {
  return links.filter((link) => link.countryId === country(alpha2Code).id);
}

describe('banks (data/curated/banks.json)', () => {
  it('are at least 40 Turkish banks with unique three-digit codes, in code order', () => {
    expect(banks.length).toBeGreaterThanOrEqual(40);
    const codes = banks.map((bank) => bank.code);
    for (const code of codes) expect(code).toMatch(/^\d{3}$/);
    expect(new Set(codes).size).toBe(codes.length);
    expect(codes).toEqual([...codes].sort());
    for (const bank of banks) expect(bank.countryId, bank.name).toBe(country('TR').id);
  });

  it('Ziraat Bankası is 010 and Kuveyt Türk 205', () => {
    expect(banks.find((bank) => bank.code === '010')?.name).toBe('Türkiye Cumhuriyeti Ziraat Bankası A.Ş.');
    expect(banks.find((bank) => bank.code === '205')?.name).toBe('Kuveyt Türk Katılım Bankası A.Ş.');
  });

  it('codes drop the leading zero of the four-digit TCMB code, and a code of 1000 or more is refused', () => {
    expect(toApiBankCode('0010')).toBe('010');
    expect(toApiBankCode('0205')).toBe('205');
    expect(toApiBankCode('0004')).toBe('004');
    expect(toApiBankCode('1000')).toBeUndefined();
  });

  it('are the TCMB payment-system participants: Bank Mellat (094) and Habib Bank (097), which no TCMB list shows, are not served; Golden Global (150) and İktisat Katılım (216) are', () => {
    const codes = new Set(banks.map((bank) => bank.code));
    expect(codes.has('094')).toBe(false);
    expect(codes.has('097')).toBe(false);
    expect(banks.find((bank) => bank.code === '150')?.name).toBe('Golden Global Yatırım Bankası A.Ş.');
    expect(banks.find((bank) => bank.code === '216')?.name).toBe('İktisat Katılım Bankası A.Ş.');
  });

  it("names agree across TCMB's shortened words and legal forms, but not across a rename", () => {
    expect(sameBankName('Türkiye Cumhuriyeti Ziraat Bankası A.Ş.', 'T.C. ZİRAAT BANKASI A.Ş.')).toBe(true);
    expect(sameBankName('BankPozitif Kredi ve Kalkınma Bankası A.Ş.', 'BANKPOZİTİF KREDİ VE KALK.BANK.A.Ş.')).toBe(true);
    expect(sameBankName('Türkiye Vakıflar Bankası T.A.O.', 'T. VAKIFLAR BANKASI T.A.O.')).toBe(true);
    expect(sameBankName('Société Générale (SA)', 'SOCIETE GENERALE (SA)')).toBe(true);
    expect(sameBankName('Hayat Finans Katılım Bankası A.Ş.', 'HAYAT FİNANS KATILIM BANKASI')).toBe(true);
    expect(sameBankName('QNB Bank A.Ş.', 'QNB FİNANSBANK A.Ş.')).toBe(false);
    expect(sameBankName('Türkiye Kalkınma ve Yatırım Bankası A.Ş.', 'T. KALKINMA BANKASI A.Ş.')).toBe(false);
    expect(sameBankName('Pasha Yatırım Bankası A.Ş.', 'PASHA YATIRIM BANK A.Ş.')).toBe(false);
  });

  it('the banks check reports a mistyped code on both sides and a misspelt name, keyed by code', async () => {
    const changed = banks.map((bank) => (bank.code === '010' ? { ...bank, code: '011' } : bank.code === '046' ? { ...bank, name: 'Akbak T.A.Ş.' } : bank));
    const report = await banksCheck.run(new Map([['bank', changed]]), dataDir);
    expect(report.disagreements).toContainEqual({ key: '011', ours: 'Türkiye Cumhuriyeti Ziraat Bankası A.Ş.', theirs: 'absent' });
    expect(report.disagreements).toContainEqual({ key: '010', ours: 'absent', theirs: 'T.C. ZİRAAT BANKASI A.Ş. (bank)' });
    expect(report.disagreements).toContainEqual({ key: '046 name', ours: 'Akbak T.A.Ş.', theirs: 'AKBANK T.A.Ş.' });
    expect(report.figures.codesEqual).toBeLessThan((await banksCheck.run(new Map([['bank', banks]]), dataDir)).figures.codesEqual ?? 0);
  });
});

describe('country currencies (CLDR legal tender)', () => {
  it('point at existing countries and currency codes, upper case, each pair once', () => {
    expectReferencesExist(countryCurrencies, 'currencyCode', new Set(currencies.map((currency) => currency.code)));
    for (const link of countryCurrencies) expect(link.currencyCode).toMatch(/^[A-Z]{3}$/);
    const pairs = countryCurrencies.map((link) => `${link.countryId} ${link.currencyCode}`);
    expect(new Set(pairs).size).toBe(pairs.length);
  });

  it('Türkiye has the Turkish lira and nothing else', () => {
    expect(linkedTo(countryCurrencies, 'TR').map((link) => link.currencyCode)).toEqual(['TRY']);
  });

  it('every country with legal tender in CLDR has exactly those currencies; Antarctica has none', async () => {
    const tender = await loadLegalTender();
    const known = new Set(currencies.map((currency) => currency.code));
    for (const record of countries) {
      const expected = (tender.get(record.alpha2Code) ?? []).filter((code) => known.has(code));
      const linked = linkedTo(countryCurrencies, record.alpha2Code).map((link) => link.currencyCode);
      expect(linked, record.alpha2Code).toEqual(expected);
      if ((tender.get(record.alpha2Code) ?? []).length > 0) expect(linked.length, record.alpha2Code).toBeGreaterThan(0);
    }
    expect(linkedTo(countryCurrencies, 'AQ')).toEqual([]);
    expect(linkedTo(countryCurrencies, 'PA').map((link) => link.currencyCode)).toEqual(['PAB', 'USD']);
  });
});

describe('languages and country languages (CLDR)', () => {
  function language(seoCode: string) {
    const found = languages.find((record) => record.uniqueSeoCode === seoCode);
    if (!found) throw new Error(`no language ${seoCode}`);
    return found;
  }

  it('Turkish is tr-TR, "tr", left to right, and the one language of Türkiye', () => {
    expect(language('tr')).toMatchObject({ name: 'Turkish', languageCulture: 'tr-TR', uniqueSeoCode: 'tr', rtl: false });
    expect(linkedTo(countryLanguages, 'TR').map((link) => byId(languages, link.languageId).uniqueSeoCode)).toEqual(['tr']);
  });

  it('Arabic, Hebrew, Persian and Urdu are right to left; English is not', () => {
    expect(language('ar')).toMatchObject({ name: 'Arabic', languageCulture: 'ar-EG', rtl: true });
    expect(language('he')).toMatchObject({ languageCulture: 'he-IL', rtl: true });
    expect(language('fa')).toMatchObject({ languageCulture: 'fa-IR', rtl: true });
    expect(language('ur')).toMatchObject({ languageCulture: 'ur-PK', rtl: true });
    expect(language('dv')).toMatchObject({ name: 'Divehi', rtl: true });
    expect(language('ps')).toMatchObject({ name: 'Pashto', rtl: true });
    expect(language('en')).toMatchObject({ name: 'English', languageCulture: 'en-US', rtl: false });
  });

  it('right to left follows the likely script also for languages no country has as official (Sindhi, Yiddish)', async () => {
    const facts: (code: string) => LanguageFacts | undefined = await loadLanguageDescriber();
    expect(facts('sd')).toMatchObject({ name: 'Sindhi', languageCulture: 'sd-PK', rtl: true });
    expect(facts('yi')).toMatchObject({ name: 'Yiddish', rtl: true });
    expect(facts('sd_Deva')).toMatchObject({ languageCulture: 'sd-Deva-IN', rtl: false });
    expect(facts('tr')?.rtl).toBe(false);
  });

  it('script variants are languages of their own, with the script in the culture tag', () => {
    expect(language('sr-Latn')).toMatchObject({ name: 'Serbian (Latin)', languageCulture: 'sr-Latn-RS', rtl: false });
    expect(language('sr')).toMatchObject({ name: 'Serbian', languageCulture: 'sr-RS' });
    expect(language('zh-Hant')).toMatchObject({ name: 'Traditional Chinese', languageCulture: 'zh-Hant-TW' });
    expect(language('ms-Arab').rtl).toBe(true);
    const serbia = linkedTo(countryLanguages, 'RS').map((link) => byId(languages, link.languageId).uniqueSeoCode);
    expect(serbia).toEqual(['sr', 'sr-Latn']);
  });

  it('only country-wide official and de facto languages: Spanish for Spain, not Catalan; Swiss German for Switzerland', () => {
    const of = (alpha2Code: string) => linkedTo(countryLanguages, alpha2Code).map((link) => byId(languages, link.languageId).uniqueSeoCode);
    expect(of('ES')).toEqual(['es']);
    expect(of('CH')).toEqual(['fr', 'de', 'it', 'gsw']);
    expect(of('US')).toEqual(['en']);
  });

  it('are one record per code, unique culture tags, in English name order; links point at existing records', () => {
    const seoCodes = languages.map((record) => record.uniqueSeoCode);
    expect(new Set(seoCodes).size).toBe(seoCodes.length);
    expect(new Set(languages.map((record) => record.languageCulture)).size).toBe(languages.length);
    const names = languages.map((record) => record.name);
    expect(names).toEqual([...names].sort(collator.compare));
    expectReferencesExist(countryLanguages, 'languageId', new Set(languages.map((record) => record.id)));
    expectCountryOrder(countryLanguages, (link) => byId(languages, link.languageId).name, collator.compare);
  });
});

describe('time zones and country time zones (countries-and-timezones, IANA tzdb)', () => {
  function zone(name: string) {
    const found = timeZones.find((record) => record.name === name);
    if (!found) throw new Error(`no time zone ${name}`);
    return found;
  }

  it('Türkiye is in Europe/Istanbul, +03:00', () => {
    expect(zone('Europe/Istanbul').utcOffset).toBe('+03:00');
    expect(linkedTo(countryTimeZones, 'TR').map((link) => byId(timeZones, link.timeZoneId).name)).toEqual(['Europe/Istanbul']);
  });

  it('utcOffset is the standard offset, not the summer one', () => {
    expect(zone('America/New_York').utcOffset).toBe('-05:00');
    expect(zone('Europe/London').utcOffset).toBe('+00:00');
    expect(zone('Asia/Kathmandu').utcOffset).toBe('+05:45');
    expect(zone('Australia/Adelaide').utcOffset).toBe('+09:30');
  });

  it('utcOffset is tzdata 2026f standard time: Canada’s 2026 moves to permanent time, Morocco’s return to +00, Almaty’s 2024 move', () => {
    // British Columbia (2026b), Alberta (2026c), the Northwest Territories and Manitoba (2026d/e)
    // stopped changing clocks; Node 20's own tzdata (2025c) still says -08, -07, -07 and -06.
    expect(zone('America/Vancouver').utcOffset).toBe('-07:00');
    expect(zone('America/Edmonton').utcOffset).toBe('-06:00');
    expect(zone('America/Inuvik').utcOffset).toBe('-06:00');
    expect(zone('America/Winnipeg').utcOffset).toBe('-05:00');
    expect(zone('Africa/Casablanca').utcOffset).toBe('+00:00');
    expect(zone('Asia/Almaty').utcOffset).toBe('+05:00');
    expect(zone('America/Mexico_City').utcOffset).toBe('-06:00');
    expect(zone('America/Ciudad_Juarez').utcOffset).toBe('-07:00');
    expect(zone('America/Toronto').utcOffset).toBe('-05:00');
    expect(zone('Europe/Istanbul').utcOffset).toBe('+03:00');
  });

  it('Europe/Dublin is +00:00: winter GMT, not the Irish Standard Time (+01:00) tzdata’s main form calls standard', () => {
    expect(zone('Europe/Dublin').utcOffset).toBe('+00:00');
    expect(zone('Europe/London').utcOffset).toBe(zone('Europe/Dublin').utcOffset);
  });

  it('the timeZones check reports a zone whose offset differs from Debian tzdata, keyed by zone name', async () => {
    const stale = timeZones.map((record) => (record.name === 'America/Vancouver' ? { ...record, utcOffset: '-08:00' } : record));
    const report = await timeZonesCheck.run(new Map([['timeZone', stale]]), dataDir);
    expect(report.disagreements).toEqual([{ key: 'America/Vancouver', ours: '-08:00', theirs: '-07:00' }]);
    expect(report.figures).toMatchObject({ zonesCompared: timeZones.length, zonesEqual: timeZones.length - 1 });
  });

  it('every country has at least one time zone; the uninhabited BV and HM from the curated file', () => {
    for (const record of countries) expect(linkedTo(countryTimeZones, record.alpha2Code).length, record.alpha2Code).toBeGreaterThan(0);
    expect(linkedTo(countryTimeZones, 'BV').map((link) => byId(timeZones, link.timeZoneId).name)).toEqual(['Etc/GMT-1']);
    expect(linkedTo(countryTimeZones, 'HM').map((link) => byId(timeZones, link.timeZoneId).name)).toEqual(['Indian/Maldives']);
    expect(linkedTo(countryTimeZones, 'AQ').length).toBeGreaterThan(5);
  });

  it('are canonical zones only, each linked to a country, by name; deprecated names are not records', () => {
    const names = timeZones.map((record) => record.name);
    expect(names).toEqual([...names].sort());
    expect(new Set(names).size).toBe(names.length);
    for (const deprecated of ['Asia/Istanbul', 'Turkey', 'Europe/Kiev', 'Asia/Calcutta', 'US/Eastern']) expect(names, deprecated).not.toContain(deprecated);
    const linked = new Set(countryTimeZones.map((link) => link.timeZoneId));
    for (const record of timeZones) expect(linked.has(record.id), record.name).toBe(true);
    expectReferencesExist(countryTimeZones, 'timeZoneId', new Set(timeZones.map((record) => record.id)));
    expectCountryOrder(
      countryTimeZones,
      (link) => byId(timeZones, link.timeZoneId).name,
      (a, b) => (a < b ? -1 : a > b ? 1 : 0),
    );
  });
});

describe('web domains and country top-level web domains (tlds, Public Suffix List, world-countries)', () => {
  function domain(name: string) {
    return webDomains.find((record) => record.name === name);
  }

  it('are at least 1,400 IANA top-level domains, internationalised ones in punycode', () => {
    expect(webDomains.filter((record) => record.isTopLevel).length).toBeGreaterThanOrEqual(1400);
    expect(domain('tr')?.isTopLevel).toBe(true);
    expect(domain('com')?.isTopLevel).toBe(true);
    expect(domain('xn--p1ai')?.isTopLevel).toBe(true);
    expect(toAsciiDomain('рф')).toBe('xn--p1ai');
  });

  it('add the ICANN second-level public suffixes, not top level: com.tr, co.uk; no private ones', () => {
    expect(domain('com.tr')?.isTopLevel).toBe(false);
    expect(domain('co.uk')?.isTopLevel).toBe(false);
    for (const privateSuffix of ['github.io', 'blogspot.com', 'co.krd']) expect(domain(privateSuffix), privateSuffix).toBeUndefined();
    const topLevel = new Set(webDomains.filter((record) => record.isTopLevel).map((record) => record.name));
    for (const record of webDomains.filter((candidate) => !candidate.isTopLevel)) {
      const labels = record.name.split('.');
      expect(labels.length, record.name).toBe(2);
      expect(topLevel.has(labels[1] ?? ''), record.name).toBe(true);
    }
  });

  it('are unique lower-case ASCII names without a leading dot, in code-point order', () => {
    const names = webDomains.map((record) => record.name);
    expect(new Set(names).size).toBe(names.length);
    for (const name of names) expect(name).toMatch(/^[a-z0-9-]+(\.[a-z0-9-]+)*$/);
    expect(names).toEqual([...names].sort());
  });

  it('link each country to its ccTLDs: Türkiye tr, Russia ru, su and рф, the UAE its Arabic-script TLD too', () => {
    const of = (alpha2Code: string) => linkedTo(countryWebDomains, alpha2Code).map((link) => byId(webDomains, link.webDomainId).name);
    expect(of('TR')).toEqual(['tr']);
    expect(of('RU')).toEqual(['ru', 'su', 'xn--p1ai']);
    expect(of('AE')).toEqual(['ae', 'xn--mgbaam7a8h']);
    expect(toAsciiDomain('امارات.')).toBe('xn--mgbaam7a8h');
  });

  it('leave out the generic TLDs world-countries lists as ccTLDs (みんな for Japan, 公司 and 网络 for China)', () => {
    const of = (alpha2Code: string) => linkedTo(countryWebDomains, alpha2Code).map((link) => byId(webDomains, link.webDomainId).name);
    expect(of('JP')).toEqual(['jp']);
    expect(of('CN')).toEqual(['cn', 'xn--fiqs8s', 'xn--fiqz9s']);
  });

  it('links point at existing top-level domains, by country name then domain', () => {
    expectReferencesExist(countryWebDomains, 'webDomainId', new Set(webDomains.filter((record) => record.isTopLevel).map((record) => record.id)));
    expectCountryOrder(
      countryWebDomains,
      (link) => byId(webDomains, link.webDomainId).name,
      (a, b) => (a < b ? -1 : a > b ? 1 : 0),
    );
  });
});

describe('record files', () => {
  it('ids are unique lower-case UUID v4s across every file here', () => {
    const ids = [banks, countryCurrencies, languages, countryLanguages, timeZones, countryTimeZones, webDomains, countryWebDomains]
      .flat()
      .map((record) => record.id);
    for (const id of ids) expect(id).toMatch(uuidV4);
    expect(new Set(ids).size).toBe(ids.length);
  });

  it('hold one record per line', async () => {
    for (const recordType of linkTypes) {
      const text = await readRecordFile(dataDir, recordType);
      expect(text, recordType).toBe(formatRecords(JSON.parse(text) as object[]));
    }
  });
});

describe('re-import', () => {
  // The whole import runs first (the world's addresses take most of a minute), then the banks are judged.
  it('refuses a curated bank that cites no listed source, or whose code does not fit three digits', { timeout: 180_000 }, async () => {
    const copy = await copyData();
    const banksFile = path.join(copy, 'curated', 'banks.json');
    const curated = JSON.parse(await readFile(banksFile, 'utf8')) as { banks: { code: string; sources: string[] }[] };
    const [first, second] = curated.banks;
    if (!first || !second) throw new Error('banks.json has fewer than two banks');
    first.sources = ['nowhere'];
    second.code = '1234';
    await writeFile(banksFile, JSON.stringify(curated));

    const failure = await importReferenceData(copy).catch((error: unknown) => error);
    expect(failure).toBeInstanceOf(ImportError);
    expect((failure as ImportError).message).toContain('cites unknown source "nowhere"');
    expect((failure as ImportError).message).toContain('1234');
    expect(await readRecordFile(copy, 'bank')).toBe(await readRecordFile(dataDir, 'bank'));
  });
});

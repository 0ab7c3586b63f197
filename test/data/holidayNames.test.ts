/**
 * The English names of the holiday and special-day records: python-holidays' own,
 * paired name by name in the snapshot (holidays_snapshot.py, Pairing), and Türkiye's curated ones.
 * What matters most is that an English name belongs to its own day: python-holidays joins the
 * names of one date sorted in each language's alphabet, and pairing them by position gave 1,438
 * wrong names in 86 countries.
 */
import { readdir, readFile } from 'node:fs/promises';
import path from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { loadHolidayCorrections } from '../../generator/import/holidays/holidayCorrections.ts';
import { readSnapshot, type PythonHolidaysSnapshot } from '../../generator/import/holidays/pythonHolidays.ts';
import { buildSettingsSchema, countrySpecialDaySchema, countrySchema } from '../../generator/records/schemas.ts';
import { dataDir, recordsDir } from '../support/data.ts';

type CountryDay = z.infer<typeof countrySpecialDaySchema>;

/** Every record of both types, by the country's alpha-2 code. */
const byCountry = new Map<string, CountryDay[]>();
let snapshot: PythonHolidaysSnapshot;

beforeAll(async () => {
  const countries = z.array(countrySchema).parse(JSON.parse(await readFile(path.join(recordsDir, 'country.json'), 'utf8')));
  const alpha2Of = new Map(countries.map((country) => [country.id, country.alpha2Code]));
  for (const recordType of ['countryHoliday', 'countrySpecialDay']) {
    const directory = path.join(recordsDir, recordType);
    for (const file of (await readdir(directory)).filter((name) => name.endsWith('.json'))) {
      for (const record of z.array(countrySpecialDaySchema).parse(JSON.parse(await readFile(path.join(directory, file), 'utf8')))) {
        const alpha2Code = alpha2Of.get(record.countryId) ?? record.countryId;
        byCountry.set(alpha2Code, [...(byCountry.get(alpha2Code) ?? []), record]);
      }
    }
  }
  const window = buildSettingsSchema.parse(JSON.parse(await readFile(path.join(dataDir, 'build.json'), 'utf8'))).holidayYears;
  snapshot = await readSnapshot(dataDir, window);
});

const englishOf = (record: CountryDay): string | undefined => Object.values(record.translations ?? {})[0];
/** The English names of a country's records on one day, by their own names. */
function namesOn(alpha2Code: string, day: string): Record<string, string | undefined> {
  const records = (byCountry.get(alpha2Code) ?? []).filter((record) => record.startDate.startsWith(day));
  return Object.fromEntries(records.map((record) => [record.summary, englishOf(record)]));
}

describe('English names of holidays and special days', () => {
  it('every record of a country not named in English has its English name, but four days added by corrections', () => {
    const records = [...byCountry.values()].flat();
    const missing = records.filter((record) => !record.language.startsWith('en') && record.translations === undefined);
    expect(missing.map((record) => record.summary).sort()).toEqual([
      'Clasificación de la Selección Paraguaya al Mundial 2026',
      'Idy Be',
      'Idy Be',
      'Reconocimiento al histórico triunfo de la Selección Paraguaya',
    ]);
    expect(records.filter((record) => record.translations !== undefined).length).toBe(143_111);
    // A country named in English has no English names beside its own.
    expect(records.filter((record) => record.language.startsWith('en') && record.translations !== undefined)).toEqual([]);
  });

  it('gives a country one English variety, and each of its names one English name', () => {
    for (const [alpha2Code, records] of byCountry) {
      expect(new Set(records.flatMap((record) => Object.keys(record.translations ?? {}))).size, alpha2Code).toBeLessThanOrEqual(1);
      expect(new Set(records.map((record) => record.language)).size, alpha2Code).toBe(1);
      const english = new Map<string, Set<string | undefined>>();
      for (const record of records) english.set(record.summary, (english.get(record.summary) ?? new Set()).add(englishOf(record)));
      expect(
        [...english].filter(([, names]) => names.size > 1).map(([name]) => name),
        alpha2Code,
      ).toEqual([]);
    }
  });

  it('pairs the names of one date each with its own day, where pairing by position did not', () => {
    // Mongolia 2024-09-14: two working-day periods; by position, each had the other's English name.
    expect(namesOn('MN', '2024-09-14')).toEqual({
      'Шинэ ургацын өдрүүд': 'New Harvest Days',
      'Үндэсний бичиг соёл, номын өдрүүд': 'National Literary, Cultural and Book Days',
    });
    // Norway 2007-05-17: Constitution Day and Ascension Day on one date.
    expect(namesOn('NO', '2007-05-17')).toEqual({ Grunnlovsdag: 'Constitution Day', 'Kristi himmelfartsdag': 'Ascension Day' });
    // Azerbaijan 2026-03-25: python-holidays' own calendars name this date after Novruz in Azerbaijani
    // and after Eid al-Fitr in English (its observed-day rule reads the sorted names); the record
    // is Novruz's, and so is its English name.
    expect(namesOn('AZ', '2026-03-25')).toEqual({ 'Novruz bayramı (müşahidə olunur)': 'Spring Festival (observed)' });
  });

  it('takes the local English where python-holidays has it: Hong Kong’s Tuen Ng Festival, Macau’s Lunar New Year', () => {
    expect(Object.keys(byCountry.get('HK')?.[0]?.translations ?? {})).toEqual(['en-HK']);
    expect(Object.values(namesOn('HK', '2024-06-10'))).toContain('Tuen Ng Festival');
    expect(Object.values(namesOn('MO', '2024-02-10'))).toContain("Lunar New Year's Day");
  });

  it('names Türkiye’s days in English every year: 29 October is Republic Day, its eve Republic Day (from 1pm)', () => {
    const turkey = byCountry.get('TR') ?? [];
    const republicDays = turkey.filter((record) => record.summary === 'Cumhuriyet Bayramı');
    expect(republicDays.length).toBe(51);
    expect(republicDays.every((record) => record.startDate.slice(5, 10) === '10-29')).toBe(true);
    expect(new Set(republicDays.map(englishOf))).toEqual(new Set(['Republic Day']));
    const eves = turkey.filter((record) => record.summary === 'Cumhuriyet Bayramı Arifesi');
    expect(eves.length).toBe(51);
    expect(new Set(eves.map(englishOf))).toEqual(new Set(['Republic Day (from 1pm)']));
    expect(turkey.every((record) => record.language === 'tr' && englishOf(record) !== undefined)).toBe(true);
  });

  it('carries the snapshot’s English name on the day and name it pairs it with, for every country the snapshot names, or the one a correction gives', async () => {
    const renamedEnglish = new Map(
      (await loadHolidayCorrections(dataDir)).flatMap((correction) =>
        correction.action === 'renameEnglish' ? [[`${correction.alpha2Code} ${correction.name}`, correction.english] as const] : [],
      ),
    );
    const mismatches: string[] = [];
    for (const [alpha2Code, entity] of Object.entries(snapshot.countries)) {
      if (entity.english === null || alpha2Code === 'TR') continue;
      const onDay = new Map((byCountry.get(alpha2Code) ?? []).map((record) => [`${record.startDate.slice(0, 10)} ${record.summary}`, record]));
      for (const [day, , summary, snapshotEnglish] of entity.days) {
        const record = onDay.get(`${day} ${summary}`);
        // A day a correction removed or moved has no record on it; one it renamed has the correction's English.
        const english = renamedEnglish.get(`${alpha2Code} ${summary}`) ?? snapshotEnglish;
        if (record !== undefined && englishOf(record) !== english) mismatches.push(`${alpha2Code} ${day} ${summary}: ${englishOf(record)} ≠ ${english}`);
      }
    }
    expect(mismatches).toEqual([]);
  });
});

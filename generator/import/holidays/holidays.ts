/**
 * Holidays and special days, one record per local day, for every base country python-holidays
 * (PyPI `holidays`, read from its committed snapshot: pythonHolidays.ts) gives days for, for the
 * years of data/build.json `holidayYears`. Türkiye's come from curated rules instead (turkeyDays.ts).
 *
 * - python-holidays' category "public" → countryHoliday, with the observed and substitute days its
 *   per-country rules add (its default, `observed=True`). Every other category (bank, government,
 *   half_day, optional, school, unofficial, workday, de_facto, armed_forces and the days of one
 *   religious group: catholic, hebrew, islamic, orthodox, …) → countrySpecialDay, and so are the
 *   weekend days worked to pay for a day off (China's 调休, Russia's transfers), named by the day
 *   off that names them.
 * - Names are python-holidays' in the entity's default language (English where it has none); a
 *   date with two names is two records. Each record also says the language of its name
 *   (`language`) and, where that is not English, carries its English name (`translations`):
 *   python-holidays' own, paired name by name in the snapshot (holidays_snapshot.py, Pairing).
 * - Times are those of one zone per country: its only zone, or the capital's (holidayTimeZones).
 * - Each record runs from the day's local midnight to the next day's (a Turkish eve from 13:00);
 *   python-holidays' half days carry no hour and are whole days.
 */
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { z } from 'zod';
import { buildSettingsSchema, countryDaySchema, countrySpecialDaySchema, type Country } from '../../records/schemas.ts';
import type { DatasetImporter, ImportContext, RecordOutput } from '../importer.ts';
import { reuseIds, type IdFor } from '../shared/ids.ts';
import { ImportError } from '../shared/importError.ts';
import { localDaySpan } from './localDates.ts';
import { holidayTimeZone } from './holidayZones.ts';
import { publicCategory, readSnapshot, type SnapshotCountry } from './pythonHolidays.ts';
import { loadTurkeyDays } from './turkeyDays.ts';
import { correctHolidays, loadHolidayCorrections, type HolidayCorrection } from './holidayCorrections.ts';
import { languageTag, type CountryDayLists, type DayLanguages, type HolidayYears, type ObservedDay } from './observedDays.ts';
import { loadWorkingDayTerms, nameWorkingDays, type WorkingDayTerms } from './workingDays.ts';
import { compareCodePoints } from '../shared/ordering.ts';
import { dayMarksOf, specialDayType, typeRank } from './dayTypes.ts';
import { importRegionalHolidays } from './regionalHolidays.ts';
import { weekendRecords } from './weekends.ts';

type CountryDay = z.infer<typeof countrySpecialDaySchema>;

interface CountryDays extends CountryDayLists {
  readonly timeZone: string;
  readonly languages: DayLanguages;
}

/**
 * python-holidays entities that are not base countries: XK (Kosovo, user-assigned, left out of the
 * base import). A change here after an upgrade stops the import, so data/SOURCES.md is read again.
 */
const knownUncovered = ['XK'];
/** Built from data/curated/turkey-days.json; python-holidays' TR days are not used at all. */
const turkeyAlpha2 = 'TR';

/**
 * Countries whose government sets each year's days off by a notice published late in the year
 * before: python-holidays has the notices up to the last year it gives make-up working days for,
 * and projects later years by rule. A later year's observed days (the bridging days off) are
 * projections, so provisional; the statutory days themselves are fixed by law.
 */
const yearlyNotices: Readonly<Record<string, string>> = {
  // 国务院办公厅关于<year>年部分节假日安排的通知 (the State Council General Office's yearly notice).
  CN: 'https://www.gov.cn/gongbao/2025/issue_12406/202511/content_7048922.html',
};

/** The last year a yearly notice is known for: the year of the country's last make-up working day. */
function lastNoticeYear(alpha2Code: string, entity: SnapshotCountry): number | undefined {
  if (yearlyNotices[alpha2Code] === undefined) return undefined;
  return Math.max(...entity.weekendWorkdays.map(([day]) => Number(day.slice(0, 4))));
}

/** A country's days as python-holidays gives them: its public days, and all the others. */
function daysFromSnapshot(
  alpha2Code: string,
  entity: SnapshotCountry,
  corrections: readonly HolidayCorrection[],
  terms: WorkingDayTerms,
): CountryDays | undefined {
  const snapshotHolidays: ObservedDay[] = [];
  const specialDays: ObservedDay[] = [];
  const englishOf = new Map<string, string>();
  const marks = dayMarksOf(entity);
  const noticedUntil = lastNoticeYear(alpha2Code, entity);
  const projected = (day: string, observedFor: string | undefined) =>
    noticedUntil !== undefined && observedFor !== undefined && Number(day.slice(0, 4)) > noticedUntil;
  for (const [day, category, summary, english] of entity.days) {
    const marked = marks(day, summary);
    const entry = {
      day,
      summary,
      ...(english === null ? {} : { english }),
      ...marked,
      ...(projected(day, marked.observedFor) ? { provisional: true as const } : {}),
    };
    if (category === publicCategory) snapshotHolidays.push(entry);
    else {
      const type = specialDayType(alpha2Code, category);
      specialDays.push(type === undefined ? entry : { ...entry, type });
    }
    if (english !== null) englishOf.set(summary, english);
  }
  specialDays.push(...nameWorkingDays(alpha2Code, entity, terms).map((entry) => ({ ...entry, type: 'workday' as const })));
  const corrected = correctHolidays(alpha2Code, { holidays: snapshotHolidays, specialDays }, corrections);
  if (corrected.holidays.length === 0 && corrected.specialDays.length === 0) return undefined;
  // A corrections' added day is named as the snapshot names that holiday on its other days.
  const named = (days: readonly ObservedDay[]) =>
    days.map((entry) => {
      const english = entry.english ?? englishOf.get(entry.summary);
      return english === undefined ? entry : { ...entry, english };
    });
  const languages = { own: languageTag(entity.language), ...(entity.english === null ? {} : { english: languageTag(entity.english) }) };
  return { timeZone: holidayTimeZone(alpha2Code), languages, holidays: named(corrected.holidays), specialDays: named(corrected.specialDays) };
}

async function readHolidayYears(dataDir: string): Promise<HolidayYears> {
  const file = path.join(dataDir, 'build.json');
  const parsed = buildSettingsSchema.safeParse(JSON.parse(await readFile(file, 'utf8')));
  if (!parsed.success) throw new ImportError([`${file}:\n${z.prettifyError(parsed.error)}`]);
  return parsed.data.holidayYears;
}

async function assertSourceDocumented(dataDir: string, version: string): Promise<void> {
  const sourcesFile = path.join(dataDir, 'SOURCES.md');
  if (!(await readFile(sourcesFile, 'utf8')).includes(`holidays==${version}`)) {
    throw new ImportError([`${sourcesFile} does not name holidays==${version} (python-holidays, the snapshot's version); update it`]);
  }
}

const naturalKey = (alpha2Code: string, startDate: string, summary: string) => JSON.stringify([alpha2Code, startDate, summary]);

/**
 * One record per distinct day and name (a special day may come from two categories, bank and
 * government, under one name), by start, then name.
 */
function buildRecords(country: Country, { timeZone, languages }: CountryDays, days: readonly ObservedDay[], idFor: IdFor<string>): CountryDay[] {
  const byKey = new Map<string, CountryDay>();
  for (const { day, summary, english, from, type, observedFor, provisional } of days) {
    const { startDate, endDate } = localDaySpan(timeZone, day, from);
    const key = naturalKey(country.alpha2Code, startDate, summary);
    const translations = english !== undefined && languages.english !== undefined ? { translations: { [languages.english]: english } } : {};
    const known = byKey.get(key);
    if (known !== undefined) {
      // One name from two categories (bank and government): the record takes the stronger type.
      if (typeRank(type) < typeRank(known.dayType)) byKey.set(key, { ...known, dayType: type });
      continue;
    }
    const marks = {
      ...(observedFor === undefined ? {} : { observedFor }),
      ...(provisional ? { provisional } : {}),
      ...(type === undefined ? {} : { dayType: type }),
    };
    byKey.set(key, { id: idFor(key), countryId: country.id, summary, startDate, endDate, language: languages.own, ...translations, ...marks });
  }
  return [...byKey.values()].sort((a, b) => compareCodePoints(a.startDate, b.startDate) || compareCodePoints(a.summary, b.summary));
}

/** Ids are read from records written before they said their language, too. */
const previousDaySchema = countrySpecialDaySchema.partial({ language: true });

async function previousIds(context: ImportContext, recordType: 'countryHoliday' | 'countrySpecialDay'): Promise<IdFor<string>> {
  const alpha2ById = new Map(context.countries.map((country) => [country.id, country.alpha2Code]));
  return reuseIds(recordType, await context.previous(recordType, previousDaySchema), (record) =>
    naturalKey(alpha2ById.get(record.countryId) ?? record.countryId, record.startDate, record.summary),
  );
}

export const importer: DatasetImporter = async (context) => {
  const window = await readHolidayYears(context.dataDir);
  const snapshot = await readSnapshot(context.dataDir, window);
  await assertSourceDocumented(context.dataDir, snapshot.version);
  const countryByAlpha2 = new Map(context.countries.map((country) => [country.alpha2Code, country]));
  const covered = Object.keys(snapshot.countries).sort();
  const uncovered = covered.filter((code) => !countryByAlpha2.has(code));
  if (uncovered.join() !== knownUncovered.join()) {
    throw new ImportError([
      `python-holidays covers ${uncovered.join(', ') || 'no'} countries that are not base countries, expected ${knownUncovered.join(', ')}; update holidays.ts and data/SOURCES.md`,
    ]);
  }
  const missing = context.countries.filter((country) => snapshot.countries[country.alpha2Code] === undefined).map((country) => country.alpha2Code);
  if (missing.length > 0)
    throw new ImportError([`python-holidays ${snapshot.version} no longer covers ${missing.join(', ')}; update holidays.ts and data/SOURCES.md`]);

  const corrections = await loadHolidayCorrections(context.dataDir);
  const workingDayTerms = await loadWorkingDayTerms(context.dataDir);
  const holidayIds = await previousIds(context, 'countryHoliday');
  const specialDayIds = await previousIds(context, 'countrySpecialDay');
  const holidayParts = new Map<string, CountryDay[]>();
  const specialDayParts = new Map<string, CountryDay[]>();

  for (const country of context.countries) {
    const entity = snapshot.countries[country.alpha2Code];
    const days =
      country.alpha2Code === turkeyAlpha2
        ? await loadTurkeyDays(context.dataDir, window)
        : entity && daysFromSnapshot(country.alpha2Code, entity, corrections, workingDayTerms);
    if (days === undefined) continue;
    const part = country.alpha2Code.toLowerCase();
    const holidays = buildRecords(country, days, days.holidays, holidayIds);
    const specialDays = buildRecords(country, days, days.specialDays, specialDayIds);
    if (holidays.length > 0) holidayParts.set(part, holidays);
    if (specialDays.length > 0) specialDayParts.set(part, specialDays);
  }

  const outputs: RecordOutput[] = [
    { recordType: 'countryHoliday', schema: countryDaySchema, parts: holidayParts },
    { recordType: 'countrySpecialDay', schema: countrySpecialDaySchema, parts: specialDayParts },
    ...(await importRegionalHolidays(context, snapshot)),
    await weekendRecords(context, snapshot),
  ];
  return outputs;
};

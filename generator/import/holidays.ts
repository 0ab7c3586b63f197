/**
 * Holidays and special days, one record per local day, for every country date-holidays covers
 * that is one of the base countries, for the years of data/build.json `holidayYears`. Türkiye's
 * come from curated rules instead (turkeyDays.ts).
 *
 * - date-holidays type "public" → countryHoliday; "bank", "optional", "school" and "observance" →
 *   countrySpecialDay (a bank holiday closes banks but not the country; business-day calendars
 *   find it there).
 * - Names are date-holidays' in the country's first language (Turkish for TR), as it writes them.
 * - Times are those of the country's first date-holidays time zone.
 * - A holiday of several days is one record per local calendar day from its civil `date`: date-holidays
 *   starts Islamic and Hebrew days at the previous sunset ("2024-04-10 00:00:00 -0600" starting
 *   18:00 the evening before, lasting PT90H), so the days counted are max(1, floor(hours / 24)),
 *   hours as the local clock counts them: PT90H → 3 days, PT114H → 4, P5D across a summer-time
 *   switch → 5.
 * - Each record runs from the day's local midnight to the next day's (a Turkish eve from 13:00).
 */
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import Holidays from 'date-holidays';
import { z } from 'zod';
import { buildSettingsSchema, countryDaySchema, type BuildSettings, type Country } from '../schemas.ts';
import type { DatasetImporter, ImportContext, RecordOutput } from './dataset.ts';
import { reuseIds, type IdFor } from './ids.ts';
import { ImportError } from './importError.ts';
import { addDays, localDaySpan, wallClockHours, type CivilDay, type WallTime } from './localDates.ts';
import { loadTurkeyDays } from './turkeyDays.ts';

export type HolidayYears = BuildSettings['holidayYears'];
type CountryDay = z.infer<typeof countryDaySchema>;

/** A day to record: a whole local day, or from `from` to the end of the day (a half day). */
export interface ObservedDay {
  readonly day: CivilDay;
  readonly summary: string;
  readonly from?: WallTime;
}

interface CountryDays {
  readonly timeZone: string;
  readonly holidays: readonly ObservedDay[];
  readonly specialDays: readonly ObservedDay[];
}

/**
 * date-holidays countries that are not base countries: IC (Canary Islands, part of Spain, no ISO
 * 3166-1 code of its own) and XK (Kosovo, user-assigned, left out of the base import). A change
 * here after an upgrade stops the import, so data/SOURCES.md is read again.
 */
const knownUncovered = ['IC', 'XK'];
/** Built from data/curated/turkey-days.json instead of the package's public holidays. */
const turkeyAlpha2 = 'TR';
const specialDayTypes = new Set(['bank', 'optional', 'school', 'observance']);

async function readHolidayYears(dataDir: string): Promise<HolidayYears> {
  const file = path.join(dataDir, 'build.json');
  const parsed = buildSettingsSchema.safeParse(JSON.parse(await readFile(file, 'utf8')));
  if (!parsed.success) throw new ImportError([`${file}:\n${z.prettifyError(parsed.error)}`]);
  return parsed.data.holidayYears;
}

const yearOf = (day: CivilDay): number => Number(day.slice(0, 4));

/**
 * date-holidays' days by country and window. Computing them takes some 20 seconds, most of it the
 * astronomy of the Chinese, Korean and Vietnamese calendars, and the result depends only on the
 * installed package, so a process that imports more than once (the tests) computes them once.
 */
const packageDaysCache = new Map<string, CountryDays>();

function packageDays(alpha2Code: string, window: HolidayYears): CountryDays {
  const key = `${alpha2Code} ${window.first}-${window.last}`;
  let days = packageDaysCache.get(key);
  if (days === undefined) {
    const calendar = new Holidays(alpha2Code);
    const timeZone = calendar.getTimezones()[0];
    if (timeZone === undefined) throw new ImportError([`date-holidays gives no time zone for ${alpha2Code}`]);
    days = daysFromDateHolidays(calendar, timeZone, window);
    packageDaysCache.set(key, days);
  }
  return days;
}

/** Every day of every date-holidays holiday of the country that falls in the window. */
function daysFromDateHolidays(calendar: Holidays, timeZone: string, window: HolidayYears): CountryDays {
  const holidays: ObservedDay[] = [];
  const specialDays: ObservedDay[] = [];
  // From the year before: a holiday of several days may start in it and run into the window.
  for (let year = window.first - 1; year <= window.last; year += 1) {
    for (const holiday of calendar.getHolidays(year)) {
      const isPublic = holiday.type === 'public';
      if (!isPublic && !specialDayTypes.has(holiday.type)) throw new ImportError([`date-holidays: unknown holiday type "${holiday.type}" (${holiday.rule})`]);
      const first = holiday.date.slice(0, 10);
      const dayCount = Math.max(1, Math.floor(wallClockHours(timeZone, holiday.start.getTime(), holiday.end.getTime()) / 24));
      for (let offset = 0; offset < dayCount; offset += 1) {
        const day = addDays(first, offset);
        if (yearOf(day) < window.first || yearOf(day) > window.last) continue;
        (isPublic ? holidays : specialDays).push({ day, summary: holiday.name });
      }
    }
  }
  return { timeZone, holidays, specialDays };
}

const naturalKey = (alpha2Code: string, startDate: string, summary: string) => JSON.stringify([alpha2Code, startDate, summary]);

const compareText = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);

/**
 * One record per distinct day and name (date-holidays sometimes lists a day twice, e.g. a whole
 * day and a half day of the same name), by start, then name.
 */
function buildRecords(country: Country, timeZone: string, days: readonly ObservedDay[], idFor: IdFor<string>): CountryDay[] {
  const byKey = new Map<string, CountryDay>();
  for (const { day, summary, from } of days) {
    const { startDate, endDate } = localDaySpan(timeZone, day, from);
    const key = naturalKey(country.alpha2Code, startDate, summary);
    if (!byKey.has(key)) byKey.set(key, { id: idFor(key), countryId: country.id, summary, startDate, endDate });
  }
  return [...byKey.values()].sort((a, b) => compareText(a.startDate, b.startDate) || compareText(a.summary, b.summary));
}

async function previousIds(context: ImportContext, recordType: 'countryHoliday' | 'countrySpecialDay'): Promise<IdFor<string>> {
  const alpha2ById = new Map(context.countries.map((country) => [country.id, country.alpha2Code]));
  return reuseIds(recordType, await context.previous(recordType, countryDaySchema), (record) =>
    naturalKey(alpha2ById.get(record.countryId) ?? record.countryId, record.startDate, record.summary),
  );
}

export const importHolidays: DatasetImporter = async (context) => {
  const window = await readHolidayYears(context.dataDir);
  const countryByAlpha2 = new Map(context.countries.map((country) => [country.alpha2Code, country]));
  const covered = Object.keys(new Holidays().getCountries()).sort();
  const uncovered = covered.filter((code) => !countryByAlpha2.has(code));
  if (uncovered.join() !== knownUncovered.join()) {
    throw new ImportError([`date-holidays covers ${uncovered.join(', ') || 'no'} countries that are not base countries, expected ${knownUncovered.join(', ')}; update holidays.ts and data/SOURCES.md`]);
  }

  const holidayIds = await previousIds(context, 'countryHoliday');
  const specialDayIds = await previousIds(context, 'countrySpecialDay');
  const holidayParts = new Map<string, CountryDay[]>();
  const specialDayParts = new Map<string, CountryDay[]>();

  for (const alpha2Code of covered) {
    const country = countryByAlpha2.get(alpha2Code);
    if (country === undefined) continue;
    const fromPackage = packageDays(alpha2Code, window);
    let days: CountryDays = fromPackage;
    if (alpha2Code === turkeyAlpha2) {
      // The curated rules replace the package's public holidays; its other days, if it ever has
      // any for Türkiye (3.37.0 has none), are kept as special days.
      const turkey = await loadTurkeyDays(context.dataDir, window);
      days = { timeZone: turkey.timeZone, holidays: turkey.holidays, specialDays: [...turkey.specialDays, ...fromPackage.specialDays] };
    }
    const part = alpha2Code.toLowerCase();
    const holidays = buildRecords(country, days.timeZone, days.holidays, holidayIds);
    const specialDays = buildRecords(country, days.timeZone, days.specialDays, specialDayIds);
    if (holidays.length > 0) holidayParts.set(part, holidays);
    if (specialDays.length > 0) specialDayParts.set(part, specialDays);
  }

  const outputs: RecordOutput[] = [
    { recordType: 'countryHoliday', schema: countryDaySchema, parts: holidayParts },
    { recordType: 'countrySpecialDay', schema: countryDaySchema, parts: specialDayParts },
  ];
  return outputs;
};

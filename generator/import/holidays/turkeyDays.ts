/**
 * Türkiye's holidays and special days from curated rules (data/curated/turkey-days.json) instead
 * of date-holidays, which lists 15 Temmuz before 2017 and 1 Mayıs before 2009 and computes the
 * bayram dates. The first days of Ramazan and Kurban Bayramı and the kandil nights are Diyanet's
 * published dates (data/curated/turkey-religious-holidays.json, kept by its own researcher) where
 * that file covers a year, and date-holidays' Hijri calendar otherwise. Each name has its English
 * name beside it, with the source it is taken from (python-holidays' TR catalogue for the holidays).
 */
import Holidays from 'date-holidays';
import { z } from 'zod';
import { readCuratedFile, sourceUrl } from '../shared/curatedFile.ts';
import type { DayLanguages, HolidayYears, ObservedDay } from './observedDays.ts';
import { ImportError } from '../shared/importError.ts';
import { addDays, weekdayOf, type CivilDay } from './localDates.ts';

const civilDay = z.string().regex(/^\d{4}-\d{2}-\d{2}$/, 'must be a day such as 2024-04-10');
const note = z.string().trim().min(1);
const sources = z.array(sourceUrl).min(1);
const fixedDate = z.strictObject({ month: z.number().int().min(1).max(12), day: z.number().int().min(1).max(31) });
const nthSunday = z.strictObject({ month: z.number().int().min(1).max(12), nthSunday: z.number().int().min(1).max(4) });
const year = z.number().int().min(1900).max(2200);

const firstDaysKey = z.enum(['ramazanBayrami', 'kurbanBayrami']);
const kandilKey = z.enum(['regaib', 'mirac', 'berat', 'kadir', 'mevlid']);

/** A name's English name and the public page it is taken from. */
const english = { english: note, englishSource: sourceUrl };

const turkeyDaysSchema = z.strictObject({
  note,
  timeZone: z.string().min(1),
  /** BCP 47 tags of the names and of their English names. */
  languages: z.strictObject({ own: z.string().min(2), english: z.string().min(2) }),
  publicHolidays: z.array(
    z.strictObject({
      summary: note,
      ...english,
      on: fixedDate,
      since: year.optional(),
      eve: note.optional(),
      /** The eve's English name, from the same source as the holiday's. */
      eveEnglish: note.optional(),
      law: note,
      sources,
    }),
  ),
  religiousHolidays: z.array(
    z.strictObject({
      summary: note,
      ...english,
      firstDays: firstDaysKey,
      days: z.number().int().min(1),
      eve: note,
      eveEnglish: note,
      /** date-holidays' rule for the first day, for the years Diyanet's dates are not curated. */
      computedRule: note,
      law: note,
      sources,
    }),
  ),
  /** The eves (arife) of the bayrams and of Cumhuriyet Bayramı are half days from this local time. */
  halfDayFrom: z.string().regex(/^\d{2}:\d{2}$/),
  specialDays: z.array(z.strictObject({ summary: note, ...english, on: z.union([fixedDate, nthSunday]), why: note, sources })),
  kandils: z.array(
    z.strictObject({
      summary: note,
      ...english,
      key: kandilKey,
      computedRule: note,
      /** Regaib: the Thursday before the first Friday on or after the rule's day (1 Recep). */
      eveOfFirstFriday: z.boolean().optional(),
      why: note,
      sources,
    }),
  ),
});
type TurkeyRules = z.infer<typeof turkeyDaysSchema>;

/** One day or, where a holiday falls twice in a Gregorian year, two. */
const daysInYear = z.union([civilDay, z.array(civilDay).min(1).max(2)]);

/** The researcher's file: only the parts read here are checked; the rest (sources, notes) is theirs. */
const religiousDatesSchema = z.object({
  years: z.array(z.object({ year, ramazanBayrami: daysInYear, kurbanBayrami: daysInYear, sources: z.array(z.string()).min(1) })),
  kandils: z
    .array(
      z.object({
        year,
        regaib: daysInYear.optional(),
        mirac: daysInYear.optional(),
        berat: daysInYear.optional(),
        kadir: daysInYear.optional(),
        mevlid: daysInYear.optional(),
        sources: z.array(z.string()).min(1),
      }),
    )
    .optional(),
});
type ReligiousDates = z.infer<typeof religiousDatesSchema>;

export const turkeyDaysFile = 'turkey-days.json';
export const religiousDatesFile = 'turkey-religious-holidays.json';

export interface TurkeyDays {
  readonly timeZone: string;
  readonly languages: DayLanguages;
  readonly holidays: readonly ObservedDay[];
  readonly specialDays: readonly ObservedDay[];
}

const asList = (days: string | readonly string[] | undefined): readonly string[] => (days === undefined ? [] : typeof days === 'string' ? [days] : days);

const yearOf = (day: CivilDay): number => Number(day.slice(0, 4));

function pad(value: number): string {
  return String(value).padStart(2, '0');
}

function dayOfRule(on: TurkeyRules['specialDays'][number]['on'], inYear: number): CivilDay {
  if ('day' in on) return `${inYear}-${pad(on.month)}-${pad(on.day)}`;
  const first = `${inYear}-${pad(on.month)}-01`;
  const firstSunday = addDays(first, (7 - weekdayOf(first)) % 7);
  return addDays(firstSunday, 7 * (on.nthSunday - 1));
}

/**
 * First days by Gregorian year from date-holidays' Hijri calendar ("1 Shawwal", "26 Rajab"): the
 * civil day whose daytime carries that Hijri date (date-holidays starts it at the previous sunset).
 */
function computeHijriDays(rules: readonly string[], years: readonly number[]): Map<string, Map<number, CivilDay[]>> {
  const calendar = new Holidays('TR');
  for (const rule of rules) {
    if (!calendar.setHoliday(rule, { name: { tr: rule }, type: 'observance' })) {
      throw new ImportError([`${turkeyDaysFile}: date-holidays does not understand the rule "${rule}"`]);
    }
  }
  const byRule = new Map(rules.map((rule) => [rule, new Map<number, CivilDay[]>()]));
  for (const inYear of years) {
    for (const holiday of calendar.getHolidays(inYear)) {
      const first = holiday.date.slice(0, 10);
      if (yearOf(first) !== inYear) continue;
      const ofYear = byRule.get(holiday.rule);
      if (ofYear === undefined) continue;
      ofYear.set(inYear, [...(ofYear.get(inYear) ?? []), first]);
    }
  }
  return byRule;
}

function assertDaysInTheirYear(religious: ReligiousDates): void {
  const problems: string[] = [];
  const check = (entryYear: number, what: string, days: readonly string[]) => {
    for (const listed of days) if (yearOf(listed) !== entryYear) problems.push(`${religiousDatesFile}: ${what} ${listed} is listed under ${entryYear}`);
  };
  for (const entry of religious.years) {
    check(entry.year, 'ramazanBayrami', asList(entry.ramazanBayrami));
    check(entry.year, 'kurbanBayrami', asList(entry.kurbanBayrami));
  }
  for (const entry of religious.kandils ?? []) {
    for (const key of kandilKey.options) check(entry.year, key, asList(entry[key]));
  }
  if (problems.length > 0) throw new ImportError(problems);
}

/**
 * A Hijri holiday comes every 354 or 355 days (a first Friday moves that by up to a week). Where
 * curated and computed years meet, a holiday could appear twice, or not at all, or the calendars
 * could disagree by a month: any gap between consecutive occurrences outside 340..370 days is one
 * of those mistakes.
 */
function assertHijriSpacing(summary: string, firstDays: readonly CivilDay[]): void {
  const sorted = [...firstDays].sort();
  for (let index = 1; index < sorted.length; index += 1) {
    const gap = (Date.parse(sorted[index] ?? '') - Date.parse(sorted[index - 1] ?? '')) / 86_400_000;
    if (gap < 340 || gap > 370) throw new ImportError([`${summary}: ${sorted[index - 1]} and ${sorted[index]} are ${gap} days apart`]);
  }
}

/** The kandil nights of every year: Diyanet's published dates where curated, else computed from their Hijri rule. */
function kandilNights(
  kandils: TurkeyRules['kandils'],
  years: readonly number[],
  curatedIn: (inYear: number) => NonNullable<ReligiousDates['kandils']>[number] | undefined,
  computedDays: (rule: string, inYear: number) => readonly CivilDay[],
): ObservedDay[] {
  const nights: ObservedDay[] = [];
  for (const kandil of kandils) {
    const ofKandil = years.flatMap((inYear) => {
      const curated = asList(curatedIn(inYear)?.[kandil.key]);
      if (curated.length > 0) return curated;
      // The eve of a first Friday may fall in the year before the rule's day (1 Recep on 1 January),
      // so a night can come from two years: the same night is kept once, and two different nights
      // too close together stop the import (the spacing check).
      return computedDays(kandil.computedRule, inYear).map((day) => (kandil.eveOfFirstFriday ? thursdayBeforeFirstFriday(day) : day));
    });
    const unique = [...new Set(ofKandil)];
    assertHijriSpacing(kandil.summary, unique);
    for (const night of unique) nights.push({ day: night, summary: kandil.summary, english: kandil.english });
  }
  return nights;
}

export async function loadTurkeyDays(dataDir: string, window: HolidayYears): Promise<TurkeyDays> {
  const rules = await readCuratedFile(dataDir, turkeyDaysFile, turkeyDaysSchema);
  const religious = await readCuratedFile(dataDir, religiousDatesFile, religiousDatesSchema);
  assertDaysInTheirYear(religious);

  // A year before and after the window: a bayram may start on 31 December and its eve is the day
  // before the first day.
  const years: number[] = [];
  for (let inYear = window.first - 1; inYear <= window.last + 1; inYear += 1) years.push(inYear);
  const inWindow = (day: CivilDay) => yearOf(day) >= window.first && yearOf(day) <= window.last;

  const bayramByYear = new Map(religious.years.map((entry) => [entry.year, entry]));
  const kandilsByYear = new Map((religious.kandils ?? []).map((entry) => [entry.year, entry]));
  const computed = computeHijriDays(
    [...rules.religiousHolidays.map((holiday) => holiday.computedRule), ...rules.kandils.map((kandil) => kandil.computedRule)],
    years,
  );
  const computedDays = (rule: string, inYear: number) => computed.get(rule)?.get(inYear) ?? [];

  const holidays: ObservedDay[] = [];
  const specialDays: ObservedDay[] = [];
  const halfDay = (day: CivilDay, summary: string, english: string | undefined, provisional: boolean) =>
    specialDays.push({
      day,
      summary,
      ...(english === undefined ? {} : { english }),
      from: rules.halfDayFrom,
      type: 'halfDay',
      ...(provisional ? { provisional } : {}),
    });

  for (const inYear of years) {
    for (const holiday of rules.publicHolidays) {
      if (holiday.since !== undefined && inYear < holiday.since) continue;
      const day = dayOfRule(holiday.on, inYear);
      holidays.push({ day, summary: holiday.summary, english: holiday.english });
      if (holiday.eve !== undefined) halfDay(addDays(day, -1), holiday.eve, holiday.eveEnglish, false);
    }
    for (const specialDay of rules.specialDays) {
      specialDays.push({ day: dayOfRule(specialDay.on, inYear), summary: specialDay.summary, english: specialDay.english });
    }
  }

  for (const holiday of rules.religiousHolidays) {
    // Diyanet's published dates where curated; any other year's are computed, so provisional.
    const computedFirstDays = new Set<CivilDay>();
    const firstDays = years.flatMap((inYear) => {
      const curated = bayramByYear.get(inYear);
      if (curated !== undefined) return asList(curated[holiday.firstDays]);
      const computedOnes = computedDays(holiday.computedRule, inYear);
      for (const day of computedOnes) computedFirstDays.add(day);
      return computedOnes;
    });
    assertHijriSpacing(holiday.summary, firstDays);
    for (const first of firstDays) {
      const provisional = computedFirstDays.has(first);
      halfDay(addDays(first, -1), holiday.eve, holiday.eveEnglish, provisional);
      for (let offset = 0; offset < holiday.days; offset += 1) {
        holidays.push({ day: addDays(first, offset), summary: holiday.summary, english: holiday.english, ...(provisional ? { provisional } : {}) });
      }
    }
  }

  specialDays.push(...kandilNights(rules.kandils, years, (inYear) => kandilsByYear.get(inYear), computedDays));

  return {
    timeZone: rules.timeZone,
    languages: rules.languages,
    holidays: holidays.filter((entry) => inWindow(entry.day)),
    specialDays: specialDays.filter((entry) => inWindow(entry.day)),
  };
}

/** Regaib Kandili: the Thursday evening before the first Friday on or after 1 Recep. */
function thursdayBeforeFirstFriday(firstOfRajab: CivilDay): CivilDay {
  const friday = addDays(firstOfRajab, (5 - weekdayOf(firstOfRajab) + 7) % 7);
  return addDays(friday, -1);
}

/**
 * data/curated/holiday-corrections.json: public holidays python-holidays gets wrong, each with the
 * law or official notice that says so, applied to its days before records are made. A day is
 * removed (no day off at all), demoted (a day off for some, or at the employer's choice: served as
 * a special day instead), moved (the same holiday, on the day the official calendar gives), added
 * (a day off the snapshot lacks, named as the country names it) or promoted (a day the snapshot
 * files under another category, such as "islamic", that is a day off for everyone). A holiday's
 * English name may be renamed (python-holidays' translation is wrong), and in a country whose law
 * moves a holiday that falls on a weekend to a substitute day, the holiday's own date may be left
 * to the substitute (`substituted`: kept as an observance, the substitute is the day off). Remove,
 * demote and move take a day by its date or, for a rule wrong in every year, by its name over a
 * range of years. A correction that matches no day of the snapshot, or adds a day it already has, stops
 * the import: the source has changed (perhaps fixed), and the correction must be read again.
 */
import { z } from 'zod';
import { readCuratedFile, sourceUrl } from '../shared/curatedFile.ts';
import { ImportError } from '../shared/importError.ts';
import type { CountryDayLists, ObservedDay } from './observedDays.ts';

const day = z.string().regex(/^\d{4}-\d{2}-\d{2}$/, 'must be a day, YYYY-MM-DD');
const cited = { alpha2Code: z.string().regex(/^[A-Z]{2}$/), why: z.string().min(20), source: sourceUrl };
/** Every year from `first` to `last`: for a rule that holds as long as its law does. */
const years = z.strictObject({ first: z.number().int(), last: z.number().int() });

/**
 * One day by its date, or every day of one holiday (its name as the snapshot writes it) in a range
 * of years: a wrong rule of python-holidays is wrong in every year, not only in those checked.
 */
const correctionSchema = z.union([
  z.strictObject({ ...cited, action: z.enum(['remove', 'demote']), date: day }),
  z.strictObject({ ...cited, action: z.literal('move'), date: day, to: day }),
  z.strictObject({ ...cited, action: z.enum(['remove', 'demote']), name: z.string().min(1), years }),
  z.strictObject({ ...cited, action: z.literal('move'), name: z.string().min(1), years, toMonthDay: z.string().regex(/^\d{2}-\d{2}$/, 'must be MM-DD') }),
  z.strictObject({
    ...cited,
    action: z.literal('add'),
    date: day,
    name: z.string().min(1),
    /** The day's English name, where a source gives one (python-holidays' name of the same holiday elsewhere). */
    english: z.strictObject({ name: z.string().min(1), source: sourceUrl }).optional(),
  }),
  z.strictObject({ ...cited, action: z.literal('promote'), date: day, name: z.string().min(1) }),
  z.strictObject({ ...cited, action: z.literal('renameEnglish'), name: z.string().min(1), english: z.string().min(1) }),
  z.strictObject({ ...cited, action: z.literal('substituted'), years }),
]);
export type HolidayCorrection = z.infer<typeof correctionSchema>;
type DayCorrection = Extract<HolidayCorrection, { action: 'remove' | 'demote' | 'move' }>;
const isDayCorrection = (correction: HolidayCorrection): correction is DayCorrection =>
  correction.action === 'remove' || correction.action === 'demote' || correction.action === 'move';

function matches(correction: DayCorrection, holiday: ObservedDay): boolean {
  if ('date' in correction) return holiday.day === correction.date;
  const year = Number(holiday.day.slice(0, 4));
  return holiday.summary === correction.name && year >= correction.years.first && year <= correction.years.last;
}

const isNamedDay = (correction: { date: string; name: string }) => (candidate: ObservedDay) =>
  candidate.day === correction.date && candidate.summary === correction.name;

function describe(correction: HolidayCorrection): string {
  if (correction.action === 'add' || correction.action === 'promote') return `${correction.date} "${correction.name}"`;
  if (correction.action === 'renameEnglish') return `"${correction.name}"`;
  if (correction.action === 'substituted') return `${correction.years.first}–${correction.years.last}`;
  return 'date' in correction ? correction.date : `"${correction.name}" ${correction.years.first}–${correction.years.last}`;
}

const inYears = (holiday: ObservedDay, { first, last }: { first: number; last: number }) =>
  Number(holiday.day.slice(0, 4)) >= first && Number(holiday.day.slice(0, 4)) <= last;

/** The dates an observed or substitute holiday stands in for, in the years of a `substituted` correction. */
function substitutedDates(days: CountryDayLists, correction: HolidayCorrection | undefined): Set<string> {
  if (correction?.action !== 'substituted') return new Set();
  return new Set(days.holidays.flatMap((holiday) => (holiday.observedFor !== undefined && inYears(holiday, correction.years) ? [holiday.observedFor] : [])));
}

/** Why a correction no longer fits the snapshot, or undefined when it does. */
function staleness(correction: HolidayCorrection, days: CountryDayLists): string | undefined {
  if (correction.action === 'add') return days.holidays.some(isNamedDay(correction)) ? 'adds a public holiday the snapshot already has' : undefined;
  if (correction.action === 'promote') return days.specialDays.some(isNamedDay(correction)) ? undefined : 'matches no special day of the snapshot';
  if (correction.action === 'renameEnglish')
    return days.holidays.some((holiday) => holiday.summary === correction.name) ? undefined : 'matches no public holiday of the snapshot';
  if (correction.action === 'substituted') return substitutedDates(days, correction).size > 0 ? undefined : 'finds no substitute day in those years';
  return days.holidays.some((holiday) => matches(correction, holiday)) ? undefined : 'matches no public holiday of the snapshot';
}

const correctionsFileSchema = z.strictObject({ note: z.string().min(1), entries: z.array(correctionSchema) });

export const holidayCorrectionsFile = 'holiday-corrections.json';

export async function loadHolidayCorrections(dataDir: string): Promise<HolidayCorrection[]> {
  return (await readCuratedFile(dataDir, holidayCorrectionsFile, correctionsFileSchema)).entries;
}

/** A country's days with its corrections applied; every correction must fit the snapshot. */
export function correctHolidays(
  alpha2Code: string,
  days: CountryDayLists,
  corrections: readonly HolidayCorrection[],
): { holidays: ObservedDay[]; specialDays: ObservedDay[] } {
  const own = corrections.filter((correction) => correction.alpha2Code === alpha2Code);
  const stale = own.flatMap((correction) => {
    const problem = staleness(correction, days);
    return problem === undefined
      ? []
      : [`data/curated/${holidayCorrectionsFile}: ${alpha2Code} ${describe(correction)} (${correction.action}) ${problem}: read it again`];
  });
  if (stale.length > 0) throw new ImportError(stale);

  const byDay = own.filter(isDayCorrection);
  const renamed = new Map(own.flatMap((correction) => (correction.action === 'renameEnglish' ? [[correction.name, correction.english] as const] : [])));
  const leftToSubstitute = substitutedDates(
    days,
    own.find((correction) => correction.action === 'substituted'),
  );
  const holidays: ObservedDay[] = [];
  const specialDays: ObservedDay[] = [];
  for (const original of days.holidays) {
    const english = renamed.get(original.summary);
    const holiday = english === undefined ? original : { ...original, english };
    const correction = byDay.find((candidate) => matches(candidate, holiday));
    // The holiday's own date, when the law makes its substitute the day off: an observance.
    if (holiday.observedFor === undefined && leftToSubstitute.has(holiday.day)) specialDays.push(holiday);
    else if (!correction) holidays.push(holiday);
    // A demoted day is a day off for some, or at the employer's choice.
    else if (correction.action === 'demote') specialDays.push({ ...holiday, type: 'optional' });
    else if (correction.action === 'move') {
      // Moved to the day an official calendar gives: announced, no longer worked out by rule.
      const { provisional: _, ...announced } = holiday;
      holidays.push({ ...announced, day: 'to' in correction ? correction.to : `${holiday.day.slice(0, 4)}-${correction.toMonthDay}` });
    }
  }
  const promotions = own.filter((correction) => correction.action === 'promote');
  for (const specialDay of days.specialDays) {
    if (!promotions.some((correction) => isNamedDay(correction)(specialDay))) specialDays.push(specialDay);
    else {
      const { type: _, ...holiday } = specialDay;
      holidays.push(holiday);
    }
  }
  for (const correction of own) {
    if (correction.action !== 'add') continue;
    holidays.push({ day: correction.date, summary: correction.name, ...(correction.english ? { english: correction.english.name } : {}) });
  }
  return { holidays, specialDays };
}

/**
 * data/curated/holiday-corrections.json: public holidays python-holidays gets wrong, each with the
 * law or official notice that says so, applied to its days before records are made. A day is
 * removed (no day off at all), demoted (a day off for some, or at the employer's choice: served as
 * a special day instead), or moved (the same holiday, on the day the official calendar gives), by
 * its date or, for a rule wrong in every year, by its name over a range of years. A correction
 * that matches no day of the snapshot stops the import: the source has changed (perhaps fixed),
 * and the correction must be read again.
 */
import { z } from 'zod';
import { readCuratedFile, sourceUrl } from './curatedFile.ts';
import { ImportError } from './importError.ts';

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
]);
export type HolidayCorrection = z.infer<typeof correctionSchema>;

interface Holiday {
  readonly day: string;
  readonly summary: string;
}

function matches(correction: HolidayCorrection, holiday: Holiday): boolean {
  if ('date' in correction) return holiday.day === correction.date;
  const year = Number(holiday.day.slice(0, 4));
  return holiday.summary === correction.name && year >= correction.years.first && year <= correction.years.last;
}

function describe(correction: HolidayCorrection): string {
  return 'date' in correction ? correction.date : `"${correction.name}" ${correction.years.first}–${correction.years.last}`;
}

const correctionsFileSchema = z.strictObject({ note: z.string().min(1), entries: z.array(correctionSchema) });

export const holidayCorrectionsFile = 'holiday-corrections.json';

export async function loadHolidayCorrections(dataDir: string): Promise<HolidayCorrection[]> {
  return (await readCuratedFile(dataDir, holidayCorrectionsFile, correctionsFileSchema)).entries;
}

export interface CorrectedDays<Day> {
  readonly holidays: Day[];
  /** Demoted from public holidays: to be served as special days. */
  readonly demoted: Day[];
}

/** A country's public holidays with its corrections applied; every correction must match a day. */
export function correctHolidays<Day extends Holiday>(alpha2Code: string, holidays: readonly Day[], corrections: readonly HolidayCorrection[]): CorrectedDays<Day> {
  const own = corrections.filter((correction) => correction.alpha2Code === alpha2Code);
  const unmatched = own.filter((correction) => !holidays.some((holiday) => matches(correction, holiday)));
  if (unmatched.length > 0) {
    throw new ImportError(unmatched.map((correction) => `data/curated/${holidayCorrectionsFile}: ${alpha2Code} ${describe(correction)} (${correction.action}) matches no public holiday of the snapshot: read it again`));
  }
  const corrected: Day[] = [];
  const demoted: Day[] = [];
  for (const holiday of holidays) {
    const correction = own.find((candidate) => matches(candidate, holiday));
    if (!correction) corrected.push(holiday);
    else if (correction.action === 'demote') demoted.push(holiday);
    else if (correction.action === 'move') corrected.push({ ...holiday, day: 'to' in correction ? correction.to : `${holiday.day.slice(0, 4)}-${correction.toMonthDay}` });
  }
  return { holidays: corrected, demoted };
}

/**
 * data/curated/holiday-corrections.json: public holidays python-holidays gets wrong, each with the
 * law or official notice that says so, applied to its days before records are made. A day is
 * removed (no day off at all), demoted (a day off for some, or at the employer's choice: served as
 * a special day instead), or moved (the same holiday, on the day the official calendar gives). A correction that matches no day of the snapshot stops the import: the
 * source has changed (perhaps fixed), and the correction must be read again.
 */
import { z } from 'zod';
import { readCuratedFile, sourceUrl } from './curatedFile.ts';
import { ImportError } from './importError.ts';

const day = z.string().regex(/^\d{4}-\d{2}-\d{2}$/, 'must be a day, YYYY-MM-DD');

const correctionSchema = z.discriminatedUnion('action', [
  z.strictObject({ alpha2Code: z.string().regex(/^[A-Z]{2}$/), action: z.literal('remove'), date: day, why: z.string().min(20), source: sourceUrl }),
  z.strictObject({ alpha2Code: z.string().regex(/^[A-Z]{2}$/), action: z.literal('demote'), date: day, why: z.string().min(20), source: sourceUrl }),
  z.strictObject({ alpha2Code: z.string().regex(/^[A-Z]{2}$/), action: z.literal('move'), date: day, to: day, why: z.string().min(20), source: sourceUrl }),
]);
export type HolidayCorrection = z.infer<typeof correctionSchema>;

const correctionsFileSchema = z.strictObject({ note: z.string().min(1), entries: z.array(correctionSchema) });

export const holidayCorrectionsFile = 'holiday-corrections.json';

export async function loadHolidayCorrections(dataDir: string): Promise<HolidayCorrection[]> {
  return (await readCuratedFile(dataDir, holidayCorrectionsFile, correctionsFileSchema)).entries;
}

export interface CorrectedDays<Holiday> {
  readonly holidays: Holiday[];
  /** Demoted from public holidays: to be served as special days. */
  readonly demoted: Holiday[];
}

/** A country's public holidays with its corrections applied; every correction must match a day. */
export function correctHolidays<Holiday extends { readonly day: string }>(alpha2Code: string, holidays: readonly Holiday[], corrections: readonly HolidayCorrection[]): CorrectedDays<Holiday> {
  const own = corrections.filter((correction) => correction.alpha2Code === alpha2Code);
  const unmatched = own.filter((correction) => !holidays.some((holiday) => holiday.day === correction.date));
  if (unmatched.length > 0) {
    throw new ImportError(unmatched.map((correction) => `data/curated/${holidayCorrectionsFile}: ${alpha2Code} ${correction.date} (${correction.action}) matches no public holiday of the snapshot: read it again`));
  }
  const corrected: Holiday[] = [];
  const demoted: Holiday[] = [];
  for (const holiday of holidays) {
    const correction = own.find((candidate) => candidate.date === holiday.day);
    if (!correction) corrected.push(holiday);
    else if (correction.action === 'move') corrected.push({ ...holiday, day: correction.to });
    else if (correction.action === 'demote') demoted.push(holiday);
  }
  return { holidays: corrected, demoted };
}

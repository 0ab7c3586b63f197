/**
 * data/curated/regional-day-corrections.json: a subdivision's days python-holidays gets wrong, each
 * with the law or official notice that says so, applied to the snapshot's days of that subdivision
 * before its records are made (regionalHolidays.ts):
 *
 * - `add`: a day it lacks, on a date, in one of python-holidays' categories (`public` is a
 *   holiday of the whole subdivision, `catholic` a day off in its Catholic communes, …), named in
 *   the country's language and in English;
 * - `addLike`: the days of some names as another subdivision of the same country has them, in every
 *   year held (a movable feast such as Corpus Christi needs no date list), in a category of its own;
 * - `remove`: a day it has on a date that the official calendar of that year leaves out.
 *
 * A correction that finds nothing to change (a day already there, a day or name not found) stops the
 * import: the source has changed, perhaps fixed, and the correction must be read again.
 */
import { z } from 'zod';
import { readCuratedFile, sourceUrl } from '../shared/curatedFile.ts';
import { ImportError } from '../shared/importError.ts';
import { compareCodePoints } from '../shared/ordering.ts';
import type { PythonHolidaysSnapshot } from './pythonHolidays.ts';

export const regionalCorrectionsFile = 'regional-day-corrections.json';

const day = z.string().regex(/^\d{4}-\d{2}-\d{2}$/, 'must be a day, YYYY-MM-DD');
const subdivision = z.string().regex(/^[A-Z]{2}-[A-Z0-9]{1,3}$/, 'must be an ISO 3166-2 code');
const cited = { subdivision, why: z.string().min(20), source: sourceUrl };

const correctionSchema = z.union([
  z.strictObject({ ...cited, action: z.literal('add'), date: day, category: z.string().min(1), name: z.string().min(1), english: z.string().min(1) }),
  z.strictObject({ ...cited, action: z.literal('addLike'), like: subdivision, names: z.array(z.string().min(1)).min(1), category: z.string().min(1) }),
  z.strictObject({ ...cited, action: z.literal('remove'), date: day, name: z.string().min(1) }),
]);
export type RegionalCorrection = z.infer<typeof correctionSchema>;

const fileSchema = z.strictObject({ note: z.string(), entries: z.array(correctionSchema) });

/** A day of a subdivision as the snapshot has it: [day, category, name, English name or null]. */
export type SubdivisionDay = PythonHolidaysSnapshot['countries'][string]['subdivisions'][string]['days'][number];

export async function readRegionalCorrections(dataDir: string): Promise<RegionalCorrection[]> {
  return (await readCuratedFile(dataDir, regionalCorrectionsFile, fileSchema)).entries;
}

const sameDay = (date: string, name: string) => (entry: SubdivisionDay) => entry[0] === date && entry[2] === name;

/**
 * The days of subdivision `code` with its corrections applied, in date order; `daysOf` gives another
 * subdivision's snapshot days by ISO code (for `addLike`).
 */
export function correctSubdivisionDays(
  code: string,
  days: readonly SubdivisionDay[],
  corrections: readonly RegionalCorrection[],
  daysOf: (code: string) => readonly SubdivisionDay[] | undefined,
): SubdivisionDay[] {
  let corrected = [...days];
  const problems: string[] = [];
  for (const correction of corrections.filter((entry) => entry.subdivision === code)) {
    if (correction.action === 'remove') {
      const left = corrected.filter((entry) => !sameDay(correction.date, correction.name)(entry));
      if (left.length === corrected.length) problems.push(`${code} has no day "${correction.name}" on ${correction.date} to remove`);
      corrected = left;
    } else if (correction.action === 'add') {
      if (corrected.some(sameDay(correction.date, correction.name))) problems.push(`${code} already has "${correction.name}" on ${correction.date}`);
      else corrected.push([correction.date, correction.category, correction.name, correction.english]);
    } else {
      const like = daysOf(correction.like);
      if (like === undefined || correction.like.slice(0, 2) !== code.slice(0, 2)) {
        problems.push(`${code}: "${correction.like}" is no subdivision of the same country in the snapshot`);
        continue;
      }
      for (const name of correction.names) {
        const found = like.filter((entry) => entry[2] === name);
        if (found.length === 0) problems.push(`${correction.like} has no day named "${name}" to add to ${code}`);
        for (const [date, , , english] of found) {
          if (corrected.some(sameDay(date, name))) problems.push(`${code} already has "${name}" on ${date}`);
          else corrected.push([date, correction.category, name, english]);
        }
      }
    }
  }
  if (problems.length > 0) throw new ImportError(problems.map((problem) => `data/curated/${regionalCorrectionsFile}: ${problem}`));
  return corrected.sort((a, b) => compareCodePoints(a[0], b[0]));
}

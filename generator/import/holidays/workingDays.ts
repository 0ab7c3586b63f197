/**
 * The weekend days a government makes working days to pay for a day off moved next to a holiday
 * (China's 调休, Russia's and Belarus' transfers, Hungary's áthelyezett munkanap): special days
 * named as what they are, a working day, and by the day off they pay for.
 *
 * python-holidays lists them (its `weekend_workdays`) under the name of the day off ("Day off
 * (substituted from 26.01.2025)"), which would call a working day a day off. The name here is the
 * label of data/curated/working-day-terms.json for the country's language, the term its own
 * transfer decrees use, with `{date}` replaced by the day off, written as python-holidays writes
 * dates in that language.
 */
import { z } from 'zod';
import { readCuratedFile, sourceUrl } from '../shared/curatedFile.ts';
import { ImportError } from '../shared/importError.ts';
import type { ObservedDay } from './observedDays.ts';
import type { SnapshotCountry } from './pythonHolidays.ts';

export const workingDayTermsFile = 'working-day-terms.json';

const termsFileSchema = z.strictObject({
  note: z.string().min(1),
  countries: z.record(
    z.string().regex(/^[A-Z]{2}$/),
    z.strictObject({
      language: z.string().min(2),
      /** The name of a worked weekend day; `{date}` stands for the day off it pays for. */
      label: z.string().regex(/\{date\}/, 'must say where the day off goes: {date}'),
      english: z.string().min(1),
      source: sourceUrl,
      evidence: z.string().min(1),
    }),
  ),
});
export type WorkingDayTerms = z.infer<typeof termsFileSchema>['countries'];

export async function loadWorkingDayTerms(dataDir: string): Promise<WorkingDayTerms> {
  return (await readCuratedFile(dataDir, workingDayTermsFile, termsFileSchema)).countries;
}

type DateWriter = (day: string) => string;
const parts = (day: string) => ({ year: day.slice(0, 4), month: day.slice(5, 7), dayOfMonth: day.slice(8, 10) });

/** The ways python-holidays' locales write a date in "substituted from …" (its `substituted_date_format`). */
const dateWriters: readonly DateWriter[] = [
  (day) => `${parts(day).dayOfMonth}.${parts(day).month}.${parts(day).year}`,
  (day) => day,
  (day) => `${parts(day).year}. ${parts(day).month}. ${parts(day).dayOfMonth}.`,
  (day) => `${parts(day).dayOfMonth}/${parts(day).month} ${parts(day).year}`,
  (day) => `${parts(day).dayOfMonth}/${parts(day).month}/${parts(day).year}`,
  (day) => `${parts(day).dayOfMonth}-${parts(day).month}-${parts(day).year}`,
  (day) => `${parts(day).month}/${parts(day).dayOfMonth}/${parts(day).year}`,
];

interface NamedWorkday {
  readonly workday: string;
  readonly dayOff: string;
  readonly dayOffName: string;
  /** The day off's English name, where the snapshot has one. */
  readonly dayOffEnglish: string | null;
}

/** The working days of one country, each paired with the day off whose name carries its date. */
function pairs(alpha2Code: string, entity: SnapshotCountry): NamedWorkday[] {
  const daysOfName = new Map<string, string[]>();
  for (const [day, , summary] of entity.days) daysOfName.set(summary, [...(daysOfName.get(summary) ?? []), day]);
  const found = new Map<string, NamedWorkday>();
  for (const [workday, dayOffName, dayOffEnglish] of entity.weekendWorkdays) {
    const daysOff = daysOfName.get(dayOffName) ?? [];
    if (daysOff.length === 0)
      throw new ImportError([`python-holidays snapshot: ${alpha2Code} working day ${workday} names "${dayOffName}", which is no day of the snapshot`]);
    for (const dayOff of daysOff) found.set(`${workday} ${dayOff}`, { workday, dayOff, dayOffName, dayOffEnglish });
  }
  return [...found.values()];
}

/** The writer that gives every working day's date as its day off's name writes it. */
function dateWriterOf(alpha2Code: string, named: readonly { workday: string; dayOffName: string }[]): DateWriter {
  const writer = dateWriters.find((write) => named.every(({ workday, dayOffName }) => dayOffName.includes(write(workday))));
  if (writer === undefined)
    throw new ImportError([
      `python-holidays snapshot: ${alpha2Code} writes the dates of its days off ("${named[0]?.dayOffName}") in a way workingDays.ts does not know; add it to dateWriters`,
    ]);
  return writer;
}

/**
 * The English name, for a country whose names are in another language: the term's English with
 * the day off's date written as its English name writes it ("Working day (→ 02/03/2025)").
 */
function englishNamer(alpha2Code: string, named: readonly NamedWorkday[], english: string): ((dayOff: string) => string) | undefined {
  const inEnglish = named.flatMap(({ workday, dayOffEnglish }) => (dayOffEnglish === null ? [] : [{ workday, dayOffName: dayOffEnglish }]));
  if (inEnglish.length < named.length) return undefined;
  const writeDate = dateWriterOf(alpha2Code, inEnglish);
  return (dayOff) => `${english} (→ ${writeDate(dayOff)})`;
}

export function nameWorkingDays(alpha2Code: string, entity: SnapshotCountry, terms: WorkingDayTerms): ObservedDay[] {
  const named = pairs(alpha2Code, entity);
  if (named.length === 0) return [];
  const term = terms[alpha2Code];
  if (term === undefined) {
    throw new ImportError([
      `python-holidays lists weekend working days for ${alpha2Code} (${named[0]?.workday}, …): add its term to data/curated/${workingDayTermsFile}`,
    ]);
  }
  const writeDate = dateWriterOf(alpha2Code, named);
  const nameInEnglish = entity.english === null ? undefined : englishNamer(alpha2Code, named, term.english);
  return named.map(({ workday, dayOff }) => ({
    day: workday,
    summary: term.label.replace('{date}', writeDate(dayOff)),
    ...(nameInEnglish ? { english: nameInEnglish(dayOff) } : {}),
  }));
}

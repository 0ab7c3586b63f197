/**
 * The weekend of every country, and of each subdivision whose weekend differs from its country's,
 * as python-holidays' rules give it day by day (its `_get_weekend`, read into the snapshot as
 * periods: holidays_snapshot.py `weekends`). Each change it makes is one its source code cites
 * (Saudi Arabia's Royal Decree of 2013, the UAE's move of 2022); data/SOURCES.md lists them, and
 * `npm run data:check` compares today's weekends with CLDR's weekData.
 *
 * Where python-holidays gives a country no weekend of its own and so its default (Saturday–Sunday)
 * stands in for a country whose law says otherwise, data/curated/weekend-corrections.json sets the
 * weekend from a date on, with its source.
 */
import { z } from 'zod';
import { readCuratedFile, sourceUrl } from '../shared/curatedFile.ts';
import { stateProvinceSchema, weekendSchema } from '../../records/schemas.ts';
import { reuseIds } from '../shared/ids.ts';
import type { ImportContext, RecordOutput } from '../importer.ts';
import { addDays } from './localDates.ts';
import type { PythonHolidaysSnapshot } from './pythonHolidays.ts';
import { matchSubdivisions } from './regionalHolidays.ts';

type Weekend = z.infer<typeof weekendSchema>;
type StateProvince = z.infer<typeof stateProvinceSchema>;

const naturalKey = (code: string, from: string | null) => JSON.stringify([code, from]);

export const weekendCorrectionsFile = 'weekend-corrections.json';

const correctionsSchema = z.strictObject({
  note: z.string().min(1),
  entries: z.array(
    z.strictObject({
      alpha2Code: z.string().regex(/^[A-Z]{2}$/),
      /** The weekend from this day on (to the end of the years held). */
      from: z.string().regex(/^\d{4}-\d{2}-\d{2}$/),
      weekendDays: z.array(z.number().int().min(1).max(7)).min(1).max(7),
      why: z.string().min(20),
      source: sourceUrl,
    }),
  ),
});
type WeekendCorrection = z.infer<typeof correctionsSchema>['entries'][number];
type Periods = readonly (readonly [string, readonly number[]])[];

/** python-holidays' periods with a correction's weekend from its day on. */
export function correctWeekends(periods: Periods, correction: WeekendCorrection | undefined): Periods {
  if (correction === undefined) return periods;
  const before = periods.filter(([from]) => from < correction.from);
  return [...before, [correction.from, correction.weekendDays] as const];
}

/** Periods as records: the first one's start is as far back as the data goes (null), the last one's end open (null). */
function periodsOf(periods: Periods) {
  return periods.map(([from, weekendDays], index) => {
    const next = periods[index + 1];
    return { from: index === 0 ? null : from, until: next === undefined ? null : addDays(next[0], -1), weekendDays: [...weekendDays] };
  });
}

export async function weekendRecords(context: ImportContext, snapshot: PythonHolidaysSnapshot): Promise<RecordOutput> {
  const imported = context.imported('stateProvince') as StateProvince[];
  const stateProvinces = imported.length > 0 ? imported : await context.previous('stateProvince', stateProvinceSchema);
  const alpha2ById = new Map(context.countries.map((country) => [country.id, country.alpha2Code]));
  const codeOfState = new Map(stateProvinces.map((state) => [state.id, `${alpha2ById.get(state.countryId)}-${state.abbreviation}`]));
  const idFor = reuseIds('weekend', await context.previous('weekend', weekendSchema), (record) =>
    naturalKey(
      record.stateProvinceId === null ? (alpha2ById.get(record.countryId) ?? record.countryId) : (codeOfState.get(record.stateProvinceId) ?? ''),
      record.from,
    ),
  );

  const corrections = (await readCuratedFile(context.dataDir, weekendCorrectionsFile, correctionsSchema)).entries;
  const records: Weekend[] = [];
  for (const country of context.countries) {
    const entity = snapshot.countries[country.alpha2Code];
    if (!entity) continue;
    const corrected = correctWeekends(
      entity.weekends,
      corrections.find((correction) => correction.alpha2Code === country.alpha2Code),
    );
    for (const period of periodsOf(corrected)) {
      records.push({ id: idFor(naturalKey(country.alpha2Code, period.from)), countryId: country.id, stateProvinceId: null, ...period });
    }
  }
  for (const { alpha2Code, subdivision, state } of matchSubdivisions(snapshot, context.countries, stateProvinces)) {
    const own = snapshot.countries[alpha2Code]?.subdivisions[subdivision]?.weekends;
    const code = codeOfState.get(state.id) ?? '';
    if (own === undefined) continue;
    for (const period of periodsOf(own))
      records.push({ id: idFor(naturalKey(code, period.from)), countryId: state.countryId, stateProvinceId: state.id, ...period });
  }
  return { recordType: 'weekend', schema: weekendSchema, records };
}

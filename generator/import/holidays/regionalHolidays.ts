/**
 * A subdivision's own days, beside its country's: python-holidays' subdivisions (read from its
 * snapshot, holidays_snapshot.py `subdivisions`) matched to the stateProvince records by ISO
 * 3166-2 code (python-holidays' `DE` subdivision `BY` is `DE-BY`). A record is a day the
 * subdivision has and the nation lacks (by date, category and name): its public days are
 * stateProvinceHoliday records, every other category's stateProvinceSpecialDay records, typed as
 * the country's special days are (dayTypes.ts). The nation's own days are not repeated.
 *
 * python-holidays' subdivisions that are no ISO 3166-2 subdivision (a city such as Augsburg) are
 * left out, each named in unmatchedSubdivisions with the reason; a new one stops the import. Days
 * python-holidays gets wrong are corrected first, each with its source (regionalCorrections.ts).
 */
import type { z } from 'zod';
import { stateProvinceHolidaySchema, stateProvinceSchema, stateProvinceSpecialDaySchema, type Country } from '../../records/schemas.ts';
import { holidayTimeZone } from './holidayZones.ts';
import { reuseIds } from '../shared/ids.ts';
import type { ImportContext, RecordOutput } from '../importer.ts';
import { ImportError } from '../shared/importError.ts';
import { localDaySpan } from './localDates.ts';
import { languageTag } from './observedDays.ts';
import { compareCodePoints } from '../shared/ordering.ts';
import type { PythonHolidaysSnapshot } from './pythonHolidays.ts';
import { dayMarksOf, specialDayType, typeRank } from './dayTypes.ts';
import { publicCategory } from './pythonHolidays.ts';
import { correctSubdivisionDays, readRegionalCorrections, regionalCorrectionsFile, type SubdivisionDay } from './regionalCorrections.ts';

type StateProvince = z.infer<typeof stateProvinceSchema>;
type StateProvinceDay = z.infer<typeof stateProvinceSpecialDaySchema>;

/**
 * python-holidays subdivision codes that are not ISO 3166-2's, with the ISO 3166-2 code of the
 * same subdivision: ISO 3166-2:BQ codes Bonaire BQ-BO, Saba BQ-SA and Sint Eustatius BQ-SE;
 * Aosta, python-holidays' province AO, is the region Valle d'Aosta, IT-23, which has no provinces.
 */
export const isoCodeOf: Readonly<Record<string, string>> = {
  'BQ-BON': 'BQ-BO',
  'BQ-SAB': 'BQ-SA',
  'BQ-STA': 'BQ-SE',
  'IT-AO': 'IT-23',
};

/**
 * python-holidays subdivisions that are no ISO 3166-2 subdivision, by `<country>-<code>`: cities
 * and areas inside one, whose days the subdivision as a whole does not have, and subdivisions
 * iso-codes does not list yet (they have no days of their own in python-holidays either).
 */
export const unmatchedSubdivisions: Readonly<Record<string, string>> = {
  'BR-São Paulo Capital': 'the city of São Paulo, inside BR-SP',
  'CH-Stadt Zurich': 'the city of Zürich, inside CH-ZH',
  'DE-Augsburg': 'the city of Augsburg, inside DE-BY',
  'IT-Andria': 'a city of IT-BT (Barletta-Andria-Trani)',
  'IT-Barletta': 'a city of IT-BT (Barletta-Andria-Trani)',
  'IT-Trani': 'a city of IT-BT (Barletta-Andria-Trani)',
  'IT-Cesena': 'a city of IT-FC (Forlì-Cesena)',
  'IT-Forli': 'a city of IT-FC (Forlì-Cesena)',
  'IT-Pesaro': 'a city of IT-PU (Pesaro e Urbino)',
  'IT-Urbino': 'a city of IT-PU (Pesaro e Urbino)',
  'MO-I': 'ISO 3166-2 gives Macao no subdivisions; no days of its own',
  'MO-M': 'ISO 3166-2 gives Macao no subdivisions; no days of its own',
  'NO-31': 'a county of the 2024 reform (Østfold) that iso-codes 4.20.1 does not list; no days of its own',
  'NO-32': 'a county of the 2024 reform (Akershus) that iso-codes 4.20.1 does not list; no days of its own',
  'NO-33': 'a county of the 2024 reform (Buskerud) that iso-codes 4.20.1 does not list; no days of its own',
  'NO-39': 'a county of the 2024 reform (Vestfold) that iso-codes 4.20.1 does not list; no days of its own',
  'NO-40': 'a county of the 2024 reform (Telemark) that iso-codes 4.20.1 does not list; no days of its own',
  'NO-55': 'a county of the 2024 reform (Troms) that iso-codes 4.20.1 does not list; no days of its own',
  'NO-56': 'a county of the 2024 reform (Finnmark) that iso-codes 4.20.1 does not list; no days of its own',
  'NZ-South Canterbury': 'the South Canterbury anniversary-day area, inside NZ-CAN',
};

/** The snapshot's subdivisions as stateProvince records, every one matched or named in unmatchedSubdivisions. */
export function matchSubdivisions(snapshot: PythonHolidaysSnapshot, countries: readonly Country[], stateProvinces: readonly StateProvince[]) {
  const alpha2ById = new Map(countries.map((country) => [country.id, country.alpha2Code]));
  const byCode = new Map(stateProvinces.map((state) => [`${alpha2ById.get(state.countryId)}-${state.abbreviation}`, state]));
  const matched: { alpha2Code: string; subdivision: string; state: StateProvince }[] = [];
  const unmatched: string[] = [];
  for (const [alpha2Code, entity] of Object.entries(snapshot.countries)) {
    for (const subdivision of Object.keys(entity.subdivisions)) {
      const code = `${alpha2Code}-${subdivision}`;
      const state = byCode.get(isoCodeOf[code] ?? code);
      if (state) matched.push({ alpha2Code, subdivision, state });
      else unmatched.push(code);
    }
  }
  const expected = Object.keys(unmatchedSubdivisions).sort();
  if (unmatched.sort().join('|') !== expected.join('|')) {
    throw new ImportError([
      `python-holidays subdivisions without an ISO 3166-2 match: ${unmatched.join(', ') || 'none'}; regionalHolidays.ts expects ${expected.join(', ')}: update unmatchedSubdivisions and data/SOURCES.md`,
    ]);
  }
  return matched;
}

/** Matched subdivisions, each with its stateProvince record. */
export type MatchedSubdivision = ReturnType<typeof matchSubdivisions>[number];

const naturalKey = (code: string, startDate: string, summary: string) => JSON.stringify([code, startDate, summary]);

/** The records of one type: each subdivision's days, by country part, in subdivision, date and name order. */
class RegionalParts {
  readonly parts = new Map<string, StateProvinceDay[]>();
  readonly #byKey = new Map<string, StateProvinceDay>();

  constructor(private readonly codeOf: ReadonlyMap<string, string>) {}

  add(part: string, key: string, record: StateProvinceDay): void {
    const known = this.#byKey.get(key);
    if (known !== undefined) {
      // One name from two categories (optional and government): the record takes the stronger type.
      if (typeRank(record.dayType) < typeRank(known.dayType)) Object.assign(known, { dayType: record.dayType });
      return;
    }
    this.#byKey.set(key, record);
    this.parts.set(part, [...(this.parts.get(part) ?? []), record]);
  }

  sorted(): Map<string, StateProvinceDay[]> {
    const code = (record: StateProvinceDay) => this.codeOf.get(record.stateProvinceId) ?? '';
    for (const records of this.parts.values()) {
      records.sort((a, b) => compareCodePoints(code(a), code(b)) || compareCodePoints(a.startDate, b.startDate) || compareCodePoints(a.summary, b.summary));
    }
    return this.parts;
  }
}

export async function importRegionalHolidays(context: ImportContext, snapshot: PythonHolidaysSnapshot): Promise<RecordOutput[]> {
  const imported = context.imported('stateProvince') as StateProvince[];
  const stateProvinces = imported.length > 0 ? imported : await context.previous('stateProvince', stateProvinceSchema);
  const countryByAlpha2 = new Map(context.countries.map((country) => [country.alpha2Code, country]));
  const alpha2ById = new Map(context.countries.map((country) => [country.id, country.alpha2Code]));
  const codeOf = new Map(stateProvinces.map((state) => [state.id, `${alpha2ById.get(state.countryId)}-${state.abbreviation}`]));
  const idsOf = async (recordType: 'stateProvinceHoliday' | 'stateProvinceSpecialDay') =>
    reuseIds(recordType, await context.previous(recordType, stateProvinceSpecialDaySchema.partial({ dayType: true })), (record) =>
      naturalKey(codeOf.get(record.stateProvinceId) ?? record.stateProvinceId, record.startDate, record.summary),
    );
  const holidayIds = await idsOf('stateProvinceHoliday');
  const specialDayIds = await idsOf('stateProvinceSpecialDay');

  const holidays = new RegionalParts(codeOf);
  const specialDays = new RegionalParts(codeOf);
  const matched = matchSubdivisions(snapshot, context.countries, stateProvinces);
  const snapshotDays = new Map<string, readonly SubdivisionDay[]>();
  for (const { alpha2Code, subdivision, state } of matched) {
    const days = snapshot.countries[alpha2Code]?.subdivisions[subdivision]?.days;
    if (days) snapshotDays.set(codeOf.get(state.id) ?? `${alpha2Code}-${subdivision}`, days);
  }
  const corrections = await readRegionalCorrections(context.dataDir);
  const unknown = corrections.filter((correction) => !snapshotDays.has(correction.subdivision));
  if (unknown.length > 0) {
    throw new ImportError(
      unknown.map((correction) => `data/curated/${regionalCorrectionsFile}: ${correction.subdivision} is no subdivision python-holidays gives days of its own`),
    );
  }
  for (const { alpha2Code, subdivision, state } of matched) {
    const entity = snapshot.countries[alpha2Code];
    const snapshotOwn = entity?.subdivisions[subdivision];
    if (!entity || !snapshotOwn || !countryByAlpha2.has(alpha2Code)) continue;
    const code = codeOf.get(state.id) ?? `${alpha2Code}-${subdivision}`;
    const days = { ...snapshotOwn, days: correctSubdivisionDays(code, snapshotOwn.days, corrections, (other) => snapshotDays.get(other)) };
    const timeZone = holidayTimeZone(alpha2Code);
    const own = languageTag(entity.language);
    const english = entity.english === null ? undefined : languageTag(entity.english);
    const marks = dayMarksOf(days);
    const part = alpha2Code.toLowerCase();
    for (const [day, category, summary, englishName] of days.days) {
      const { startDate, endDate } = localDaySpan(timeZone, day);
      const key = naturalKey(code, startDate, summary);
      const translations = englishName !== null && english !== undefined ? { translations: { [english]: englishName } } : {};
      const base = { stateProvinceId: state.id, summary, startDate, endDate, language: own, ...translations, ...marks(day, summary) };
      if (category === publicCategory) holidays.add(part, key, { id: holidayIds(key), ...base });
      else {
        const dayType = specialDayType(alpha2Code, category);
        specialDays.add(part, key, { id: specialDayIds(key), ...base, ...(dayType === undefined ? {} : { dayType }) });
      }
    }
  }
  return [
    { recordType: 'stateProvinceHoliday', schema: stateProvinceHolidaySchema, parts: holidays.sorted() },
    { recordType: 'stateProvinceSpecialDay', schema: stateProvinceSpecialDaySchema, parts: specialDays.sorted() },
  ];
}

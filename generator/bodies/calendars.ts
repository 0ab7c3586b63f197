/**
 * The work calendars (contract/workCalendar.ts): for every country and year, and every subdivision
 * with days of its own and year, one document made of the holidays, the special days that change
 * a working day (their hidden `dayType`), the subdivision's own days of both kinds and the weekend,
 * in the country's own language and in each other language its days are named in.
 */
import type { RecordType } from '../../contract/recordTypes.ts';
import { bodyPath, languageBodyKeys, type Route } from '../../contract/routes.ts';
import type { IsoWeekday, WeekendChange, WorkCalendar, WorkCalendarDay, WorkDayType } from '../../contract/workCalendar.ts';
import { workDayTypes } from '../../contract/workCalendar.ts';
import { textIn } from '../records/translations.ts';
import { compareCodePoints } from '../records/ordering.ts';
import type { DataRecord } from '../records/schemas.ts';
import type { Indexing } from './indexing.ts';

/** A day of the calendar before it is named in a language: the record its name comes from. */
interface CalendarDay {
  readonly date: string;
  readonly type: WorkDayType;
  readonly record: DataRecord;
  readonly scope: WorkCalendarDay['scope'];
}

interface WeekendPeriod {
  readonly from: string | null;
  readonly until: string | null;
  readonly weekendDays: readonly IsoWeekday[];
}

const typeOrder = new Map(workDayTypes.map((type, index) => [type, index]));

/** `2026-10-28 13:00:00 GMT+03:00` → the day and, where it does not start at midnight, the hour. */
const dateOf = (record: DataRecord) => String(record.startDate).slice(0, 10);
const startTimeOf = (record: DataRecord) => {
  const time = String(record.startDate).slice(11, 16);
  return time === '00:00' ? undefined : time;
};

function calendarDay(record: DataRecord, type: WorkDayType, scope: CalendarDay['scope']): CalendarDay {
  return { date: dateOf(record), type, record, scope };
}

/** Records grouped by a key and year, in data order. */
function groupByYear(records: readonly DataRecord[], keyOf: (record: DataRecord) => string, toDay: (record: DataRecord) => CalendarDay | undefined) {
  const groups = new Map<string, CalendarDay[]>();
  for (const record of records) {
    const day = toDay(record);
    if (day === undefined) continue;
    const key = `${keyOf(record)} ${day.date.slice(0, 4)}`;
    const group = groups.get(key);
    if (group) group.push(day);
    else groups.set(key, [day]);
  }
  return groups;
}

/** The weekend on the year's first day, and each change within the year. */
function weekendOf(periods: readonly WeekendPeriod[], year: number): { weekendDays: readonly IsoWeekday[]; weekendChanges: WeekendChange[] } {
  const first = `${year}-01-01`;
  const last = `${year}-12-31`;
  const atStart = periods.find((period) => (period.from === null || period.from <= first) && (period.until === null || period.until >= first));
  const weekendChanges = periods
    .filter((period) => period.from !== null && period.from > first && period.from <= last)
    .map((period) => ({ from: period.from as string, weekendDays: period.weekendDays }));
  return { weekendDays: atStart?.weekendDays ?? [], weekendChanges };
}

/**
 * The days in date order, without a special day that repeats a holiday of the same date, scope and
 * name (Hong Kong's statutory holidays are also among its general holidays, python-holidays'
 * `optional` ones): the holiday says it.
 */
function calendarDays(days: CalendarDay[]): CalendarDay[] {
  const holidays = new Set(days.filter((day) => day.type === 'public').map((day) => `${day.date} ${day.scope} ${String(day.record.summary)}`));
  return days.filter((day) => day.type === 'public' || !holidays.has(`${day.date} ${day.scope} ${String(day.record.summary)}`)).sort(compareDays);
}

function compareDays(a: CalendarDay, b: CalendarDay): number {
  if (a.date !== b.date) return compareCodePoints(a.date, b.date);
  if (a.scope !== b.scope) return a.scope === 'national' ? -1 : 1;
  return (typeOrder.get(a.type) ?? 0) - (typeOrder.get(b.type) ?? 0);
}

/**
 * The record types a work calendar is made from, and the only ones this module reads (`records`
 * takes no other): a rebuild remakes the calendars when one of them changed (generator/plan/reads.ts).
 */
export const workCalendarReads = [
  'country',
  'stateProvince',
  'countryHoliday',
  'countrySpecialDay',
  'stateProvinceHoliday',
  'stateProvinceSpecialDay',
  'weekend',
] as const satisfies readonly RecordType[];

/** The days of every calendar, by owner and year (`<country id> <year>`, `<state id> <year>`), and the weekends by owner. */
function gatherDays(records: (type: (typeof workCalendarReads)[number]) => readonly DataRecord[]) {
  const national = new Map<string, CalendarDay[]>();
  for (const [key, days] of groupByYear(
    records('countryHoliday'),
    (day) => String(day.countryId),
    (day) => calendarDay(day, 'public', 'national'),
  )) {
    national.set(key, days);
  }
  const special = groupByYear(
    records('countrySpecialDay'),
    (day) => String(day.countryId),
    (day) => (day.dayType === undefined ? undefined : calendarDay(day, day.dayType as WorkDayType, 'national')),
  );
  for (const [key, days] of special) national.set(key, [...(national.get(key) ?? []), ...days]);
  const regional = groupByYear(
    records('stateProvinceHoliday'),
    (day) => String(day.stateProvinceId),
    (day) => calendarDay(day, 'public', 'regional'),
  );
  const regionalSpecial = groupByYear(
    records('stateProvinceSpecialDay'),
    (day) => String(day.stateProvinceId),
    (day) => (day.dayType === undefined ? undefined : calendarDay(day, day.dayType as WorkDayType, 'regional')),
  );
  for (const [key, days] of regionalSpecial) regional.set(key, [...(regional.get(key) ?? []), ...days]);
  const weekends = new Map<string, WeekendPeriod[]>();
  for (const period of records('weekend')) {
    const owner = String(period.stateProvinceId ?? period.countryId);
    weekends.set(owner, [...(weekends.get(owner) ?? []), period as unknown as WeekendPeriod]);
  }

  return { national, regional, weekends };
}

export function indexWorkCalendars(route: Route, indexing: Indexing): void {
  const { dataset, settings, keys, languages, bodies, problems } = indexing;
  const named = route.languages;
  const [countryParam, yearParam, stateParam] = route.params;
  if (!named || !countryParam || !yearParam || !stateParam) {
    problems.push(`${route.path}: a work calendar takes a country, a year and an optional subdivision, with names in several languages`);
    return;
  }
  const records = (type: (typeof workCalendarReads)[number]) => dataset.records.get(type) ?? [];
  const { national, regional, weekends } = gatherDays(records);

  const write = (country: DataRecord, year: number, days: CalendarDay[], state?: DataRecord) => {
    const countryKey = keys.ownKey('country', country, countryParam);
    const stateCode = state === undefined ? undefined : String(keys.fieldValue('stateProvince', state, stateParam.field));
    const stateKey = state === undefined ? undefined : keys.keyOf('stateProvince', state, stateParam, stateCode);
    if (countryKey === undefined || (state !== undefined && stateKey === undefined)) return;
    const listed = calendarDays(days);
    const weekend = weekendOf(weekends.get(String(state?.id)) ?? weekends.get(country.id) ?? [], year);
    const document = (nameOf: (record: DataRecord) => unknown): string =>
      JSON.stringify({
        countryCode: String(country.alpha2Code),
        stateProvinceCode: stateCode ?? null,
        year,
        ...weekend,
        days: listed.map(({ date, type, record, scope }): WorkCalendarDay => {
          const startTime = type === 'halfDay' ? startTimeOf(record) : undefined;
          return {
            date,
            type,
            name: String(nameOf(record)),
            ...(startTime === undefined ? {} : { startTime }),
            ...(record.observedFor === undefined ? {} : { observedFor: String(record.observedFor) }),
            scope,
            ...(record.provisional === true ? { provisional: true } : {}),
          };
        }),
      } satisfies WorkCalendar);
    const tuple = [countryKey, String(year), ...(stateKey === undefined ? [] : [stateKey])];
    const own = document((record) => record[named.field]);
    bodies.set(bodyPath(route, tuple), own);
    for (const { tag, key } of languages.others(countryKey)) {
      const inLanguage = document((record) => textIn(record, named, tag));
      if (inLanguage !== own) bodies.set(bodyPath(route, languageBodyKeys(tuple, key)), inLanguage);
    }
  };

  const countries = new Map(records('country').map((country) => [country.id, country]));
  const { first, last } = settings.holidayYears;
  const covered = records('stateProvince').filter((state) => keys.fieldValue('stateProvince', state, 'regionalHolidays') === true);
  for (let year = first; year <= last; year += 1) {
    for (const country of countries.values()) write(country, year, [...(national.get(`${country.id} ${year}`) ?? [])]);
    for (const state of covered) {
      const country = countries.get(String(state.countryId));
      if (!country) continue;
      write(country, year, [...(national.get(`${country.id} ${year}`) ?? []), ...(regional.get(`${state.id} ${year}`) ?? [])], state);
    }
  }
}

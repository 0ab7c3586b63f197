/** The days the holiday importers make records of, before they are given times and ids. */
import type { BuildSettings } from '../../records/schemas.ts';
import type { SpecialDayType } from '../../../contract/workCalendar.ts';
import type { CivilDay, WallTime } from './localDates.ts';

/** The years data/build.json asks holidays for. */
export type HolidayYears = BuildSettings['holidayYears'];

/** A day to record: a whole local day, or from `from` to the end of the day (a half day). */
export interface ObservedDay {
  readonly day: CivilDay;
  readonly summary: string;
  /** The summary in English, where the summary is in another language and the source gives one. */
  readonly english?: string;
  readonly from?: WallTime;
  /**
   * What a special day is in a work calendar (contract/workCalendar.ts): a bank holiday, a half day,
   * a day off for some, a working day. None for an observance, which changes no one's working day.
   * Holidays are days off for everyone and carry none.
   */
  readonly type?: SpecialDayType;
  /** The day this one stands in for, where it is an observed or substitute day. */
  readonly observedFor?: CivilDay;
  /** Set where the date is worked out by rule ahead of its announcement (a lunar date, a decree not yet made). */
  readonly provisional?: true;
}

/**
 * The languages of a country's names, as BCP 47 tags: its own (`tr`, `zh-CN`; `en` where the
 * source writes the names in English), and that of its English names, where they are another's.
 */
export interface DayLanguages {
  readonly own: string;
  readonly english?: string;
}

/** A country's days: its public holidays and every other day it names. */
export interface CountryDayLists {
  readonly holidays: readonly ObservedDay[];
  readonly specialDays: readonly ObservedDay[];
}

/** python-holidays' language codes as BCP 47 tags: `zh_CN` → `zh-CN`; no default language → `en` (its names are English). */
export const languageTag = (code: string | null): string => (code ?? 'en').replace('_', '-');

/** The days the holiday importers make records of, before they are given times and ids. */
import type { BuildSettings } from '../schemas.ts';
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

/**
 * The work calendar: a country's (or one of its subdivisions') year as a business-day calendar
 * needs it. The generator writes one per country, subdivision and year; the proxy serves it as
 * JSON in the envelope, or as iCalendar (icalendar.ts).
 */

/**
 * What a day is in a work calendar:
 * - `public`: a public holiday, a day off for everyone (observed and substitute days included);
 * - `bank`: banks and the payment systems close, most other work goes on;
 * - `halfDay`: work stops at `startTime` (Türkiye's arife from 13:00), or for half the day where
 *   the source gives no hour;
 * - `optional`: a day off for some workers only (government staff, one religious group, schools,
 *   or at the employer's choice);
 * - `workday`: a weekend day that is a working day, paying for a day off moved next to a holiday.
 * Observances that change no one's working day (Valentine's Day, kandil nights) are not listed.
 */
export const workDayTypes = ['public', 'bank', 'halfDay', 'optional', 'workday'] as const;
export type WorkDayType = (typeof workDayTypes)[number];
/** The types a special day may have: every one but `public`, which is the holidays' own. */
export type SpecialDayType = Exclude<WorkDayType, 'public'>;

/** ISO 8601 weekday numbers: 1 = Monday … 7 = Sunday. */
export type IsoWeekday = 1 | 2 | 3 | 4 | 5 | 6 | 7;

export interface WorkCalendarDay {
  /** The local civil day, `YYYY-MM-DD`. */
  readonly date: string;
  readonly type: WorkDayType;
  /** In the language the response is in (Content-Language). */
  readonly name: string;
  /** A half day's local start of the time off, `HH:MM`, where the source gives one. */
  readonly startTime?: string;
  /** An observed or substitute day: the date of the day it stands in for. */
  readonly observedFor?: string;
  /** `national`: the whole country's; `regional`: the subdivision's own, beside the national ones. */
  readonly scope: 'national' | 'regional';
  /** Present (true) where the date is worked out by rule ahead of its announcement. */
  readonly provisional?: true;
}

/** A change of the weekend within the year: from `from` on, `weekendDays` are the weekend. */
export interface WeekendChange {
  readonly from: string;
  readonly weekendDays: readonly IsoWeekday[];
}

export interface WorkCalendar {
  /** ISO 3166-1 alpha-2, upper case. */
  readonly countryCode: string;
  /** ISO 3166-2 (`DE-BY`), or null for the national calendar. */
  readonly stateProvinceCode: string | null;
  readonly year: number;
  /** The weekend on the year's first day, as ISO weekdays. */
  readonly weekendDays: readonly IsoWeekday[];
  /** The weekend's changes within the year, in date order; empty in nearly every year. */
  readonly weekendChanges: readonly WeekendChange[];
  /** Every day that is not an ordinary working day or weekend day, by date; a date may have several. */
  readonly days: readonly WorkCalendarDay[];
}

/**
 * Business-day arithmetic over work calendars (workCalendar.ts): whether a day is a working day
 * and why not, the date a number of working days away, and the working days in a range. One rule
 * for every client, so that none loops over calendars with a precedence of its own.
 *
 * A day is closed when any of its entries has a type the policy closes (by default `public` and
 * `bank`); else it is open when one of its entries is a `workday` (a weekend day worked to make up
 * for a bridge); else it is closed on the weekend in force that day, and open otherwise. `halfDay`
 * and `optional` days are open unless the policy names them: a half day is still worked, and an
 * optional day is off for some workers only.
 *
 * Dates are local civil days, `YYYY-MM-DD`, counted as whole days from 1970-01-01 (no time zone:
 * a calendar's days are the country's own).
 */
import type { IsoWeekday, WorkCalendar, WorkCalendarDay, WorkDayType } from './workCalendar.ts';

/** The day types a policy may close: every type but `workday`, which opens a weekend day. */
export const closableTypes = ['public', 'bank', 'halfDay', 'optional'] as const satisfies readonly WorkDayType[];
export type ClosableType = (typeof closableTypes)[number];
/** The default policy: public holidays and bank holidays close a day; half days and optional days do not. */
export const defaultClosed: readonly ClosableType[] = ['public', 'bank'];

/** The longest range one question may span: ten years of days (the count's range, the walk of an addition). */
export const maxSpanDays = 3_653;

const dayMillis = 86_400_000;
/** The entries of a day the calendars list nothing for. */
const noDays: readonly WorkCalendarDay[] = [];
const datePattern = /^(\d{4})-(\d{2})-(\d{2})$/;

/** The whole days from 1970-01-01 to `date` (`YYYY-MM-DD`), or undefined when it is no calendar date. */
export function dayNumberOf(date: string): number | undefined {
  const match = datePattern.exec(date);
  if (!match) return undefined;
  const [year, month, day] = [Number(match[1]), Number(match[2]), Number(match[3])];
  const millis = Date.UTC(year, month - 1, day);
  const back = new Date(millis);
  // Date.UTC rolls 2026-02-30 over into March: a date that does not come back as written does not exist.
  if (back.getUTCFullYear() !== year || back.getUTCMonth() !== month - 1 || back.getUTCDate() !== day) return undefined;
  return millis / dayMillis;
}

/** The date (`YYYY-MM-DD`) of a day number. */
export function dateOf(dayNumber: number): string {
  return new Date(dayNumber * dayMillis).toISOString().slice(0, 10);
}

/** The ISO weekday (1 = Monday … 7 = Sunday) of a day number: 1970-01-01 was a Thursday. */
export function isoWeekdayOf(dayNumber: number): IsoWeekday {
  return (((((dayNumber + 3) % 7) + 7) % 7) + 1) as IsoWeekday;
}

/** Why a day is not an ordinary working day: the weekend, or its entries' types. */
export type ClosedBy = 'weekend' | ClosableType;

/** A day as the arithmetic sees it. */
export interface DayStatus {
  readonly date: string;
  readonly weekday: IsoWeekday;
  readonly working: boolean;
  /** Whether the day falls on the weekend in force that day (a `workday` may still open it). */
  readonly weekend: boolean;
  /** What closes it, strongest first: the types of its entries the policy closes, or `weekend`. Empty on a working day. */
  readonly closedBy: readonly ClosedBy[];
  /** The calendar's entries on that date (holidays, special days, a make-up workday), as the calendar lists them. */
  readonly days: readonly WorkCalendarDay[];
}

/** A question about a date the calendars at hand do not cover, or past what one question may span. */
export class OutsideCalendars extends RangeError {
  constructor(
    message: string,
    readonly first: string,
    readonly last: string,
  ) {
    super(message);
  }
}

/** The weekend of each day of a calendar's year, from its weekend and its changes within the year. */
function weekendOfYear(calendar: WorkCalendar, start: number, days: number): boolean[] {
  const changes = calendar.weekendChanges.map((change) => ({ from: dayNumberOf(change.from) ?? start, weekendDays: change.weekendDays }));
  let weekendDays: readonly IsoWeekday[] = calendar.weekendDays;
  let next = 0;
  const weekend: boolean[] = [];
  for (let offset = 0; offset < days; offset++) {
    while (next < changes.length && (changes[next]?.from ?? Number.POSITIVE_INFINITY) <= start + offset)
      weekendDays = changes[next++]?.weekendDays ?? weekendDays;
    weekend.push(weekendDays.includes(isoWeekdayOf(start + offset)));
  }
  return weekend;
}

/**
 * Work calendars of consecutive years of one country (or subdivision) or market, read as one
 * business calendar under one policy of which types close a day.
 */
export class BusinessCalendar {
  /** The first and last day covered, as day numbers. */
  readonly #first: number;
  readonly #last: number;
  /** Per day covered: 1 when it is a working day. */
  readonly #working: Uint8Array;
  readonly #weekend: Uint8Array;
  readonly #entries = new Map<number, WorkCalendarDay[]>();
  readonly #closed: ReadonlySet<ClosableType>;

  /** `calendars`: one per year, consecutive (any order); `closed`: the types that close a day. */
  constructor(calendars: readonly WorkCalendar[], closed: readonly ClosableType[] = defaultClosed) {
    const sorted = [...calendars].sort((a, b) => a.year - b.year);
    const firstYear = sorted[0]?.year;
    if (firstYear === undefined) throw new Error('a business calendar needs at least one year of a work calendar');
    sorted.forEach((calendar, index) => {
      if (calendar.year !== firstYear + index) throw new Error(`a business calendar needs consecutive years: ${firstYear + index} is missing`);
    });
    this.#closed = new Set(closed);
    this.#first = dayNumberOf(`${String(firstYear).padStart(4, '0')}-01-01`) as number;
    this.#last = (dayNumberOf(`${String(firstYear + sorted.length).padStart(4, '0')}-01-01`) as number) - 1;
    const length = this.#last - this.#first + 1;
    this.#working = new Uint8Array(length);
    this.#weekend = new Uint8Array(length);
    for (const calendar of sorted) this.#addYear(calendar);
  }

  #addYear(calendar: WorkCalendar): void {
    const start = dayNumberOf(`${String(calendar.year).padStart(4, '0')}-01-01`) as number;
    const days = (dayNumberOf(`${String(calendar.year + 1).padStart(4, '0')}-01-01`) as number) - start;
    const weekend = weekendOfYear(calendar, start, days);
    for (const day of calendar.days) {
      const number = dayNumberOf(day.date);
      if (number === undefined || number < start || number >= start + days) continue;
      const listed = this.#entries.get(number);
      if (listed) listed.push(day);
      else this.#entries.set(number, [day]);
    }
    for (let offset = 0; offset < days; offset++) {
      const index = start - this.#first + offset;
      this.#weekend[index] = weekend[offset] ? 1 : 0;
      this.#working[index] = this.#closedBy(start + offset, weekend[offset] === true).length === 0 ? 1 : 0;
    }
  }

  /** What closes day `number` under the policy (empty: it is a working day). */
  #closedBy(number: number, weekend: boolean): ClosedBy[] {
    const entries = this.#entries.get(number) ?? noDays;
    const closing = closableTypes.filter((type) => this.#closed.has(type) && entries.some((day) => day.type === type));
    if (closing.length > 0) return closing;
    if (entries.some((day) => day.type === 'workday')) return [];
    return weekend ? ['weekend'] : [];
  }

  /** The first and last dates covered. */
  get first(): string {
    return dateOf(this.#first);
  }

  get last(): string {
    return dateOf(this.#last);
  }

  /** Day number `number` as an index into the covered days, or an OutsideCalendars naming `what`. */
  #indexOf(number: number, what: string): number {
    if (number < this.#first || number > this.#last) {
      throw new OutsideCalendars(`${what} lies outside the calendars at hand, ${this.first} to ${this.last}`, this.first, this.last);
    }
    return number - this.#first;
  }

  /** Whether `date` is a working day. */
  isWorking(date: string): boolean {
    return this.#working[this.#indexOf(checkedDay(date), date)] === 1;
  }

  /** `date` as the arithmetic sees it: working or not, and why. */
  status(date: string): DayStatus {
    const number = checkedDay(date);
    const index = this.#indexOf(number, date);
    const weekend = this.#weekend[index] === 1;
    return {
      date,
      weekday: isoWeekdayOf(number),
      working: this.#working[index] === 1,
      weekend,
      closedBy: this.#closedBy(number, weekend),
      days: this.#entries.get(number) ?? noDays,
    };
  }

  /**
   * The working day `count` working days after `date` (before it when negative), not counting
   * `date` itself; `date` itself when `count` is 0, working day or not.
   */
  addWorkdays(date: string, count: number): string {
    if (!Number.isSafeInteger(count)) throw new RangeError(`${count} is not a whole number of days`);
    const start = checkedDay(date);
    let index = this.#indexOf(start, date);
    const step = count < 0 ? -1 : 1;
    for (let left = Math.abs(count); left > 0; ) {
      index += step;
      if (Math.abs(index + this.#first - start) > maxSpanDays) {
        throw new OutsideCalendars(`${Math.abs(count)} working days from ${date} reach past ten years`, this.first, this.last);
      }
      if (index < 0 || index >= this.#working.length) {
        throw new OutsideCalendars(
          `${Math.abs(count)} working days from ${date} reach past the calendars at hand, ${this.first} to ${this.last}`,
          this.first,
          this.last,
        );
      }
      if (this.#working[index] === 1) left--;
    }
    return dateOf(index + this.#first);
  }

  /** The working days from `from` to `to`, both included (0 when `to` is before `from`). */
  countWorkdays(from: string, to: string): number {
    const start = checkedDay(from);
    const end = checkedDay(to);
    if (end - start + 1 > maxSpanDays) throw new OutsideCalendars(`${from} to ${to} spans more than ten years`, this.first, this.last);
    if (end < start) return 0;
    const first = this.#indexOf(start, from);
    const last = this.#indexOf(end, to);
    let count = 0;
    for (let index = first; index <= last; index++) count += this.#working[index] as number;
    return count;
  }

  /** The nearest working day before `date` (`step` -1) or after it (1), or undefined when none is covered. */
  nearestWorkday(date: string, step: -1 | 1): string | undefined {
    const number = checkedDay(date);
    for (let index = this.#indexOf(number, date) + step; index >= 0 && index < this.#working.length; index += step) {
      if (this.#working[index] === 1) return dateOf(index + this.#first);
    }
    return undefined;
  }
}

/** The day number of a date the caller has checked; a RangeError for one that is no date. */
function checkedDay(date: string): number {
  const number = dayNumberOf(date);
  if (number === undefined) throw new RangeError(`${JSON.stringify(date)} is not a date of the form YYYY-MM-DD`);
  return number;
}

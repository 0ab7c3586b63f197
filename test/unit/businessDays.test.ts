/**
 * Business-day arithmetic (contract/businessDays.ts) over calendars holding the days the build
 * holds for them (data/records, from python-holidays): Christmas 2026 in England, New Year 2026 in
 * China with its make-up Sunday, and Saudi Arabia's change of weekend on 29 June 2013.
 */
import { describe, expect, it } from 'vitest';
import { BusinessCalendar, dayNumberOf, isoWeekdayOf, maxSpanDays, OutsideCalendars } from '../../contract/businessDays.ts';
import type { IsoWeekday, WorkCalendar, WorkCalendarDay } from '../../contract/workCalendar.ts';

const day = (date: string, type: WorkCalendarDay['type'], name: string): WorkCalendarDay => ({ date, type, name, scope: 'national' });

function calendar(
  countryCode: string,
  year: number,
  days: WorkCalendarDay[],
  weekendDays: IsoWeekday[] = [6, 7],
  weekendChanges: WorkCalendar['weekendChanges'] = [],
): WorkCalendar {
  return { countryCode, stateProvinceCode: null, year, weekendDays, weekendChanges, days };
}

const england2026 = calendar('GB', 2026, [
  day('2026-01-01', 'public', "New Year's Day"),
  day('2026-12-25', 'public', 'Christmas Day'),
  day('2026-12-26', 'bank', 'Boxing Day'),
  { ...day('2026-12-28', 'public', 'Boxing Day (observed)'), observedFor: '2026-12-26' },
]);
const england2027 = calendar('GB', 2027, [day('2027-01-01', 'public', "New Year's Day")]);
const china2026 = calendar('CN', 2026, [
  day('2026-01-01', 'public', '元旦'),
  day('2026-01-02', 'public', '休息日（由 2026-01-04 调休）'),
  day('2026-01-04', 'workday', '调休上班日 (→ 2026-01-02)'),
]);

describe('dates', () => {
  it('reads calendar dates and refuses what is none', () => {
    expect(dayNumberOf('1970-01-01')).toBe(0);
    expect(dayNumberOf('2026-02-28')).toBe((dayNumberOf('2026-03-01') as number) - 1);
    for (const bad of ['2026-02-29', '2026-13-01', '2026-1-5', '20260105', '']) expect(dayNumberOf(bad)).toBeUndefined();
    expect(dayNumberOf('2024-02-29')).toBeDefined();
  });

  it('knows the weekday: 1 January 2026 was a Thursday, 4 January a Sunday', () => {
    expect(isoWeekdayOf(dayNumberOf('2026-01-01') as number)).toBe(4);
    expect(isoWeekdayOf(dayNumberOf('2026-01-04') as number)).toBe(7);
    expect(isoWeekdayOf(dayNumberOf('1969-12-29') as number)).toBe(1);
  });
});

describe('adding working days', () => {
  const england = new BusinessCalendar([england2027, england2026]);

  it('skips the weekend and the substitute day: 24 December 2026 + 1 in England is 29 December', () => {
    expect(england.addWorkdays('2026-12-24', 1)).toBe('2026-12-29');
    expect(england.addWorkdays('2026-12-29', -1)).toBe('2026-12-24');
  });

  it('walks across years', () => {
    expect(england.addWorkdays('2026-12-30', 2)).toBe('2027-01-04');
    expect(england.addWorkdays('2027-01-04', -2)).toBe('2026-12-30');
  });

  it('answers the date itself for 0 days, working day or not', () => {
    expect(england.addWorkdays('2026-12-25', 0)).toBe('2026-12-25');
  });

  it('says when the walk leaves the calendars at hand', () => {
    expect(() => england.addWorkdays('2027-12-30', 5)).toThrow(OutsideCalendars);
    expect(() => england.addWorkdays('2027-12-30', 5)).toThrow(/2026-01-01 to 2027-12-31/);
    expect(() => england.addWorkdays('2025-12-31', 1)).toThrow(OutsideCalendars);
    expect(() => england.addWorkdays('2026-01-05', 1.5)).toThrow(RangeError);
  });

  it('stops past ten years, however many calendars are at hand', () => {
    const years = Array.from({ length: 12 }, (_, index) => calendar('XX', 2020 + index, []));
    const long = new BusinessCalendar(years);
    expect(long.addWorkdays('2020-01-01', 2_000)).toBe('2027-09-01');
    expect(() => long.addWorkdays('2020-01-01', 2_700)).toThrow(/past ten years/);
    expect(() => long.countWorkdays('2020-01-01', '2030-12-31')).toThrow(/more than ten years/);
    // The longest span, 3,653 days: every weekday of the ten years.
    expect((dayNumberOf('2029-12-31') as number) - (dayNumberOf('2020-01-01') as number) + 1).toBe(maxSpanDays);
    expect(long.countWorkdays('2020-01-01', '2029-12-31')).toBe(2_609);
  });
});

describe('counting working days', () => {
  it("counts China's make-up Sunday: 21 working days in January 2026", () => {
    const china = new BusinessCalendar([china2026]);
    // 22 weekdays, less New Year's Day and the rest day moved to Friday 2 January, plus Sunday 4 January.
    expect(china.countWorkdays('2026-01-01', '2026-01-31')).toBe(21);
    expect(china.countWorkdays('2026-01-04', '2026-01-04')).toBe(1);
    expect(china.countWorkdays('2026-01-31', '2026-01-01')).toBe(0);
  });

  it('follows the policy of which types close a day', () => {
    // The banks' annual closing of accounts in India (the Reserve Bank's 1 April), a Wednesday in 2026.
    const banks = calendar('IN', 2026, [day('2026-04-01', 'bank', 'Annual Closing of Bank Accounts')]);
    expect(new BusinessCalendar([banks]).isWorking('2026-04-01')).toBe(false);
    expect(new BusinessCalendar([banks], ['public']).isWorking('2026-04-01')).toBe(true);
    expect(new BusinessCalendar([banks]).countWorkdays('2026-03-30', '2026-04-03')).toBe(4);
    const halfDays = calendar('TR', 2026, [day('2026-03-19', 'halfDay', 'Ramazan Bayramı arifesi')]);
    expect(new BusinessCalendar([halfDays]).isWorking('2026-03-19')).toBe(true);
    expect(new BusinessCalendar([halfDays], ['public', 'bank', 'halfDay']).isWorking('2026-03-19')).toBe(false);
  });
});

describe('one day', () => {
  it('says why a day is closed, strongest type first, and lists its entries', () => {
    const both = calendar('US', 2026, [day('2026-01-19', 'optional', 'Martin Luther King Jr. Day'), day('2026-01-19', 'public', 'Martin Luther King Jr. Day')]);
    const status = new BusinessCalendar([both], ['public', 'optional']).status('2026-01-19');
    expect(status).toMatchObject({ working: false, weekend: false, weekday: 1, closedBy: ['public', 'optional'] });
    expect(status.days).toHaveLength(2);
    expect(new BusinessCalendar([both]).status('2026-01-19').closedBy).toEqual(['public']);
  });

  it('opens a weekend day worked to make up for a bridge', () => {
    const china = new BusinessCalendar([china2026]);
    expect(china.status('2026-01-04')).toMatchObject({ working: true, weekend: true, closedBy: [] });
    expect(china.status('2026-01-03')).toMatchObject({ working: false, weekend: true, closedBy: ['weekend'] });
    expect(china.nearestWorkday('2026-01-01', 1)).toBe('2026-01-04');
    expect(china.nearestWorkday('2026-01-05', -1)).toBe('2026-01-04');
    // Before it, only the holidays and the Saturday of this calendar's year: none is covered.
    expect(china.nearestWorkday('2026-01-04', -1)).toBeUndefined();
  });

  it("follows a weekend that changes within the year: Saudi Arabia's, from 29 June 2013", () => {
    const saudi = new BusinessCalendar([calendar('SA', 2013, [], [4, 5], [{ from: '2013-06-29', weekendDays: [5, 6] }])]);
    expect(saudi.isWorking('2013-06-27')).toBe(false); // a Thursday, still the weekend
    expect(saudi.isWorking('2013-06-29')).toBe(false); // the first Saturday of the new weekend
    expect(saudi.isWorking('2013-07-04')).toBe(true); // a Thursday, now a working day
    expect(saudi.isWorking('2013-06-22')).toBe(true); // a Saturday, then a working day
  });

  it('refuses what is not a date, and a date outside the calendars', () => {
    const england = new BusinessCalendar([england2026]);
    expect(() => england.status('2026-02-30')).toThrow(/not a date of the form YYYY-MM-DD/);
    expect(() => england.status('2027-01-01')).toThrow(OutsideCalendars);
    expect(() => new BusinessCalendar([england2026, calendar('GB', 2028, [])])).toThrow(/2027 is missing/);
  });
});

/**
 * Local days as holiday records write them: `YYYY-MM-DD HH:MM:SS GMT±HH:MM`, the offset in force
 * at that instant in the zone, summer time included, from the platform's ICU time-zone data.
 */
import { describe, expect, it } from 'vitest';
import { tzdataVersion } from '../../generator/import/countries/standardOffsets.ts';
import {
  addDays,
  formatLocalDateTime,
  localDaySpan,
  localInstant,
  startOfLocalDay,
  wallClockHours,
  weekdayOf,
} from '../../generator/import/holidays/localDates.ts';

describe('localDaySpan', () => {
  it('runs from local midnight to the next local midnight with the offset in force', () => {
    expect(localDaySpan('Europe/Istanbul', '2024-04-10')).toEqual({
      startDate: '2024-04-10 00:00:00 GMT+03:00',
      endDate: '2024-04-11 00:00:00 GMT+03:00',
    });
    expect(localDaySpan('Europe/Berlin', '2024-01-01')).toEqual({
      startDate: '2024-01-01 00:00:00 GMT+01:00',
      endDate: '2024-01-02 00:00:00 GMT+01:00',
    });
    expect(localDaySpan('Europe/Berlin', '2024-10-03').startDate).toBe('2024-10-03 00:00:00 GMT+02:00');
  });

  it('writes negative, half-hour and quarter-hour offsets', () => {
    expect(localDaySpan('America/New_York', '2024-07-04').startDate).toBe('2024-07-04 00:00:00 GMT-04:00');
    expect(localDaySpan('America/New_York', '2024-12-25').startDate).toBe('2024-12-25 00:00:00 GMT-05:00');
    expect(localDaySpan('Asia/Kolkata', '2024-01-26').startDate).toBe('2024-01-26 00:00:00 GMT+05:30');
    expect(localDaySpan('Asia/Kathmandu', '2024-05-28').startDate).toBe('2024-05-28 00:00:00 GMT+05:45');
    expect(localDaySpan('America/St_Johns', '2024-07-01').startDate).toBe('2024-07-01 00:00:00 GMT-02:30');
    expect(localDaySpan('Atlantic/Reykjavik', '2024-06-17').startDate).toBe('2024-06-17 00:00:00 GMT+00:00');
  });

  it('Turkey: +02:00 in winter and +03:00 in summer until September 2016, +03:00 all year since', () => {
    expect(localDaySpan('Europe/Istanbul', '2015-01-01').startDate).toBe('2015-01-01 00:00:00 GMT+02:00');
    expect(localDaySpan('Europe/Istanbul', '2015-07-17').startDate).toBe('2015-07-17 00:00:00 GMT+03:00');
    expect(localDaySpan('Europe/Istanbul', '2024-01-01').startDate).toBe('2024-01-01 00:00:00 GMT+03:00');
    expect(localDaySpan('Europe/Istanbul', '2017-01-01').startDate).toBe('2017-01-01 00:00:00 GMT+03:00');
  });

  it('a day on which summer time starts or ends begins at one offset and ends at the other', () => {
    // Berlin: 2024-03-31 02:00 → 03:00; 2024-10-27 03:00 → 02:00.
    expect(localDaySpan('Europe/Berlin', '2024-03-31')).toEqual({
      startDate: '2024-03-31 00:00:00 GMT+01:00',
      endDate: '2024-04-01 00:00:00 GMT+02:00',
    });
    expect(localDaySpan('Europe/Berlin', '2024-10-27')).toEqual({
      startDate: '2024-10-27 00:00:00 GMT+02:00',
      endDate: '2024-10-28 00:00:00 GMT+01:00',
    });
    // Turkey's last switch back to winter time: 2015-11-08 04:00 → 03:00 (delayed for the election).
    expect(localDaySpan('Europe/Istanbul', '2015-11-08')).toEqual({
      startDate: '2015-11-08 00:00:00 GMT+03:00',
      endDate: '2015-11-09 00:00:00 GMT+02:00',
    });
  });

  it('a day whose midnight does not exist begins at its first instant, written with its wall time', () => {
    // Brazil switched to summer time at 00:00 (→ 01:00); 2004-11-02 was such a day in São Paulo.
    expect(localDaySpan('America/Sao_Paulo', '2004-11-02')).toEqual({
      startDate: '2004-11-02 01:00:00 GMT-02:00',
      endDate: '2004-11-03 00:00:00 GMT-02:00',
    });
    expect(localDaySpan('America/Sao_Paulo', '2004-11-01').endDate).toBe('2004-11-02 01:00:00 GMT-02:00');
    // Iran moved its clocks at 00:00 (→ 01:00) on 1 Farvardin until 2022.
    expect(localDaySpan('Asia/Tehran', '2021-03-22').startDate).toBe('2021-03-22 01:00:00 GMT+04:30');
  });

  it('a half day starts at its local time and ends at the next midnight', () => {
    expect(localDaySpan('Europe/Istanbul', '2024-04-09', '13:00')).toEqual({
      startDate: '2024-04-09 13:00:00 GMT+03:00',
      endDate: '2024-04-10 00:00:00 GMT+03:00',
    });
    expect(localDaySpan('Europe/Istanbul', '2006-12-30', '13:00').startDate).toBe('2006-12-30 13:00:00 GMT+02:00');
  });

  it('agrees with the exact computation on every day of several years in zones with and without summer time', () => {
    const zones = ['Europe/Istanbul', 'Europe/Berlin', 'America/New_York', 'America/Sao_Paulo', 'Asia/Tehran', 'Australia/Lord_Howe', 'Asia/Kathmandu'];
    for (const zone of zones) {
      for (let day = '2003-01-01'; day < '2006-01-01'; day = addDays(day, 1)) {
        const exact = {
          startDate: formatLocalDateTime(zone, startOfLocalDay(zone, day)),
          endDate: formatLocalDateTime(zone, startOfLocalDay(zone, addDays(day, 1))),
        };
        expect(localDaySpan(zone, day), `${zone} ${day}`).toEqual(exact);
      }
    }
  });

  it('follows tzdata 2026f, not the 2025c Node 20 carries: Morocco back on +00:00 from 20 September 2026, British Columbia on -07:00 all year', () => {
    expect(localDaySpan('Africa/Casablanca', '2026-11-06')).toEqual({ startDate: '2026-11-06 00:00:00 GMT+00:00', endDate: '2026-11-07 00:00:00 GMT+00:00' });
    expect(localDaySpan('America/Vancouver', '2026-12-25')).toEqual({ startDate: '2026-12-25 00:00:00 GMT-07:00', endDate: '2026-12-26 00:00:00 GMT-07:00' });
  });

  it('keeps tzdata 2026f when date-holidays loads its older moment-timezone (2025b) into the shared moment', async () => {
    const moment = (await import('moment-timezone')).default;
    await import('date-holidays');
    expect(moment.tz.zone('America/Edmonton')).not.toBeNull();
    expect(tzdataVersion).toBe('2026f');
    expect(localDaySpan('America/Edmonton', '2026-12-25').startDate).toBe('2026-12-25 00:00:00 GMT-06:00');
  });

  it('refuses an unknown zone, a day that does not exist and a malformed time', () => {
    expect(() => localDaySpan('Mars/Olympus_Mons', '2024-01-01')).toThrow(RangeError);
    expect(() => localDaySpan('Europe/Berlin', '2023-02-29')).toThrow(/no such day/);
    expect(() => localDaySpan('Europe/Berlin', '2024-01-01', '1pm')).toThrow(/not a time/);
  });
});

describe('instants', () => {
  it('a repeated local time is its first occurrence', () => {
    // New York 2024-11-03: 01:30 happens at -04:00 and again at -05:00.
    expect(new Date(localInstant('America/New_York', '2024-11-03', '01:30')).toISOString()).toBe('2024-11-03T05:30:00.000Z');
  });

  it('a skipped local time is the instant of the switch', () => {
    // New York 2024-03-10: 02:00 → 03:00, so 02:30 does not exist.
    const instant = localInstant('America/New_York', '2024-03-10', '02:30');
    expect(formatLocalDateTime('America/New_York', instant)).toBe('2024-03-10 03:00:00 GMT-04:00');
  });

  it('wall-clock hours ignore the hour a summer-time switch adds or removes', () => {
    const start = localInstant('Asia/Jerusalem', '2024-03-28', '18:00');
    const fiveDaysLater = localInstant('Asia/Jerusalem', '2024-04-02', '18:00');
    expect((fiveDaysLater - start) / 3_600_000).toBe(119);
    expect(wallClockHours('Asia/Jerusalem', start, fiveDaysLater)).toBe(120);
  });
});

describe('days', () => {
  it('add and subtract across months, years and leap days', () => {
    expect(addDays('2006-12-31', 1)).toBe('2007-01-01');
    expect(addDays('2024-03-01', -1)).toBe('2024-02-29');
    expect(addDays('2000-01-08', -1)).toBe('2000-01-07');
  });

  it('know their weekday', () => {
    expect(weekdayOf('2024-05-12')).toBe(0);
    expect(weekdayOf('2024-04-10')).toBe(3);
  });
});

import { describe, expect, it } from 'vitest';
import { correctWeekends } from '../../generator/import/holidays/weekends.ts';

describe('weekend corrections (data/curated/weekend-corrections.json)', () => {
  const correction = { alpha2Code: 'XA', from: '2006-01-01', weekendDays: [5, 6], why: 'a law says so, for the test', source: 'https://example.org/law' };

  it("replaces python-holidays' periods from the correction's day on, keeping the ones before", () => {
    expect(
      correctWeekends(
        [
          ['2000-01-01', [6, 7]],
          ['2010-01-01', [7]],
        ],
        correction,
      ),
    ).toEqual([
      ['2000-01-01', [6, 7]],
      ['2006-01-01', [5, 6]],
    ]);
  });

  it('leaves a country without a correction as it is', () => {
    const periods = [['2000-01-01', [6, 7]] as const];
    expect(correctWeekends(periods, undefined)).toBe(periods);
  });
});

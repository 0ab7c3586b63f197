/**
 * The weekend records carry data/curated/weekend-corrections.json over python-holidays' periods:
 * each corrected country's weekend changes on the day its law or notice says, and not before.
 */
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { recordsDir } from '../support/data.ts';

interface Period {
  readonly countryId: string;
  readonly stateProvinceId: string | null;
  readonly from: string | null;
  readonly until: string | null;
  readonly weekendDays: readonly number[];
}

const readJson = async <T>(file: string): Promise<T> => JSON.parse(await readFile(path.join(recordsDir, file), 'utf8')) as T;

async function periodsOf(alpha2Code: string): Promise<{ from: string | null; until: string | null; weekendDays: readonly number[] }[]> {
  const countries = await readJson<{ id: string; alpha2Code: string }[]>('country.json');
  const id = countries.find((country) => country.alpha2Code === alpha2Code)?.id;
  const weekends = await readJson<Period[]>('weekend.json');
  return weekends
    .filter((period) => period.countryId === id && period.stateProvinceId === null)
    .map(({ from, until, weekendDays }) => ({ from, until, weekendDays }));
}

describe('weekends', () => {
  it("Hong Kong: the government's five-day week from 1 July 2006, Sunday alone before", async () => {
    expect(await periodsOf('HK')).toEqual([
      { from: null, until: '2006-06-30', weekendDays: [7] },
      { from: '2006-07-01', until: null, weekendDays: [6, 7] },
    ]);
  });

  it('Mauritania: Friday–Saturday until 30 September 2014, Saturday–Sunday since', async () => {
    const periods = await periodsOf('MR');
    expect(periods.at(-2)).toEqual({ from: null, until: '2014-09-30', weekendDays: [5, 6] });
    expect(periods.at(-1)).toEqual({ from: '2014-10-01', until: null, weekendDays: [6, 7] });
  });

  it('DR Congo: Saturday–Sunday for the administration from 1 August 2024; Afghanistan: Friday alone', async () => {
    expect((await periodsOf('CD')).at(-1)).toEqual({ from: '2024-08-01', until: null, weekendDays: [6, 7] });
    expect(await periodsOf('AF')).toEqual([{ from: null, until: null, weekendDays: [5] }]);
  });
});

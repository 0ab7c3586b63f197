/**
 * The regional days carry data/curated/regional-day-corrections.json over python-holidays'
 * subdivisions: Fribourg's Catholic communes' feasts, Ceuta's labour calendars of 2024–2026.
 */
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { recordsDir } from '../support/data.ts';

interface Day {
  readonly stateProvinceId: string;
  readonly summary: string;
  readonly startDate: string;
  readonly dayType?: string;
}

const readJson = async <T>(file: string): Promise<T> => JSON.parse(await readFile(path.join(recordsDir, file), 'utf8')) as T;

async function daysOf(recordType: 'stateProvinceHoliday' | 'stateProvinceSpecialDay', code: string): Promise<Day[]> {
  const [alpha2Code, abbreviation] = code.split('-');
  const countries = await readJson<{ id: string; alpha2Code: string }[]>('country.json');
  const countryId = countries.find((country) => country.alpha2Code === alpha2Code)?.id;
  const states = await readJson<{ id: string; countryId: string; abbreviation: string }[]>('stateProvince.json');
  const stateId = states.find((state) => state.countryId === countryId && state.abbreviation === abbreviation)?.id;
  const days = await readJson<Day[]>(`${recordType}/${alpha2Code?.toLowerCase()}.json`);
  return days.filter((day) => day.stateProvinceId === stateId);
}

const on = (days: readonly Day[], date: string) => days.filter((day) => day.startDate.startsWith(date)).map(({ summary, dayType }) => ({ summary, dayType }));

describe('regional day corrections', () => {
  it("Fribourg: Corpus Christi, the Assumption, All Saints and the Immaculate Conception are its Catholic communes' days off", async () => {
    const days = await daysOf('stateProvinceSpecialDay', 'CH-FR');
    expect(on(days, '2026-06-04')).toEqual([{ summary: 'Fronleichnam', dayType: 'optional' }]);
    expect(on(days, '2026-08-15')).toEqual([{ summary: 'Mariä Himmelfahrt', dayType: 'optional' }]);
    expect(on(days, '2027-11-01')).toEqual([{ summary: 'Allerheiligen', dayType: 'optional' }]);
    expect(on(days, '2025-12-08')).toEqual([{ summary: 'Mariä Empfängnis', dayType: 'optional' }]);
  });

  it('Ceuta: Eid al-Fitr in 2024, 2025 and 2026; no Día de Ceuta in 2024, as in 2025, but in 2026', async () => {
    const days = await daysOf('stateProvinceHoliday', 'ES-CE');
    for (const date of ['2024-04-10', '2025-03-31', '2026-03-20']) expect(on(days, date)).toEqual([{ summary: 'Fiesta del Eid Fitr', dayType: undefined }]);
    expect(on(days, '2024-09-02')).toEqual([]);
    expect(on(days, '2025-09-02')).toEqual([]);
    expect(on(days, '2026-09-02')).toEqual([{ summary: 'Día de Ceuta', dayType: undefined }]);
  });
});

/**
 * The OpenHolidays checks compare working days only: a holiday on the country's weekend (in that
 * year) is set aside and counted, never a disagreement, while the figures over every day are
 * reported beside the ones the targets read.
 */
import { mkdir, mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { gzipSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import type { CheckedData } from '../../generator/check/check.ts';
import { check as openHolidaysCheck, openHolidaysFile } from '../../generator/check/openHolidays.ts';
import type { RecordType } from '../../contract/routes.ts';
import type { DataRecord } from '../../generator/records/schemas.ts';

const header = 'Id;StartDate;EndDate;Type;Name;Subdivisions';

async function dataDirWith(rows: readonly string[]): Promise<string> {
  const dataDir = await mkdtemp(path.join(tmpdir(), 'open-holidays-'));
  await mkdir(path.join(dataDir, 'checks', 'references'), { recursive: true });
  const snapshot = {
    source: { repository: 'https://example.org/openholidays', commit: 'a'.repeat(40), committed: '2026-01-21T00:00:00Z', licence: 'ODbL-1.0' },
    countries: { XA: { holidays: { 'holidays.csv': [header, ...rows].join('\n') }, subdivisions: 'ShortName;IsoCode;Parent' } },
  };
  await writeFile(path.join(dataDir, 'checks', 'references', openHolidaysFile), gzipSync(JSON.stringify(snapshot)));
  return dataDir;
}

/** Country XA with a Friday–Saturday weekend until 2024-12-31 and Saturday–Sunday after. */
function checkedData(holidays: readonly string[]): CheckedData {
  const record = (fields: Record<string, unknown>) => fields as DataRecord;
  return new Map<RecordType, DataRecord[]>([
    ['country', [record({ id: 'xa', alpha2Code: 'XA' })]],
    [
      'weekend',
      [
        record({ id: 'w1', countryId: 'xa', stateProvinceId: null, from: null, until: '2024-12-31', weekendDays: [5, 6] }),
        record({ id: 'w2', countryId: 'xa', stateProvinceId: null, from: '2025-01-01', until: null, weekendDays: [6, 7] }),
      ],
    ],
    [
      'countryHoliday',
      holidays.map((day, index) => record({ id: `h${index}`, countryId: 'xa', summary: `Day ${index}`, startDate: `${day} 00:00:00 GMT+00:00` })),
    ],
  ]);
}

describe('the openHolidays check', () => {
  it('compares working days and sets weekend days aside by the weekend of their year', async () => {
    const dataDir = await dataDirWith([
      'a;2024-01-01;2024-01-01;Public;EN New Year;', // Monday, both
      'b;2025-01-05;2025-01-05;Public;EN A Sunday feast;', // Sunday of 2025, theirs only: set aside
      'c;2025-01-07;2025-01-07;Public;EN A Tuesday feast;', // Tuesday, theirs only: a disagreement
    ]);
    // 2024-01-05 is a Friday, weekend in 2024; 2025-01-03 a Friday, a working day in 2025.
    const report = await openHolidaysCheck.run(checkedData(['2024-01-01', '2024-01-05', '2025-01-03']), dataDir);
    expect(report.disagreements.map((disagreement) => disagreement.key)).toEqual(['XA 2025-01-03', 'XA 2025-01-07']);
    expect(report.figures).toMatchObject({
      daysServed: 2,
      daysInReference: 2,
      precision: 0.5,
      recall: 0.5,
      precisionAllDays: 1 / 3,
      recallAllDays: 1 / 3,
      weekendDaysSetAside: 2,
      weekendDisagreementsSetAside: 2,
    });
  });
});

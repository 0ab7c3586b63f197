import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { placeName } from '../../generator/import/addresses/neighbourhoodNames.ts';

describe("PTT's neighbourhood names as a form shows them", () => {
  it('writes the type word out, names the village or belde, and reads the kinds of place', () => {
    expect(placeName('Caferağa Mah')).toEqual({ display: 'Caferağa Mahallesi', type: 'mahalle', parent: null, tuikName: 'Caferağa' });
    expect(placeName('Akpınar Köyü')).toEqual({ display: 'Akpınar Köyü', type: 'köy', parent: null, tuikName: 'Akpınar' });
    expect(placeName('Akdere Mah (Başlı Köyü)')).toEqual({
      display: 'Akdere Mahallesi (Başlı Köyü)',
      type: 'köy_mahallesi',
      parent: 'Başlı Köyü',
      tuikName: 'Akdere',
    });
    expect(placeName('Merkez Mah (Deliilyas Beldesi)').parent).toBe('Deliilyas Beldesi');
    expect(placeName('Kumköy Mah (Kilyos Mah)')).toMatchObject({ display: 'Kumköy (Kilyos) Mahallesi', tuikName: 'Kumköy (Kilyos)' });
    expect(placeName('Yok Mah (Kale Mah) (İncekaya Köyü)').display).toBe('Kale Mahallesi (İncekaya Köyü)');
    expect(placeName('Başpınar Mah (Organize Mah)osb')).toMatchObject({ display: 'Başpınar (Organize) OSB', type: 'osb' });
    expect(placeName('Liman Sb Mah')).toMatchObject({ display: 'Liman Serbest Bölgesi', type: 'sb' });
    expect(placeName('Şenişler Köyü Ketenova Yaylası')).toEqual({
      display: 'Şenişler Köyü Ketenova Yaylası',
      type: 'yayla',
      parent: 'Şenişler Köyü',
      tuikName: 'Şenişler Köyü Ketenova Yaylası',
    });
  });

  it('gives every name of the reference sample what the reference rule set gives it', async () => {
    const file = path.resolve(import.meta.dirname, '../fixtures/facts/ptt-place-names.json');
    const { rows } = JSON.parse(await readFile(file, 'utf8')) as {
      rows: { ptt: string; display: string; type: string; parent: string | null; tuikName: string }[];
    };
    expect(rows.length).toBeGreaterThan(250);
    for (const { ptt, ...expected } of rows) expect(placeName(ptt), ptt).toEqual(expected);
  });
});

/**
 * The neighbourhoodNames check's pairing and classes (generator/check/neighbourhoodNames.ts): which
 * TÜİK unit a served name is compared with, and how a difference is named.
 */
import { describe, expect, it } from 'vitest';
import { classifyName, looseKey, similar, strictKey, UnitIndex } from '../../generator/check/neighbourhoodNames.ts';

const row = (district: string, zipCode = '01920') => ({ province: 'Adana', district, zipCode });

function index(): UnitIndex {
  const units = new UnitIndex();
  units.add('Adana', 'Ceyhan', 'mahalle', { name: 'Şehit Hacı İbrahim', postalCode: null });
  units.add('Adana', 'Ceyhan', 'mahalle', { name: 'Gazi Paşa', postalCode: null });
  units.add('Adana', 'Ceyhan', 'mahalle', { name: 'Galaba', postalCode: null });
  units.add('Adana', 'Ceyhan', 'köy', { name: 'Kaleköy', postalCode: '01922' });
  units.add('Adana', 'Ceyhan', 'köy', { name: 'Türkmen', postalCode: '01922' });
  units.add('Adana', 'Ceyhan', 'köy', { name: 'Bohşin', postalCode: '01924' });
  units.add('Adana', 'Aladağ', 'köy', { name: 'Akpınar', postalCode: '01720' });
  return units;
}

describe('the keys names are paired by', () => {
  it('keep Turkish case apart strictly and drop spacing, punctuation and diacritics loosely', () => {
    expect(strictKey('  IŞIK  Mahalle ')).toBe('ışık mahalle');
    expect(strictKey('İşık')).not.toBe(strictKey('Işık'));
    expect(looseKey('Karaca Ören')).toBe(looseKey('Karacaören'));
    expect(looseKey('21 Haziran')).toBe('21haziran');
  });

  it('call two names similar at one edit in five letters, not more', () => {
    expect(similar('Kalaba', 'Galaba')).toBe(true);
    expect(similar('Ulucami', 'Ulucamii')).toBe(true);
    expect(similar('Kaçak', 'Bakacak')).toBe(false);
    expect(similar('', 'Galaba')).toBe(false);
  });
});

describe('pairing a served name with a TÜİK unit of its district', () => {
  it('finds the same name, then the same letters, within the district only', () => {
    const units = index();
    expect(units.pair(row('Ceyhan'), 'mahalle', 'Şehit Hacı İbrahim')).toMatchObject({ how: 'strict' });
    expect(units.pair(row('Ceyhan'), 'mahalle', 'Gazipaşa')).toMatchObject({ how: 'loose', unit: { name: 'Gazi Paşa' } });
    expect(units.pair(row('Aladağ'), 'mahalle', 'Gazipaşa')).toBeUndefined();
  });

  it("reads PTT's 'Kale Köyü' as TÜİK's Kaleköy and 'Türkmenköy Köyü' as Türkmen", () => {
    const units = index();
    expect(units.pair(row('Ceyhan'), 'köy', 'Kale')).toMatchObject({ how: 'köyWord', unit: { name: 'Kaleköy' } });
    expect(units.pair(row('Ceyhan'), 'köy', 'Türkmenköy')).toMatchObject({ how: 'köyWord', unit: { name: 'Türkmen' } });
  });

  it('pairs a similar village only under its postal code, and a similar mahalle anywhere in the district', () => {
    const units = index();
    expect(units.pair(row('Ceyhan', '01924'), 'köy', 'Boşin')).toMatchObject({ how: 'similar', unit: { name: 'Bohşin' } });
    expect(units.pair(row('Ceyhan', '01922'), 'köy', 'Boşin')).toBeUndefined();
    expect(units.pair(row('Ceyhan'), 'mahalle', 'Kalaba')).toMatchObject({ how: 'similar', unit: { name: 'Galaba' } });
  });

  it('sets apart a name TÜİK has only as the other kind of unit', () => {
    expect(index().pair(row('Ceyhan'), 'mahalle', 'Kaleköy')).toBe('otherKind');
  });

  it('knows which districts it has units of', () => {
    expect(index().hasDistrict('ADANA', 'ceyhan')).toBe(true);
    expect(index().hasDistrict('Adana', 'Kozan')).toBe(false);
  });
});

describe('naming a difference', () => {
  it('calls a difference of letter case or of I for İ "case"', () => {
    expect(classifyName('100.Yıl', '100.yıl')).toBe('case');
    expect(classifyName('Ali İhsan Paşa', 'Ali Ihsan Paşa')).toBe('case');
    expect(classifyName('İsmet İnönü', 'İsmet Inönü')).toBe('case');
    expect(classifyName('Hacılar (İsmailli Bucağı)', 'Hacılar (ismailli Bucağı)')).toBe('case');
    expect(classifyName('İncili Çeşme', 'İncili  Çeşme')).toBe('case');
  });

  it('calls spacing, diacritics and punctuation "spelling", other letters "different"', () => {
    expect(classifyName('Caferağa', 'Caferağa')).toBe('equal');
    expect(classifyName('Gazipaşa', 'Gazi Paşa')).toBe('spelling');
    expect(classifyName('Cumhuriyet', 'Cumhuriyet.')).toBe('spelling');
    expect(classifyName('Yavuzselim', 'Yavuzselım')).toBe('spelling');
    expect(classifyName('Kalaba', 'Galaba')).toBe('different');
  });
});

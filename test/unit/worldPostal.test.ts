/** The rules that turn GeoNames' postal rows into districts (generator/import/addresses/worldPostal.ts). */
import { describe, expect, it } from 'vitest';
import { ImportError } from '../../generator/import/shared/importError.ts';
import {
  districtLevelOf,
  districtNameOf,
  isAddressRow,
  isCedexRow,
  isLargeCustomerRow,
  isServablePostalCode,
  isoCodeByGeonamesName,
  subdivisionResolver,
  type Admin1Table,
} from '../../generator/import/addresses/worldPostal.ts';
import type { PostalRow } from '../../generator/import/addresses/worldSources.ts';

const row = (fields: Partial<PostalRow>): PostalRow => ({
  zipCode: '80331',
  place: 'München',
  admin1Code: 'BY',
  admin1Name: 'Bayern',
  admin2Code: '091',
  admin2Name: 'Upper Bavaria',
  admin3Code: '09162',
  admin3Name: 'Kreisfreie Stadt München',
  latitude: 48.1345,
  longitude: 11.571,
  ...fields,
});

const table: Admin1Table = {
  note: '',
  methods: {},
  admin2Parents: {
    countries: ['FR'],
    why: '',
    exceptions: [{ country: 'FR', code: '75', iso3166_2: 'FR-75C', why: 'Paris', source: 'https://example.org/iso' }],
  },
  admin2Names: { countries: ['ID'], why: '', source: 'https://example.org/admin2', provinces: { ID: { '01': 'ID-AC', PD: 'ID-PD' } } },
  entries: [
    { country: 'DE', code: 'BY', name: 'Bayern', iso3166_2: 'DE-BY', method: 'code+name', postalRows: 2260 },
    { country: 'DE', code: '02', name: 'Bavaria', geonamesName: 'Bavaria', iso3166_2: 'DE-BY', method: 'fips+name', postalRows: 1114 },
    {
      country: 'FI',
      code: '17',
      name: 'North Ostrobothnia Region',
      geonamesName: 'North Ostrobothnia',
      iso3166_2: 'FI-14',
      method: 'review',
      why: 'x',
      postalRows: 242,
    },
    { country: 'SG', code: '', name: '', iso3166_2: null, method: 'none', postalRows: 121154 },
    { country: 'BR', code: '02', name: 'Alagoas ', geonamesName: 'Alagoas', iso3166_2: 'BR-AL', method: 'fips+name', postalRows: 101 },
  ],
};
const served = new Set(['DE-BY', 'FI-14', 'FR-69', 'FR-75C', 'BR-AL', 'ID-AC', 'ID-PD']);
const admin2Names = new Map([
  ['ID\u00001101', { country: 'ID', admin1Code: '01', admin1Name: 'Aceh', code: '1101', name: 'Kabupaten Simeulue' }],
  ['ID\u00009201', { country: 'ID', admin1Code: 'PD', admin1Name: 'Southwest Papua', code: '9201', name: 'Kabupaten Sorong' }],
]);

describe('rows that are not addresses', () => {
  it('a French CEDEX code is not an address, in the code or the place; an ordinary Lyon code is', () => {
    expect(isCedexRow(row({ zipCode: '75021 CEDEX 01', place: 'Paris 01' }))).toBe(true);
    expect(isCedexRow(row({ zipCode: '69003', place: 'Lyon Cedex 03' }))).toBe(true);
    expect(isAddressRow('FR', row({ zipCode: '75021 CEDEX 01', place: 'Paris 01' }))).toBe(false);
    expect(isAddressRow('FR', row({ zipCode: '69001', place: 'Lyon 01' }))).toBe(true);
  });

  it('a German row with a numeric admin1 code is a large customer; the ISO-lettered rows are places', () => {
    const daimler = row({ zipCode: '10875', place: 'Daimler Insurance Services GmbH', admin1Code: '01', admin1Name: 'Baden-Württemberg' });
    expect(isLargeCustomerRow(daimler)).toBe(true);
    expect(isAddressRow('DE', daimler)).toBe(false);
    expect(isAddressRow('DE', row({}))).toBe(true);
  });

  it('the filters apply to their own country only: a numeric admin1 code is ordinary in Poland', () => {
    expect(isAddressRow('PL', row({ admin1Code: '72' }))).toBe(true);
  });

  it("a postal code the lookup key cannot hold is not servable: France's SP and CITYSSIMO codes, lower case", () => {
    expect(isServablePostalCode('80331')).toBe(true);
    expect(isServablePostalCode('1000-001')).toBe(true);
    expect(isServablePostalCode('VLT 1010')).toBe(true);
    expect(isServablePostalCode('E1')).toBe(true);
    expect(isServablePostalCode('75303 SP 07')).toBe(false);
    expect(isServablePostalCode('78078 CITYSSIMO')).toBe(false);
    expect(isServablePostalCode('ab10')).toBe(false);
    expect(isServablePostalCode('1')).toBe(false);
  });
});

describe('the district level of a country', () => {
  it('is the place for Germany, admin2 for India, admin3 for Spain', () => {
    expect(districtLevelOf('DE')).toBe('place');
    expect(districtLevelOf('IN')).toBe('admin2');
    expect(districtLevelOf('ES')).toBe('admin3');
    expect(districtNameOf('DE', row({}))).toBe('München');
    expect(districtNameOf('IN', row({ place: 'Colaba', admin2Name: 'Mumbai' }))).toBe('Mumbai');
    expect(districtNameOf('ES', row({ place: 'Aravaca', admin3Name: 'Madrid' }))).toBe('Madrid');
  });

  it("is GeoNames' admin2 name where the postal file gives only a code (Indonesia's BPS codes), else empty", () => {
    expect(districtNameOf('ID', row({ admin2Code: '1101', admin2Name: '' }), admin2Names)).toBe('Kabupaten Simeulue');
    expect(districtNameOf('ID', row({ admin2Code: '9999', admin2Name: '' }), admin2Names)).toBe('');
    expect(districtNameOf('ID', row({ admin2Code: '1101', admin2Name: '' }))).toBe('');
  });
});

describe('the subdivision of a row', () => {
  const subdivisionOf = subdivisionResolver(table, served);

  it('is the curated ISO code of its admin1 pair, a reviewed one included (FI 17 is FI-14)', () => {
    expect(subdivisionOf('DE', row({}))).toEqual({ isoCode: 'DE-BY' });
    expect(subdivisionOf('FI', row({ admin1Code: '17', admin1Name: 'North Ostrobothnia Region' }))).toEqual({ isoCode: 'FI-14' });
  });

  it('matches a pair whose name GeoNames writes with extra white space', () => {
    expect(subdivisionOf('BR', row({ admin1Code: '02', admin1Name: 'Alagoas' }))).toEqual({ isoCode: 'BR-AL' });
  });

  it('is none where the table says the subdivision cannot be determined (Singapore)', () => {
    expect(subdivisionOf('SG', row({ admin1Code: '', admin1Name: '' }))).toEqual({ unmapped: 'admin1 not determinable' });
  });

  it('is the admin2 département for France, with the curated exception for Paris', () => {
    expect(subdivisionOf('FR', row({ admin1Code: '84', admin2Code: '69' }))).toEqual({ isoCode: 'FR-69' });
    expect(subdivisionOf('FR', row({ admin1Code: '11', admin2Code: '75' }))).toEqual({ isoCode: 'FR-75C' });
    expect(subdivisionOf('FR', row({ admin2Code: '' }))).toEqual({ unmapped: 'admin2 not an ISO subdivision' });
  });

  it("is the province of the regency for Indonesia, whatever the postal admin1 code (BPS's old Papua 91)", () => {
    const withAdmin2 = subdivisionResolver(table, served, admin2Names);
    expect(withAdmin2('ID', row({ admin1Code: '11', admin1Name: '', admin2Code: '1101', admin2Name: '' }))).toEqual({ isoCode: 'ID-AC' });
    expect(withAdmin2('ID', row({ admin1Code: '91', admin1Name: '', admin2Code: '9201', admin2Name: '' }))).toEqual({ isoCode: 'ID-PD' });
    expect(withAdmin2('ID', row({ admin1Code: '91', admin1Name: '', admin2Code: '', admin2Name: '' }))).toEqual({ unmapped: 'admin1 not determinable' });
  });

  it('stops the import on a pair the table does not list', () => {
    expect(() => subdivisionOf('DE', row({ admin1Code: 'XX', admin1Name: 'Nowhere' }))).toThrow(ImportError);
    expect(() => subdivisionOf('DE', row({ admin1Code: 'XX', admin1Name: 'Nowhere' }))).toThrow(/DE admin1 "XX" "Nowhere" is not in data\/curated/);
  });

  it('refuses a table naming an ISO code that is not served', () => {
    expect(() => subdivisionResolver(table, new Set(['DE-BY']))).toThrow(/names FI-14, which is not a served ISO 3166-2 code/);
  });
});

describe("GeoNames' English admin1 names", () => {
  it('map to the ISO code their pairs share ("Bavaria" is DE-BY)', () => {
    const byName = isoCodeByGeonamesName(table);
    expect(byName.get('DE\u0000Bavaria')).toBe('DE-BY');
    expect(byName.get('FI\u0000North Ostrobothnia')).toBe('FI-14');
    expect(byName.has('SG\u0000')).toBe(false);
  });
});

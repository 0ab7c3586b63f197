/** data/build.json `addressCountries`: which countries' districts and neighbourhoods a build serves (generator/validate.ts). */
import { describe, expect, it } from 'vitest';
import { BuildError } from '../../generator/records/errors.ts';
import type { RecordFile } from '../../generator/load.ts';
import { gateAddressCountries } from '../../generator/load.ts';
import { validateSettings } from '../../generator/validate.ts';

const file = (recordType: RecordFile['recordType'], records: object[]): RecordFile => ({
  displayPath: `records/${recordType}.json`,
  relativePath: `records/${recordType}.json`,
  recordType,
  records,
});
const files: RecordFile[] = [
  file('country', [
    { id: 'c-tr', alpha2Code: 'TR' },
    { id: 'c-de', alpha2Code: 'DE' },
    { id: 'c-fr', alpha2Code: 'FR' },
  ]),
  file('stateProvince', [
    { id: 'p-34', countryId: 'c-tr', abbreviation: '34' },
    { id: 'p-by', countryId: 'c-de', abbreviation: 'BY' },
    { id: 'p-69', countryId: 'c-fr', abbreviation: '69' },
  ]),
  file('district', [
    { id: 'd-kadikoy', stateProvinceId: 'p-34', name: 'Kadıköy' },
    { id: 'd-muenchen', stateProvinceId: 'p-by', name: 'München' },
    { id: 'd-lyon', stateProvinceId: 'p-69', name: 'Lyon' },
  ]),
  file('neighborhood', [
    { id: 'n-caferaga', districtId: 'd-kadikoy', name: 'Caferağa Mahallesi', zipCode: '34710' },
    { id: 'n-80331', districtId: 'd-muenchen', name: 'München', zipCode: '80331' },
    { id: 'n-69001', districtId: 'd-lyon', name: 'Lyon 01', zipCode: '69001' },
  ]),
];
const holidayYears = { first: 2000, last: 2050 };
const ids = (served: readonly RecordFile[], recordType: string) =>
  served.filter((part) => part.recordType === recordType).flatMap((part) => part.records.map((record) => (record as { id: string }).id));

describe('addressCountries', () => {
  it('["TR"] serves Türkiye\'s districts and neighbourhoods only, the other records untouched', () => {
    const served = gateAddressCountries(files, { holidayYears, addressCountries: ['TR'] });
    expect(ids(served, 'district')).toEqual(['d-kadikoy']);
    expect(ids(served, 'neighborhood')).toEqual(['n-caferaga']);
    expect(ids(served, 'stateProvince')).toEqual(['p-34', 'p-by', 'p-69']);
  });

  it('["TR", "DE"] adds Germany', () => {
    const served = gateAddressCountries(files, { holidayYears, addressCountries: ['TR', 'DE'] });
    expect(ids(served, 'district')).toEqual(['d-kadikoy', 'd-muenchen']);
    expect(ids(served, 'neighborhood')).toEqual(['n-caferaga', 'n-80331']);
  });

  it('"all", or no setting at all, serves every record', () => {
    expect(gateAddressCountries(files, { holidayYears, addressCountries: 'all' })).toBe(files);
    expect(gateAddressCountries(files, { holidayYears })).toBe(files);
  });

  it('a code of no country is refused, naming it', () => {
    expect(() => gateAddressCountries(files, { holidayYears, addressCountries: ['TR', 'XX'] })).toThrow(BuildError);
    expect(() => gateAddressCountries(files, { holidayYears, addressCountries: ['TR', 'XX'] })).toThrow(
      /data\/build.json field addressCountries: XX is not the alpha2Code of any country/,
    );
  });

  it('a value that is neither "all" nor a list of codes is refused with what is expected', () => {
    for (const addressCountries of ['TR', [], ['tr'], 'everything']) {
      expect(() => gateAddressCountries(files, { holidayYears, addressCountries })).toThrow(
        /data\/build.json field addressCountries: must be "all" or a non-empty list of ISO 3166-1 alpha-2 codes/,
      );
      expect(() => validateSettings({ holidayYears, addressCountries })).toThrow(BuildError);
    }
  });

  it("the committed setting is valid and serves every country's addresses", async () => {
    const { readFile } = await import('node:fs/promises');
    const settings = validateSettings(JSON.parse(await readFile(new URL('../../data/build.json', import.meta.url), 'utf8')));
    expect(settings.addressCountries).toBe('all');
  });
});

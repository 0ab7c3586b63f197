/**
 * The imported reference data in data/records, as `npm run data:import` wrote it, and the
 * importer's promise that re-importing unchanged sources keeps every id and every byte.
 */
import { readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { ImportError } from '../../generator/import/shared/importError.ts';
import { importReferenceData } from '../../generator/import/main.ts';
import { formatRecords } from '../../generator/import/shared/recordsFile.ts';
import {
  callingCodeSchema,
  countrySchema,
  currencySchema,
  regionSchema,
  type CallingCode,
  type Country,
  type Currency,
  type Region,
} from '../../generator/records/schemas.ts';
import { copyData, dataDir, readRecordFile, readValidated, removeCopies, uuidV4 } from '../support/data.ts';

const importedTypes = ['region', 'callingCode', 'country', 'currency'] as const;
const collator = new Intl.Collator('en');

afterAll(removeCopies);

let countries: Country[];
let regions: Region[];
let callingCodes: CallingCode[];
let currencies: Currency[];

function country(alpha2Code: string): Country {
  const found = countries.find((candidate) => candidate.alpha2Code === alpha2Code);
  if (!found) throw new Error(`no country ${alpha2Code}`);
  return found;
}

function callingCodeOf(alpha2Code: string): number | undefined {
  return callingCodes.find((callingCode) => callingCode.id === country(alpha2Code).callingCodeId)?.code;
}

beforeAll(async () => {
  countries = await readValidated('country', countrySchema);
  regions = await readValidated('region', regionSchema);
  callingCodes = await readValidated('callingCode', callingCodeSchema);
  currencies = await readValidated('currency', currencySchema);
});

describe('imported countries', () => {
  it('are the 249 ISO 3166-1 countries, each valid against the country schema, without Kosovo', () => {
    expect(countries).toHaveLength(249);
    expect(new Set(countries.map((record) => record.alpha2Code)).size).toBe(249);
    expect(new Set(countries.map((record) => record.alpha3Code)).size).toBe(249);
    expect(new Set(countries.map((record) => record.numericIsoCode)).size).toBe(249);
    expect(countries.map((record) => record.alpha2Code)).not.toContain('XK');
  });

  it('each belong to an existing region and calling code record', () => {
    const regionIds = new Set(regions.map((region) => region.id));
    const callingCodeIds = new Set(callingCodes.map((callingCode) => callingCode.id));
    for (const record of countries) {
      expect(regionIds.has(record.regionId), `${record.alpha2Code} region`).toBe(true);
      expect(callingCodeIds.has(record.callingCodeId), `${record.alpha2Code} calling code`).toBe(true);
    }
  });

  it('each carry a base64 flag that decodes to an SVG document', () => {
    for (const record of countries) {
      expect(record.flag.length, record.alpha2Code).toBeGreaterThan(0);
      const svg = Buffer.from(record.flag, 'base64').toString('utf8');
      expect(Buffer.from(svg, 'utf8').toString('base64'), `${record.alpha2Code} round-trips`).toBe(record.flag);
      expect(svg, record.alpha2Code).toMatch(/^\s*(<\?xml[^>]*>\s*)?<svg[\s>]/);
      expect(svg.trimEnd(), record.alpha2Code).toMatch(/<\/svg>$/);
    }
  });

  it('are listed by English name', () => {
    const names = countries.map((record) => record.name);
    expect(names).toEqual([...names].sort(collator.compare));
  });

  it('Türkiye is TR / TUR / 792, +90, capital Ankara, found by Turkey, featured first', () => {
    const turkiye = country('TR');
    expect(turkiye).toMatchObject({
      name: 'Türkiye',
      alpha2Code: 'TR',
      alpha3Code: 'TUR',
      numericIsoCode: 792,
      capitalCity: 'Ankara',
      displayOrder: 1,
    });
    expect(callingCodeOf('TR')).toBe(90);
    expect(turkiye.altNames).toContain('Turkey');
    expect(turkiye.altNames).not.toContain('Türkiye');
    expect(regions.find((region) => region.id === turkiye.regionId)?.name).toBe('Asia');
    expect(countries.filter((record) => record.displayOrder > 0).map((record) => record.alpha2Code)).toEqual(['TR']);
  });

  it('Czechia is found by Czech Republic; code-like spellings are not alternative names', () => {
    expect(country('CZ').name).toBe('Czechia');
    expect(country('CZ').altNames).toContain('Czech Republic');
    for (const record of countries) {
      for (const altName of record.altNames ?? []) expect([...altName].length, `${record.alpha2Code} ${altName}`).toBeGreaterThanOrEqual(4);
    }
  });

  it('use "-" for a missing capital or native name instead of inventing one', () => {
    expect(country('AQ')).toMatchObject({ capitalCity: '-', nativeName: '-' });
    expect(country('ZA').capitalCity).toBe('Pretoria');
  });

  it('carry a population and area in km² to two decimals', () => {
    expect(country('TR').countryPopulation).toBeGreaterThan(80_000_000);
    expect(country('VA').area).toBe(0.44);
    expect(country('SJ').area).toBe(61399);
    for (const record of countries) expect(Math.round(record.area * 100) / 100, record.alpha2Code).toBe(record.area);
  });
});

describe('imported calling codes', () => {
  it('are unique integers in ascending order, non-geographic codes included', () => {
    const codes = callingCodes.map((callingCode) => callingCode.code);
    expect(codes.every(Number.isInteger)).toBe(true);
    expect(new Set(codes).size).toBe(codes.length);
    expect(codes).toEqual([...codes].sort((a, b) => a - b));
    expect(codes).toEqual(expect.arrayContaining([1, 7, 44, 90, 800, 870, 882, 883]));
  });

  it('are shared: one +1 record for the US, Canada and Puerto Rico, one +7 for Russia and Kazakhstan', () => {
    expect(new Set(['US', 'CA', 'PR'].map((code) => country(code).callingCodeId)).size).toBe(1);
    expect(callingCodeOf('US')).toBe(1);
    expect(new Set(['RU', 'KZ'].map((code) => country(code).callingCodeId)).size).toBe(1);
    expect(callingCodeOf('RU')).toBe(7);
    expect(callingCodeOf('AI')).toBe(1);
    expect(callingCodeOf('UM')).toBe(1);
  });
});

describe('imported currencies and regions', () => {
  it('currencies are at least 150 active ISO 4217 codes, with TRY and EUR, without XTS and XXX', () => {
    expect(currencies.length).toBeGreaterThanOrEqual(150);
    const nameByCode = new Map(currencies.map((currency) => [currency.code, currency.name]));
    expect(nameByCode.size).toBe(currencies.length);
    expect(nameByCode.get('TRY')).toBe('Turkish Lira');
    expect(nameByCode.get('EUR')).toBe('Euro');
    for (const leftOut of ['XTS', 'XXX', 'BGN', 'ANG']) expect(nameByCode.has(leftOut), leftOut).toBe(false);
    const names = currencies.map((currency) => currency.name);
    expect(names).toEqual([...names].sort(collator.compare));
  });

  it('regions are the six world-countries regions, each with countries', () => {
    expect(regions.map((region) => region.name)).toEqual(['Africa', 'Americas', 'Antarctic', 'Asia', 'Europe', 'Oceania']);
    for (const region of regions)
      expect(
        countries.some((record) => record.regionId === region.id),
        region.name,
      ).toBe(true);
  });
});

describe('record files', () => {
  it('ids are unique lower-case UUID v4s across all imported files', () => {
    const ids = [...countries, ...regions, ...callingCodes, ...currencies].map((record) => record.id);
    for (const id of ids) expect(id).toMatch(uuidV4);
    expect(new Set(ids).size).toBe(ids.length);
  });

  it('hold one record per line with keys in schema order', async () => {
    for (const recordType of importedTypes) {
      const text = await readRecordFile(dataDir, recordType);
      expect(text, recordType).toBe(formatRecords(JSON.parse(text) as object[]));
    }
    const countryKeys = Object.keys(countrySchema.shape);
    for (const record of countries) {
      expect(Object.keys(record)).toEqual(countryKeys.filter((key) => key in record));
    }
  });
});

describe('re-import', () => {
  it('keeps ids by natural key, whatever the existing file order or names', { timeout: 180_000 }, async () => {
    const copy = await copyData();
    const countryFile = path.join(copy, 'records', 'country.json');
    const shuffled = [...countries].reverse().map((record) => ({ ...record, name: `renamed ${record.alpha3Code}` }));
    const withoutTurkiye = shuffled.filter((record) => record.alpha2Code !== 'TR');
    await writeFile(countryFile, formatRecords(withoutTurkiye));

    await importReferenceData(copy);
    const reimported = z.array(countrySchema).parse(JSON.parse(await readFile(countryFile, 'utf8')));

    const idByAlpha3 = new Map(countries.map((record) => [record.alpha3Code, record.id]));
    for (const record of reimported) {
      if (record.alpha2Code === 'TR') continue;
      expect(record.id, record.alpha3Code).toBe(idByAlpha3.get(record.alpha3Code));
    }
    const turkiye = reimported.find((record) => record.alpha2Code === 'TR');
    expect(turkiye?.id).toMatch(uuidV4);
    expect(turkiye?.id).not.toBe(country('TR').id);
    expect(reimported.map((record) => record.name)).toEqual(countries.map((record) => record.name));
  });

  it('stops on an existing file with invalid records and writes nothing', async () => {
    const copy = await copyData();
    const currencyFile = path.join(copy, 'records', 'currency.json');
    const broken = currencies.map((currency, index) => (index === 0 ? { ...currency, id: 'not-a-uuid' } : currency));
    await writeFile(currencyFile, formatRecords(broken));
    await writeFile(path.join(copy, 'records', 'region.json'), '[\n]\n');

    await expect(importReferenceData(copy)).rejects.toBeInstanceOf(ImportError);
    expect(await readFile(path.join(copy, 'records', 'region.json'), 'utf8')).toBe('[\n]\n');
    expect(await readFile(currencyFile, 'utf8')).toBe(formatRecords(broken));
  });
});

/**
 * Country populations: the World Bank's latest figure where it publishes the country, UN WPP 2024
 * for the territories it does not, CLDR for the rest; and the readers of the two vendored files.
 */
import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ImportError } from '../../generator/import/shared/importError.ts';
import { loadCountryPopulations, readWorldBankPopulation } from '../../generator/import/countries/population.ts';
import type { WorldCountry } from '../../generator/import/countries/worldCountries.ts';
import { countrySchema, type Country } from '../../generator/records/schemas.ts';
import { dataDir, readValidated } from '../support/data.ts';

let countries: Country[];
/** The vendored World Bank rows, read here without the importer's reader. */
let worldBankText: string;
let unWppText: string;

function country(alpha2Code: string): Country {
  const found = countries.find((candidate) => candidate.alpha2Code === alpha2Code);
  if (!found) throw new Error(`no country ${alpha2Code}`);
  return found;
}

/** `{ year, population }` of the World Bank row for an alpha-3 code, as the CSV has it. */
function worldBankRow(alpha3Code: string): { year: number; population: number } | undefined {
  const match = new RegExp(`^(?:"[^"]*"|[^,]*),${alpha3Code},(\\d{4}),(\\d+)$`, 'm').exec(worldBankText);
  return match ? { year: Number(match[1]), population: Number(match[2]) } : undefined;
}

/** UN WPP's population (persons) for an M49 code, from the reference snapshot's thousands. */
function unWppFigure(numericCode: number): number | undefined {
  const match = new RegExp(`^${numericCode}\\t[^\\t]*\\t([\\d.]+)$`, 'm').exec(unWppText);
  return match ? Math.round(Number(match[1]) * 1000) : undefined;
}

beforeAll(async () => {
  countries = await readValidated('country', countrySchema);
  worldBankText = await readFile(path.join(dataDir, 'sources', 'world-bank-population.csv'), 'utf8');
  unWppText = await readFile(path.join(dataDir, 'checks', 'references', 'un-wpp-2024-population.tsv'), 'utf8');
});

describe('country population', () => {
  it("Türkiye's population is the World Bank's 2024 figure in the vendored source", () => {
    const row = worldBankRow('TUR');
    expect(row?.year).toBe(2024);
    expect(country('TR').countryPopulation).toBe(row?.population);
  });

  it("Moldova, Eritrea, the Marshall Islands and Kuwait are within 10% of the World Bank's latest figure", () => {
    for (const [alpha2Code, alpha3Code] of [
      ['MD', 'MDA'],
      ['ER', 'ERI'],
      ['MH', 'MHL'],
      ['KW', 'KWT'],
    ] as const) {
      const bank = worldBankRow(alpha3Code)?.population ?? Number.NaN;
      expect(Math.abs(country(alpha2Code).countryPopulation - bank) / bank, alpha2Code).toBeLessThanOrEqual(0.1);
    }
  });

  it('every one of the 215 countries the World Bank publishes carries exactly its figure', () => {
    const published = countries.filter((record) => worldBankRow(record.alpha3Code) !== undefined);
    expect(published).toHaveLength(215);
    for (const record of published) expect(record.countryPopulation, record.alpha2Code).toBe(worldBankRow(record.alpha3Code)?.population);
  });

  it("the territories the World Bank does not publish take UN WPP's figure: Taiwan, Mayotte, Jersey", () => {
    for (const alpha2Code of ['TW', 'YT', 'JE']) {
      const record = country(alpha2Code);
      expect(worldBankRow(record.alpha3Code), alpha2Code).toBeUndefined();
      expect(record.countryPopulation, alpha2Code).toBe(unWppFigure(record.numericIsoCode));
    }
  });

  it("only 14 uninhabited or tiny places, which neither source publishes, keep CLDR's estimate", () => {
    const neither = countries.filter((record) => worldBankRow(record.alpha3Code) === undefined && unWppFigure(record.numericIsoCode) === undefined);
    expect(neither.map((record) => record.alpha2Code).sort()).toEqual(['AQ', 'AX', 'BV', 'CC', 'CX', 'GS', 'HM', 'IO', 'NF', 'PN', 'SJ', 'TF', 'UM', 'VA']);
    expect(country('AQ').countryPopulation).toBe(300);
  });
});

describe('population sources, read by the importer', () => {
  let directory: string;
  const header = 'Country Name,Country Code,Year,Value';

  async function writeSources(worldBankRows: readonly string[], unWppRows: readonly string[] = []): Promise<string> {
    const data = await mkdtemp(path.join(directory, 'data-'));
    await mkdir(path.join(data, 'sources'));
    await mkdir(path.join(data, 'checks', 'references'), { recursive: true });
    await writeFile(path.join(data, 'sources', 'world-bank-population.csv'), `${[header, ...worldBankRows].join('\n')}\n`);
    await writeFile(path.join(data, 'checks', 'references', 'un-wpp-2024-population.tsv'), `${['country_code\tcountry\t2024', ...unWppRows].join('\n')}\n`);
    return data;
  }

  const place = (cca2: string, cca3: string, ccn3: string) => ({ cca2, cca3, ccn3 }) as WorldCountry;

  beforeAll(async () => {
    directory = await mkdtemp(path.join(tmpdir(), 'population-'));
  });
  afterAll(async () => {
    await rm(directory, { recursive: true, force: true });
  });

  it('take the latest year a code has, and read quoted names with commas', async () => {
    const data = await writeSources(['"Korea, Rep.",KOR,2023,51712619', '"Korea, Rep.",KOR,2024,51717590', 'World,WLD,2024,8142056446']);
    expect((await readWorldBankPopulation(data)).get('KOR')).toEqual({ population: 51717590, year: 2024 });
  });

  it('prefer the World Bank, then UN WPP (thousands to persons), then CLDR', async () => {
    const data = await writeSources(['Turkiye,TUR,2024,85518661'], ['792\tTürkiye\t87575.935', '158\tChina, Taiwan Province of China\t23163.636']);
    const { populationByCountry, sourceByCountry } = await loadCountryPopulations(
      data,
      [place('TR', 'TUR', '792'), place('TW', 'TWN', '158'), place('AQ', 'ATA', '010'), place('XX', 'XXX', '999')],
      new Map([
        ['TR', 1],
        ['TW', 2],
        ['AQ', 300],
      ]),
    );
    expect(Object.fromEntries(populationByCountry)).toEqual({ TR: 85518661, TW: 23163636, AQ: 300 });
    expect(Object.fromEntries(sourceByCountry)).toEqual({ TR: 'World Bank', TW: 'UN WPP 2024', AQ: 'CLDR' });
  });

  it('refuse a row they cannot read, naming the file', async () => {
    const data = await writeSources(['Turkiye,TUR,2024,85.5 million']);
    const failure = await readWorldBankPopulation(data).catch((error: unknown) => error);
    expect(failure).toBeInstanceOf(ImportError);
    expect((failure as ImportError).problems[0]).toMatch(/world-bank-population\.csv: unreadable row Turkiye,TUR,2024,85\.5 million/);
  });
});

/**
 * Country populations, from the most authoritative source that publishes the country:
 *
 * 1. the World Bank's total population (World Development Indicators, SP.POP.TOTL), its latest
 *    year, from data/sources/world-bank-population.csv;
 * 2. for the territories the World Bank does not publish on their own (Taiwan, the French overseas
 *    departments, Jersey …), UN World Population Prospects 2024, from the snapshot the population
 *    check also compares against (data/checks/references/un-wpp-2024-population.tsv);
 * 3. for the rest, uninhabited or tiny places neither publishes (Antarctica, Bouvet Island, Vatican
 *    City …), CLDR's estimate.
 *
 * Both files are committed snapshots; data/SOURCES.md records where each came from.
 */
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { ImportError } from '../shared/importError.ts';
import type { WorldCountry } from './worldCountries.ts';

export interface WorldBankPopulation {
  readonly population: number;
  /** The year the figure is for (a mid-year estimate). */
  readonly year: number;
}

export type PopulationSource = 'World Bank' | 'UN WPP 2024' | 'CLDR';

export interface CountryPopulations {
  /** By alpha-2 code. */
  readonly populationByCountry: ReadonlyMap<string, number>;
  /** Where each country's figure came from, by alpha-2 code. */
  readonly sourceByCountry: ReadonlyMap<string, PopulationSource>;
}

export const worldBankPopulationFile = (dataDir: string): string => path.join(dataDir, 'sources', 'world-bank-population.csv');
export const unWppPopulationFile = (dataDir: string): string => path.join(dataDir, 'checks', 'references', 'un-wpp-2024-population.tsv');

async function readLines(file: string): Promise<string[]> {
  const text = await readFile(file, 'utf8').catch((error: Error) => {
    throw new ImportError([`${file} could not be read: ${error.message}`]);
  });
  return text.split('\n').filter((line) => line !== '');
}

/** `Country Name,Country Code,Year,Value`; a name with a comma is quoted ("Korea, Rep."). */
const worldBankRow = /^(?:"[^"]*"|[^",]*),([A-Z0-9]{3}),(\d{4}),(\d+)$/;

/**
 * The World Bank's figure per alpha-3 code, the latest year where a code has several. The file
 * also holds the Bank's aggregates (WLD, EUU …), which match no country code.
 */
export async function readWorldBankPopulation(dataDir: string): Promise<Map<string, WorldBankPopulation>> {
  const file = worldBankPopulationFile(dataDir);
  const [header, ...rows] = await readLines(file);
  if (header !== 'Country Name,Country Code,Year,Value') throw new ImportError([`${file}: unexpected header ${header}`]);
  const byCode = new Map<string, WorldBankPopulation>();
  const problems: string[] = [];
  for (const row of rows) {
    const match = worldBankRow.exec(row);
    if (!match) {
      problems.push(`${file}: unreadable row ${row}`);
      continue;
    }
    const [, code = '', year, value] = match;
    const figure = { population: Number(value), year: Number(year) };
    if (figure.year > (byCode.get(code)?.year ?? 0)) byCode.set(code, figure);
  }
  if (problems.length > 0) throw new ImportError(problems);
  return byCode;
}

/**
 * UN WPP 2024's medium-variant population per UN M49 code (ISO 3166-1 numeric for countries), in
 * persons. The file's figures are thousands with three decimals; its column `2024` is the
 * population at the end of 2024, which the UN's own tables give as 1 January 2025.
 */
export async function readUnWppPopulation(dataDir: string): Promise<Map<number, number>> {
  const file = unWppPopulationFile(dataDir);
  const [header, ...rows] = await readLines(file);
  if (header !== 'country_code\tcountry\t2024') throw new ImportError([`${file}: unexpected header ${header}`]);
  const byCode = new Map<number, number>();
  const problems: string[] = [];
  for (const row of rows) {
    const [code, , thousands] = row.split('\t');
    if (!code || !/^\d+$/.test(code) || !thousands || !/^\d+(\.\d{1,3})?$/.test(thousands)) {
      problems.push(`${file}: unreadable row ${row}`);
      continue;
    }
    byCode.set(Number(code), Math.round(Number(thousands) * 1000));
  }
  if (problems.length > 0) throw new ImportError(problems);
  return byCode;
}

/**
 * Every country's population from the first source that has it. `cldrByCountry` is CLDR's
 * `_population` by alpha-2 code.
 */
export async function loadCountryPopulations(
  dataDir: string,
  countries: readonly WorldCountry[],
  cldrByCountry: ReadonlyMap<string, number>,
): Promise<CountryPopulations> {
  const worldBank = await readWorldBankPopulation(dataDir);
  const unWpp = await readUnWppPopulation(dataDir);
  const populationByCountry = new Map<string, number>();
  const sourceByCountry = new Map<string, PopulationSource>();
  for (const country of countries) {
    const candidates: [PopulationSource, number | undefined][] = [
      ['World Bank', worldBank.get(country.cca3)?.population],
      ['UN WPP 2024', unWpp.get(Number(country.ccn3))],
      ['CLDR', cldrByCountry.get(country.cca2)],
    ];
    const found = candidates.find((candidate): candidate is [PopulationSource, number] => candidate[1] !== undefined);
    if (!found) continue;
    populationByCountry.set(country.cca2, found[1]);
    sourceByCountry.set(country.cca2, found[0]);
  }
  return { populationByCountry, sourceByCountry };
}

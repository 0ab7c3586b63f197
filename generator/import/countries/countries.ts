/**
 * Country records: world-countries for names, codes, capital, region and area; population.ts for
 * the population (World Bank, UN WPP, CLDR); flag-icons for the flag; the calling code and region
 * records for their ids; the curated files for the featured order and the few facts the packages
 * lack.
 */
import type { Country } from '../../records/schemas.ts';
import type { CuratedFacts } from './curated.ts';
import { loadFlag } from './flags.ts';
import type { IdFor } from '../shared/ids.ts';
import { ImportError } from '../shared/importError.ts';
import type { WorldCountry } from './worldCountries.ts';
import { englishCollator } from '../shared/ordering.ts';

export interface CountryReferences {
  readonly populationByCountry: ReadonlyMap<string, number>;
  readonly callingCodeIdByCountry: ReadonlyMap<string, string>;
  readonly regionIdByName: ReadonlyMap<string, string>;
  readonly curated: CuratedFacts;
}

/** The field's placeholder where a country has no value (no native name, no capital). */
const none = '-';
/** Shorter alternative spellings are codes (TR, TUR), which code lookups already cover. */
const shortestAltName = 4;

function nativeNameOf(country: WorldCountry): string {
  const names = new Set(Object.values(country.name.native).map((name) => name.common));
  return names.size > 0 ? [...names].join(', ') : none;
}

/** Names that should also find the country: its official name, alternative spellings, former names. */
function altNamesOf(country: WorldCountry, curatedNames: readonly string[]): string[] {
  const candidates = [country.name.official, ...country.altSpellings.filter((spelling) => [...spelling].length >= shortestAltName), ...curatedNames];
  return [...new Set(candidates.map((name) => name.trim()))].filter((name) => name !== country.name.common);
}

function areaOf(country: WorldCountry, curatedArea: number | undefined): number | undefined {
  const area = curatedArea ?? country.area;
  return area >= 0 ? Math.round(area * 100) / 100 : undefined;
}

export async function buildCountries(countries: readonly WorldCountry[], references: CountryReferences, idForAlpha3: IdFor<string>): Promise<Country[]> {
  const { curated } = references;
  const problems: string[] = [];
  const records: Country[] = [];
  for (const country of countries) {
    const label = `${country.cca2} (${country.name.common})`;
    const countryPopulation = references.populationByCountry.get(country.cca2);
    const area = areaOf(country, curated.areaByCountry.get(country.cca2));
    const callingCodeId = references.callingCodeIdByCountry.get(country.cca2);
    const regionId = references.regionIdByName.get(country.region);
    if (countryPopulation === undefined) problems.push(`${label}: no population in the World Bank, UN WPP or CLDR data`);
    if (area === undefined) problems.push(`${label}: world-countries has no area; add a sourced entry to data/curated/country-areas.json`);
    if (callingCodeId === undefined) problems.push(`${label}: no calling code record`);
    if (regionId === undefined) problems.push(`${label}: no region record for ${country.region}`);
    if (countryPopulation === undefined || area === undefined || callingCodeId === undefined || regionId === undefined) continue;

    const altNames = altNamesOf(country, curated.altNamesByCountry.get(country.cca2) ?? []);
    records.push({
      id: idForAlpha3(country.cca3),
      name: country.name.common,
      nativeName: nativeNameOf(country),
      alpha2Code: country.cca2,
      alpha3Code: country.cca3,
      countryPopulation,
      flag: await loadFlag(country.cca2),
      area,
      capitalCity: country.capital[0] ?? none,
      callingCodeId,
      numericIsoCode: Number(country.ccn3),
      regionId,
      displayOrder: curated.featuredCountries.has(country.cca2) ? 1 : 0,
      ...(altNames.length > 0 ? { altNames } : {}),
    });
  }
  if (problems.length > 0) throw new ImportError(problems);
  return records.sort((a, b) => englishCollator.compare(a.name, b.name) || englishCollator.compare(a.alpha3Code, b.alpha3Code));
}

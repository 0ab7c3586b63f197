/** Regions: world-countries' `region` (Africa, Americas, Antarctic, Asia, Europe, Oceania). */
import type { Region } from '../schemas.ts';
import type { IdFor } from './ids.ts';
import type { WorldCountry } from './worldCountries.ts';

const collator = new Intl.Collator('en');

export function buildRegions(countries: readonly WorldCountry[], idForName: IdFor<string>): Region[] {
  return [...new Set(countries.map((country) => country.region))]
    .sort(collator.compare)
    .map((name) => ({ id: idForName(name), name }));
}

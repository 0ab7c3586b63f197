/** Regions: world-countries' `region` (Africa, Americas, Antarctic, Asia, Europe, Oceania). */
import type { Region } from '../../records/schemas.ts';
import type { IdFor } from '../shared/ids.ts';
import type { WorldCountry } from './worldCountries.ts';
import { englishCollator } from '../shared/ordering.ts';

export function buildRegions(countries: readonly WorldCountry[], idForName: IdFor<string>): Region[] {
  return [...new Set(countries.map((country) => country.region))].sort(englishCollator.compare).map((name) => ({ id: idForName(name), name }));
}

/**
 * world-countries (mledoze/countries, ODbL-1.0): the country list itself, names, codes, capital,
 * region, area and dialling prefix. Read from its countries.json and checked with zod rather than
 * through its index.d.ts, whose default export does not match what Node's ESM loader returns.
 */
import { z } from 'zod';
import { ImportError } from '../shared/importError.ts';
import { readPackageJson } from '../shared/packages.ts';

const namePair = z.object({ common: z.string().min(1), official: z.string().min(1) });

const worldCountrySchema = z.object({
  name: namePair.extend({ native: z.record(z.string(), namePair) }),
  cca2: z.string().regex(/^[A-Z]{2}$/),
  ccn3: z.string(),
  cca3: z.string().regex(/^[A-Z]{3}$/),
  /** `officially-assigned` (ISO 3166-1) or `user-assigned` (Kosovo's XK). */
  status: z.string(),
  idd: z.object({ root: z.string(), suffixes: z.array(z.string()) }),
  capital: z.array(z.string()),
  altSpellings: z.array(z.string()),
  region: z.string().min(1),
  /** km²; -1 where the package does not know it. */
  area: z.number(),
});

export type WorldCountry = z.infer<typeof worldCountrySchema>;

/** ISO 3166-1 has 249 entries; anything else means the package changed and needs a look. */
const isoCountryCount = 249;

/**
 * The ISO 3166-1 countries. Kosovo (XK, user-assigned, no numeric code) is dropped: it is not in
 * ISO 3166-1 and the numeric code is a required field.
 */
export async function loadIsoCountries(): Promise<WorldCountry[]> {
  const all = await readPackageJson('world-countries', 'countries.json', z.array(worldCountrySchema));
  const isoCountries = all.filter((country) => country.status === 'officially-assigned');
  const problems: string[] = [];
  if (isoCountries.length !== isoCountryCount) {
    problems.push(`world-countries has ${isoCountries.length} officially-assigned countries, expected ${isoCountryCount}`);
  }
  for (const country of isoCountries) {
    if (!/^\d{3}$/.test(country.ccn3)) problems.push(`world-countries: ${country.cca2} has no ISO numeric code ("${country.ccn3}")`);
  }
  for (const field of ['cca2', 'cca3', 'ccn3'] as const) {
    if (new Set(isoCountries.map((country) => country[field])).size !== isoCountries.length) {
      problems.push(`world-countries: ${field} is not unique`);
    }
  }
  if (problems.length > 0) throw new ImportError(problems);
  return isoCountries;
}

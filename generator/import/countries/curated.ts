/**
 * Hand-curated facts in data/curated/: a product decision (featured countries) and the few facts
 * the packages lack or get wrong. Every fact there must cite a public source; the importer refuses
 * an entry without one.
 */
import { z } from 'zod';
import { readCuratedFile } from '../shared/curatedFile.ts';
import { ImportError } from '../shared/importError.ts';

const alpha2Code = z.string().regex(/^[A-Z]{2}$/, 'must be an ISO 3166-1 alpha-2 code such as TR');
/** A source may be prose around its URL ("UN press release, https://…"). */
const source = z.string().regex(/https?:\/\/\S+/, 'must cite a public source by URL');
const note = z.string().min(1);

const featuredCountriesSchema = z.strictObject({ note, countries: z.array(alpha2Code).min(1) });
const countryAltNamesSchema = z.strictObject({
  note,
  entries: z.array(z.strictObject({ alpha2Code, names: z.array(z.string().trim().min(1)).min(1), why: note, source })),
});
const countryCallingCodesSchema = z.strictObject({
  note,
  entries: z.array(z.strictObject({ alpha2Code, callingCode: z.number().int().min(1).max(999), why: note, source })),
});
const countryAreasSchema = z.strictObject({
  note,
  entries: z.array(z.strictObject({ alpha2Code, areaKm2: z.number().positive(), why: note, source })),
});
const currenciesSchema = z.strictObject({
  note,
  entries: z.array(z.strictObject({ code: z.string().regex(/^[A-Z]{3}$/), name: z.string().trim().min(1), why: note, source })),
});

export interface CuratedFacts {
  /** alpha-2 codes shown first in pickers. */
  readonly featuredCountries: ReadonlySet<string>;
  readonly altNamesByCountry: ReadonlyMap<string, readonly string[]>;
  readonly callingCodeByCountry: ReadonlyMap<string, number>;
  readonly areaByCountry: ReadonlyMap<string, number>;
  /** Active ISO 4217 currencies newer than the currency-codes package, by code. */
  readonly currencyNameByCode: ReadonlyMap<string, string>;
}

function mapByCountry<Entry extends { readonly alpha2Code: string }, Value>(
  fileName: string,
  entries: readonly Entry[],
  valueFor: (entry: Entry) => Value,
): Map<string, Value> {
  const byCountry = new Map<string, Value>();
  for (const entry of entries) {
    if (byCountry.has(entry.alpha2Code)) throw new ImportError([`${fileName}: ${entry.alpha2Code} appears twice`]);
    byCountry.set(entry.alpha2Code, valueFor(entry));
  }
  return byCountry;
}

export async function loadCuratedFacts(dataDir: string): Promise<CuratedFacts> {
  const featured = await readCuratedFile(dataDir, 'featured-countries.json', featuredCountriesSchema);
  const altNames = await readCuratedFile(dataDir, 'country-alt-names.json', countryAltNamesSchema);
  const callingCodes = await readCuratedFile(dataDir, 'country-calling-codes.json', countryCallingCodesSchema);
  const areas = await readCuratedFile(dataDir, 'country-areas.json', countryAreasSchema);
  const currencies = await readCuratedFile(dataDir, 'currencies.json', currenciesSchema);
  return {
    featuredCountries: new Set(featured.countries),
    altNamesByCountry: mapByCountry('country-alt-names.json', altNames.entries, (entry) => entry.names),
    callingCodeByCountry: mapByCountry('country-calling-codes.json', callingCodes.entries, (entry) => entry.callingCode),
    areaByCountry: mapByCountry('country-areas.json', areas.entries, (entry) => entry.areaKm2),
    currencyNameByCode: new Map(currencies.entries.map((entry) => [entry.code, entry.name])),
  };
}

/** A curated fact about a country that is not imported is a typo or a stale entry; say so. */
export function assertCuratedCountriesExist(curated: CuratedFacts, alpha2Codes: ReadonlySet<string>): void {
  const named = [...curated.featuredCountries, ...curated.altNamesByCountry.keys(), ...curated.callingCodeByCountry.keys(), ...curated.areaByCountry.keys()];
  const unknown = [...new Set(named.filter((code) => !alpha2Codes.has(code)))];
  if (unknown.length > 0) throw new ImportError(unknown.map((code) => `data/curated names ${code}, which is not an imported country`));
}

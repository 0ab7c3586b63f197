/**
 * Country currencies (countryCurrency.json): each country's current legal tender, from Unicode CLDR
 * (cldr-core supplemental/currencyData.json, Unicode License v3).
 */
import { countryCurrencySchema } from '../../records/schemas.ts';
import { byCountryName, reuseLinkIds } from '../countries/countryLinks.ts';
import type { DatasetImporter } from '../importer.ts';
import { loadRegionCurrencies } from '../countries/cldr.ts';

/**
 * Legal tender today, by alpha-2 code, in CLDR's order (the main currency first): every currency a
 * region lists without an end date (`_to`) and not marked `_tender: "false"`. As for the currency
 * records, only the presence of an end date counts, never today's date, so re-imports repeat.
 */
export async function loadLegalTender(): Promise<Map<string, string[]>> {
  const tenderByRegion = new Map<string, string[]>();
  for (const [region, uses] of Object.entries(await loadRegionCurrencies())) {
    const codes = uses.flatMap((use) =>
      Object.entries(use)
        .filter(([, period]) => period._to === undefined && period._tender !== 'false')
        .map(([code]) => code),
    );
    tenderByRegion.set(region, [...new Set(codes)]);
  }
  return tenderByRegion;
}

export const importer: DatasetImporter = async ({ countries, currencies, previous }) => {
  const tenderByRegion = await loadLegalTender();
  const currencyCodes = new Set(currencies.map((currency) => currency.code));
  const idFor = reuseLinkIds('countryCurrency', await previous('countryCurrency', countryCurrencySchema), countries, (link) => link.currencyCode);

  const skipped: string[] = [];
  const links = byCountryName(countries).flatMap((country) =>
    (tenderByRegion.get(country.alpha2Code) ?? []).flatMap((currencyCode) => {
      if (!currencyCodes.has(currencyCode)) {
        skipped.push(`${country.alpha2Code} ${currencyCode}`);
        return [];
      }
      return [{ id: idFor(country.alpha3Code, currencyCode), countryId: country.id, currencyCode }];
    }),
  );
  // A currency CLDR calls legal tender but the currency records lack is news (a new ISO code): say so.
  if (skipped.length > 0) console.warn(`countryCurrency: left out, no currency record: ${skipped.join(', ')}`);
  return [{ recordType: 'countryCurrency', records: links, schema: countryCurrencySchema }];
};

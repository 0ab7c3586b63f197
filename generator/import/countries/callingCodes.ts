/**
 * International calling codes (ITU-T E.164 country codes) from libphonenumber-js's metadata, which
 * is Google's libphonenumber data. One record per code: +1 serves the US, Canada, Puerto Rico and
 * the rest of the North American Numbering Plan, +7 Russia and Kazakhstan. Non-geographic codes
 * (800 freephone, 870 Inmarsat, 882/883 international networks…) are records too, with no country.
 */
import metadata from 'libphonenumber-js/metadata.min.json';
import { getCountries, getCountryCallingCode } from 'libphonenumber-js/core';
import type { CallingCode } from '../../records/schemas.ts';
import type { IdFor } from '../shared/ids.ts';
import { ImportError } from '../shared/importError.ts';
import type { WorldCountry } from './worldCountries.ts';

/** Every calling code libphonenumber-js knows, geographic and non-geographic, ascending. */
export function knownCallingCodes(): number[] {
  const codes = [...Object.keys(metadata.country_calling_codes), ...Object.keys(metadata.nonGeographic)].map(Number);
  return [...new Set(codes)].sort((a, b) => a - b);
}

/**
 * A world-countries dialling prefix is a root and suffixes (+2 with 62 for the French Southern
 * Territories). Only a single suffix names one code: several (+1 with the US area codes, +2 with
 * 90 and 47 for Saint Helena) do not say which digits are the country code.
 */
function worldCountriesCallingCode(country: WorldCountry): number | undefined {
  const [onlySuffix, ...others] = country.idd.suffixes;
  if (country.idd.root === '' || onlySuffix === undefined || others.length > 0) return undefined;
  return Number((country.idd.root + onlySuffix).replace('+', ''));
}

/**
 * Each country's own calling code. libphonenumber-js answers for every country it supports (Anguilla
 * is +1 there, since 264 is an area code within +1). For the few it does not support, world-countries'
 * prefix is used; a curated entry (data/curated/country-calling-codes.json) wins over both, for the
 * countries where neither package has a usable answer.
 */
export function callingCodeByCountry(countries: readonly WorldCountry[], curatedCallingCodes: ReadonlyMap<string, number>): Map<string, number> {
  const supported = getCountries(metadata);
  const known = new Set(knownCallingCodes());
  const byCountry = new Map<string, number>();
  const problems: string[] = [];
  for (const country of countries) {
    const supportedCountry = supported.find((code) => code === country.cca2);
    const callingCode =
      curatedCallingCodes.get(country.cca2) ??
      (supportedCountry ? Number(getCountryCallingCode(supportedCountry, metadata)) : worldCountriesCallingCode(country));
    if (callingCode === undefined) {
      problems.push(
        `${country.cca2} (${country.name.common}) has no calling code in any source; add a sourced entry to data/curated/country-calling-codes.json`,
      );
    } else if (!known.has(callingCode)) {
      problems.push(`${country.cca2} (${country.name.common}) has calling code ${callingCode}, which libphonenumber-js does not know`);
    } else {
      byCountry.set(country.cca2, callingCode);
    }
  }
  if (problems.length > 0) throw new ImportError(problems);
  return byCountry;
}

export function buildCallingCodes(codes: readonly number[], idForCode: IdFor<number>): CallingCode[] {
  return codes.map((code) => ({ id: idForCode(code), code }));
}

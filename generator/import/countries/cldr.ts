/**
 * Unicode CLDR supplemental data (cldr-core, Unicode License v3): territory populations and which
 * currencies are in use where.
 */
import { z } from 'zod';
import { readPackageJson } from '../shared/packages.ts';

const territoryInfoSchema = z.object({
  supplemental: z.object({
    territoryInfo: z.record(z.string(), z.object({ _population: z.string().regex(/^\d+$/, 'must be a whole number') })),
  }),
});

/**
 * CLDR's `_population` per territory, by alpha-2 code: a rounded estimate for locale work, used
 * only for the places neither the World Bank nor UN WPP publishes (population.ts).
 */
export async function loadTerritoryPopulations(): Promise<Map<string, number>> {
  const { supplemental } = await readPackageJson('cldr-core', 'supplemental/territoryInfo.json', territoryInfoSchema);
  return new Map(Object.entries(supplemental.territoryInfo).map(([territory, info]) => [territory, Number(info._population)]));
}

const currencyUseSchema = z.object({
  _from: z.string().optional(),
  _to: z.string().optional(),
  /** "false" for a currency used in the region that is not legal tender (funds codes, XXX). */
  _tender: z.enum(['true', 'false']).optional(),
});
const currencyDataSchema = z.object({
  supplemental: z.object({
    currencyData: z.object({ region: z.record(z.string(), z.array(z.record(z.string(), currencyUseSchema))) }),
  }),
});

/** CLDR's currencies by region (supplemental/currencyData.json): each use with its dates and tender flag. */
export async function loadRegionCurrencies(): Promise<Record<string, Record<string, z.infer<typeof currencyUseSchema>>[]>> {
  return (await readPackageJson('cldr-core', 'supplemental/currencyData.json', currencyDataSchema)).supplemental.currencyData.region;
}

/**
 * Currencies CLDR lists as still in use somewhere: a region entry without an end date (`_to`).
 * Only the presence of an end date counts, not today's date, so an unchanged source re-imports to
 * the same bytes on any day.
 */
export async function loadCurrenciesInUse(): Promise<Set<string>> {
  const inUse = new Set<string>();
  for (const uses of Object.values(await loadRegionCurrencies())) {
    for (const use of uses) {
      for (const [code, period] of Object.entries(use)) if (period._to === undefined) inUse.add(code);
    }
  }
  return inUse;
}

/**
 * The dataset importers run after the base import, in this order. Adding a dataset is adding its
 * importer here (and its package to packages.ts and data/SOURCES.md).
 */
import { importAddresses } from './addresses/addresses.ts';
import { importBanks } from './finance/banks.ts';
import { importCountryCurrencies } from './finance/currencyLinks.ts';
import type { DatasetImporter } from './importer.ts';
import { importHolidays } from './holidays/holidays.ts';
import { importLanguages } from './countries/languages.ts';
import { importTimeZones } from './countries/timeZones.ts';
import { importWebDomains } from './countries/webDomains.ts';
import { importWorldAddresses } from './addresses/worldAddresses.ts';

export const datasetImporters: readonly DatasetImporter[] = [
  importAddresses,
  importWorldAddresses,
  importBanks,
  importCountryCurrencies,
  importLanguages,
  importTimeZones,
  importWebDomains,
  importHolidays,
];

/**
 * The dataset importers run after the base import, in this order. Adding a dataset is adding its
 * importer here (and its package to packages.ts and data/SOURCES.md).
 */
import { importAddresses } from './addresses.ts';
import { importBanks } from './banks.ts';
import { importCountryCurrencies } from './currencyLinks.ts';
import type { DatasetImporter } from './importer.ts';
import { importHolidays } from './holidays.ts';
import { importLanguages } from './languages.ts';
import { importTimeZones } from './timeZones.ts';
import { importWebDomains } from './webDomains.ts';
import { importWorldAddresses } from './worldAddresses.ts';

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

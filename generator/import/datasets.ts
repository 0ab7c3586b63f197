/**
 * The dataset importers run after the base import, in this order. Adding a dataset is adding its
 * importer here (and its package to packages.ts and data/SOURCES.md).
 */
import { importAddresses } from './addresses.ts';
import type { DatasetImporter } from './dataset.ts';

export const datasetImporters: readonly DatasetImporter[] = [
  importAddresses,
];

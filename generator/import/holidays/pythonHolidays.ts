/**
 * python-holidays (the PyPI package `holidays`, MIT) as the importer reads it: a committed snapshot,
 * data/sources/python-holidays-<version>.json.gz, written by a pinned Python step
 * (holidays_snapshot.py with holidays-requirements.txt). The import reads the snapshot and never
 * runs Python, except when the snapshot is missing; `npm run data:holidays` rewrites it on a
 * developer's machine (after changing the pinned version, or data/build.json's years).
 */
import { execFile } from 'node:child_process';
import { access, mkdir, readFile } from 'node:fs/promises';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { parseArgs, promisify } from 'node:util';
import { gunzipSync } from 'node:zlib';
import { z } from 'zod';
import { ImportError } from '../shared/importError.ts';
import { repositoryRoot } from '../shared/packages.ts';

const run = promisify(execFile);

const stepDir = path.join(repositoryRoot, 'generator', 'import', 'holidays');
const requirementsFile = path.join(stepDir, 'holidays-requirements.txt');
const snapshotScript = path.join(stepDir, 'holidays_snapshot.py');
/** Outside the repository's tracked files: node_modules/ is ignored and rebuilt by npm ci anyway. */
const virtualEnvDir = path.join(repositoryRoot, 'node_modules', '.cache', 'python-holidays');

const civilDay = z.string().regex(/^\d{4}-\d{2}-\d{2}$/);
const name = z.string().min(1);

/** python-holidays' categories: `public`, and the others (bank, government, half_day, optional, …). */
export const publicCategory = 'public';

/** The weekend as periods: [first day, ISO weekdays (1 = Monday … 7 = Sunday)], each until the next. */
const weekends = z.array(z.tuple([civilDay, z.array(z.number().int().min(1).max(7))])).min(1);

/** What the snapshot says of the days of an entity or subdivision (holidays_snapshot.py). */
const dayMarks = {
  weekends,
  /** Observed and substitute days: [day, name, the day it stands in for]. */
  observed: z.array(z.tuple([civilDay, name, civilDay])),
  /** Names python-holidays marks as estimated. */
  estimated: z.array(name),
};

const snapshotSchema = z.strictObject({
  package: z.literal('holidays'),
  version: z.string().min(1),
  dependencies: z.record(z.string(), z.string()),
  years: z.strictObject({ first: z.number().int(), last: z.number().int() }),
  countries: z.record(
    z.string().regex(/^[A-Z]{2}$/),
    z.strictObject({
      /** null: the entity has no default language and python-holidays writes its names in English. */
      language: z.string().nullable(),
      /** The language of the English names (en_US, or the entity's own English such as en_HK); null where the names are English already. */
      english: z.string().nullable(),
      categories: z.array(z.string().min(1)).min(1),
      /** [day, category, name in the default language, its English name or null (see holidays_snapshot.py, Pairing)]. */
      days: z.array(z.tuple([civilDay, z.string().min(1), name, name.nullable()])),
      /** Weekend days worked to pay for a day off: [day, the day off's name (naming this day), its English name or null]. */
      weekendWorkdays: z.array(z.tuple([civilDay, name, name.nullable()])),
      ...dayMarks,
      /** For each subdivision python-holidays knows (by its code there): its days beyond the nation's, of every category but school. */
      subdivisions: z.record(
        z.string().min(1),
        z.strictObject({ days: z.array(z.tuple([civilDay, z.string().min(1), name, name.nullable()])), ...dayMarks, weekends: weekends.optional() }),
      ),
    }),
  ),
});
export type PythonHolidaysSnapshot = z.infer<typeof snapshotSchema>;
export type SnapshotCountry = PythonHolidaysSnapshot['countries'][string];

/** The version holidays-requirements.txt pins, e.g. "0.105". */
export async function pinnedVersion(): Promise<string> {
  const match = /^holidays==(\S+)/m.exec(await readFile(requirementsFile, 'utf8'));
  if (!match?.[1]) throw new ImportError([`${requirementsFile} does not pin holidays==<version>`]);
  return match[1];
}

export const snapshotPath = (dataDir: string, version: string): string => path.join(dataDir, 'sources', `python-holidays-${version}.json.gz`);

const exists = (file: string) =>
  access(file).then(
    () => true,
    () => false,
  );

/**
 * Runs the Python step: a virtual environment with exactly the pinned, hash-checked packages, then
 * the script, which reads the years from the data directory's build.json.
 */
export async function writeSnapshot(dataDir: string): Promise<string> {
  const out = snapshotPath(dataDir, await pinnedVersion());
  const python = path.join(virtualEnvDir, 'bin', 'python');
  try {
    await mkdir(path.dirname(virtualEnvDir), { recursive: true });
    if (!(await exists(python))) await run('python3', ['-m', 'venv', virtualEnvDir]);
    await run(python, ['-m', 'pip', 'install', '--quiet', '--disable-pip-version-check', '--require-hashes', '-r', requirementsFile]);
    // A fixed hash seed: some entities add their days in the order of a set of names, and the
    // observed days' pairing (holidays_snapshot.py `observed`) must not change from run to run.
    const { stdout } = await run(python, [snapshotScript, '--data', dataDir, '--out', out], {
      maxBuffer: 16 * 1024 * 1024,
      env: { ...process.env, PYTHONHASHSEED: '0' },
    });
    process.stderr.write(stdout);
  } catch (error) {
    const failure = error as { message: string; stderr?: string };
    throw new ImportError([
      `the python-holidays step failed (python3 with venv and pip is needed; see ${snapshotScript}):\n${failure.stderr || failure.message}`,
    ]);
  }
  return out;
}

/** The snapshot for the pinned version, written first if it is missing; it must cover `years`. */
export async function readSnapshot(dataDir: string, years: { first: number; last: number }): Promise<PythonHolidaysSnapshot> {
  const version = await pinnedVersion();
  const file = snapshotPath(dataDir, version);
  if (!(await exists(file))) await writeSnapshot(dataDir);
  const parsed = snapshotSchema.safeParse(JSON.parse(gunzipSync(await readFile(file)).toString('utf8')));
  if (!parsed.success) throw new ImportError([`${file}:\n${z.prettifyError(parsed.error)}`]);
  const snapshot = parsed.data;
  if (snapshot.version !== version)
    throw new ImportError([`${file} was written by holidays ${snapshot.version}, not the pinned ${version}; run npm run data:holidays`]);
  if (snapshot.years.first !== years.first || snapshot.years.last !== years.last) {
    throw new ImportError([
      `${file} covers ${snapshot.years.first}–${snapshot.years.last}, data/build.json asks for ${years.first}–${years.last}; run npm run data:holidays`,
    ]);
  }
  return snapshot;
}

/** `npm run data:holidays [-- --data DIR]`: rewrites the snapshot. */
async function main(): Promise<void> {
  const { values } = parseArgs({ options: { data: { type: 'string', default: path.join(repositoryRoot, 'data') } } });
  const dataDir = path.resolve(values.data);
  try {
    console.log(`written: ${path.relative(process.cwd(), await writeSnapshot(dataDir))}`);
  } catch (error) {
    console.error(error instanceof ImportError ? error.message : error);
    process.exitCode = 1;
  }
}

if (process.argv[1] !== undefined && import.meta.url === pathToFileURL(process.argv[1]).href) await main();

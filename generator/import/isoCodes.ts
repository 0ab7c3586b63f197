/**
 * Debian's iso-codes package (LGPL-2.1+): the ISO 3166-2 subdivisions of every country, with
 * their English or romanised names. It is a system package, not an npm one, so its version is
 * checked here against data/SOURCES.md the way packages.ts checks the npm packages.
 */
import { execFile } from 'node:child_process';
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { promisify } from 'node:util';
import { gunzipSync } from 'node:zlib';
import { z } from 'zod';
import { ImportError } from './importError.ts';

const subdivisionsFile = '/usr/share/iso-codes/json/iso_3166-2.json';
const debianChangelog = '/usr/share/doc/iso-codes/changelog.Debian.gz';
const install = 'apt-get install iso-codes';

const subdivisionSchema = z.object({
  /** `TR-34`, `FR-ARA`: the country's alpha-2 code, a hyphen, one to three letters or digits. */
  code: z.string().regex(/^[A-Z]{2}-[A-Z0-9]{1,3}$/),
  name: z.string().trim().min(1),
  /** Province, Metropolitan region, Metropolitan department … */
  type: z.string().min(1),
  /** The suffix of the subdivision this one belongs to, for second-level subdivisions. */
  parent: z.string().optional(),
});
const subdivisionsSchema = z.object({ '3166-2': z.array(subdivisionSchema) });

export type IsoSubdivision = z.infer<typeof subdivisionSchema>;

/** The installed Debian version (4.15.0-1): the changelog's first line, or dpkg when docs are excluded. */
async function installedVersion(): Promise<string | undefined> {
  try {
    const firstLine = gunzipSync(await readFile(debianChangelog)).toString('utf8').split('\n', 1)[0] ?? '';
    const version = /^iso-codes \(([^)\s]+)\)/.exec(firstLine)?.[1];
    if (version !== undefined) return version;
  } catch {
    // No changelog (images often drop /usr/share/doc): ask dpkg.
  }
  try {
    const { stdout } = await promisify(execFile)('dpkg-query', ['--show', '--showformat=${Version}', 'iso-codes']);
    return stdout.trim() || undefined;
  } catch {
    return undefined;
  }
}

/**
 * Every subdivision iso-codes lists, at every level (France's regions and their departments
 * alike). Fails when the package is missing or its version is not the one SOURCES.md names.
 */
export async function loadIsoSubdivisions(sourcesFile: string): Promise<IsoSubdivision[]> {
  let text: string;
  try {
    text = await readFile(subdivisionsFile, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
    throw new ImportError([`${subdivisionsFile} is missing: the subdivisions come from Debian's iso-codes package (${install})`]);
  }
  const version = await installedVersion();
  if (version === undefined) throw new ImportError([`cannot tell which iso-codes version is installed (${install})`]);
  const reference = `iso-codes@${version}`;
  if (!(await readFile(sourcesFile, 'utf8')).includes(reference)) {
    throw new ImportError([`${sourcesFile} does not name ${reference} (installed); update it`]);
  }

  const parsed = subdivisionsSchema.safeParse(JSON.parse(text));
  if (!parsed.success) {
    throw new ImportError([`${path.basename(subdivisionsFile)} no longer has the shape the importer expects:\n${z.prettifyError(parsed.error)}`]);
  }
  const subdivisions = parsed.data['3166-2'];
  if (new Set(subdivisions.map((subdivision) => subdivision.code)).size !== subdivisions.length) {
    throw new ImportError([`${subdivisionsFile}: a subdivision code appears twice`]);
  }
  return subdivisions;
}

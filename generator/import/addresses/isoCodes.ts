/**
 * ISO 3166-2, the subdivisions of every country with their English or romanised names, as the
 * iso-codes project keeps it (LGPL-2.1-or-later). The file is vendored under data/sources/ with a
 * record of where it came from: Debian's package lags several ISO newsletters behind (bookworm's
 * 4.15 still had Latvia's 119 pre-2021 municipalities), and a vendored file is the same on every
 * machine without an apt install.
 */
import { createHash } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { z } from 'zod';
import { ImportError } from '../shared/importError.ts';

const subdivisionsFileName = 'iso_3166-2.json';
const provenanceFileName = 'iso_3166-2.source.json';

const subdivisionSchema = z.object({
  /** `TR-34`, `FR-ARA`: the country's alpha-2 code, a hyphen, one to three letters or digits. */
  code: z.string().regex(/^[A-Z]{2}-[A-Z0-9]{1,3}$/),
  name: z.string().trim().min(1),
  /** Province, Metropolitan region, Metropolitan department … */
  type: z.string().min(1),
  /** The code of the subdivision this one belongs to, for second-level subdivisions. */
  parent: z.string().optional(),
});
const subdivisionsSchema = z.object({ '3166-2': z.array(subdivisionSchema) });

/** data/sources/iso_3166-2.source.json: which release the vendored file is, and its hash. */
const provenanceSchema = z.object({
  package: z.literal('iso-codes'),
  version: z.string().regex(/^\d+\.\d+(\.\d+)?$/),
  commit: z.string().regex(/^[0-9a-f]{40}$/),
  licence: z.string().min(1),
  sha256: z.string().regex(/^[0-9a-f]{64}$/),
});

export type IsoSubdivision = z.infer<typeof subdivisionSchema>;

/**
 * ISO's list marks some names with a footnote and gives others an alternative in brackets, and
 * iso-codes keeps both in `name`: "Aerodrom †" (a municipality of the City of Skopje), "Alacant*"
 * (iso-codes 4.15), "A Coruña [La Coruña]", "Stockholms län [SE-01]", "Isle of Anglesey [Sir Ynys
 * Môn GB-YNM]", "Amānat al ‘Āşimah [city]". The name served is ISO's first name alone.
 */
export function cleanSubdivisionName(name: string): string {
  return name
    .replace(/\s*\[[^\]]*\]\s*$/u, '')
    .replace(/\s*[*†]+\s*$/u, '')
    .trim();
}

/** What is left of a mark the cleaning does not know: the import stops rather than serve it. */
const leftoverMark = /[[\]*†]/u;

async function readSourceFile(file: string): Promise<Buffer> {
  try {
    return await readFile(file);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
    throw new ImportError([`${file} is missing: it is vendored from iso-codes (see data/SOURCES.md)`]);
  }
}

/**
 * Every subdivision the vendored iso-codes file lists, at every level (France's regions and
 * their departments alike), names cleaned. Fails when the file is not the one its provenance
 * record describes (sha256), or data/SOURCES.md does not name that release as `iso-codes@<version>`.
 */
export async function loadIsoSubdivisions(dataDir: string): Promise<IsoSubdivision[]> {
  const subdivisionsFile = path.join(dataDir, 'sources', subdivisionsFileName);
  const provenanceFile = path.join(dataDir, 'sources', provenanceFileName);
  const bytes = await readSourceFile(subdivisionsFile);
  const provenance = provenanceSchema.safeParse(JSON.parse((await readSourceFile(provenanceFile)).toString('utf8')));
  if (!provenance.success) throw new ImportError([`${provenanceFile}:\n${z.prettifyError(provenance.error)}`]);
  const { version, sha256 } = provenance.data;

  const actual = createHash('sha256').update(bytes).digest('hex');
  if (actual !== sha256) {
    throw new ImportError([
      `${subdivisionsFile} has sha256 ${actual}, not the ${sha256} of iso-codes ${version} that ${provenanceFileName} records; a changed file needs its provenance updated`,
    ]);
  }
  const sourcesFile = path.join(dataDir, 'SOURCES.md');
  const reference = `iso-codes@${version}`;
  if (!(await readFile(sourcesFile, 'utf8')).includes(reference)) {
    throw new ImportError([`${sourcesFile} does not name ${reference} (vendored in data/sources/); update it`]);
  }

  const parsed = subdivisionsSchema.safeParse(JSON.parse(bytes.toString('utf8')));
  if (!parsed.success) {
    throw new ImportError([`${subdivisionsFile} no longer has the shape the importer expects:\n${z.prettifyError(parsed.error)}`]);
  }
  const subdivisions = parsed.data['3166-2'].map((subdivision) => ({ ...subdivision, name: cleanSubdivisionName(subdivision.name) }));
  if (new Set(subdivisions.map((subdivision) => subdivision.code)).size !== subdivisions.length) {
    throw new ImportError([`${subdivisionsFile}: a subdivision code appears twice`]);
  }
  const unclean = subdivisions.filter((subdivision) => subdivision.name === '' || leftoverMark.test(subdivision.name));
  if (unclean.length > 0) {
    throw new ImportError(
      unclean.map((subdivision) => `${subdivision.code}: the name "${subdivision.name}" is empty or keeps a footnote or bracket mark after cleaning`),
    );
  }
  return subdivisions;
}

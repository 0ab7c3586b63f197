/**
 * The districts and postal codes of every country but Türkiye (whose come from PTT, addresses.ts):
 * GeoNames' postal codes where it has them (data/sources/geonames-postal/), each country's
 * district at the level of worldPostal.ts under the ISO 3166-2 subdivision of
 * data/curated/geonames-admin1-iso.json, with its postal places as neighbourhoods; and the Countries
 * States Cities Database's cities as districts where GeoNames has no postal file.
 *
 * Written one file per country: records/district/<CC>.json and records/neighborhood/<CC>.json
 * (<CC>-1, <CC>-2 … past `partSize` records, to keep files reviewable). Which of them a build
 * serves is data/build.json `addressCountries`.
 */
import { readdir } from 'node:fs/promises';
import path from 'node:path';
import type { z } from 'zod';
import { countrySchema, districtSchema, neighborhoodSchema, stateProvinceSchema, type Country } from '../../records/schemas.ts';
import { matchExonyms, type CityPlace, type DistrictPlace } from './exonyms.ts';
import { reuseIds } from '../shared/ids.ts';
import type { DatasetImporter, ImportContext } from '../importer.ts';
import { readRecords } from '../shared/recordsFile.ts';
import { compareCodePoints, englishCollator } from '../shared/ordering.ts';
import {
  admin2Key,
  districtLevelOf,
  districtNameOf,
  isAddressRow,
  isoCodeByGeonamesName,
  isServablePostalCode,
  pairKey,
  readAdmin1Table,
  subdivisionResolver,
  type Admin1Table,
} from './worldPostal.ts';
import {
  loadCscCities,
  loadGeonamesAdmin2,
  loadGeonamesCities,
  loadPostalRows,
  type CscCity,
  type GeonamesAdmin2,
  type GeonamesCity,
  type PostalRow,
} from './worldSources.ts';

type StateProvince = z.infer<typeof stateProvinceSchema>;
type District = z.infer<typeof districtSchema>;
type Neighborhood = z.infer<typeof neighborhoodSchema>;

/** Served from PTT's list by addresses.ts; GeoNames' Turkish rows are never imported. */
export const pttCountry = 'TR';
/** Records per file at most; a country with more is split in order. */
export const partSize = 100_000;

/** Natural keys, one format for the records built now and those read back. */
export const districtKey = (isoCode: string, name: string) => JSON.stringify([isoCode, name]);
export const neighbourhoodKey = (zipCode: string, place: string, district: string) => JSON.stringify([zipCode, place, district]);

/** Why rows were not imported, counted per country for data/SOURCES.md and the tests. */
export type LeftOutReason =
  | 'cedex'
  | 'large customer'
  | 'admin1 not determinable'
  | 'admin2 not an ISO subdivision'
  | 'no district name'
  | 'postal code not servable';

export interface WorldInputs {
  readonly countries: readonly Country[];
  readonly stateProvinces: readonly StateProvince[];
  readonly postalRows: ReadonlyMap<string, readonly PostalRow[]>;
  readonly geonamesCities: readonly GeonamesCity[];
  readonly geonamesAdmin2: readonly GeonamesAdmin2[];
  readonly cscCities: readonly CscCity[];
  readonly admin1Table: Admin1Table;
  readonly previousDistricts: readonly District[];
  readonly previousNeighbourhoods: readonly Neighborhood[];
}

export interface WorldAddresses {
  readonly districtsByCountry: ReadonlyMap<string, District[]>;
  readonly neighbourhoodsByCountry: ReadonlyMap<string, Neighborhood[]>;
  /** Rows left out, by country and reason. */
  readonly leftOut: ReadonlyMap<string, ReadonlyMap<LeftOutReason, number>>;
  /** CSC cities whose state has no served ISO code, by country. */
  readonly cscLeftOut: ReadonlyMap<string, number>;
}

interface DistrictDraft {
  readonly key: string;
  readonly isoCode: string;
  readonly name: string;
  readonly admin1Codes: Map<string, number>;
  latitudeSum: number;
  longitudeSum: number;
  located: number;
  readonly neighbourhoods: Map<string, { zipCode: string; place: string }>;
}

function count<Key>(counts: Map<Key, number>, key: Key): void {
  counts.set(key, (counts.get(key) ?? 0) + 1);
}

function groupBy<Item>(items: readonly Item[], keyOf: (item: Item) => string): Map<string, Item[]> {
  const groups = new Map<string, Item[]>();
  for (const item of items) {
    const key = keyOf(item);
    const group = groups.get(key) ?? [];
    groups.set(key, group);
    group.push(item);
  }
  return groups;
}

function mostCommon(counts: ReadonlyMap<string, number>): string | undefined {
  return [...counts].sort(([a, x], [b, y]) => y - x || compareCodePoints(a, b))[0]?.[0];
}

/** What turns a postal row into its district: its subdivision, its district's name, its admin1 code. */
interface RowResolvers {
  readonly subdivisionOf: ReturnType<typeof subdivisionResolver>;
  readonly admin2Names: Parameters<typeof districtNameOf>[2];
  readonly admin1ByPair: ReadonlyMap<string, string | null>;
}

/** Where records get their ids (kept from the previous import by natural key) and their subdivision. */
interface RecordIds {
  readonly provinceByIso: ReadonlyMap<string, StateProvince>;
  readonly idForDistrict: (key: string) => string;
  readonly idForNeighbourhood: (key: string) => string;
}

/** A country's postal rows gathered into district drafts; each row left out counted by its reason. */
function draftDistricts(
  country: string,
  rows: readonly PostalRow[],
  reasons: Map<LeftOutReason, number>,
  { subdivisionOf, admin2Names, admin1ByPair }: RowResolvers,
) {
  const drafts = new Map<string, DistrictDraft>();
  const usedNames = new Set<string>();
  for (const row of rows) {
    if (!isAddressRow(country, row)) {
      count(reasons, country === 'FR' ? 'cedex' : 'large customer');
      continue;
    }
    usedNames.add(row.place);
    const subdivision = subdivisionOf(country, row);
    if ('unmapped' in subdivision) {
      count(reasons, subdivision.unmapped);
      continue;
    }
    const name = districtNameOf(country, row, admin2Names);
    if (name === '') {
      count(reasons, 'no district name');
      continue;
    }
    if (!isServablePostalCode(row.zipCode)) {
      count(reasons, 'postal code not servable');
      continue;
    }
    usedNames.add(name);
    const key = districtKey(subdivision.isoCode, name);
    let draft = drafts.get(key);
    if (draft === undefined) {
      draft = { key, isoCode: subdivision.isoCode, name, admin1Codes: new Map(), latitudeSum: 0, longitudeSum: 0, located: 0, neighbourhoods: new Map() };
      drafts.set(key, draft);
    }
    const admin1 = admin1ByPair.get(pairKey(country, row.admin1Code, row.admin1Name));
    if (admin1) count(draft.admin1Codes, admin1);
    if (Number.isFinite(row.latitude) && Number.isFinite(row.longitude)) {
      draft.latitudeSum += row.latitude;
      draft.longitudeSum += row.longitude;
      draft.located++;
    }
    draft.neighbourhoods.set(`${row.zipCode}\u0000${row.place}`, { zipCode: row.zipCode, place: row.place });
  }

  return { drafts, usedNames };
}

/** The drafts as records in data order: districts by subdivision and name, each district's neighbourhoods by name and postal code. */
function recordsOf(
  drafts: ReadonlyMap<string, DistrictDraft>,
  aliases: ReadonlyMap<string, string>,
  { provinceByIso, idForDistrict, idForNeighbourhood }: RecordIds,
) {
  const sorted = [...drafts.values()].sort(
    (a, b) => compareCodePoints(a.isoCode, b.isoCode) || englishCollator.compare(a.name, b.name) || compareCodePoints(a.name, b.name),
  );
  const districts: District[] = [];
  const neighbourhoods: Neighborhood[] = [];
  for (const draft of sorted) {
    const stateProvinceId = provinceByIso.get(draft.isoCode)?.id as string;
    const id = idForDistrict(draft.key);
    const alias = aliases.get(draft.key);
    districts.push(alias === undefined ? { id, stateProvinceId, name: draft.name } : { id, stateProvinceId, name: draft.name, aliases: [alias] });
    const ofDistrict = [...draft.neighbourhoods.values()].sort(
      (a, b) => englishCollator.compare(a.place, b.place) || compareCodePoints(a.place, b.place) || compareCodePoints(a.zipCode, b.zipCode),
    );
    for (const { zipCode, place } of ofDistrict) {
      neighbourhoods.push({ id: idForNeighbourhood(neighbourhoodKey(zipCode, place, draft.key)), districtId: id, name: place, zipCode });
    }
  }
  return { districts, neighbourhoods };
}

/** The districts of the countries no postal file covers, from the Countries States Cities Database's cities; the cities left out, by country. */
function cscDistricts(inputs: WorldInputs, { provinceByIso, idForDistrict }: RecordIds, districtsByCountry: Map<string, District[]>): Map<string, number> {
  const cscLeftOut = new Map<string, number>();
  for (const [country, cities] of groupBy(inputs.cscCities, (city) => city.country)) {
    if (country === pttCountry || inputs.postalRows.has(country)) continue;
    const keys = new Map<string, { isoCode: string; name: string }>();
    for (const city of cities) {
      const name = city.name.trim();
      if (!provinceByIso.has(city.stateIsoCode) || name === '') {
        count(cscLeftOut, country);
        continue;
      }
      keys.set(districtKey(city.stateIsoCode, name), { isoCode: city.stateIsoCode, name });
    }
    const districts = [...keys]
      .sort(([, a], [, b]) => compareCodePoints(a.isoCode, b.isoCode) || englishCollator.compare(a.name, b.name) || compareCodePoints(a.name, b.name))
      .map(([key, { isoCode, name }]) => ({ id: idForDistrict(key), stateProvinceId: provinceByIso.get(isoCode)?.id as string, name }));
    if (districts.length > 0) districtsByCountry.set(country, districts);
  }
  return cscLeftOut;
}

export function buildWorldAddresses(inputs: WorldInputs): WorldAddresses {
  const alpha2ById = new Map(inputs.countries.map((country) => [country.id, country.alpha2Code]));
  const isoCodeOf = (province: StateProvince) => `${alpha2ById.get(province.countryId) ?? province.countryId}-${province.abbreviation}`;
  const provinceByIso = new Map(inputs.stateProvinces.map((province) => [isoCodeOf(province), province]));
  const isoById = new Map(inputs.stateProvinces.map((province) => [province.id, isoCodeOf(province)]));
  const admin2Names = new Map(inputs.geonamesAdmin2.map((admin2) => [admin2Key(admin2.country, admin2.code), admin2]));
  const subdivisionOf = subdivisionResolver(inputs.admin1Table, new Set(provinceByIso.keys()), admin2Names);
  const admin1ByPair = new Map(inputs.admin1Table.entries.map((entry) => [pairKey(entry.country, entry.code, entry.name), entry.iso3166_2]));
  const admin1ByGeonamesName = isoCodeByGeonamesName(inputs.admin1Table);

  // The previous world records' natural keys, read through the subdivisions they point at.
  const worldDistricts = inputs.previousDistricts.filter((record) => !isoById.get(record.stateProvinceId)?.startsWith(`${pttCountry}-`));
  const previousDistrictKey = (record: District) => {
    const isoCode = isoById.get(record.stateProvinceId) ?? record.stateProvinceId;
    return districtKey(isoCode, record.name);
  };
  const keyByDistrictId = new Map(worldDistricts.map((record) => [record.id, previousDistrictKey(record)]));
  const idForDistrict = reuseIds('district', worldDistricts, previousDistrictKey);
  const worldNeighbourhoods = inputs.previousNeighbourhoods.filter((record) => keyByDistrictId.has(record.districtId));
  const idForNeighbourhood = reuseIds('neighborhood', worldNeighbourhoods, (record) => {
    const district = keyByDistrictId.get(record.districtId) ?? record.districtId;
    return neighbourhoodKey(record.zipCode, record.name, district);
  });

  const resolve: RowResolvers = { subdivisionOf, admin2Names, admin1ByPair };
  const ids: RecordIds = { provinceByIso, idForDistrict, idForNeighbourhood };
  const districtsByCountry = new Map<string, District[]>();
  const neighbourhoodsByCountry = new Map<string, Neighborhood[]>();
  const leftOut = new Map<string, Map<LeftOutReason, number>>();
  const citiesByCountry = groupBy(inputs.geonamesCities, (city) => city.country);

  for (const [country, rows] of [...inputs.postalRows].sort(([a], [b]) => compareCodePoints(a, b))) {
    if (country === pttCountry) continue;
    const reasons = new Map<LeftOutReason, number>();
    leftOut.set(country, reasons);
    const { drafts, usedNames } = draftDistricts(country, rows, reasons, resolve);
    const places: DistrictPlace[] = [...drafts.values()].flatMap((draft) => {
      const admin1 = mostCommon(draft.admin1Codes);
      return admin1 === undefined || draft.located === 0
        ? []
        : [{ key: draft.key, name: draft.name, admin1, latitude: draft.latitudeSum / draft.located, longitude: draft.longitudeSum / draft.located }];
    });
    const cities: CityPlace[] = (citiesByCountry.get(country) ?? []).flatMap((city) => {
      const admin1 = admin1ByGeonamesName.get(`${country}\u0000${city.admin1Name}`);
      return admin1 === undefined ? [] : [{ name: city.name, admin1, latitude: city.latitude, longitude: city.longitude }];
    });
    // A county or municipality of many places is not the city nearest its centre.
    const aliases = districtLevelOf(country) === 'place' ? matchExonyms(places, cities, usedNames) : new Map<string, string>();

    const { districts, neighbourhoods } = recordsOf(drafts, aliases, ids);
    districtsByCountry.set(country, districts);
    neighbourhoodsByCountry.set(country, neighbourhoods);
  }

  const cscLeftOut = cscDistricts(inputs, ids, districtsByCountry);
  return { districtsByCountry, neighbourhoodsByCountry, leftOut, cscLeftOut };
}

/** A country's records as parts of at most `partSize`: `DE`, or `PT-1`, `PT-2` … */
export function partsOf<Item>(byCountry: ReadonlyMap<string, readonly Item[]>): Map<string, readonly Item[]> {
  const parts = new Map<string, readonly Item[]>();
  for (const [country, items] of byCountry) {
    if (items.length === 0) continue;
    if (items.length <= partSize) {
      parts.set(country, items);
      continue;
    }
    for (let start = 0, part = 1; start < items.length; start += partSize, part++) parts.set(`${country}-${part}`, items.slice(start, start + partSize));
  }
  return parts;
}

/** The vendored sources and the curated table, the same for an import and a test. */
async function loadSources(dataDir: string) {
  return {
    postalRows: await loadPostalRows(dataDir),
    geonamesCities: await loadGeonamesCities(dataDir),
    geonamesAdmin2: await loadGeonamesAdmin2(dataDir),
    cscCities: await loadCscCities(dataDir),
    admin1Table: await readAdmin1Table(dataDir),
  };
}

export async function loadWorldInputs(context: ImportContext): Promise<WorldInputs> {
  return {
    countries: context.countries,
    stateProvinces: context.imported('stateProvince') as StateProvince[],
    ...(await loadSources(context.dataDir)),
    previousDistricts: await context.previous('district', districtSchema),
    previousNeighbourhoods: await context.previous('neighborhood', neighborhoodSchema),
  };
}

/** The inputs as an import of the data directory's committed records would see them. */
export async function loadWorldInputsFrom(dataDir: string): Promise<WorldInputs> {
  const recordsDir = path.join(dataDir, 'records');
  const all = async <Schema extends z.ZodType>(recordType: string, schema: Schema): Promise<z.infer<Schema>[]> => {
    const parts = (await readdir(path.join(recordsDir, recordType)).catch(() => [] as string[])).filter((name) => name.endsWith('.json')).sort();
    const single = await readRecords(path.join(recordsDir, `${recordType}.json`), schema);
    return [...single, ...(await Promise.all(parts.map((name) => readRecords(path.join(recordsDir, recordType, name), schema)))).flat()];
  };
  return {
    countries: await all('country', countrySchema),
    stateProvinces: await all('stateProvince', stateProvinceSchema),
    ...(await loadSources(dataDir)),
    previousDistricts: await all('district', districtSchema),
    previousNeighbourhoods: await all('neighborhood', neighborhoodSchema),
  };
}

export const importer: DatasetImporter = async (context) => {
  const world = buildWorldAddresses(await loadWorldInputs(context));
  return [
    { recordType: 'district', parts: partsOf(world.districtsByCountry), schema: districtSchema },
    { recordType: 'neighborhood', parts: partsOf(world.neighbourhoodsByCountry), schema: neighborhoodSchema },
  ];
};

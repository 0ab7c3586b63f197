/**
 * Address records below the country: the ISO 3166-2 subdivisions of every country, at every level
 * ISO codes (iso-codes, vendored in data/sources/), and for Turkey its districts and neighbourhoods
 * with postal codes (PTT's postal code list, vendored in data/sources/).
 *
 * Order is part of the data: a single lookup (stateprovince/getbyabbreviation?abbreviation=34,
 * getbyname) answers the first record in data order among those that fold to one key, and most
 * users are in Turkey. So the featured countries' subdivisions come first (Turkey's provinces in
 * plate-code order: 34 is İstanbul before France's Hérault), then every other country by English
 * name, each by ISO code.
 */
import type { z } from 'zod';
import { districtSchema, neighborhoodSchema, stateProvinceSchema, type Country } from '../../records/schemas.ts';
import type { DatasetImporter } from '../importer.ts';
import { reuseIds } from '../shared/ids.ts';
import { ImportError } from '../shared/importError.ts';
import { loadIsoSubdivisions, type IsoSubdivision } from './isoCodes.ts';
import { placeName } from './neighbourhoodNames.ts';
import { loadTurkeyAddresses, neighbourhoodKeys, type TurkeyAddresses } from './turkey.ts';
import { compareCodePoints, englishCollator, turkishCollator } from '../shared/ordering.ts';

type StateProvince = z.infer<typeof stateProvinceSchema>;
type District = z.infer<typeof districtSchema>;
type Neighborhood = z.infer<typeof neighborhoodSchema>;

const turkeyAlpha2 = 'TR';

/** `TR-34` → `34`: the abbreviation is the ISO code without its country. */
function suffixOf(isoCode: string): string {
  return isoCode.slice(3);
}

/** Natural keys, one format for the records built now and those read back. */
const districtKey = (plateCode: string, name: string) => JSON.stringify([plateCode, name]);

/** Featured countries first (their displayOrder 1 comes from data/curated/featured-countries.json), then by English name. */
function compareCountries(a: Country, b: Country): number {
  return b.displayOrder - a.displayOrder || englishCollator.compare(a.name, b.name) || a.alpha2Code.localeCompare(b.alpha2Code);
}

/**
 * Turkey's provinces are iso-codes' TR-01..TR-81, whose numbers are the plate codes, named as
 * PTT writes them (iso-codes has "Hakkâri", PTT and the package "Hakkari").
 */
function turkishNamesByIsoCode(subdivisions: readonly IsoSubdivision[], addresses: TurkeyAddresses): Map<string, string> {
  const isoCodes = subdivisions.filter((subdivision) => subdivision.code.startsWith(`${turkeyAlpha2}-`)).map((subdivision) => subdivision.code);
  const plateCodes = addresses.provinces.map((province) => `${turkeyAlpha2}-${province.plateCode}`);
  if ([...isoCodes].sort().join() !== plateCodes.join()) {
    throw new ImportError([`iso-codes' Turkish subdivisions (${isoCodes.length}) are not TR-01..TR-81, the plate codes of the 81 provinces`]);
  }
  return new Map(addresses.provinces.map((province) => [`${turkeyAlpha2}-${province.plateCode}`, province.name]));
}

function buildStateProvinces(
  countries: readonly Country[],
  subdivisions: readonly IsoSubdivision[],
  turkishNames: ReadonlyMap<string, string>,
  previous: readonly StateProvince[],
): StateProvince[] {
  const alpha2ById = new Map(countries.map((country) => [country.id, country.alpha2Code]));
  const idForIsoCode = reuseIds('stateProvince', previous, (record) => `${alpha2ById.get(record.countryId) ?? record.countryId}-${record.abbreviation}`);
  const subdivisionsByCountry = new Map<string, IsoSubdivision[]>();
  for (const subdivision of subdivisions) {
    const alpha2Code = subdivision.code.slice(0, 2);
    const ofCountry = subdivisionsByCountry.get(alpha2Code) ?? [];
    subdivisionsByCountry.set(alpha2Code, ofCountry);
    ofCountry.push(subdivision);
  }
  const imported = new Set(countries.map((country) => country.alpha2Code));
  const unknown = [...subdivisionsByCountry.keys()].filter((alpha2Code) => !imported.has(alpha2Code));
  if (unknown.length > 0) {
    throw new ImportError(unknown.map((alpha2Code) => `iso-codes has subdivisions of ${alpha2Code}, which is not an imported country`));
  }

  return [...countries].sort(compareCountries).flatMap((country) =>
    [...(subdivisionsByCountry.get(country.alpha2Code) ?? [])]
      .sort((a, b) => compareCodePoints(a.code, b.code))
      .map((subdivision) => ({
        id: idForIsoCode(subdivision.code),
        countryId: country.id,
        name: turkishNames.get(subdivision.code) ?? subdivision.name,
        abbreviation: suffixOf(subdivision.code),
      })),
  );
}

export const importer: DatasetImporter = async (context) => {
  const subdivisions = await loadIsoSubdivisions(context.dataDir);
  const addresses = await loadTurkeyAddresses(context.dataDir);
  const previousProvinces = await context.previous('stateProvince', stateProvinceSchema);
  const turkishNames = turkishNamesByIsoCode(subdivisions, addresses);
  const stateProvinces = buildStateProvinces(context.countries, subdivisions, turkishNames, previousProvinces);

  const turkeyId = context.countries.find((country) => country.alpha2Code === turkeyAlpha2)?.id;
  const provinceIdByPlate = new Map(
    stateProvinces.filter((province) => province.countryId === turkeyId).map((province) => [province.abbreviation, province.id]),
  );

  // The previous records' natural keys, read through the previous records they point at.
  const plateById = new Map(previousProvinces.filter((province) => province.countryId === turkeyId).map((province) => [province.id, province.abbreviation]));
  // Türkiye's only: the other countries' districts (worldAddresses.ts) share the record type.
  const previousDistricts = (await context.previous('district', districtSchema)).filter((record) => plateById.has(record.stateProvinceId));
  const previousDistrictKey = (record: District) => districtKey(plateById.get(record.stateProvinceId) ?? record.stateProvinceId, record.name);
  const districtKeyById = new Map(previousDistricts.map((record) => [record.id, previousDistrictKey(record)]));
  const idForDistrict = reuseIds('district', previousDistricts, previousDistrictKey);
  // Records written before the names were read carry PTT's name as their name.
  const previousNeighbourhoods = (await context.previous('neighborhood', neighborhoodSchema)).filter((record) => districtKeyById.has(record.districtId));
  const previousKeyParts = (record: (typeof previousNeighbourhoods)[number]) => ({
    district: districtKeyById.get(record.districtId) ?? record.districtId,
    name: record.pttName ?? record.name,
    zipCode: record.zipCode,
  });
  const previousNeighbourhoodKey = neighbourhoodKeys(previousNeighbourhoods.map(previousKeyParts));
  const idForNeighbourhood = reuseIds('neighborhood', previousNeighbourhoods, (record) => previousNeighbourhoodKey(previousKeyParts(record)));
  const neighbourhoodKey = neighbourhoodKeys(
    addresses.districts.flatMap((district) => district.neighbourhoods.map(({ name }) => ({ district: districtKey(district.plateCode, district.name), name }))),
  );

  const districts: District[] = [];
  const neighbourhoodsByPlate = new Map<string, Neighborhood[]>();
  for (const district of addresses.districts) {
    const stateProvinceId = provinceIdByPlate.get(district.plateCode);
    if (stateProvinceId === undefined) throw new ImportError([`no Turkish province record for plate code ${district.plateCode}`]);
    const key = districtKey(district.plateCode, district.name);
    const districtId = idForDistrict(key);
    districts.push({ id: districtId, stateProvinceId, name: district.name });
    const neighbourhoods = neighbourhoodsByPlate.get(district.plateCode) ?? [];
    neighbourhoodsByPlate.set(district.plateCode, neighbourhoods);
    const ofDistrict: Neighborhood[] = [];
    for (const { name, zipCode } of district.neighbourhoods) {
      const place = placeName(name);
      ofDistrict.push({
        id: idForNeighbourhood(neighbourhoodKey({ district: key, name, zipCode })),
        districtId,
        name: place.display,
        zipCode,
        pttName: name,
        placeType: place.type,
        parentPlace: place.parent,
      });
    }
    // In Turkish order of the names a form shows, then by postal code; a place PTT spells two ways
    // in one district with one postal code ("Direkli Mah" and "Direkli Mh.") is listed once.
    const seen = new Set<string>();
    const once = ofDistrict.filter((record) => {
      const shown = `${record.name}\n${record.zipCode}`;
      if (seen.has(shown)) return false;
      seen.add(shown);
      return true;
    });
    neighbourhoods.push(...once.sort((a, b) => turkishCollator.compare(a.name, b.name) || a.zipCode.localeCompare(b.zipCode)));
  }

  return [
    { recordType: 'stateProvince', records: stateProvinces, schema: stateProvinceSchema },
    { recordType: 'district', records: districts, schema: districtSchema },
    { recordType: 'neighborhood', parts: neighbourhoodsByPlate, schema: neighborhoodSchema },
  ];
};

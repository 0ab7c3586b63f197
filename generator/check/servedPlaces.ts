/**
 * The served postal places of some countries, joined by id: each Neighborhood with its District,
 * the District's StateProvince and that subdivision's Country. The file layout of data/records does
 * not matter, only the ids. What the world's postal-code checks compare.
 */
import type { DataRecord } from '../records/schemas.ts';
import type { CheckedData } from './check.ts';

export interface ServedPlace {
  /** The country's alpha-2 code. */
  readonly country: string;
  /** The subdivision's ISO 3166-2 code without the country prefix (BY of DE-BY). */
  readonly stateProvince: string;
  readonly district: string;
  /** The Neighborhood's name: the postal place. */
  readonly place: string;
  readonly zipCode: string;
}

/** A field the validated record must have (the schemas make these strings). */
function text(record: DataRecord, field: string): string {
  const value = record[field];
  if (typeof value !== 'string') throw new Error(`record ${record.id}: ${field} is not text`);
  return value;
}

/** Every served place of the countries named by alpha-2 code, in data order. */
export function servedPlaces(data: CheckedData, countries: readonly string[]): ServedPlace[] {
  const countryById = new Map(
    (data.get('country') ?? []).filter((record) => countries.includes(text(record, 'alpha2Code'))).map((record) => [record.id, text(record, 'alpha2Code')]),
  );
  const subdivisionById = new Map<string, { country: string; stateProvince: string }>();
  for (const record of data.get('stateProvince') ?? []) {
    const country = countryById.get(text(record, 'countryId'));
    if (country !== undefined) subdivisionById.set(record.id, { country, stateProvince: text(record, 'abbreviation') });
  }
  const districtById = new Map<string, { country: string; stateProvince: string; district: string }>();
  for (const record of data.get('district') ?? []) {
    const subdivision = subdivisionById.get(text(record, 'stateProvinceId'));
    if (subdivision !== undefined) districtById.set(record.id, { ...subdivision, district: text(record, 'name') });
  }
  const places: ServedPlace[] = [];
  for (const record of data.get('neighborhood') ?? []) {
    const district = districtById.get(text(record, 'districtId'));
    if (district !== undefined) places.push({ ...district, place: text(record, 'name'), zipCode: text(record, 'zipCode') });
  }
  return places;
}

/** The served places by postal code. */
export function placesByCode(places: readonly ServedPlace[]): Map<string, ServedPlace[]> {
  const byCode = new Map<string, ServedPlace[]>();
  for (const place of places) {
    const list = byCode.get(place.zipCode);
    if (list) list.push(place);
    else byCode.set(place.zipCode, [place]);
  }
  return byCode;
}

/**
 * The rules that turn GeoNames' postal rows into districts and neighbourhoods, one country at a
 * time: which rows are not addresses (France's CEDEX codes, Germany's large customers), which
 * column is the district (data/research/world-addresses/REPORT.md section 2.3), and which ISO 3166-2
 * subdivision a row belongs to (data/curated/geonames-admin1-iso.json).
 */
import { z } from 'zod';
import { postalCodePattern } from '../../records/schemas.ts';
import { readCuratedFile } from '../shared/curatedFile.ts';
import { ImportError } from '../shared/importError.ts';
import type { GeonamesAdmin2, PostalRow } from './worldSources.ts';

/**
 * France's CEDEX codes ("75021 CEDEX 01") are business-mail codes of La Poste for large
 * recipients and PO boxes, not places: 14,332 of GeoNames' 20,418 French codes.
 */
export function isCedexRow(row: PostalRow): boolean {
  return /\bCEDEX\b/i.test(row.zipCode) || /\bCEDEX\b/i.test(row.place);
}

/**
 * Germany's large-customer codes ("10875 Daimler Insurance Services GmbH") name a company, not a
 * place; GeoNames files them with its own numeric admin1 codes ("02") where the place rows carry
 * the ISO letters ("BY").
 */
export function isLargeCustomerRow(row: PostalRow): boolean {
  return /^\d+$/.test(row.admin1Code);
}

/** Rows that are addresses: France without CEDEX, Germany without large customers, the rest whole. */
export function isAddressRow(country: string, row: PostalRow): boolean {
  if (country === 'FR') return !isCedexRow(row);
  if (country === 'DE') return !isLargeCustomerRow(row);
  return true;
}

export type DistrictLevel = 'place' | 'admin2' | 'admin3';

/**
 * The column that is the municipality an address form asks for after the state: the county,
 * district or municipality (admin2, admin3) where GeoNames' place is a village or post office
 * below it; the place itself elsewhere (DE, FR, US, IT, GB, AT …).
 */
const districtLevels: Readonly<Record<string, DistrictLevel>> = {
  BR: 'admin2',
  ID: 'admin2',
  IN: 'admin2',
  KR: 'admin2',
  PT: 'admin2',
  RU: 'admin2',
  UA: 'admin2',
  ES: 'admin3',
  PE: 'admin3',
  PL: 'admin3',
};

export function districtLevelOf(country: string): DistrictLevel {
  return districtLevels[country] ?? 'place';
}

/** GeoNames' admin2 divisions by country and code (`ID\u00001101`), for the postal files that give admin2 as a bare code. */
export type Admin2Names = ReadonlyMap<string, GeonamesAdmin2>;
export const admin2Key = (country: string, code: string) => `${country}\u0000${code}`;

/**
 * The row's district name at its country's level: for a bare admin2 code (Indonesia's BPS codes)
 * GeoNames' admin2 name; empty where there is none.
 */
export function districtNameOf(country: string, row: PostalRow, admin2Names: Admin2Names = new Map()): string {
  const level = districtLevelOf(country);
  if (level === 'admin2' && row.admin2Name.trim() === '') return admin2Names.get(admin2Key(country, row.admin2Code))?.name.trim() ?? '';
  return (level === 'admin2' ? row.admin2Name : level === 'admin3' ? row.admin3Name : row.place).trim();
}

const isoCode = z.string().regex(/^[A-Z]{2}-[A-Z0-9]{1,3}$/, 'must be an ISO 3166-2 code');
export const admin1TableSchema = z.strictObject({
  note: z.string(),
  methods: z.record(z.string(), z.string()),
  admin2Parents: z.strictObject({
    countries: z.array(z.string().regex(/^[A-Z]{2}$/)),
    why: z.string(),
    exceptions: z.array(z.strictObject({ country: z.string(), code: z.string(), iso3166_2: isoCode, why: z.string(), source: z.url() })),
  }),
  admin2Names: z.strictObject({
    countries: z.array(z.string().regex(/^[A-Z]{2}$/)),
    why: z.string(),
    source: z.url(),
    /** GeoNames' first-level codes of the admin2 list, per country, to ISO codes. */
    provinces: z.record(z.string(), z.record(z.string(), isoCode)),
  }),
  entries: z.array(
    z
      .strictObject({
        country: z.string().regex(/^[A-Z]{2}$/),
        code: z.string(),
        name: z.string(),
        geonamesName: z.string().optional(),
        iso3166_2: isoCode.nullable(),
        method: z.enum(['code+name', 'fips+name', 'name', 'review', 'none']),
        why: z.string().optional(),
        postalRows: z.number().int().nonnegative(),
      })
      .refine((entry) => entry.method !== 'review' || entry.why !== undefined, 'a reviewed pair must say why')
      .refine(
        (entry) => entry.method === 'review' || (entry.method === 'none') === (entry.iso3166_2 === null),
        'null where, and only where, the method is none or a review found none',
      ),
  ),
});
export type Admin1Table = z.infer<typeof admin1TableSchema>;
export const admin1TableFile = 'geonames-admin1-iso.json';

export async function readAdmin1Table(dataDir: string): Promise<Admin1Table> {
  return readCuratedFile(dataDir, admin1TableFile, admin1TableSchema);
}

/** The vendored files collapse runs of white space ("Alagoas " is "Alagoas"); the table keeps GeoNames' text. */
export const pairKey = (country: string, code: string, name: string) => `${country}\u0000${code}\u0000${name.split(/\s+/).filter(Boolean).join(' ')}`;

/** Where a row's district hangs: its ISO 3166-2 code, or why none can be given. */
export type Subdivision = { readonly isoCode: string } | { readonly unmapped: 'admin1 not determinable' | 'admin2 not an ISO subdivision' };

/**
 * The ISO 3166-2 subdivision of a row: the admin1 pair's curated code, or for the admin2-parent
 * countries (FR, IT, ES) the admin2 code as an ISO suffix (or its curated exception). A pair the
 * table does not list stops the import: a re-vendored file with new codes needs a review.
 */
export function subdivisionResolver(
  table: Admin1Table,
  servedIsoCodes: ReadonlySet<string>,
  admin2Names: Admin2Names = new Map(),
): (country: string, row: PostalRow) => Subdivision {
  const byPair = new Map(table.entries.map((entry) => [pairKey(entry.country, entry.code, entry.name), entry.iso3166_2]));
  const admin2Countries = new Set(table.admin2Parents.countries);
  const admin2Exceptions = new Map(table.admin2Parents.exceptions.map((exception) => [`${exception.country}-${exception.code}`, exception.iso3166_2]));
  const namedAdmin2Countries = new Set(table.admin2Names.countries);
  const provinceCodes = Object.values(table.admin2Names.provinces).flatMap((provinces) => Object.values(provinces));
  const unknownCodes = [...byPair.values(), ...admin2Exceptions.values(), ...provinceCodes].filter((code) => code !== null && !servedIsoCodes.has(code));
  if (unknownCodes.length > 0)
    throw new ImportError(unknownCodes.map((code) => `data/curated/${admin1TableFile} names ${code}, which is not a served ISO 3166-2 code`));
  return (country, row) => {
    if (namedAdmin2Countries.has(country)) {
      // The regency's province: its GeoNames first-level code, through the table.
      const admin2 = admin2Names.get(admin2Key(country, row.admin2Code));
      const code = admin2 && table.admin2Names.provinces[country]?.[admin2.admin1Code];
      return code ? { isoCode: code } : { unmapped: 'admin1 not determinable' };
    }
    if (admin2Countries.has(country)) {
      const code = admin2Exceptions.get(`${country}-${row.admin2Code}`) ?? `${country}-${row.admin2Code}`;
      return servedIsoCodes.has(code) ? { isoCode: code } : { unmapped: 'admin2 not an ISO subdivision' };
    }
    const mapped = byPair.get(pairKey(country, row.admin1Code, row.admin1Name));
    if (mapped === undefined) {
      throw new ImportError([`${country} admin1 "${row.admin1Code}" "${row.admin1Name}" is not in data/curated/${admin1TableFile}; review it and add it`]);
    }
    return mapped === null ? { unmapped: 'admin1 not determinable' } : { isoCode: mapped };
  };
}

/**
 * GeoNames' English admin1 names (admin1.json: "Bavaria") to ISO codes, for placing its cities:
 * the pairs whose English name maps to exactly one ISO code.
 */
export function isoCodeByGeonamesName(table: Admin1Table): Map<string, string> {
  const codes = new Map<string, Set<string>>();
  for (const entry of table.entries) {
    if (entry.geonamesName === undefined || entry.iso3166_2 === null) continue;
    const key = `${entry.country}\u0000${entry.geonamesName}`;
    codes.set(key, (codes.get(key) ?? new Set()).add(entry.iso3166_2));
  }
  return new Map([...codes].flatMap(([key, set]) => (set.size === 1 ? [[key, [...set][0] as string]] : [])));
}

/**
 * What the schema and the postal-code key (contract/keys.ts) accept: France's "75303 SP 07" and
 * "78078 CITYSSIMO" (business-mail codes like CEDEX) are longer and are left out.
 */
export function isServablePostalCode(code: string): boolean {
  return postalCodePattern.test(code);
}

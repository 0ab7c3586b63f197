/**
 * Each record type as the generator knows it, in one row: its schema, the fields the API does not
 * show, the fields that refer to other records, the fields its lookups derive from other records,
 * which of its records the OpenAPI document shows as the example, what its names and codes are in
 * words, and what a rebuild must know of how its records reach other types' bodies. The list of types
 * and their labels and licences are the contract's (contract/recordTypes.ts); the routes that serve
 * a type are rows of contract/routes.ts. Every per-type rule of the build reads this table, so a new
 * record type is a row here, a row there, its routes, its importer and its check.
 */
import { exampleIbanOf } from '../../contract/keys.ts';
import type { RecordType } from '../../contract/recordTypes.ts';
import {
  bankSchema,
  callingCodeSchema,
  countryCurrencySchema,
  countryDaySchema,
  countryLanguageSchema,
  countrySchema,
  countrySpecialDaySchema,
  countryTimeZoneSchema,
  countryTopLevelWebDomainSchema,
  currencySchema,
  districtSchema,
  languageSchema,
  neighborhoodSchema,
  regionSchema,
  stateProvinceHolidaySchema,
  stateProvinceSchema,
  stateProvinceSpecialDaySchema,
  timeZoneSchema,
  weekendSchema,
  webDomainSchema,
  type DataRecord,
} from './schemas.ts';
import type { z } from 'zod';

/** A field that refers to another record: `to`'s `toField` (its id unless said otherwise). */
export interface Reference {
  readonly field: string;
  readonly to: RecordType;
  readonly toField?: string;
  /** null means "none" (a country's own weekend has no subdivision). */
  readonly nullable?: true;
}

/** The records of a dataset, as a derived field or an example rule reads them. */
export interface RecordIndex {
  of(type: RecordType): readonly DataRecord[];
  byId(type: RecordType): ReadonlyMap<unknown, DataRecord>;
}

/** A field a lookup needs that the record does not carry itself, worked out from other records. */
export type DerivedField = (record: DataRecord) => unknown;

/** Some fields of a record type. */
export interface TypeFields {
  readonly type: RecordType;
  readonly fields: readonly string[];
}

/** How a derived field is made, and what of other records it reads: a change to those changes it. */
export interface Derivation {
  readonly reads: readonly TypeFields[];
  /** The field's function, made once per dataset. */
  readonly of: (records: RecordIndex) => DerivedField;
}

/** Whether a record is its type's example in the OpenAPI document, given the examples of the types it is found through. */
export type ExampleRule = (record: DataRecord, example: (type: RecordType) => DataRecord | undefined) => boolean;

/** What the OpenAPI document says of a type's names and codes, where its lookups take them. */
export interface RecordWords {
  /** What a name of it is, for the lookups by name. */
  readonly name?: string;
  /** What the searches match what the user has typed against. */
  readonly searched?: string;
  /** What the codes named `code` are. */
  readonly code?: string;
  /** Its other names (its routes' alias fields): in a search, in a lookup by name, and in the ambiguity rule. */
  readonly otherNames?: { readonly searched: string; readonly found: string; readonly rule: string };
}

/**
 * How a type served per country (the addresses) is built: a rebuild plans its routes group by
 * group, and a build serving fewer countries keeps only the records of those.
 */
export interface Partitioned {
  /** The fields that fix a record's country, its id first. */
  readonly by: readonly string[];
  /** What of other records decides which of this type's records a build serving fewer countries keeps. */
  readonly gatedBy: readonly TypeFields[];
}

export interface RecordDefinition {
  readonly schema: z.ZodObject;
  /** Data fields that are not part of the API's record. */
  readonly hidden: readonly string[];
  readonly references: readonly Reference[];
  /** The fields its lookups derive from other records. */
  readonly derived?: Readonly<Record<string, Derivation>>;
  /** Its example record; without one, the first in data order. */
  readonly example?: ExampleRule;
  readonly words?: RecordWords;
  readonly partitioned?: Partitioned;
  /**
   * The importers that write its records, in `npm run data:import`: `base` (the base import of
   * generator/import/main.ts) or a module that exports `importer`, by its path under generator/, in
   * the order they run. An importer writing records of a type whose row does not name it fails the import.
   */
  readonly importedBy: readonly string[];
  /**
   * The data checks that compare its records with an independent source (`npm run data:check`),
   * each a module generator/check/<name>.ts exporting `check`. Empty where no second source is
   * checked yet: `npm run data:check` lists those types.
   */
  readonly checkedBy: readonly string[];
}

const countryRef: Reference = { field: 'countryId', to: 'country' };
const stateProvinceRef: Reference = { field: 'stateProvinceId', to: 'stateProvince' };

const ofExampleCountry: ExampleRule = (record, example) => record.countryId === example('country')?.id;

const countryCodeFields: TypeFields = { type: 'country', fields: ['id', 'alpha2Code'] };
const stateProvinceCountry: TypeFields = { type: 'stateProvince', fields: ['id', 'countryId'] };
const districtStateProvince: TypeFields = { type: 'district', fields: ['id', 'stateProvinceId'] };

const year: Derivation = { reads: [], of: () => (day) => String(day.startDate).slice(0, 4) };
/** Holidays, special days and weekends by country code: they know only their country's id. */
const countryCode: Derivation = {
  reads: [countryCodeFields],
  of: (records) => {
    const countries = records.byId('country');
    return (day) => countries.get(String(day.countryId))?.alpha2Code;
  },
};
/** A district's country: a district knows only its state or province. */
function countryIdOfDistrict(records: RecordIndex): (district: DataRecord | undefined) => unknown {
  const stateProvinces = records.byId('stateProvince');
  return (district) => stateProvinces.get(String(district?.stateProvinceId))?.countryId;
}
/** A subdivision's ISO 3166-2 code: its country's alpha-2 code and its own (DE-BY). */
function stateProvinceCodeOf(records: RecordIndex): (state: DataRecord | undefined) => string | undefined {
  const countries = records.byId('country');
  return (state) => (state === undefined ? undefined : `${countries.get(String(state.countryId))?.alpha2Code}-${String(state.abbreviation)}`);
}
/** A regional day's subdivision code (DE-BY): a day knows only its subdivision's id. */
const regionalCode: Derivation = {
  reads: [countryCodeFields, { type: 'stateProvince', fields: ['id', 'countryId', 'abbreviation'] }],
  of: (records) => {
    const [stateProvinces, codeOf] = [records.byId('stateProvince'), stateProvinceCodeOf(records)];
    return (day) => codeOf(stateProvinces.get(String(day.stateProvinceId)));
  },
};
const holidayHidden = ['language', 'translations', 'observedFor', 'provisional'];

export const recordDefinitions: Readonly<Record<RecordType, RecordDefinition>> = {
  bank: {
    schema: bankSchema,
    hidden: ['countryId'],
    references: [countryRef],
    // A bank's IBAN lookup key comes from an IBAN of it, read as a client's is.
    derived: {
      iban: {
        reads: [countryCodeFields],
        of: (records) => {
          const countries = records.byId('country');
          return (bank) => exampleIbanOf(String(countries.get(String(bank.countryId))?.alpha2Code), String(bank.code));
        },
      },
    },
    example: ofExampleCountry,
    words: { code: "A bank's EFT code in Türkiye's payment systems (the Central Bank's list of participants): three digits, such as 010 for Ziraat." },
    importedBy: ['import/finance/banks.ts'],
    checkedBy: ['banks'],
  },
  currency: {
    schema: currencySchema,
    hidden: [],
    references: [],
    example: (currency) => currency.code === 'TRY',
    words: { code: "A currency's ISO 4217 alphabetic code: three letters, such as TRY or EUR." },
    importedBy: ['base'],
    checkedBy: [],
  },
  country: {
    schema: countrySchema,
    hidden: ['altNames', 'localizedNames'],
    references: [
      { field: 'callingCodeId', to: 'callingCode' },
      { field: 'regionId', to: 'region' },
    ],
    example: (country) => country.alpha2Code === 'TR',
    words: {
      name: "A country's name: its common English name (Türkiye), an official or alternative name (Republic of Türkiye, Turkey), or its name in any language Unicode CLDR names every country in (Almanya, Allemagne, ドイツ).",
      searched:
        "a country's names: its common English, native, official and alternative names, and its names in every language Unicode CLDR names countries in (alma, deu and ドイ find Germany)",
      otherNames: {
        searched: 'its own, native and alternative names, and its names in every language Unicode CLDR names countries in',
        found:
          '**Extension**: the name may also be an alternative name (Turkey, Czech Republic) or the name in any language Unicode CLDR names every country in (Almanya, Allemagne, Deutschland, ドイツ, Германия); the answer is the same record.',
        rule: "a record's own name wins over another's alternative name, which wins over another's name in another language; then the first in data order",
      },
    },
    importedBy: ['base'],
    checkedBy: ['population', 'countryNames'],
  },
  region: {
    schema: regionSchema,
    hidden: [],
    references: [],
    example: (region, example) => region.id === example('country')?.regionId,
    importedBy: ['base'],
    checkedBy: [],
  },
  stateProvince: {
    schema: stateProvinceSchema,
    hidden: [],
    references: [countryRef],
    derived: {
      code: { reads: [countryCodeFields], of: stateProvinceCodeOf },
      // The subdivisions a source gives days of their own: only they answer regional lookups.
      regionalHolidays: {
        reads: [
          { type: 'stateProvinceHoliday', fields: ['stateProvinceId'] },
          { type: 'stateProvinceSpecialDay', fields: ['stateProvinceId'] },
        ],
        of: (records) => {
          const withDays = new Set(
            (['stateProvinceHoliday', 'stateProvinceSpecialDay'] as const).flatMap((type) => records.of(type).map((day) => day.stateProvinceId)),
          );
          return (state) => withDays.has(state.id);
        },
      },
    },
    // İstanbul: its plate code, also its ISO 3166-2 code (TR-34). Other countries have a `34` too.
    example: (state, example) => ofExampleCountry(state, example) && state.abbreviation === '34',
    words: {
      name: "A state or province's name as ISO 3166-2 gives it (Bayern, Hérault); Türkiye's provinces as PTT writes them (İstanbul).",
      searched: "a state or province's name as ISO 3166-2 gives it (bay finds Bayern); Türkiye's provinces as PTT writes them (ist finds İstanbul)",
    },
    importedBy: ['import/addresses/addresses.ts'],
    checkedBy: ['subdivisions'],
  },
  district: {
    schema: districtSchema,
    hidden: ['aliases'],
    references: [stateProvinceRef],
    // District getbyname is scoped by country.
    derived: { countryId: { reads: [stateProvinceCountry], of: countryIdOfDistrict } },
    example: (district, example) => district.stateProvinceId === example('stateProvince')?.id,
    words: {
      name: "A district's name as its country writes it: Türkiye's districts (ilçe) as PTT writes them (Kadıköy), elsewhere the postal place's (München); or another common name of it, such as its English name (Munich).",
      searched: "a district's name as its country writes it (kadı finds Kadıköy) or another common name of it (muni finds München by Munich)",
      otherNames: {
        searched: 'its own, or another common name of it such as its English name: muni finds München by Munich',
        found:
          '**Extension**: the name may also be another common name of the district, such as its English name (Munich finds München); the answer is the same record, which does not list those names.',
        rule: "a district's own name wins over another's other common name; then the first in data order",
      },
    },
    partitioned: { by: ['id', 'stateProvinceId', 'countryId'], gatedBy: [countryCodeFields, stateProvinceCountry] },
    importedBy: ['import/addresses/addresses.ts', 'import/addresses/worldAddresses.ts'],
    checkedBy: ['postalCodes', 'germanPostalCodes', 'frenchPostalCodes', 'indianPostalCodes'],
  },
  neighborhood: {
    schema: neighborhoodSchema,
    hidden: ['pttName', 'placeType', 'parentPlace'],
    references: [{ field: 'districtId', to: 'district' }],
    // Postal codes by country: a neighbourhood knows only its district.
    derived: {
      countryId: {
        reads: [districtStateProvince, stateProvinceCountry],
        of: (records) => {
          const [districts, countryIdOf] = [records.byId('district'), countryIdOfDistrict(records)];
          return (neighborhood) => countryIdOf(districts.get(String(neighborhood.districtId)));
        },
      },
    },
    example: (neighborhood, example) => neighborhood.districtId === example('district')?.id,
    words: {
      searched: "a neighbourhood's name as an address form shows it (Caferağa Mahallesi) or as PTT writes it (Caferağa Mah)",
      otherNames: {
        searched: 'as an address form shows it, or as PTT writes it',
        found: 'The name may also be as PTT writes it; the answer is the same record.',
        rule: "a record's own name wins over another's PTT spelling; then the first in data order",
      },
    },
    partitioned: { by: ['id', 'districtId', 'countryId'], gatedBy: [countryCodeFields, stateProvinceCountry, districtStateProvince] },
    importedBy: ['import/addresses/addresses.ts', 'import/addresses/worldAddresses.ts'],
    checkedBy: ['postalCodes', 'neighbourhoodNames', 'germanPostalCodes', 'frenchPostalCodes', 'usPostalCodes', 'indianPostalCodes'],
  },
  callingCode: {
    schema: callingCodeSchema,
    hidden: [],
    references: [],
    example: (callingCode, example) => callingCode.id === example('country')?.callingCodeId,
    words: { code: 'An international calling code (the ITU-T E.164 country code dialled after + or 00): 90 for Türkiye, 1 for the NANP countries.' },
    importedBy: ['base'],
    checkedBy: [],
  },
  language: {
    schema: languageSchema,
    hidden: [],
    references: [],
    example: (language, example) => language.id === example('countryLanguage')?.languageId,
    importedBy: ['import/countries/languages.ts'],
    checkedBy: [],
  },
  timeZone: {
    schema: timeZoneSchema,
    hidden: [],
    references: [],
    example: (zone, example) => zone.id === example('countryTimeZone')?.timeZoneId,
    importedBy: ['import/countries/timeZones.ts'],
    checkedBy: ['timeZones'],
  },
  webDomain: {
    schema: webDomainSchema,
    hidden: [],
    references: [],
    example: (domain, example) => domain.id === example('countryTopLevelWebDomain')?.webDomainId,
    words: { name: 'A domain without the leading dot: a top-level domain (tr, com) or a second-level public suffix (com.tr, co.uk).' },
    importedBy: ['import/countries/webDomains.ts'],
    checkedBy: [],
  },
  countryCurrency: {
    schema: countryCurrencySchema,
    hidden: [],
    references: [countryRef, { field: 'currencyCode', to: 'currency', toField: 'code' }],
    example: (link, example) => ofExampleCountry(link, example) && link.currencyCode === example('currency')?.code,
    importedBy: ['import/finance/currencyLinks.ts'],
    checkedBy: [],
  },
  countryLanguage: {
    schema: countryLanguageSchema,
    hidden: [],
    references: [countryRef, { field: 'languageId', to: 'language' }],
    example: ofExampleCountry,
    importedBy: ['import/countries/languages.ts'],
    checkedBy: [],
  },
  countryTimeZone: {
    schema: countryTimeZoneSchema,
    hidden: [],
    references: [countryRef, { field: 'timeZoneId', to: 'timeZone' }],
    example: ofExampleCountry,
    importedBy: ['import/countries/timeZones.ts'],
    checkedBy: [],
  },
  countryTopLevelWebDomain: {
    schema: countryTopLevelWebDomainSchema,
    hidden: [],
    references: [countryRef, { field: 'webDomainId', to: 'webDomain' }],
    example: ofExampleCountry,
    importedBy: ['import/countries/webDomains.ts'],
    checkedBy: [],
  },
  countryHoliday: {
    schema: countryDaySchema,
    hidden: holidayHidden,
    references: [countryRef],
    derived: { year, countryCode },
    importedBy: ['import/holidays/holidays.ts'],
    checkedBy: ['holidays', 'openHolidays'],
  },
  countrySpecialDay: {
    schema: countrySpecialDaySchema,
    hidden: [...holidayHidden, 'dayType'],
    references: [countryRef],
    derived: { year, countryCode },
    importedBy: ['import/holidays/holidays.ts'],
    checkedBy: [],
  },
  stateProvinceHoliday: {
    schema: stateProvinceHolidaySchema,
    hidden: holidayHidden,
    references: [stateProvinceRef],
    derived: { year, stateProvinceCode: regionalCode },
    importedBy: ['import/holidays/holidays.ts'],
    checkedBy: ['regionalHolidays'],
  },
  stateProvinceSpecialDay: {
    schema: stateProvinceSpecialDaySchema,
    hidden: [...holidayHidden, 'dayType'],
    references: [stateProvinceRef],
    derived: { year, stateProvinceCode: regionalCode },
    importedBy: ['import/holidays/holidays.ts'],
    checkedBy: ['regionalHolidays'],
  },
  weekend: {
    schema: weekendSchema,
    hidden: [],
    references: [countryRef, { ...stateProvinceRef, nullable: true }],
    derived: { countryCode },
    importedBy: ['import/holidays/holidays.ts'],
    checkedBy: ['weekends'],
  },
};

/**
 * The fields of a record as the API shows them, in schema order: its type's hidden fields and the
 * route's omitted ones left out. Bodies (generator/bodies.ts) and their OpenAPI schemas
 * (generator/openapi/components.ts) both use it, so the two cannot disagree.
 */
export function shownFields(type: RecordType, omit: readonly string[] = [], reveal: readonly string[] = []): string[] {
  const { schema, hidden } = recordDefinitions[type];
  return Object.keys(schema.shape).filter((field) => (!hidden.includes(field) || reveal.includes(field)) && !omit.includes(field));
}

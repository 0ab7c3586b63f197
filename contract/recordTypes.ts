/**
 * Every record type of the service, with the facts of it both sides state: the words for it in
 * messages ("No state or province has id …"), and, where its sources ask for attribution or
 * share-alike, the licence its data comes with. The list of record types is this table's keys, in
 * its order: a new record type starts with its row here (its routes are rows of routes.ts; the
 * generator's facts of it, its schema and how it is built, are its row of
 * generator/records/schemas.ts). Nothing here imports anything.
 */

/**
 * The terms a record type's data comes with where its sources ask for attribution or share-alike
 * (docs/data.md, "Licences"; data/SOURCES.md): each export's index entry states them, and the docs
 * page and the OpenAPI document say the same. Types not listed come under the general statement of
 * those two (their sources' licences ask no notice with the data).
 */
export interface DataLicence {
  /** An SPDX expression of the licences the type's data is offered under. */
  readonly spdx: string;
  /** The notices to show with the data, each as its source words it. */
  readonly attribution: readonly string[];
  /** What the terms mean for this type's export, in a sentence or two. */
  readonly terms: string;
}

export const geonamesAttribution = 'GeoNames, geonames.org, CC BY 4.0';
export const countriesStatesCitiesAttribution =
  'Data by Countries States Cities Database, https://github.com/dr5hn/countries-states-cities-database | ODbL v1.0';
export const worldCountriesAttribution =
  'Contains information from world-countries (https://github.com/mledoze/countries), which is made available here under the Open Database License (ODbL) 1.0';

/** What both sides know of a record type. */
export interface RecordTypeFacts {
  /** Words for messages and documents: "state or province". */
  readonly label: string;
  /** The terms its export states; absent: the general statement of docs/data.md covers it. */
  readonly licence?: DataLicence;
}

const facts = {
  bank: { label: 'bank' },
  currency: { label: 'currency' },
  country: {
    label: 'country',
    licence: {
      spdx: 'ODbL-1.0 AND CC-BY-4.0 AND CC-BY-3.0-IGO',
      attribution: [
        worldCountriesAttribution,
        'World Bank, World Development Indicators, total population (SP.POP.TOTL), CC BY 4.0',
        'United Nations, DESA, Population Division, World Population Prospects 2024, CC BY 3.0 IGO',
      ],
      terms: 'A derivative database of world-countries, offered under the ODbL 1.0 (share-alike); the populations keep their CC BY terms.',
    },
  },
  region: {
    label: 'region',
    licence: {
      spdx: 'ODbL-1.0',
      attribution: [worldCountriesAttribution],
      terms: 'A derivative database of world-countries, offered under the ODbL 1.0 (share-alike).',
    },
  },
  stateProvince: { label: 'state or province' },
  district: {
    label: 'district',
    licence: {
      spdx: 'ODbL-1.0',
      attribution: [countriesStatesCitiesAttribution, geonamesAttribution],
      terms:
        "Outside Türkiye, districts come from GeoNames' postal codes (CC BY 4.0) and, for the countries GeoNames has no postal codes for, from the Countries States Cities Database (ODbL 1.0); the export as a whole is a derivative database of the latter and is offered under the ODbL 1.0 (share-alike). Türkiye's come from PTT's postal-code list.",
    },
  },
  neighborhood: {
    label: 'neighborhood',
    licence: {
      spdx: 'CC-BY-4.0',
      attribution: [geonamesAttribution],
      terms:
        "Outside Türkiye, neighbourhoods and their postal codes are GeoNames' postal codes, under CC BY 4.0: credit GeoNames when you share them. Türkiye's come from PTT's postal-code list.",
    },
  },
  callingCode: { label: 'calling code' },
  language: { label: 'language' },
  timeZone: { label: 'time zone' },
  webDomain: { label: 'web domain' },
  countryCurrency: { label: 'country currency' },
  countryLanguage: { label: 'country language' },
  countryTimeZone: { label: 'country time zone' },
  countryTopLevelWebDomain: { label: 'country top-level web domain' },
  countryHoliday: { label: 'country holiday' },
  countrySpecialDay: { label: 'country special day' },
  stateProvinceHoliday: { label: 'state or province holiday' },
  stateProvinceSpecialDay: { label: 'state or province special day' },
  weekend: { label: 'weekend' },
} as const satisfies Readonly<Record<string, RecordTypeFacts>>;

export type RecordType = keyof typeof facts;
export const recordTypes = Object.keys(facts) as readonly RecordType[];
export const recordTypeFacts: Readonly<Record<RecordType, RecordTypeFacts>> = facts;

/** A record type's words for messages: `labelOf('stateProvince')` is "state or province". */
export const labelOf = (type: RecordType): string => facts[type].label;

/** Whether a name (a record file's, a request's) is a record type's. */
export const isRecordType = (name: string): name is RecordType => Object.hasOwn(facts, name);

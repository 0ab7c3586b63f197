/**
 * The records: their zod schemas, the types inferred from them, and how each type is shown and linked.
 *
 * Each record type has a data schema (what a record in data/ holds, validated at build) and an
 * output schema (what a response body carries, the spec's part 2.2). Data records may hold a few
 * fields the API does not show, such as a bank's country or a country's alternative names; they
 * index lookups and are stripped from bodies.
 */
import { z } from 'zod';
import { normaliseKey, type KeyResult } from '../../contract/keys.ts';
import type { ParamKind } from '../../contract/routes.ts';
import { workDayTypes } from '../../contract/workCalendar.ts';

/**
 * Lower case in data, so that references compare exactly and keys need no second folding: RFC 9562's
 * form as z.uuid() checks it, in lower case only, one pattern for the millions of ids of the world's addresses.
 */
const id = z.stringFormat(
  'uuid',
  /^([0-9a-f]{8}-[0-9a-f]{4}-[1-8][0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}|00000000-0000-0000-0000-000000000000|ffffffff-ffff-ffff-ffff-ffffffffffff)$/,
  { message: 'must be a lower-case UUID' },
);
/**
 * A valid record's value as a lookup's key (normaliseKey): its ids and references are canonical
 * (`id` above), which normaliseKey keeps as they are, so they are taken without it, for the
 * millions of ids of the world's addresses.
 */
export function keyOfValid(kind: ParamKind, value: unknown): KeyResult {
  return kind === 'uuid' && typeof value === 'string' && value.length === 36 ? { ok: true, key: value } : normaliseKey(kind, String(value));
}

/** Checked, not trimmed: a valid record parses to itself, which lets a rebuild take an unchanged file's records as read (validate.ts). */
const text = z
  .string()
  .min(1, 'must not be empty')
  .refine((value) => value.trim() === value, 'must not start or end with white space');
/** `2024-04-10 00:00:00 GMT+03:00`: local midnight with the UTC offset in force that day. */
const localDateTime = z.string().regex(/^\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2} GMT[+-]\d{2}:\d{2}$/, 'must look like 2024-04-10 00:00:00 GMT+03:00');

/*
 * The descriptions below (`.describe`) say what each field holds, by meaning and with its source;
 * the OpenAPI document shows them (generator/openapi/components.ts) and describes the query
 * parameters compared with them. They change no validation.
 */
/** A record's own id, described for its type ("the bank's id"). */
const idOf = (owner: string) =>
  id.describe(`The ${owner}'s id: a UUID this service gives the record (lower case), kept across data imports; the lookups by id take it.`);

export const bankSchema = z.strictObject({
  id: idOf('bank'),
  name: text.describe('The bank\'s trade name, as Türkiye\'s public disclosure platform (KAP) lists it: "Türkiye Cumhuriyeti Ziraat Bankası A.Ş.".'),
  code: z
    .string()
    .regex(/^\d{3}$/, 'must be three digits, zero-padded (e.g. 010)')
    .describe(
      "The bank's EFT code in TCMB's payment systems, three digits with leading zeros: 010 is Ziraat. A Turkish IBAN carries it as five digits (00010) right after its check digits.",
    ),
  countryId: id.describe('The country whose banks these are (Türkiye); not in responses.'),
});
export const currencySchema = z.strictObject({
  id: idOf('currency'),
  name: text.describe('The English name ISO 4217 gives the currency: "Turkish Lira", "Euro", "Yen", "Pound Sterling".'),
  code: z
    .string()
    .regex(/^[A-Z]{3}$/, 'must be three upper-case letters (ISO 4217)')
    .describe(
      "The currency's ISO 4217 alphabetic code, three upper-case letters: TRY, EUR. The list is ISO 4217's current one, funds (CLF), precious metals (XAU) and units of account (XDR) included.",
    ),
});
export const countrySchema = z.strictObject({
  id: idOf('country'),
  name: text.describe(
    'The common English short name (world-countries\' `name.common`): "Türkiye", "Czechia", "United States", "South Korea". Official and other names find the country too (country/getbyname).',
  ),
  nativeName: text.describe(
    'The country\'s name in its own official languages, several joined with ", " ("Suisse, Schweiz, Svizzera, Svizra"); "-" where there is none (Antarctica).',
  ),
  alpha2Code: z
    .string()
    .regex(/^[A-Z]{2}$/, 'must be two upper-case letters')
    .describe('The ISO 3166-1 alpha-2 code, two upper-case letters: TR, DE. Holiday, weekend and work-calendar lookups take it as CountryCode.'),
  alpha3Code: z
    .string()
    .regex(/^[A-Z]{3}$/, 'must be three upper-case letters')
    .describe('The ISO 3166-1 alpha-3 code, three upper-case letters: TUR, DEU.'),
  countryPopulation: z
    .number()
    .int()
    .nonnegative()
    .describe(
      "The number of inhabitants: the World Bank's mid-2024 estimate (SP.POP.TOTL) where it publishes the country; else UN World Population Prospects 2024 for 1 January 2025 (20 territories); else Unicode CLDR's estimate (14 uninhabited or tiny places).",
    ),
  flag: z
    .base64({ message: 'must be base64 text' })
    .min(1)
    .describe(
      "The country's flag as an SVG image in a 4:3 box (flag-icons), base64-encoded: decode it and use it as `image/svg+xml` (a data URL: `data:image/svg+xml;base64,` and this). country/getall and country/searchbyname leave it out.",
    ),
  /** km² with at most two decimals (checked on the hundredths, as multipleOf(0.01) fails binary floats). */
  area: z
    .number()
    .nonnegative()
    .refine((area) => Math.abs(area * 100 - Math.round(area * 100)) < 1e-6, 'must have at most two decimals')
    .describe('The area in square kilometres, to two decimals at most (world-countries).'),
  capitalCity: text.describe(
    'The capital\'s English name: "Ankara". The first where a country has several (Pretoria for South Africa); "-" where there is none (Antarctica, Macau, Bouvet Island …).',
  ),
  callingCodeId: id.describe(
    "The id of the country's international calling code (a calling code record: 90 for Türkiye). Countries that share a code share the record: +1 is the United States', Canada's and the other NANP members'.",
  ),
  numericIsoCode: z
    .number()
    .int()
    .min(1)
    .max(999)
    .describe("The ISO 3166-1 numeric code (the UN M49 area code) as a number: 792 for Türkiye; 4 is Afghanistan's 004, written without its leading zeros."),
  regionId: id.describe(
    "The id of the country's region: its continent as world-countries groups countries (Africa, Americas, Antarctic, Asia, Europe, Oceania).",
  ),
  displayOrder: z
    .number()
    .int()
    .min(0)
    .describe(
      "Where a country picker puts the country: 1 for the countries to show first, above the others (this service's featured countries: Türkiye), 0 for every other. Sort by displayOrder, larger first, then by name; answers keep data order, by English name. A product choice of this service, not a sourced fact.",
    ),
  /** Other names that find the country by name (Turkey for Türkiye); not in responses. */
  altNames: z.array(text).optional(),
  /**
   * The country's names in other languages (Unicode CLDR) with the locales that use each; they also
   * find it by name, and where two countries share one the country more locales call so wins. Not in
   * responses.
   */
  localizedNames: z
    .array(z.strictObject({ name: text, locales: z.array(z.string().regex(/^[a-z]{2,3}(-[A-Za-z0-9]+)*$/, 'must be a CLDR locale')).min(1) }))
    .optional(),
});
export const regionSchema = z.strictObject({
  id: idOf('region'),
  name: text.describe('The English name of the region, a continent as world-countries groups countries: Africa, Americas, Antarctic, Asia, Europe or Oceania.'),
});
export const stateProvinceSchema = z.strictObject({
  id: idOf('state or province'),
  countryId: id.describe('The id of the country the subdivision belongs to.'),
  name: text.describe(
    'The subdivision\'s name as ISO 3166-2 gives it, in English or romanised ("Bayern", "Hérault", "‘Ajmān"; Debian iso-codes, with ISO\'s bracketed notes removed); Türkiye\'s provinces as PTT writes them ("İstanbul").',
  ),
  abbreviation: text.describe(
    "The subdivision's ISO 3166-2 code without its country prefix: 34 of TR-34 (Türkiye's provinces: their licence-plate number), BY of DE-BY, CA of US-CA. Unique only within a country (FR-34 is Hérault): the full code is the country's alpha2Code, a hyphen and this.",
  ),
});
export const districtSchema = z.strictObject({
  id: idOf('district'),
  stateProvinceId: id.describe(
    "The id of the subdivision (state or province record) the district belongs to: Türkiye's province (il); elsewhere the ISO 3166-2 subdivision its postal place lies in (Bayern for München, Rhône for Lyon).",
  ),
  name: text.describe(
    'The district\'s name as the country writes it: Türkiye\'s districts (ilçe) as PTT\'s postal-code list writes them ("Kadıköy"; a province\'s central district is "Merkez", so the name repeats across provinces); elsewhere the postal place or the county, municipality or district a country\'s postal codes are listed under (GeoNames; the Countries States Cities Database where GeoNames has no postal codes): "München", "Lyon", "Mumbai".',
  ),
  /**
   * Other common names of the district that differ from `name`, such as its English name ("Munich"
   * for München, "Rome" for Roma): GeoNames' city at the postal place (import/addresses/exonyms.ts). They
   * find the district by name too; not in responses. Absent where there is none.
   */
  aliases: z.array(text).optional(),
});
/** A postal code as written: 3 to 10 capitals, digits, spaces and hyphens, or a UK outward code of two (W1), as contract/keys.ts reads them. */
export const postalCodePattern = /^(?:[0-9A-Z -]{3,10}|[A-Z][0-9])$/;
/** What kind of place a Turkish neighbourhood record is (generator/import/addresses/neighbourhoodNames.ts). */
export const placeTypes = ['mahalle', 'köy', 'köy_mahallesi', 'osb', 'sb', 'yayla', 'mezra', 'mevkii', 'site', 'other'] as const;
export const neighborhoodSchema = z.strictObject({
  id: idOf('neighbourhood'),
  districtId: id.describe("The id of the district the neighbourhood, village or postal place is in (Türkiye's ilçe)."),
  /** The name as an address form shows it ("Caferağa Mahallesi", "Schwabing-West"). */
  name: text.describe(
    'The name as an address form shows it. Türkiye: PTT\'s name with its type word written out and the village or belde it belongs to in brackets ("Caferağa Mahallesi", "Akpınar Köyü", "Akdere Mahallesi (Başlı Köyü)"). Elsewhere the place name GeoNames lists with the postal code ("München", "Lyon 01").',
  ),
  zipCode: z
    .string()
    .regex(postalCodePattern, 'must be a postal code such as 34710')
    .describe(
      "The postal code as the country writes it: Türkiye's posta kodu from PTT, five digits, the first two the province's plate number (34710); elsewhere GeoNames' code (80331, 69001, SW1A, 110001). One code may cover several places.",
    ),
  /** The name as PTT's list writes it ("Caferağa Mah"), which finds the record too; Türkiye's only. */
  pttName: text
    .optional()
    .describe('Türkiye\'s places only: the name as PTT\'s postal-code list writes it, abbreviated ("Caferağa Mah"); neighborhood/searchbyname finds it too.'),
  placeType: z
    .enum(placeTypes)
    .optional()
    .describe(
      "Türkiye's places only: what kind of place it is: mahalle (an urban quarter), köy (a village), köy_mahallesi (a quarter of a village), osb (an organised industrial zone), sb (a free zone), yayla (a highland summer settlement), mezra (a hamlet), mevkii (a locality), site (a housing estate) or other.",
    ),
  /** The village or belde the place belongs to ("Başlı Köyü"), or null; absent outside Türkiye. */
  parentPlace: text
    .nullable()
    .optional()
    .describe(
      'Türkiye\'s places only: the village (köy) or small town (belde) the place is part of, as its name shows it ("Başlı Köyü", "Deliilyas Beldesi"); null for a place that is part of none.',
    ),
});
export const callingCodeSchema = z.strictObject({
  id: idOf('calling code'),
  code: z
    .number()
    .int()
    .min(1)
    .max(999)
    .describe(
      'The international calling code (ITU-T E.164 country code) dialled after + or 00, as a number: 90 for Türkiye, 1 for the NANP countries; also the non-geographic codes (800, 870, 979 …). From libphonenumber-js.',
    ),
});
export const languageSchema = z.strictObject({
  id: idOf('language'),
  name: text.describe('The language\'s English name in Unicode CLDR: "Turkish"; a script variant with its script: "Serbian (Latin)", "Traditional Chinese".'),
  languageCulture: text.describe(
    "The culture tag (BCP 47): the language with the region Unicode CLDR's likely subtags give it, tr-TR, en-US, ar-EG, pt-BR; a script variant keeps its script, zh-Hant-TW, sr-Latn-RS.",
  ),
  uniqueSeoCode: text
    .nullable()
    .describe(
      'The language code in BCP 47 spelling, unique to the record: the ISO 639 code ("tr", "en"), with the script for a script variant ("zh-Hant", "sr-Latn"). Every language of this data has one.',
    ),
  rtl: z
    .boolean()
    .describe(
      'true when the language is written right to left, by its script (Unicode CLDR): Arabic, Hebrew, Persian, Urdu, Pashto, Divehi, Jawi Malay; false otherwise.',
    ),
});
export const timeZoneSchema = z.strictObject({
  id: idOf('time zone'),
  name: z
    .string()
    .regex(/^[A-Za-z0-9_+-]+(\/[A-Za-z0-9_+-]+)*$/, 'must be an IANA zone name such as Europe/Istanbul')
    .describe("The zone's name in the IANA tz database, canonical (not a deprecated link): Europe/Istanbul, America/New_York."),
  utcOffset: z
    .string()
    .regex(/^[+-]\d{2}:\d{2}$/, 'must look like +03:00')
    .describe(
      "The zone's standard offset from UTC, ±HH:MM: the smallest offset in force during 2027 under tzdata 2026f, so summer time is not included (America/New_York -05:00, Europe/Istanbul +03:00, Europe/Dublin +00:00).",
    ),
});
export const webDomainSchema = z.strictObject({
  id: idOf('web domain'),
  name: z
    .string()
    .regex(/^[a-z0-9-]+(\.[a-z0-9-]+)*$/, 'must be a lower-case ASCII domain without the leading dot')
    .describe(
      "The domain, lower-case ASCII without the leading dot, international ones in punycode (xn--p1ai is рф): a top-level domain of IANA's list (tr, com) or a two-label public suffix of the Public Suffix List's ICANN section (com.tr, co.uk).",
    ),
  isTopLevel: z.boolean().describe('true for a top-level domain (tr, com); false for a second-level public suffix (com.tr, co.uk).'),
});
export const countryCurrencySchema = z.strictObject({
  id: idOf('country currency link'),
  countryId: id.describe('The id of the country that uses the currency.'),
  currencyCode: currencySchema.shape.code.describe(
    "The ISO 4217 code of a currency that is legal tender in the country today (Unicode CLDR), a currency record's code: TRY. A country may have two (Panama: PAB and USD).",
  ),
});
export const countryLanguageSchema = z.strictObject({
  id: idOf('country language link'),
  countryId: id.describe('The id of the country.'),
  languageId: id.describe(
    'The id of a language official, or official in practice, in the whole country (Unicode CLDR); a language official in a region only is not linked.',
  ),
});
export const countryTimeZoneSchema = z.strictObject({
  id: idOf('country time zone link'),
  countryId: id.describe('The id of the country.'),
  timeZoneId: id.describe('The id of a time zone (IANA) used in the country; the timezone lookups give its name and offset.'),
});
export const countryTopLevelWebDomainSchema = z.strictObject({
  id: idOf('country top-level web domain link'),
  countryId: id.describe('The id of the country.'),
  webDomainId: id.describe("The id of one of the country's top-level domains (web domain records): tr for Türkiye; Russia has ru, su and рф."),
});
/** A BCP 47 language tag as python-holidays' codes become one: `tr`, `zh-CN`, `en-US`, `pap-CW`. */
const languageTag = z.string().regex(/^[a-z]{2,3}(-[A-Za-z0-9]{2,8})*$/, 'must be a language tag such as tr, zh-CN or en-US');

const civilDay = z.string().regex(/^\d{4}-\d{2}-\d{2}$/, 'must be a day, YYYY-MM-DD');

/** What the work calendar (generator/bodies/calendars.ts) needs of a day; none of it is in responses. */
const workCalendarFields = {
  /** The day this one stands in for, where it is an observed or substitute day. */
  observedFor: civilDay.optional(),
  /** Present where the date is worked out by rule ahead of its announcement. */
  provisional: z.literal(true).optional(),
};

/** A day's fields after its owner's id, holidays' and special days' alike. */
const dayFields = {
  summary: text.describe(
    'The name of the day, in the country\'s own language unless the lookup\'s `language` or Accept-Language chose English: "Cumhuriyet Bayramı", or "Republic Day". From python-holidays; Türkiye\'s are curated.',
  ),
  startDate: localDateTime.describe(
    "When the day begins, `YYYY-MM-DD HH:MM:SS GMT±HH:MM`: local midnight in the country's time zone (its capital's where it has several), with the UTC offset in force that day. Türkiye's eves, half days, begin at 13:00. Read the date part for the day.",
  ),
  endDate: localDateTime.describe(
    'When the day ends, in the same form: the next local midnight, so one record is one day. A holiday of several days is one record per day.',
  ),
  /** The language of `summary` (`en` where the source names the country's days in English); not in responses. */
  language: languageTag,
  /** `summary` in other languages, by tag: its English name (`en-US`, `en-HK` …) where the source has one; not in responses. */
  translations: z.record(languageTag, text).optional(),
  ...workCalendarFields,
};

export const countryDaySchema = z.strictObject({
  id: idOf('day'),
  countryId: id.describe('The id of the country whose day this is.'),
  ...dayFields,
});

/** A special day: a holiday's fields, and what it is in a work calendar (none for an observance); not in responses. */
export const countrySpecialDaySchema = countryDaySchema.extend({
  dayType: z.enum(workDayTypes.filter((type) => type !== 'public')).optional(),
});

/** A public holiday of one subdivision, in addition to its country's: a holiday record with the subdivision in place of the country. */
export const stateProvinceHolidaySchema = z.strictObject({
  id: idOf('day'),
  stateProvinceId: id.describe("The id of the state or province whose own day this is, beside its country's days."),
  ...dayFields,
});

/** A subdivision's other days beyond its country's (a canton's Easter Monday, a state's bank holiday): a special-day record with the subdivision in place of the country. */
export const stateProvinceSpecialDaySchema = stateProvinceHolidaySchema.extend({
  dayType: countrySpecialDaySchema.shape.dayType,
});

/**
 * The weekend of a country, or of one subdivision where it differs from the country's, over a
 * period: ISO weekdays (1 = Monday … 7 = Sunday) from `from` to `until`, both included; null
 * `from` is as far back as the data goes, null `until` is still in force.
 */
export const weekendSchema = z.strictObject({
  id: idOf('weekend period'),
  countryId: id.describe('The id of the country whose weekend this is.'),
  stateProvinceId: id.nullable().describe("The subdivision whose weekend differs from its country's (Malaysia's Kelantan); null for the country's."),
  from: civilDay.nullable().describe('The first day of the period; null: as far back as the data goes.'),
  until: civilDay.nullable().describe('The last day of the period; null: still in force.'),
  weekendDays: z
    .array(z.number().int().min(1).max(7))
    .max(7)
    .refine((days) => days.every((day, index) => index === 0 || (days[index - 1] ?? 0) < day), 'must be ascending and distinct')
    .describe('The weekend as ISO 8601 weekday numbers: 1 = Monday … 7 = Sunday.'),
});

const isoWeekdays = z.array(z.number().int().min(1).max(7)).max(7).describe('ISO 8601 weekday numbers: 1 = Monday … 7 = Sunday.');

/** The work calendar document (contract/workCalendar.ts, where each field is explained), for the OpenAPI document and the tests. */
export const workCalendarSchema = z.strictObject({
  countryCode: z
    .string()
    .regex(/^[A-Z]{2}$/)
    .describe("The country's ISO 3166-1 alpha-2 code: TR."),
  stateProvinceCode: z
    .string()
    .regex(/^[A-Z]{2}-[A-Z0-9]{1,3}$/)
    .nullable()
    .describe("ISO 3166-2 code of the subdivision whose calendar this is; null for the country's."),
  year: z.number().int().describe('The calendar year the days are of (Gregorian).'),
  weekendDays: isoWeekdays.describe("The weekend on the year's first day, as ISO weekdays (1 = Monday … 7 = Sunday)."),
  weekendChanges: z
    .array(z.strictObject({ from: civilDay.describe('The first day of the new weekend.'), weekendDays: isoWeekdays }))
    .describe('Changes of the weekend within the year (Saudi Arabia on 2013-06-28): from `from` on, `weekendDays`. Empty in nearly every year.'),
  days: z
    .array(
      z.strictObject({
        date: civilDay.describe('The local civil day.'),
        type: z
          .enum(workDayTypes)
          .describe(
            '`public`: a day off for everyone; `bank`: banks and payment systems close; `halfDay`: work stops at `startTime` (or for half the day); `optional`: a day off for some workers only (government staff, one religious group, schools); `workday`: a weekend day worked to pay for a day off.',
          ),
        name: z.string().min(1).describe('In the language of the answer (Content-Language).'),
        startTime: z
          .string()
          .regex(/^\d{2}:\d{2}$/)
          .optional()
          .describe("A half day's local start of the time off (Türkiye's eves: 13:00), where the source gives one."),
        observedFor: civilDay.optional().describe('An observed or substitute day: the date of the holiday it stands in for.'),
        scope: z.enum(['national', 'regional']).describe('`regional`: a day of the subdivision only, beside the national ones.'),
        provisional: z.literal(true).optional().describe('Present where the date is worked out by rule ahead of its announcement (a lunar date).'),
      }),
    )
    .describe(
      'Every day that is not an ordinary working or weekend day, by date; a date may have several. Observances that change no working day are left out.',
    ),
});

export type Bank = z.infer<typeof bankSchema>;
export type Currency = z.infer<typeof currencySchema>;
export type Country = z.infer<typeof countrySchema>;
export type Region = z.infer<typeof regionSchema>;
export type CallingCode = z.infer<typeof callingCodeSchema>;
/** Any validated record: its fields by name. */
export type DataRecord = { readonly id: string } & Readonly<Record<string, unknown>>;

/**
 * Whose districts and neighbourhoods a build serves: "all", or ISO 3166-1 alpha-2 codes (["TR"]).
 * The records of every country are in data/records; the others are left out of the build (load.ts).
 * Absent means all, as for a dataset that predates the setting (the test fixtures).
 */
const addressCountriesForm = 'must be "all" or a non-empty list of ISO 3166-1 alpha-2 codes in capitals, such as ["TR", "DE"]';
export const addressCountriesSchema = z.union([z.literal('all'), z.array(z.string().regex(/^[A-Z]{2}$/, addressCountriesForm)).min(1, addressCountriesForm)], {
  error: addressCountriesForm,
});

/** Build settings kept in data/build.json. */
export const buildSettingsSchema = z.strictObject({
  /** The years that have holiday and special-day files; other years answer 404 naming this window. */
  holidayYears: z
    .strictObject({ first: z.number().int().min(1900).max(2200), last: z.number().int().min(1900).max(2200) })
    .refine((years) => years.first <= years.last, 'first must not be after last'),
  addressCountries: addressCountriesSchema.optional(),
});
export type BuildSettings = z.infer<typeof buildSettingsSchema>;

/**
 * The records: their zod schemas, the types inferred from them, and how each type is shown and linked.
 *
 * Each record type has a data schema (what a record in data/ holds, validated at build) and an
 * output schema (what a response body carries, the spec's part 2.2). Data records may hold a few
 * fields the API does not show, such as a bank's country or a country's alternative names; they
 * index lookups and are stripped from bodies.
 */
import { z } from 'zod';
import type { RecordType } from '../contract/routes.ts';
import { workDayTypes } from '../contract/workCalendar.ts';

/** Lower case in data, so that references compare exactly and keys need no second folding. */
const id = z.uuid({ message: 'must be a UUID' }).regex(/^[0-9a-f-]+$/, 'must be a lower-case UUID');
const text = z.string().trim().min(1, 'must not be empty');
/** `2024-04-10 00:00:00 GMT+03:00`: local midnight with the UTC offset in force that day. */
const localDateTime = z.string().regex(/^\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2} GMT[+-]\d{2}:\d{2}$/, 'must look like 2024-04-10 00:00:00 GMT+03:00');

export const bankSchema = z.strictObject({
  id,
  name: text,
  code: z.string().regex(/^\d{3}$/, 'must be three digits, zero-padded (e.g. 010)'),
  countryId: id,
});
export const currencySchema = z.strictObject({
  id,
  name: text,
  code: z.string().regex(/^[A-Z]{3}$/, 'must be three upper-case letters (ISO 4217)'),
});
export const countrySchema = z.strictObject({
  id,
  name: text,
  nativeName: text,
  alpha2Code: z.string().regex(/^[A-Z]{2}$/, 'must be two upper-case letters'),
  alpha3Code: z.string().regex(/^[A-Z]{3}$/, 'must be three upper-case letters'),
  countryPopulation: z.number().int().nonnegative(),
  flag: z.base64({ message: 'must be base64 text' }).min(1),
  /** km² with at most two decimals (checked on the hundredths, as multipleOf(0.01) fails binary floats). */
  area: z
    .number()
    .nonnegative()
    .refine((area) => Math.abs(area * 100 - Math.round(area * 100)) < 1e-6, 'must have at most two decimals'),
  capitalCity: text,
  callingCodeId: id,
  numericIsoCode: z.number().int().min(1).max(999),
  regionId: id,
  displayOrder: z.number().int().min(0),
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
export const regionSchema = z.strictObject({ id, name: text });
export const stateProvinceSchema = z.strictObject({ id, countryId: id, name: text, abbreviation: text });
export const districtSchema = z.strictObject({ id, stateProvinceId: id, name: text });
/** What kind of place a Turkish neighbourhood record is (generator/import/neighbourhoodNames.ts). */
export const placeTypes = ['mahalle', 'köy', 'köy_mahallesi', 'osb', 'sb', 'yayla', 'mezra', 'mevkii', 'site', 'other'] as const;
export const neighborhoodSchema = z.strictObject({
  id,
  districtId: id,
  /** The name as an address form shows it ("Caferağa Mahallesi"). */
  name: text,
  zipCode: z.string().regex(/^[0-9A-Z -]{3,10}$/, 'must be a postal code such as 34710'),
  /** The name as PTT's list writes it ("Caferağa Mah"), which finds the record too. */
  pttName: text,
  placeType: z.enum(placeTypes),
  /** The village or belde the place belongs to ("Başlı Köyü"), or null. */
  parentPlace: text.nullable(),
});
export const callingCodeSchema = z.strictObject({ id, code: z.number().int().min(1).max(999) });
export const languageSchema = z.strictObject({
  id,
  name: text,
  languageCulture: text,
  uniqueSeoCode: text.nullable(),
  rtl: z.boolean(),
});
export const timeZoneSchema = z.strictObject({
  id,
  name: z.string().regex(/^[A-Za-z0-9_+-]+(\/[A-Za-z0-9_+-]+)*$/, 'must be an IANA zone name such as Europe/Istanbul'),
  utcOffset: z.string().regex(/^[+-]\d{2}:\d{2}$/, 'must look like +03:00'),
});
export const webDomainSchema = z.strictObject({
  id,
  name: z.string().regex(/^[a-z0-9-]+(\.[a-z0-9-]+)*$/, 'must be a lower-case ASCII domain without the leading dot'),
  isTopLevel: z.boolean(),
});
export const countryCurrencySchema = z.strictObject({ id, countryId: id, currencyCode: currencySchema.shape.code });
export const countryLanguageSchema = z.strictObject({ id, countryId: id, languageId: id });
export const countryTimeZoneSchema = z.strictObject({ id, countryId: id, timeZoneId: id });
export const countryTopLevelWebDomainSchema = z.strictObject({ id, countryId: id, webDomainId: id });
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
  summary: text,
  startDate: localDateTime,
  endDate: localDateTime,
  /** The language of `summary` (`en` where the source names the country's days in English); not in responses. */
  language: languageTag,
  /** `summary` in other languages, by tag: its English name (`en-US`, `en-HK` …) where the source has one; not in responses. */
  translations: z.record(languageTag, text).optional(),
  ...workCalendarFields,
};

export const countryDaySchema = z.strictObject({ id, countryId: id, ...dayFields });

/** A special day: a holiday's fields, and what it is in a work calendar (none for an observance); not in responses. */
export const countrySpecialDaySchema = countryDaySchema.extend({
  dayType: z.enum(workDayTypes.filter((type) => type !== 'public')).optional(),
});

/** A public holiday of one subdivision, in addition to its country's: a holiday record with the subdivision in place of the country. */
export const stateProvinceHolidaySchema = z.strictObject({ id, stateProvinceId: id, ...dayFields });

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
  id,
  countryId: id,
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
    .describe('ISO 3166-1 alpha-2.'),
  stateProvinceCode: z
    .string()
    .regex(/^[A-Z]{2}-[A-Z0-9]{1,3}$/)
    .nullable()
    .describe("ISO 3166-2 code of the subdivision whose calendar this is; null for the country's."),
  year: z.number().int(),
  weekendDays: isoWeekdays.describe("The weekend on the year's first day, as ISO weekdays (1 = Monday … 7 = Sunday)."),
  weekendChanges: z
    .array(z.strictObject({ from: civilDay, weekendDays: isoWeekdays }))
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

/** A field that refers to another record: `to`'s `toField` (its id unless said otherwise). */
export interface Reference {
  readonly field: string;
  readonly to: RecordType;
  readonly toField?: string;
  /** null means "none" (a country's own weekend has no subdivision). */
  readonly nullable?: true;
}

export interface RecordDefinition {
  readonly schema: z.ZodObject;
  /** Data fields that are not part of the API's record. */
  readonly hidden: readonly string[];
  readonly references: readonly Reference[];
}

const countryRef: Reference = { field: 'countryId', to: 'country' };
const stateProvinceRef: Reference = { field: 'stateProvinceId', to: 'stateProvince' };

export const recordDefinitions: Record<RecordType, RecordDefinition> = {
  bank: { schema: bankSchema, hidden: ['countryId'], references: [countryRef] },
  currency: { schema: currencySchema, hidden: [], references: [] },
  country: {
    schema: countrySchema,
    hidden: ['altNames', 'localizedNames'],
    references: [
      { field: 'callingCodeId', to: 'callingCode' },
      { field: 'regionId', to: 'region' },
    ],
  },
  region: { schema: regionSchema, hidden: [], references: [] },
  stateProvince: { schema: stateProvinceSchema, hidden: [], references: [countryRef] },
  district: { schema: districtSchema, hidden: [], references: [stateProvinceRef] },
  neighborhood: { schema: neighborhoodSchema, hidden: ['pttName', 'placeType', 'parentPlace'], references: [{ field: 'districtId', to: 'district' }] },
  callingCode: { schema: callingCodeSchema, hidden: [], references: [] },
  language: { schema: languageSchema, hidden: [], references: [] },
  timeZone: { schema: timeZoneSchema, hidden: [], references: [] },
  webDomain: { schema: webDomainSchema, hidden: [], references: [] },
  countryCurrency: {
    schema: countryCurrencySchema,
    hidden: [],
    references: [countryRef, { field: 'currencyCode', to: 'currency', toField: 'code' }],
  },
  countryLanguage: { schema: countryLanguageSchema, hidden: [], references: [countryRef, { field: 'languageId', to: 'language' }] },
  countryTimeZone: { schema: countryTimeZoneSchema, hidden: [], references: [countryRef, { field: 'timeZoneId', to: 'timeZone' }] },
  countryTopLevelWebDomain: {
    schema: countryTopLevelWebDomainSchema,
    hidden: [],
    references: [countryRef, { field: 'webDomainId', to: 'webDomain' }],
  },
  countryHoliday: { schema: countryDaySchema, hidden: ['language', 'translations', 'observedFor', 'provisional'], references: [countryRef] },
  countrySpecialDay: {
    schema: countrySpecialDaySchema,
    hidden: ['language', 'translations', 'observedFor', 'provisional', 'dayType'],
    references: [countryRef],
  },
  stateProvinceHoliday: {
    schema: stateProvinceHolidaySchema,
    hidden: ['language', 'translations', 'observedFor', 'provisional'],
    references: [stateProvinceRef],
  },
  stateProvinceSpecialDay: {
    schema: stateProvinceSpecialDaySchema,
    hidden: ['language', 'translations', 'observedFor', 'provisional', 'dayType'],
    references: [stateProvinceRef],
  },
  weekend: { schema: weekendSchema, hidden: [], references: [countryRef, { ...stateProvinceRef, nullable: true }] },
};

export type Bank = z.infer<typeof bankSchema>;
export type Currency = z.infer<typeof currencySchema>;
export type Country = z.infer<typeof countrySchema>;
export type Region = z.infer<typeof regionSchema>;
export type CallingCode = z.infer<typeof callingCodeSchema>;
/** Any validated record: its fields by name. */
export type DataRecord = { readonly id: string } & Readonly<Record<string, unknown>>;

/** Build settings kept in data/build.json. */
export const buildSettingsSchema = z.strictObject({
  /** The years that have holiday and special-day files; other years answer 404 naming this window. */
  holidayYears: z
    .strictObject({ first: z.number().int().min(1900).max(2200), last: z.number().int().min(1900).max(2200) })
    .refine((years) => years.first <= years.last, 'first must not be after last'),
});
export type BuildSettings = z.infer<typeof buildSettingsSchema>;

/**
 * The fields of a record as the API shows them, in schema order: its type's hidden fields and the
 * route's omitted ones left out. Bodies (bodies.ts) and their OpenAPI schemas (openapiComponents.ts)
 * both use it, so the two cannot disagree.
 */
export function shownFields(type: RecordType, omit: readonly string[] = [], reveal: readonly string[] = []): string[] {
  const { schema, hidden } = recordDefinitions[type];
  return Object.keys(schema.shape).filter((field) => (!hidden.includes(field) || reveal.includes(field)) && !omit.includes(field));
}

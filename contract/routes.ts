/**
 * The API as data: every lookup operation of the service, read by the generator (which files to
 * write), the proxy (which file answers a request) and the tests (the contract itself).
 *
 * Adding an operation is adding a row. Nothing here imports anything but the record types
 * (recordTypes.ts): the proxy stays free of the generator's dependencies.
 */
import type { RecordType } from './recordTypes.ts';

export { recordTypes, type RecordType } from './recordTypes.ts';

/** How a query value is validated and normalised into a file-name-safe key (see keys.ts). */
export type ParamKind = 'uuid' | 'code' | 'bankCode' | 'iban' | 'name' | 'domain' | 'integer' | 'boolean' | 'year' | 'postalCode';

export interface RouteParam {
  /** The query parameter's name exactly as the spec writes it; matched case-insensitively. */
  readonly name: string;
  readonly kind: ParamKind;
  /** The record field (or derived field, see generator/bodies.ts) the value is compared with. */
  readonly field: string;
  /**
   * Record fields holding extra names that also find the record, strongest first: a country's
   * alternative names, then its names in other languages. See the ambiguity rule in generator/bodies.ts.
   */
  readonly aliasFields?: readonly string[];
  /** May be left out (only the last parameters may): the lookup then has fewer keys. */
  readonly optional?: true;
  /**
   * The value must name a part of what another parameter names: its key starts with that
   * parameter's key and a hyphen (StateProvinceCode DE-BY within CountryCode DE).
   */
  readonly within?: string;
  /** The record type the value names, where it is not the route's (a subdivision's code), for messages. */
  readonly names?: RecordType;
  /**
   * A parameter the spec does not give the operation: why the service takes it anyway (the OpenAPI
   * document marks it `x-extension`). Only an optional parameter may be one, so that a client that
   * sends the operation's own parameters only is answered as the spec says.
   */
  readonly extension?: string;
}

/**
 * Names that come in more than one language (holidays and special days). The optional query
 * parameter `param` names the language, or else Accept-Language chooses; without either, the
 * records' own. The records' own names are the body without a language; every other language of
 * a parent (a country) has bodies of its own beside the parent's (languageBodyKeys), where its
 * names differ. manifest.json `languages` lists each parent's.
 */
export interface RouteLanguages {
  /** The query parameter's name as the API writes it; matched case-insensitively. */
  readonly param: string;
  /** The record field whose text differs by language. */
  readonly field: string;
  /** The hidden record field naming the language of `field`: a BCP 47 tag (`tr`, `zh-CN`, `en`). */
  readonly languageField: string;
  /** The hidden record field holding `field` in other languages, by tag (`{"en-US": "Republic Day"}`). */
  readonly translationsField: string;
  /** The language every parent answers, in its own names where it has none in this one. */
  readonly alwaysAnswered: string;
}

export interface Route {
  /** Lower-case path; requests are matched case-insensitively. */
  readonly path: string;
  readonly record: RecordType;
  readonly shape: 'single' | 'list';
  readonly params: readonly RouteParam[];
  /**
   * List lookups keyed by another record: every record of that type gets a file, an empty array
   * where it has no children, so "no children" (200, []) differs from "no such parent" (404).
   * `field` is the parent's field the first parameter's value is compared with.
   */
  readonly parent?: {
    readonly record: RecordType;
    readonly field: string;
    /** A (derived) field of the parent that must be true for it to have bodies: the parents a source covers. */
    readonly where?: string;
  };
  /**
   * The lookup this one answers with, by the parent's id in place of its first key (a country's
   * alpha-2 code): the build writes no bodies of its own for it, and the manifest's `aliases` maps
   * each key to the parent's id, so that the index holds each body once.
   */
  readonly aliasOf?: string;
  /** Hidden record fields this operation's bodies show (a neighbourhood's kind of place). */
  readonly reveal?: readonly string[];
  /** Record fields left out of this operation's bodies (country getall carries no flag). */
  readonly omit?: readonly string[];
  /**
   * A prefix search (contract/search.ts): the first parameter is the query, matched against its
   * field and alias fields; the others limit it (a country's subdivisions). `minLength`: the fewest
   * characters a query may have; `prominence`: the numeric field that orders equal matches.
   */
  readonly search?: { readonly minLength: number; readonly prominence?: string };
  /** Not in the spec: why the service offers it anyway (the OpenAPI document marks it `x-extension`). */
  readonly extension?: string;
  /** The body's names come in several languages (see RouteLanguages). */
  readonly languages?: RouteLanguages;
  /**
   * The body is a document the generator computes from several record types rather than records
   * of `record` (which is then what the document is about, its parent's type).
   */
  readonly document?: DocumentType;
  /** Representations besides JSON, chosen with the query parameter `format` (rendered by proxy/http/calendars.ts). */
  readonly formats?: readonly Format[];
}

/** Documents computed by the generator: a work calendar (contract/workCalendar.ts). */
export type DocumentType = 'workCalendar';
/** `json` (the envelope, the default) or `ics` (RFC 5545 iCalendar, without the envelope). */
export type Format = 'json' | 'ics';
/** The query parameter that chooses a representation. */
export const formatParam = 'format';

const uuid = (name: string, field = name): RouteParam => ({ name, kind: 'uuid', field });
const byId = (path: string, record: RecordType): Route => ({
  path: `${path}/getbyid`,
  record,
  shape: 'single',
  params: [uuid('id')],
});
const getAll = (path: string, record: RecordType, omit?: readonly string[]): Route => ({
  path: `${path}/getall`,
  record,
  shape: 'list',
  params: [],
  ...(omit ? { omit } : {}),
});
const byParentId = (path: string, record: RecordType, param: string, field: string, parent: RecordType): Route => ({
  path: `${path}/getby${param.toLowerCase()}`,
  record,
  shape: 'list',
  params: [uuid(param, field)],
  parent: { record: parent, field: 'id' },
});
/** Holiday and special-day names: the country's own language, or English (python-holidays' translations). */
const dayNames: RouteLanguages = {
  param: 'language',
  field: 'summary',
  languageField: 'language',
  translationsField: 'translations',
  alwaysAnswered: 'en',
};
const byCountryAndYear = (path: string, record: RecordType): Route => ({
  path: `${path}/getbycountryid`,
  record,
  shape: 'list',
  params: [uuid('CountryId', 'countryId'), { name: 'Year', kind: 'year', field: 'year' }],
  parent: { record: 'country', field: 'id' },
  languages: dayNames,
});
/**
 * The same days by the country's ISO 3166-1 alpha-2 code (`DE`, any case), as other holiday APIs
 * take it: the field `countryCode` is derived from the record's country (generator/bodies/recordKeys.ts).
 */
const byCountryCodeAndYear = (path: string, record: RecordType): Route => ({
  path: `${path}/getbycountrycode`,
  record,
  shape: 'list',
  params: [
    { name: 'CountryCode', kind: 'code', field: 'countryCode' },
    { name: 'Year', kind: 'year', field: 'year' },
  ],
  parent: { record: 'country', field: 'alpha2Code' },
  languages: dayNames,
  aliasOf: `${path}/getbycountryid`,
  extension: "a calendar is asked for by the country's ISO 3166-1 alpha-2 code, without first looking up the country's id",
});

/**
 * A subdivision's own days, beside its country's (holidays, and special days as the country's
 * are), by its id or its ISO 3166-2 code (`DE-BY`, any case; the field `stateProvinceCode` is
 * derived: generator/bodies/recordKeys.ts). Only subdivisions a source gives days of their own
 * have bodies (`regionalHolidays`); any other answers 404.
 */
const regionalHolidays = 'regionalHolidays';
const byStateProvinceAndYear = (path: string, record: RecordType, param: RouteParam, parentField: string): Route => ({
  path: `${path}/getby${param.name.toLowerCase()}`,
  record,
  shape: 'list',
  params: [param, { name: 'Year', kind: 'year', field: 'year' }],
  parent: { record: 'stateProvince', field: parentField, where: regionalHolidays },
  languages: dayNames,
  ...(parentField === 'id' ? {} : { aliasOf: `${path}/getbystateprovinceid` }),
  extension: 'days that only part of a country has (Bavaria, Scotland, a canton), which a business-day calendar for that part needs',
});
const stateProvinceCode: RouteParam = { name: 'StateProvinceCode', kind: 'code', field: 'stateProvinceCode' };
/** A district's name, or one of its other common names (an exonym: Munich for München). */
const districtName: RouteParam = { name: 'name', kind: 'name', field: 'name', aliasFields: ['aliases'] };

const finance = '/financemanagement/api';
const address = '/addressmanagement/api';

export const routes: readonly Route[] = [
  byParentId(`${finance}/bank`, 'bank', 'countryId', 'countryId', 'country'),
  byId(`${finance}/bank`, 'bank'),
  { path: `${finance}/bank/getbycode`, record: 'bank', shape: 'single', params: [{ name: 'code', kind: 'bankCode', field: 'code' }] },
  {
    path: `${finance}/bank/getbyiban`,
    record: 'bank',
    shape: 'single',
    params: [{ name: 'iban', kind: 'iban', field: 'iban' }],
    extension: 'an IBAN is what a payment form has in hand: the bank it names, after checking it as ISO 13616 says',
  },

  getAll(`${finance}/currency`, 'currency'),
  byId(`${finance}/currency`, 'currency'),
  { path: `${finance}/currency/getbycode`, record: 'currency', shape: 'single', params: [{ name: 'code', kind: 'code', field: 'code' }] },

  getAll(`${address}/country`, 'country', ['flag']),
  byId(`${address}/country`, 'country'),
  { path: `${address}/country/getbyalpha2code`, record: 'country', shape: 'single', params: [{ name: 'alpha2code', kind: 'code', field: 'alpha2Code' }] },
  { path: `${address}/country/getbyalpha3code`, record: 'country', shape: 'single', params: [{ name: 'alpha3code', kind: 'code', field: 'alpha3Code' }] },
  {
    path: `${address}/country/getbyname`,
    record: 'country',
    shape: 'single',
    params: [{ name: 'name', kind: 'name', field: 'name', aliasFields: ['altNames', 'localizedNames'] }],
  },
  {
    path: `${address}/country/searchbyname`,
    record: 'country',
    shape: 'list',
    params: [{ name: 'name', kind: 'name', field: 'name', aliasFields: ['nativeName', 'altNames', 'localizedNames'] }],
    omit: ['flag'],
    search: { minLength: 1, prominence: 'countryPopulation' },
    extension: 'a type-ahead: the countries whose name in any language, or a word of it, starts with what the user has typed',
  },
  byParentId(`${address}/country`, 'country', 'regionid', 'regionId', 'region'),

  getAll(`${address}/region`, 'region'),
  byId(`${address}/region`, 'region'),

  byParentId(`${address}/stateprovince`, 'stateProvince', 'countryid', 'countryId', 'country'),
  byId(`${address}/stateprovince`, 'stateProvince'),
  { path: `${address}/stateprovince/getbyname`, record: 'stateProvince', shape: 'single', params: [{ name: 'name', kind: 'name', field: 'name' }] },
  {
    path: `${address}/stateprovince/searchbyname`,
    record: 'stateProvince',
    shape: 'list',
    params: [
      { name: 'name', kind: 'name', field: 'name' },
      { ...uuid('countryid', 'countryId'), optional: true },
    ],
    search: { minLength: 2 },
    extension: 'a type-ahead: the subdivisions whose name, or a word of it, starts with what the user has typed, of one country or of all',
  },
  {
    path: `${address}/stateprovince/getallbyname`,
    record: 'stateProvince',
    shape: 'list',
    params: [
      { name: 'name', kind: 'name', field: 'name' },
      { ...uuid('countryid', 'countryId'), optional: true },
    ],
    extension: 'a name several subdivisions share (Distrito Capital, Central) answers every one of them, not the one the ambiguity rule picks',
  },
  {
    path: `${address}/stateprovince/getbyabbreviation`,
    record: 'stateProvince',
    shape: 'single',
    params: [{ name: 'abbreviation', kind: 'code', field: 'abbreviation' }],
  },

  byParentId(`${address}/district`, 'district', 'stateprovinceid', 'stateProvinceId', 'stateProvince'),
  byId(`${address}/district`, 'district'),
  {
    path: `${address}/district/getbyname`,
    record: 'district',
    shape: 'single',
    params: [uuid('countryId'), districtName],
  },
  {
    path: `${address}/district/searchbyname`,
    record: 'district',
    shape: 'list',
    params: [districtName, uuid('countryid', 'countryId')],
    search: { minLength: 2 },
    extension: "a type-ahead: a country's districts whose name, or a word of it, starts with what the user has typed",
  },
  {
    path: `${address}/district/getallbyname`,
    record: 'district',
    shape: 'list',
    params: [uuid('countryId'), districtName],
    extension: 'a name many districts share (Türkiye has a Merkez in most provinces) answers every one of them, not the one the ambiguity rule picks',
  },

  byParentId(`${address}/neighborhood`, 'neighborhood', 'districtid', 'districtId', 'district'),
  { ...byId(`${address}/neighborhood`, 'neighborhood'), extension: 'every other resource of the spec has getbyid; neighbourhoods lacked it' },
  {
    path: `${address}/neighborhood/getplacesbydistrictid`,
    record: 'neighborhood',
    shape: 'list',
    params: [uuid('districtid', 'districtId')],
    parent: { record: 'district', field: 'id' },
    reveal: ['placeType', 'parentPlace', 'pttName'],
    extension:
      "an address form shows a village's quarters under their village: each neighbourhood with its kind of place (mahalle, köy, köy_mahallesi …), the village or belde it belongs to and PTT's spelling of its name",
  },
  {
    path: `${address}/neighborhood/searchbyname`,
    record: 'neighborhood',
    shape: 'list',
    params: [{ name: 'name', kind: 'name', field: 'name', aliasFields: ['pttName'] }, uuid('districtid', 'districtId')],
    search: { minLength: 2 },
    extension: "a type-ahead: a district's neighbourhoods whose name, or a word of it, starts with what the user has typed",
  },
  {
    path: `${address}/neighborhood/getbyzipcode`,
    record: 'neighborhood',
    shape: 'list',
    params: [
      { name: 'zipcode', kind: 'postalCode', field: 'zipCode' },
      {
        ...uuid('countryId'),
        optional: true,
        extension:
          "one postal code may be several countries' (06420 is Kızılay's in Ankara and Könnern's in Germany): the country an address form has already chosen keeps the answer to its own places",
      },
    ],
    extension: 'the lookup an address form makes first: one postal code covers several neighbourhoods',
  },

  getAll(`${address}/callingcode`, 'callingCode'),
  byId(`${address}/callingcode`, 'callingCode'),
  { path: `${address}/callingcode/getbycode`, record: 'callingCode', shape: 'single', params: [{ name: 'code', kind: 'integer', field: 'code' }] },

  getAll(`${address}/language`, 'language'),
  byId(`${address}/language`, 'language'),

  getAll(`${address}/webdomain`, 'webDomain'),
  byId(`${address}/webdomain`, 'webDomain'),
  { path: `${address}/webdomain/getbyname`, record: 'webDomain', shape: 'single', params: [{ name: 'name', kind: 'domain', field: 'name' }] },
  {
    path: `${address}/webdomain/getbyistoplevel`,
    record: 'webDomain',
    shape: 'list',
    params: [{ name: 'istoplevel', kind: 'boolean', field: 'isTopLevel' }],
  },

  byParentId(`${address}/countrycurrency`, 'countryCurrency', 'countryid', 'countryId', 'country'),
  {
    path: `${address}/countrycurrency/getbycurrencycode`,
    record: 'countryCurrency',
    shape: 'list',
    params: [{ name: 'currencycode', kind: 'code', field: 'currencyCode' }],
    parent: { record: 'currency', field: 'code' },
  },
  byId(`${address}/countrycurrency`, 'countryCurrency'),

  byParentId(`${address}/countrylanguage`, 'countryLanguage', 'countryid', 'countryId', 'country'),
  byParentId(`${address}/countrylanguage`, 'countryLanguage', 'languageid', 'languageId', 'language'),
  byId(`${address}/countrylanguage`, 'countryLanguage'),

  byParentId(`${address}/countrytimezone`, 'countryTimeZone', 'countryid', 'countryId', 'country'),
  byParentId(`${address}/countrytimezone`, 'countryTimeZone', 'timezoneid', 'timeZoneId', 'timeZone'),
  byId(`${address}/countrytimezone`, 'countryTimeZone'),
  ...[getAll(`${address}/timezone`, 'timeZone'), byId(`${address}/timezone`, 'timeZone')].map((route) => ({
    ...route,
    extension: "the spec's country time-zone links point at time-zone records it gives no operation for",
  })),

  byId(`${address}/countrytoplevelwebdomain`, 'countryTopLevelWebDomain'),
  byParentId(`${address}/countrytoplevelwebdomain`, 'countryTopLevelWebDomain', 'webdomainid', 'webDomainId', 'webDomain'),

  byCountryAndYear(`${address}/countryholiday`, 'countryHoliday'),
  byCountryCodeAndYear(`${address}/countryholiday`, 'countryHoliday'),
  byCountryAndYear(`${address}/countryspecialday`, 'countrySpecialDay'),
  byCountryCodeAndYear(`${address}/countryspecialday`, 'countrySpecialDay'),

  byStateProvinceAndYear(`${address}/stateprovinceholiday`, 'stateProvinceHoliday', uuid('StateProvinceId', 'stateProvinceId'), 'id'),
  byStateProvinceAndYear(`${address}/stateprovinceholiday`, 'stateProvinceHoliday', stateProvinceCode, 'code'),
  byStateProvinceAndYear(`${address}/stateprovincespecialday`, 'stateProvinceSpecialDay', uuid('StateProvinceId', 'stateProvinceId'), 'id'),
  byStateProvinceAndYear(`${address}/stateprovincespecialday`, 'stateProvinceSpecialDay', stateProvinceCode, 'code'),
  {
    path: `${address}/weekend/getbycountrycode`,
    record: 'weekend',
    shape: 'list',
    params: [{ name: 'CountryCode', kind: 'code', field: 'countryCode' }],
    parent: { record: 'country', field: 'alpha2Code' },
    extension:
      'which days are the weekend, and since when (Friday–Saturday in Saudi Arabia, Saturday–Sunday in the UAE since 2022), so that clients need no table of their own',
  },
  {
    path: `${address}/workcalendar/getbycountrycode`,
    record: 'country',
    shape: 'single',
    document: 'workCalendar',
    params: [
      { name: 'CountryCode', kind: 'code', field: 'alpha2Code' },
      { name: 'Year', kind: 'year', field: 'year' },
      { name: 'StateProvinceCode', kind: 'code', field: 'code', optional: true, within: 'CountryCode', names: 'stateProvince' },
    ],
    parent: { record: 'country', field: 'alpha2Code' },
    languages: dayNames,
    formats: ['json', 'ics'],
    extension:
      'the job holidays are fetched for: a year of non-working and unusual days with their types and the weekend, for a country or one subdivision, as JSON or iCalendar',
  },
];

const routesByPath = new Map(routes.map((route) => [route.path, route]));

/** The route for a request path: case-insensitive, one trailing slash tolerated. */
export function findRoute(pathname: string): Route | undefined {
  const path = pathname.length > 1 && pathname.endsWith('/') ? pathname.slice(0, -1) : pathname;
  // Nearly every client writes the path as the spec does: found without lower-casing it first.
  return routesByPath.get(path) ?? routesByPath.get(path.toLowerCase());
}

/**
 * A route path's parts: `/<area>/api/<resource>/<operation>`, e.g. `/addressmanagement/api/country/getall`.
 * The area is what a scope guards.
 */
export function routeParts(route: Route): { area: string; resource: string; operation: string } {
  const [, area = '', , resource = '', operation = ''] = route.path.split('/');
  return { area, resource, operation };
}

/**
 * Where a lookup's body lives, relative to dist/: the route's path, then one segment per key,
 * e.g. `addressmanagement/api/country/getbyalpha2code/tr.json`. Keys come from keys.ts and are
 * already file-name safe; a route without parameters is a single file (`…/country/getall.json`).
 */
export function bodyPath(route: Route, keys: readonly string[]): string {
  return keys.length === 0 ? `${route.path.slice(1)}.json` : `${route.path.slice(1)}/${keys.join('/')}.json`;
}

/**
 * The keys of a lookup's body in another language (keys.ts languageKey): the language follows the
 * parent, `…/getbycountryid/<countryId>/en/2024.json` beside `…/<countryId>/2024.json`, so that a
 * language adds one directory per country rather than one per country and year.
 */
export function languageBodyKeys(keys: readonly string[], languageKey: string): string[] {
  const [parent, ...rest] = keys;
  return parent === undefined ? [languageKey] : [parent, languageKey, ...rest];
}

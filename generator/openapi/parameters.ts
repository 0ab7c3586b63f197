/**
 * The query parameters of the OpenAPI document (see document.ts): each operation's own, written where
 * the operation is, from the route table: what each value is (its meaning: the field it is compared
 * with, the record an id names, where a client finds one), how its kind matches, and its schema
 * (a year's bounds are the build's).
 */
import type { ParamKind, RecordType, Route, RouteParam } from '../../contract/routes.ts';
import { labelOf } from '../../contract/recordTypes.ts';
import { recordDefinitions } from '../records/recordTypes.ts';
import type { JsonObject } from './components.ts';

/** How each kind of value matches (docs/api.md: "Values are normalised by kind"). */
const kindNotes: Record<ParamKind, string> = {
  uuid: 'Any letter case, with or without braces or hyphens.',
  code: 'Any letter case.',
  bankCode:
    'Leading zeros are optional: `10`, `010`, `0010` and `00010` (the five-digit form inside a Turkish IBAN) find the same bank; a code no bank has answers 404.',
  iban: 'Spaces, hyphens and letter case are ignored. Checked as ISO 13616 says (the country, its length, its form, the mod-97 check digits), each failure a 400 that names it; the service holds the banks of Türkiye only, so a valid IBAN of another country answers 404 naming it.',
  name: 'Matched case- and accent-insensitively, the Turkish dotted and dotless i alike (`İSTANBUL`, `istanbul` and `Istanbul` are one name), spaces and punctuation alike (`Guinea Bissau` finds Guinea-Bissau), apostrophes ignored; at most 200 characters.',
  domain: 'Any letter case, the leading dot optional, an international name in Unicode or in punycode (`рф` or `xn--p1ai`).',
  integer: '`90`, `+90` and `090` are the same.',
  boolean: 'Any letter case.',
  year: '',
  postalCode:
    'Spaces, hyphens and letter case are ignored (`34710`, `34 710` and `34-710` are one code; `00-001` is `00001`), and leading zeros count (`01067` is not `1067`). A whole code finds the part of it the data holds: a UK postcode its outward code (`SW1A 1AA` finds SW1A), a Canadian one its first three characters (`H0H 0H0`), a Dutch one its four digits (`1012 AB`), a ZIP+4 code its ZIP code (`02134-1234`). docs/api.md lists the rules by country.',
};

/** The record an id parameter names, by the field it is compared with, and the lookup a client finds its id with. */
const idTargets: Readonly<Record<string, { readonly type: RecordType; readonly from: string }>> = {
  countryId: { type: 'country', from: 'country/getbyalpha2code' },
  regionId: { type: 'region', from: 'region/getall' },
  stateProvinceId: { type: 'stateProvince', from: 'stateprovince/getbycountryid' },
  districtId: { type: 'district', from: 'district/getbystateprovinceid' },
  languageId: { type: 'language', from: 'language/getall' },
  timeZoneId: { type: 'timeZone', from: 'timezone/getall' },
  webDomainId: { type: 'webDomain', from: 'webdomain/getbyname' },
};

/** What each parameter's value is, by meaning: the field it is compared with, and where it comes from. */
const meanings: Readonly<Record<string, (route: Route) => string | undefined>> = {
  id: (route) => `The ${labelOf(route.record)}'s id: the UUID this service gives the record (its \`id\` in every answer), kept across data imports.`,
  alpha2code: () => "The country's ISO 3166-1 alpha-2 code: two letters, such as TR or DE.",
  countrycode: () => "The country's ISO 3166-1 alpha-2 code (its alpha2Code): two letters, such as TR or DE.",
  alpha3code: () => "The country's ISO 3166-1 alpha-3 code: three letters, such as TUR or DEU.",
  abbreviation: () =>
    "A state or province's ISO 3166-2 code without its country prefix (its abbreviation): 34 for İstanbul (TR-34; Türkiye's provinces by licence-plate number), BY for Bavaria. Where several countries use the code, the first in data order answers, Türkiye's provinces first: 34 is İstanbul, not France's Hérault (FR-34); X-Ambiguous-Matches says how many share it.",
  stateprovincecode: () =>
    "A subdivision's ISO 3166-2 code: its country's alpha-2 code, a hyphen and the subdivision's own code (its abbreviation), such as DE-BY for Bavaria or TR-34 for İstanbul.",
  code: (route) => recordDefinitions[route.record].words?.code,
  iban: () =>
    "An IBAN (ISO 13616), such as TR42 0001 0000 0000 0000 0000 01: the answer is the bank it names. A Turkish IBAN is TR, two check digits, the bank's five-digit EFT code (00010 for Ziraat), a reserved 0 and the 16-character account.",
  zipcode: () =>
    "A postal code as its country writes it: Türkiye's (PTT's posta kodu) are five digits such as 34710, the first two the province's plate number. The answer is every neighbourhood it covers, in every country that has the code unless countryId names one.",
  currencycode: () => "A currency's ISO 4217 code, such as TRY: the answer is the countries where it is legal tender today.",
  istoplevel: () => '`true` for the top-level domains (tr, com), `false` for the second-level public suffixes (com.tr, co.uk).',
  year: (route) =>
    route.document
      ? 'The calendar year (Gregorian) whose days to answer, four digits.'
      : 'The calendar year (Gregorian), four digits: the answer is the days that begin in it.',
  name: (route) => {
    if (!route.search) return recordDefinitions[route.record].words?.name;
    const names = recordDefinitions[route.record].words?.searched;
    return names && `What the user has typed so far, the start of a word of one of ${names}.`;
  },
};

/** What an id parameter names: the record itself (`id`), or another record the answer belongs to. */
function idMeaning(route: Route, param: RouteParam): string | undefined {
  const target = idTargets[param.field];
  if (target === undefined) return undefined;
  const [label, owner] = [labelOf(route.record), labelOf(target.type)];
  const named = `The id of a ${owner} (a UUID this service gives it, as ${target.from} answers it)`;
  if (route.parent?.field === 'id' && param === route.params[0]) return `${named}: the answer is its ${label} records.`;
  return route.shape === 'single'
    ? `${named}: the ${label} is looked for in that ${owner}.`
    : `${named}: the answer is limited to that ${owner}'s ${label} records.`;
}

/** Where an optional parameter left out widens the answer to. */
function withoutIt(param: RouteParam): string {
  if (param.names === 'stateProvince') return "Optional: without it, the answer is the whole country's.";
  const target = idTargets[param.field];
  return `Optional: without it, every ${target === undefined ? 'record' : labelOf(target.type)}'s.`;
}

function querySchemaOf(kind: ParamKind, holidayYears: { first: number; last: number }): JsonObject {
  switch (kind) {
    case 'uuid':
      return { type: 'string', format: 'uuid' };
    case 'integer':
      return { type: 'integer', minimum: 0 };
    case 'boolean':
      return { type: 'boolean' };
    case 'year':
      // The build's window: the proxy answers a well-formed year outside it 404, naming the window.
      return { type: 'integer', minimum: holidayYears.first, maximum: holidayYears.last };
    case 'code':
    case 'bankCode':
      return { type: 'string', minLength: 1, maxLength: 64, pattern: '^[A-Za-z0-9._-]+$' };
    case 'iban':
      return { type: 'string', minLength: 5, maxLength: 64 };
    case 'domain':
      return { type: 'string', minLength: 1, maxLength: 253 };
    case 'name':
      return { type: 'string', minLength: 1, maxLength: 200 };
    case 'postalCode':
      return { type: 'string', minLength: 2, maxLength: 20 };
  }
}

/**
 * A lookup's query parameter, written in its operation rather than as a shared component: each
 * operation gives its own example (examples.ts), and a $ref cannot carry one. Its
 * description says what the value is, then how it matches; a parameter without a meaning stops
 * the build.
 */
export function queryParameter(route: Route, param: RouteParam, holidayYears: { first: number; last: number }): JsonObject {
  const meaning = (param.field === 'id' ? undefined : idMeaning(route, param)) ?? meanings[param.name.toLowerCase()]?.(route);
  if (meaning === undefined) throw new Error(`openapi: ${route.path} ${param.name} has no description; add its meaning to generator/openapi/parameters.ts`);
  const window =
    param.kind === 'year'
      ? `This build holds ${holidayYears.first} to ${holidayYears.last} (/meta's holidayYears): a year outside them answers 404 naming them; a value that is not four digits answers 400.`
      : '';
  const name = 'Its name, too, in any letter case; give it once.';
  const within = param.within === undefined ? '' : `It must be one of ${param.within}'s (a code that starts with it and a hyphen); another answers 400.`;
  const optional = param.optional ? withoutIt(param) : '';
  const extension = param.extension === undefined ? '' : `**Extension**: not in the reference-data API specification; offered because ${param.extension}.`;
  const description = [meaning, kindNotes[param.kind], window, within, optional, extension, name].filter(Boolean).join(' ');
  return {
    name: param.name,
    in: 'query',
    required: !param.optional,
    ...(param.extension === undefined ? {} : { 'x-extension': true }),
    description,
    schema: querySchemaOf(param.kind, holidayYears),
  };
}

/** The `format` parameter of a route with representations besides JSON. */
export function formatParameter(formats: readonly string[]): JsonObject {
  return {
    name: 'format',
    in: 'query',
    required: false,
    description:
      '`json` (the default): the envelope. `ics`: the same calendar as RFC 5545 iCalendar (text/calendar), without the envelope, served **without a token** so that a calendar app can subscribe to the URL; public and cacheable by anyone. Any letter case; another value answers 400.',
    schema: { type: 'string', enum: [...formats] },
    example: 'json',
  };
}

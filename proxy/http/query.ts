/**
 * From a request's query to the route's lookup keys (contract/keys.ts), or the failure that says
 * which parameter is wrong and how to write it.
 */
import { quoteEcho } from '../../contract/envelope.ts';
import { ServiceError } from '../../contract/errors.ts';
import { expectedForms, normaliseKey } from '../../contract/keys.ts';
import { formatParam, recordTypes, routeParts, routes, type Format, type Route, type RouteParam } from '../../contract/routes.ts';
import { labelOf } from '../../contract/recordTypes.ts';
import type { BodyStore } from '../store/store.ts';

/** A client-sent value as a message quotes it: JSON-quoted, cut to a bounded length. */
export function echo(value: string): string {
  return quoteEcho(value);
}

/**
 * The most parameters a query may have: every operation takes at most four, and a query with
 * thousands would cost a request thousands of times the work of one.
 */
export const maxQueryParams = 32;

/**
 * Query parameters by lower-cased name, as ASP.NET-style clients send `countryid` or `CountryId`.
 * A query with nothing to decode (no `%`, no `+`: nearly all of them) is split by hand; any other
 * goes through URLSearchParams, so values always decode exactly as the WHATWG URL standard says.
 * A query of more than maxQueryParams parameters is refused before any is read.
 */
export function collectParams(query: string): Map<string, string[]> {
  for (let count = 1, separator = query.indexOf('&'); separator !== -1; count++, separator = query.indexOf('&', separator + 1)) {
    if (count === maxQueryParams) {
      throw new ServiceError(
        'ERR_PARAMS_TOO_MANY',
        `The query has more than ${maxQueryParams} parameters: send only the operation's own (see /docs), each once.`,
      );
    }
  }
  const params = new Map<string, string[]>();
  if (query.includes('%') || query.includes('+')) {
    for (const [name, value] of new URLSearchParams(query)) addParam(params, name, value);
    return params;
  }
  for (const pair of query.split('&')) {
    if (pair === '') continue;
    const equals = pair.indexOf('=');
    if (equals === -1) addParam(params, pair, '');
    else addParam(params, pair.slice(0, equals), pair.slice(equals + 1));
  }
  return params;
}

function addParam(params: Map<string, string[]>, name: string, value: string): void {
  const key = name.toLowerCase();
  const values = params.get(key);
  if (values) values.push(value);
  else params.set(key, [value]);
}

export interface ResolvedKeys {
  readonly keys: string[];
  /** The values as the client wrote them, for messages. */
  readonly given: string[];
  /** Every parameter of the query, by lower-cased name (the language, which is no key, is read from it). */
  readonly params: ReadonlyMap<string, readonly string[]>;
}

/** The route's keys from the query, or the failure that says which parameter is wrong and how. */
export function resolveKeys(route: Route, query: string, store: BodyStore): ResolvedKeys {
  const params = collectParams(query);
  const given: string[] = [];
  const keys: string[] = [];
  for (const param of route.params) {
    const values = params.get(param.name.toLowerCase()) ?? [];
    const expected = expectedForms[param.kind];
    if (values.length === 0 && param.optional) break;
    if (values.length === 0) throw new ServiceError('ERR_PARAM_MISSING', `Missing query parameter ${param.name}: expected ${expected}.`);
    if (values.length > 1) {
      throw new ServiceError('ERR_PARAM_REPEATED', `Query parameter ${param.name} is given ${values.length} times: give it once, as ${expected}.`);
    }
    const raw = values[0] ?? '';
    const result = normaliseKey(param.kind, raw);
    if (!result.ok) throw new ServiceError('ERR_PARAM_INVALID', `Query parameter ${param.name} is ${echo(raw)}: expected ${result.expected}.`);
    if (param.kind === 'year') {
      const { first, last } = store.manifest.holidayYears;
      const year = Number(result.key);
      if (year < first || year > last) {
        throw new ServiceError('ERR_YEAR_OUT_OF_RANGE', `${param.name} ${year} is outside the years this service holds: ${first} to ${last}.`);
      }
    }
    if (param.within !== undefined) checkWithin(route, param, { key: result.key, raw }, { keys, given });
    given.push(raw);
    keys.push(result.key);
  }
  return { keys, given, params };
}

/**
 * Refuses a query naming a parameter the route does not take: its own, `format` where it has
 * formats, its language's. For the operations answered without a token (the calendars), whose
 * answers a cache keyed by URL keeps: a parameter no operation reads would make a copy per value.
 */
export function refuseUnknownParams(route: Route, params: ReadonlyMap<string, readonly string[]>): void {
  const taken = [...route.params.map((param) => param.name), ...(route.formats ? [formatParam] : []), ...(route.languages ? [route.languages.param] : [])];
  const known = new Set(taken.map((name) => name.toLowerCase()));
  for (const name of params.keys()) {
    if (known.has(name)) continue;
    const list = taken.length > 1 ? `${taken.slice(0, -1).join(', ')} and ${taken.at(-1)}` : (taken[0] ?? 'nothing');
    throw new ServiceError(
      'ERR_PARAM_UNKNOWN',
      `Query parameter ${echo(name)} is not one this operation takes: it takes ${list}. Leave it out, so that a cache keeps one copy of this calendar.`,
    );
  }
}

/** A value that must name a part of what an earlier parameter names (StateProvinceCode DE-BY within CountryCode DE). */
function checkWithin(
  route: Route,
  param: RouteParam,
  { key, raw }: { readonly key: string; readonly raw: string },
  { keys, given }: { readonly keys: readonly string[]; readonly given: readonly string[] },
): void {
  const position = route.params.findIndex((other) => other.name === param.within);
  const outer = keys[position];
  if (outer === undefined || key.startsWith(`${outer}-`)) return;
  const owner = key.includes('-') ? key.slice(0, key.indexOf('-')).toUpperCase() : undefined;
  const outerGiven = (given[position] ?? '').trim().toUpperCase();
  throw new ServiceError(
    'ERR_PARAM_INVALID',
    `Query parameter ${param.name} is ${echo(raw)}: ${owner ? `that is a code of ${owner}, not of ${outerGiven}` : 'that is no ISO 3166-2 code'}; give one of ${outerGiven}'s (${outerGiven}-…), or leave ${param.name} out.`,
  );
}

/**
 * The representation the query asks for (contract/routes.ts `formats`): `json` without the
 * parameter; a value the route does not offer is refused.
 */
export function formatOf(route: Route, params: ReadonlyMap<string, readonly string[]>): Format {
  const values = params.get(formatParam) ?? [];
  const offered = route.formats ?? ['json'];
  const choices = offered.map((format) => `${formatParam}=${format}`).join(' or ');
  if (values.length === 0) return 'json';
  if (values.length > 1)
    throw new ServiceError('ERR_PARAM_REPEATED', `Query parameter ${formatParam} is given ${values.length} times: give it once, as ${choices}.`);
  const wanted = (values[0] ?? '').trim().toLowerCase();
  const format = offered.find((candidate) => candidate === wanted);
  if (format === undefined) throw new ServiceError('ERR_PARAM_INVALID', `Query parameter ${formatParam} is ${echo(values[0] ?? '')}: expected ${choices}.`);
  return format;
}

/** Each record type's getbyid path: where an id that limits a lookup is checked. */
const byIdPaths = new Map(routes.filter((route) => route.path.endsWith('/getbyid')).map((route) => [route.record, route.path]));

/**
 * The 404 of a lookup whose keys are well-formed but match nothing, naming what was asked: the
 * record an optional id names where there is none, the optional parameter where the lookup without
 * it has a body, else the parent, else every value given.
 */
export function notFound(route: Route, { keys, given }: Pick<ResolvedKeys, 'keys' | 'given'>, store: BodyStore): ServiceError {
  const [first] = route.params;
  const required = route.params.filter((param) => !param.optional).length;
  const optional = route.params[keys.length - 1];
  const criteria = route.params
    .slice(0, keys.length)
    .map((param, position) => `${param.name} ${echo(given[position] ?? '')}`)
    .join(' and ');
  const named = keys.length > required && optional?.kind === 'uuid' ? recordTypes.find((type) => `${type}Id` === optional.field) : undefined;
  const byId = named && byIdPaths.get(named);
  if (named && byId && !store.find(byId, [keys[keys.length - 1] ?? ''])) {
    return new ServiceError('ERR_NOT_FOUND', `No ${labelOf(named)} has ${optional?.name} ${echo(given[keys.length - 1] ?? '')}.`);
  }
  const unserved = unservedCountry(route, keys, store);
  // A country the build leaves out: the setting is the answer, whatever else the other keys find.
  if (unserved !== undefined && route.params.some((param, position) => param.field === 'countryId' && position < keys.length)) {
    return new ServiceError('ERR_NOT_FOUND', `No ${labelOf(route.record)} has ${criteria}: ${unserved}.`);
  }
  if (first?.kind === 'postalCode') {
    const zeros = withLeadingZeros(route, keys, store);
    if (zeros !== undefined) {
      return new ServiceError(
        'ERR_NOT_FOUND',
        `No ${labelOf(route.record)} has ${criteria}; ${first.name} ${zeros} has: a postal code keeps its leading zeros, which a spreadsheet may have dropped.`,
      );
    }
  }
  if (keys.length > required && optional && optional.within === undefined && store.find(route.path, keys.slice(0, required))) {
    return new ServiceError(
      'ERR_NOT_FOUND',
      `No ${labelOf(route.record)} has ${criteria}: leave ${optional.name} out for every ${labelOf(route.record)} with that ${first?.name}.`,
    );
  }
  if (keys.length > required && optional && store.find(route.path, keys.slice(0, required))) {
    const within = route.params.findIndex((param) => param.name === optional.within);
    const scope = within === -1 ? '' : ` of ${(given[within] ?? '').trim().toUpperCase()}`;
    return new ServiceError(
      'ERR_NOT_FOUND',
      `No ${labelOf(optional.names ?? route.record)}${scope} with holidays of its own has ${optional.name} ${echo(given[keys.length - 1] ?? '')}: leave ${optional.name} out for the whole country's answer; ${regionalListHint}.`,
    );
  }
  if (route.parent?.where !== undefined && first) {
    return new ServiceError(
      'ERR_NOT_FOUND',
      `No ${labelOf(route.parent.record)} with holidays of its own has ${route.parent.field} ${echo(given[0] ?? '')}: a subdivision that exists but has none has its country's only (countryholiday/getbycountrycode); ${regionalListHint}.`,
    );
  }
  if (route.parent && first) {
    return new ServiceError('ERR_NOT_FOUND', `No ${labelOf(route.parent.record)} has ${route.parent.field} ${echo(given[0] ?? '')}.`);
  }
  if (first?.kind === 'iban') return ibanNotFound(keys[0] ?? '', given[0] ?? '');
  if (first?.kind === 'bankCode') {
    return new ServiceError(
      'ERR_NOT_FOUND',
      `No bank has code ${echo(given[0] ?? '')}: Türkiye's bank codes are three digits, such as 010 (leading zeros optional); financemanagement/api/bank/getbycountryid lists them.`,
    );
  }
  return new ServiceError('ERR_NOT_FOUND', `No ${labelOf(route.record)} has ${criteria}${unserved === undefined ? '' : `: ${unserved}`}.`);
}

/** The record types a build may serve for some countries only (data/build.json `addressCountries`). */
const addressRecords = new Set<string>(['district', 'neighborhood']);

/**
 * Why a district or neighbourhood lookup may have found nothing, where the build serves some
 * countries' addresses only and the lookup names none of them (or no country at all, as a postal
 * code alone does); undefined where the build serves them all, or the country asked for.
 */
export function unservedCountry(route: Route, keys: readonly string[], store: BodyStore): string | undefined {
  if (!addressRecords.has(route.record)) return undefined;
  const served = store.manifest.addressCountries;
  if (served === 'all') return undefined;
  const countryAt = route.params.findIndex((param) => param.field === 'countryId');
  const asked = countryAt === -1 ? undefined : keys[countryAt];
  if (asked !== undefined && Object.hasOwn(served, asked)) return undefined;
  const codes = Object.values(served).sort().join(', ');
  return `this build serves the districts and postal codes of ${codes} only (addressCountries in data/build.json); a build with "all" there serves every country's`;
}

/**
 * The code with the leading zeros a spreadsheet drops (2134 for the US's 02134, 1067 for Germany's
 * 01067), where the same lookup with it has neighbourhoods: the code as a client should write it.
 */
function withLeadingZeros(route: Route, [code = '', ...rest]: readonly string[], store: BodyStore): string | undefined {
  if (!/^[0-9]+$/.test(code)) return undefined;
  for (const padded of [`0${code}`, `00${code}`]) {
    if (padded.length <= 10 && store.find(route.path, [padded, ...rest])) return echo(padded);
  }
  return undefined;
}

/** The 404 of a well-formed IBAN: of a country whose banks the service does not hold, or with a bank code no bank has. */
function ibanNotFound(key: string, given: string): ServiceError {
  const [country = '', code] = key.toUpperCase().split('-');
  if (code === undefined) {
    return new ServiceError(
      'ERR_NOT_FOUND',
      `No bank for IBAN ${echo(given)}: it is an IBAN of ${country}, and the service holds the banks of Türkiye only (IBANs that start with TR).`,
    );
  }
  return new ServiceError(
    'ERR_NOT_FOUND',
    `No bank has code ${code}, the bank code in IBAN ${echo(given)}: check the IBAN, or list ${country}'s banks with bank/getbycountryid.`,
  );
}

/** Where a client finds the subdivisions that have holidays of their own. */
const regionalListHint = '/docs names the countries whose subdivisions have them';

/** `a, b and c`. */
const listed = (items: readonly string[]): string => (items.length < 2 ? items.join('') : `${items.slice(0, -1).join(', ')} and ${items.at(-1)}`);

/** The operations of each resource (`country`), under its path (`/addressmanagement/api/country/`), from the route table. */
const resources = new Map<string, { readonly base: string; readonly operations: string[] }>();
/** The resources under each area's path (`/financemanagement/api/`). */
const resourcesByArea = new Map<string, string[]>();
for (const route of routes) {
  const { area, resource, operation } = routeParts(route);
  const known = resources.get(resource);
  if (known) {
    known.operations.push(operation);
    continue;
  }
  resources.set(resource, { base: `/${area}/api/${resource}/`, operations: [operation] });
  const areaPath = `/${area}/api/`;
  resourcesByArea.set(areaPath, [...(resourcesByArea.get(areaPath) ?? []), resource]);
}

/** What a path naming no resource is told: every resource, by the path it is under. */
const everyResource = [...resourcesByArea].map(([areaPath, names]) => `${listed(names)} under ${areaPath}`).join('; ');

const documentation = 'Every operation, with its parameters and an example, is at /docs and in /openapi.json.';

/**
 * The refusal of a path that names no operation, download, probe or file: the operations of the
 * resource it names (any segment, in any letter case, so that a wrong area or a missing one is
 * caught too), else every resource.
 */
export function noOperation(pathname: string): ServiceError {
  const named = pathname
    .toLowerCase()
    .split('/')
    .find((segment) => resources.has(segment));
  const resource = named === undefined ? undefined : resources.get(named);
  const known = resource
    ? `${named} has ${listed(resource.operations)} (${resource.base}<operation>).`
    : `paths look like /addressmanagement/api/country/getall; the resources are ${everyResource}.`;
  return new ServiceError('ERR_NO_OPERATION', `No operation at ${echo(pathname)}: ${known} ${documentation}`);
}

/**
 * The OpenAPI 3.1 document, generated at build from the route table (contract/routes.ts) and the zod
 * record schemas, and written to dist/openapi.json beside the bodies; /docs shows it. Every row of
 * the route table is an operation with its exact parameter names, each with an example that is a
 * real key of this build (examples.ts), and every status the proxy really gives for it is a
 * documented response (test/system/openapi.test.ts holds the proxy to it).
 */
import { countriesStatesCitiesAttribution, geonamesAttribution } from '../../contract/recordTypes.ts';
import { clientErrorCodes } from '../../contract/errorCodes.ts';
import { searchLimit } from '../../contract/search.ts';
import packageJson from '../../package.json' with { type: 'json' };
import { routes, type Route, routeParts } from '../../contract/routes.ts';
import { labelOf } from '../../contract/recordTypes.ts';
import { recordDefinitions } from '../records/recordTypes.ts';
import { components, envelope, failure, foundResponseName, headerRefs, ref, tokenSources, type JsonObject } from './components.ts';
import { formatParameter, queryParameter } from './parameters.ts';
import { languageParameter } from './languageParameter.ts';
import { downloadPaths, mirroringTag } from './downloads.ts';
import { pickExamples, type ParameterExamples } from './examples.ts';
import type { Dataset } from '../validate.ts';

export interface OpenApiOptions {
  /** The years holiday and special-day operations answer (data/build.json). */
  readonly holidayYears: { readonly first: number; readonly last: number };
  /** The build's validated records, which the parameters' examples are taken from. */
  readonly dataset: Dataset;
  /** The year the build runs in, for the example year (moved into holidayYears when outside it). */
  readonly currentYear: number;
}

/** What the operations are written from: the options, and the examples picked from the dataset. */
interface OperationContext {
  readonly holidayYears: OpenApiOptions['holidayYears'];
  readonly examples: ParameterExamples;
  /** The countries (alpha-2) some of whose subdivisions have holidays of their own, in this build. */
  readonly regionalCountries: readonly string[];
}

/** The alpha-2 codes of the countries with subdivisions that have holidays of their own. */
function regionalCountriesOf(dataset: Dataset): string[] {
  const countries = new Map(dataset.records.get('country')?.map((country) => [country.id, String(country.alpha2Code)]));
  const states = new Map(dataset.records.get('stateProvince')?.map((state) => [state.id, countries.get(String(state.countryId))]));
  const days = [...(dataset.records.get('stateProvinceHoliday') ?? []), ...(dataset.records.get('stateProvinceSpecialDay') ?? [])];
  const codes = new Set(days.flatMap((day) => states.get(String(day.stateProvinceId)) ?? []));
  return [...codes].sort();
}

/**
 * What the answers may be used under: the code is MIT, the data keeps its sources' licences
 * (data/SOURCES.md), stated in the document and on the docs page so that a client knows.
 */
const licenceText = `**Licences.** The service's code is MIT-licensed. The data keeps its sources' licences: country
and region records (and the bodies built from them) are under the Open Database License 1.0
(from world-countries); populations under CC BY 4.0 (World Bank) and CC BY 3.0 IGO (UN World
Population Prospects); states and provinces under LGPL-2.1-or-later (Debian iso-codes); web domains
under MPL-2.0 (the Public Suffix List); languages, currencies and some populations under the Unicode
License v3 (CLDR); holidays under MIT (python-holidays). Districts, neighbourhoods and postal codes
outside Türkiye: ${geonamesAttribution}; districts also ${countriesStatesCitiesAttribution}, so the
district export is offered under the ODbL 1.0 (share-alike); each export's entry of /exports/ states its
terms. The project's data/SOURCES.md lists every source with its version and what was taken.`;

/** The same, as an SPDX expression (OpenAPI info.license.identifier). */
const licenceExpression = 'MIT AND ODbL-1.0 AND CC-BY-4.0 AND CC-BY-3.0-IGO AND LGPL-2.1-or-later AND MPL-2.0 AND Unicode-3.0';

const description = `Read-only lookups of finance reference data (banks, currencies) and address reference data
(countries, regions, states and provinces, districts, neighbourhoods with postal codes, calling codes,
languages, time zones, web domains, holidays and special days).

${tokenSources} "Authorize" takes it for "Try it out".

Every lookup is a \`GET\` (\`HEAD\` answers the same headers without a body) with
\`Authorization: Bearer <token>\`, and every answer, failures included, is one JSON envelope:
\`{"header":{"globalId":"…","isSuccess":true,"message":null},"body":…}\`. A failure has
\`isSuccess: false\`, \`body: null\` and a \`message\` saying what was wrong and how to fix it.

Paths and parameter names match in any letter case; one trailing slash is ignored; unknown
parameters are ignored; every parameter an operation lists is required unless it says it is
optional. Answers carry a strong
\`ETag\`: send it back in \`If-None-Match\` to get \`304 Not Modified\`. Bodies are compressed (br,
gzip) when the client accepts it. \`OPTIONS\` answers CORS preflights without a token.

${licenceText}`;

/** `country` from `/addressmanagement/api/country/getall`. */
const resourceOf = (route: Route): string => routeParts(route).resource;
const operationOf = (route: Route): string => routeParts(route).operation;
const areaOf = (route: Route): string => routeParts(route).area;

/** A list with a file for every possible key ([] when empty): only origin mode can answer 404. */
const alwaysAnswered = (route: Route): boolean => route.shape === 'list' && !route.parent && route.params.every((param) => param.kind === 'boolean');

function summaryOf(route: Route): string {
  if (route.document === 'workCalendar') return 'The work calendar of a country, or of one of its subdivisions, for a year';
  const label = labelOf(route.record);
  const names = route.params.map((param) => param.name).join(' and ');
  const without = route.omit?.length ? ` (without ${route.omit.join(', ')})` : '';
  if (route.params.length === 0) return `Every ${label} record${without}`;
  return route.shape === 'single' ? `The ${label} with this ${names}` : `The ${label} records with this ${names}${without}`;
}

function descriptionOf(route: Route, { holidayYears, regionalCountries }: OperationContext): string {
  const label = labelOf(route.record);
  const lines = [
    route.document === 'workCalendar'
      ? "The body is a work calendar: the weekend, and every day that is not an ordinary working day (public holidays, bank holidays, half days, days off for some workers, weekend days worked), the subdivision's own beside the country's. A subdivision that no source gives holidays of its own answers 404."
      : route.shape === 'single'
        ? `The body is one ${label} record.`
        : `The body is an array of ${label} records, in data order.`,
  ];
  if (route.parent && route.shape === 'list') {
    const parent = labelOf(route.parent.record);
    lines.push(
      route.parent.where
        ? `Only a ${parent} that a source gives holidays of its own is answered (\`[]\` in a year without any); any other answers 404.`
        : `A ${parent} that exists but has none answers \`[]\`; an unknown ${parent} answers 404.`,
    );
  }
  if (route.parent?.where !== undefined || route.params.some((param) => param.optional && param.names === 'stateProvince'))
    lines.push(`Subdivisions with holidays of their own (python-holidays' subdivisions, by ISO 3166-2 code) are those of ${regionalCountries.join(', ')}.`);
  if (route.params.some((param) => param.kind === 'year'))
    lines.push(`Years ${holidayYears.first} to ${holidayYears.last} exist; another year answers 404 naming the window.`);
  const aliased = route.params.some((param) => (param.aliasFields?.length ?? 0) > 0) ? recordDefinitions[route.record].words?.otherNames : undefined;
  if (route.search) {
    lines.push(
      `A prefix search, from the ${route.search.minLength === 1 ? 'first' : 'second'} character: the records one of whose names${aliased ? ` (${aliased.searched})` : ''}, or a word of one, starts with \`${route.params[0]?.name}\`, folded as every name lookup folds it; at most ${searchLimit}, ranked: a whole name equal to it, then a name that starts with it, then a word that does; then ${route.search.prominence ? 'by population, largest first, then ' : ''}by name in Unicode's root collation. No match is \`[]\`, not a 404; a shorter query is a 400 saying how many characters more to type.`,
    );
  } else if (aliased) {
    lines.push(aliased.found);
  }
  if (route.params.some((param) => param.kind === 'name') && route.shape === 'single') {
    lines.push(`When several records fold to one name, ${aliased?.rule ?? 'the first in data order wins'}. manifest.json lists every such name.`);
  }
  if (route.omit?.length) lines.push(`Items carry no ${route.omit.join(', ')}: the single lookups do.`);
  if (route.extension) lines.push(`**Extension**: not in the reference-data API specification; offered because ${route.extension}.`);
  if (route.languages) {
    lines.push(
      `**Extension**: the names come in the country's own language or in English (\`${route.languages.param}\`, else Accept-Language; without either, the own, unchanged), with Content-Language and \`Vary: Accept-Language\`. A country without English names answers its own for \`${route.languages.alwaysAnswered}\`.`,
    );
  }
  return lines.join(' ');
}

function notFoundOf(route: Route, { holidayYears }: OperationContext): JsonObject {
  const origin = 'in origin mode, the origin has no body for this lookup while it switches builds';
  if (alwaysAnswered(route)) return failure(`Only ${origin}.`);
  const [first] = route.params;
  if (route.search) {
    const scopes = route.params.slice(1).map((param) => `no ${param.field.replace(/Id$/, '')} has this ${param.name}`);
    return failure(`${scopes.length > 0 ? `${scopes.join('; ')}; or, ` : 'Only '}${origin}.`);
  }
  const causes = [
    route.parent && first
      ? `No ${labelOf(route.parent.record)} has this ${first.name}`
      : `No ${labelOf(route.record)} has this ${route.params.map((param) => param.name).join(' and ')}`,
  ];
  if (route.params.some((param) => param.kind === 'year')) causes.push(`the year is outside ${holidayYears.first} to ${holidayYears.last}`);
  return failure(`${causes.join('; ')}; or, ${origin}.`);
}

/** A lookup's query parameters, each with its example: a key this build answers 200 for. */
function queryParameters(route: Route, { holidayYears, examples }: OperationContext): JsonObject[] {
  return route.params.map((param, position) => {
    const example = examples(route, position);
    return { ...queryParameter(route, param, holidayYears), ...(example === undefined ? {} : { example }) };
  });
}

function lookupOperation(route: Route, context: OperationContext): JsonObject {
  return {
    tags: [resourceOf(route)],
    operationId: `${resourceOf(route)}-${operationOf(route)}`,
    summary: summaryOf(route),
    description: descriptionOf(route, context),
    ...(route.extension ? { 'x-extension': true } : {}),
    parameters: [
      ...queryParameters(route, context),
      ...(route.languages ? [languageParameter(route.languages)] : []),
      ...(route.formats ? [formatParameter(route.formats)] : []),
      ...commonHeaderParameters,
      ref('parameters', 'IfNoneMatch'),
      ...(route.languages ? [ref('parameters', 'AcceptLanguage')] : []),
    ],
    responses: {
      200: ref('responses', foundResponseName(route)),
      304: ref('responses', 'NotModified'),
      400: ref('responses', route.params.length > 0 ? 'BadParameter' : 'BadAuthorization'),
      ...responsesFor([401, 'Unauthorized'], [403, 'Forbidden']),
      404: notFoundOf(route, context),
      ...responsesFor([429, 'TooManyRequests'], [503, 'Unavailable']),
      default: ref('responses', 'OtherFailure'),
    },
  };
}

function responsesFor(...pairs: [number, string][]): JsonObject {
  return Object.fromEntries(pairs.map(([status, name]) => [status, ref('responses', name)]));
}

/** The request headers every operation reads, beside its own parameters. */
const commonHeaderParameters = [ref('parameters', 'XRequestId'), ref('parameters', 'Traceparent')];

/** What the service endpoints' bodies are, by their schema's name. */
const serviceBodies: Readonly<Record<string, string>> = {
  Index: 'The service, the build it serves, and where the documentation and the probes are.',
  BuildInfo: 'The service version and the build being served.',
  Liveness: 'That the process answers.',
  Readiness: 'That a build is loaded, and which.',
};

/** /, /healthz, /readyz (no token) and /meta (a token, for the key set's 503 too): the envelope, never cached. */
function serviceOperation(operationId: string, summary: string, description: string, body: string, secured: boolean): JsonObject {
  return {
    tags: ['service'],
    operationId,
    summary,
    description,
    parameters: commonHeaderParameters,
    ...(secured ? {} : { security: [] }),
    responses: {
      200: {
        description: 'OK.',
        headers: headerRefs({
          'Cache-Control': 'CacheControlNoStore',
          'X-Request-Id': 'RequestId',
          ...(secured ? { 'RateLimit-Policy': 'RateLimitPolicy', RateLimit: 'RateLimit' } : {}),
        }),
        content: { 'application/json': { schema: envelope(ref('schemas', body), serviceBodies[body] ?? summary) } },
      },
      400: ref('responses', secured ? 'BadAuthorization' : 'Unparsable'),
      ...(secured ? responsesFor([401, 'Unauthorized'], [429, 'TooManyRequests'], [503, 'Unavailable']) : {}),
      default: ref('responses', 'OtherFailure'),
    },
  };
}

/** /openapi.json and /docs: served as they are, without a token, cacheable by anyone. */
function publicFileOperation(operationId: string, summary: string, description: string, mediaType: string): JsonObject {
  return {
    tags: ['service'],
    operationId,
    summary,
    description,
    parameters: [...commonHeaderParameters, ref('parameters', 'IfNoneMatch')],
    security: [],
    responses: {
      200: {
        description: 'The file.',
        headers: headerRefs({ ETag: 'PublicETag', 'Cache-Control': 'CacheControlPublic', 'X-Request-Id': 'RequestId' }),
        content: { [mediaType]: { schema: mediaType === 'application/json' ? { type: 'object' } : { type: 'string' } } },
      },
      304: {
        description: 'Unchanged: no body.',
        headers: headerRefs({ ETag: 'PublicETag', 'Cache-Control': 'CacheControlPublic', 'X-Request-Id': 'RequestId' }),
      },
      400: ref('responses', 'Unparsable'),
      503: ref('responses', 'Unavailable'),
      default: ref('responses', 'OtherFailure'),
    },
  };
}

/** The paths beside the lookups, in the document's order: the index, /meta, the downloads, the probes, this document and its page. */
function servicePaths(): JsonObject {
  return {
    '/': {
      get: serviceOperation(
        'service-index',
        'Where to start',
        'The service, the build it serves, and where the documentation and the probes are. No token needed.',
        'Index',
        false,
      ),
    },
    '/meta': {
      get: serviceOperation(
        'service-meta',
        'The service version and the build being served: id, time, data version, record counts, holiday years',
        'What an authenticated client is talking to: compare `dataVersion` with the X-Data-Version of answers.',
        'BuildInfo',
        true,
      ),
    },
    ...downloadPaths(),
    '/healthz': {
      get: serviceOperation(
        'service-healthz',
        'Liveness: the process answers',
        'For orchestrators: 200 while the process runs. No token needed.',
        'Liveness',
        false,
      ),
    },
    '/readyz': {
      get: serviceOperation(
        'service-readyz',
        'Readiness: a build is loaded',
        'For load balancers: 200 once a build is loaded, with its id; 503 once the process has begun to stop (SIGTERM), while it still answers everything else for SHUTDOWN_DELAY_MS. No token needed.',
        'Readiness',
        false,
      ),
    },
    '/openapi.json': {
      get: publicFileOperation(
        'service-openapi',
        'This document',
        'The OpenAPI 3.1 document of this build, for client generators. No token needed.',
        'application/json',
      ),
    },
    '/docs': {
      get: publicFileOperation(
        'service-docs',
        'This documentation as a page (Swagger UI); its assets are under /docs/',
        'The documentation page, served with the build. No token needed.',
        'text/html',
      ),
    },
  };
}

export function buildOpenApiDocument({ holidayYears, dataset, currentYear }: OpenApiOptions): JsonObject {
  const context: OperationContext = {
    holidayYears,
    examples: pickExamples(dataset, { holidayYears, currentYear }),
    regionalCountries: regionalCountriesOf(dataset),
  };
  const paths: JsonObject = {};
  const tags = new Map<string, string>();
  for (const route of routes) {
    paths[route.path] = { get: lookupOperation(route, context) };
    const resource = resourceOf(route);
    if (!tags.has(resource)) tags.set(resource, `${labelOf(route.record)} records (${areaOf(route)})${route.extension ? ', an extension' : ''}`);
  }
  Object.assign(paths, servicePaths());
  return {
    openapi: '3.1.1',
    info: {
      title: 'Reference data API',
      version: packageJson.version,
      description,
      contact: { name: 'The operators of this service' },
      license: { name: "The code MIT; the data under its sources' licences (see the description)", identifier: licenceExpression },
      // Every code a failure can carry in X-Error-Code, with its status and meaning: a public contract (docs/api.md, "Error codes").
      'x-error-codes': clientErrorCodes(),
    },
    servers: [{ url: '/', description: 'The service that serves this document.' }],
    tags: [
      ...[...tags].map(([name, text]) => ({ name, description: text.charAt(0).toUpperCase() + text.slice(1) })),
      { name: 'service', description: 'Probes, build information and this documentation.' },
      mirroringTag,
    ],
    security: [{ bearer: [] }],
    paths,
    components: components(),
  };
}

/**
 * The reusable parts of the OpenAPI document (see document.ts): record schemas from the zod schemas,
 * the envelope, response headers, the responses every operation shares, and the request headers;
 * the query parameters are written in each operation (parameters.ts), with its own example.
 * Values the proxy sends (Cache-Control, the challenge's realm, the ETag form) come from the
 * proxy's own modules, so the document cannot drift from what it answers.
 */
import { clientErrorCodes } from '../../contract/errorCodes.ts';
import { z } from 'zod';
import { manifestEntrySchema, manifestSchema } from '../../contract/manifest.ts';
import { recordTypes, routes, type RecordType, type Route } from '../../contract/routes.ts';
import { labelOf } from '../../contract/recordTypes.ts';
import { allowedMethods, cacheControl, noStore, publicCacheControl, realm } from '../../contract/http.ts';
import { acceptLanguageParameter, languageHeaders } from './languageParameter.ts';
import { recordDefinitions, shownFields } from '../records/recordTypes.ts';
import { workCalendarSchema } from '../records/schemas.ts';

export type JsonObject = Record<string, unknown>;

export const ref = (section: string, name: string): JsonObject => ({ $ref: `#/components/${section}/${name}` });

export function jsonSchemaOf(schema: z.ZodType): JsonObject {
  const { $schema: _dialect, ...rest } = z.toJSONSchema(schema, { target: 'draft-2020-12', io: 'output' }) as JsonObject;
  return rest;
}

/** The properties of an object schema, or of the objects it holds: in a list, as a map's values, or as one choice of several (nullable). */
function propertiesOf(schema: JsonObject | undefined): Record<string, JsonObject> | undefined {
  if (schema === undefined) return undefined;
  if (typeof schema.properties === 'object') return schema.properties as Record<string, JsonObject>;
  const inner = [schema.items, schema.additionalProperties, ...((schema.anyOf as unknown[] | undefined) ?? [])];
  for (const candidate of inner) {
    const found = typeof candidate === 'object' && candidate !== null ? propertiesOf(candidate as JsonObject) : undefined;
    if (found) return found;
  }
  return undefined;
}

/**
 * A JSON schema with descriptions given to its properties, by path (\`holidayYears.first\`), for the
 * schemas the contract states for both sides without them (the manifest's, the downloads'). A path
 * that names no property stops the build, so a renamed field cannot lose its description unseen.
 */
export function withDescriptions(schema: JsonObject, descriptions: Readonly<Record<string, string>>): JsonObject {
  const described = structuredClone(schema);
  for (const [path, description] of Object.entries(descriptions)) {
    let property: JsonObject | undefined = described;
    for (const name of path.split('.')) property = propertiesOf(property)?.[name];
    if (property === undefined) throw new Error(`openapi: no property ${path} to describe`);
    property.description = description;
  }
  return described;
}

const pascal = (name: string): string => name.charAt(0).toUpperCase() + name.slice(1);

/** The schema name of a route's records: `Country`, or `CountryWithoutFlag` where the route omits fields. */
export function recordSchemaName(route: Route): string {
  if (route.document) return pascal(route.document);
  return (
    pascal(route.record) +
    (route.omit?.length ? `Without${route.omit.map(pascal).join('And')}` : '') +
    (route.reveal?.length ? `With${route.reveal.map(pascal).join('And')}` : '')
  );
}

/** Every identifier field has this one schema, so it is written once and referred to, with what each one identifies. */
const { description: _idDescription, ...idSchema } = (jsonSchemaOf(recordDefinitions.region.schema.pick({ id: true })) as { properties: { id: JsonObject } })
  .properties.id;
const idJson = JSON.stringify(idSchema);

function withIdRef(property: JsonObject): JsonObject {
  const { description, ...form } = property;
  return JSON.stringify(form) === idJson ? { ...ref('schemas', 'Id'), description } : property;
}

/** A record as bodies show it (shownFields). */
function recordSchema(type: RecordType, omit: readonly string[], reveal: readonly string[] = []): JsonObject {
  const json = jsonSchemaOf(recordDefinitions[type].schema) as JsonObject & { properties: Record<string, JsonObject>; required: string[] };
  const fields = new Set(shownFields(type, omit, reveal));
  const shown = (field: string): boolean => fields.has(field);
  const properties = Object.entries(json.properties)
    .filter(([field]) => shown(field))
    .map(([field, property]) => [field, withIdRef(property)]);
  const without = omit.length > 0 ? ` (without ${omit.join(', ')})` : reveal.length > 0 ? ` (with ${reveal.join(', ')})` : '';
  return {
    ...json,
    description: `A ${labelOf(type)} record${without}.`,
    properties: Object.fromEntries(properties),
    required: json.required.filter(shown),
  };
}

const uuid = { type: 'string', format: 'uuid' };
const globalId = {
  ...uuid,
  description: "This response's id (a UUID), new for every response; a UUID the client sends as X-Request-Id becomes it. Quote it when reporting a problem.",
};
const failureHeader = {
  type: 'object',
  description: 'What went wrong.',
  required: ['globalId', 'isSuccess', 'message'],
  additionalProperties: false,
  properties: {
    globalId,
    isSuccess: { const: false, description: 'false: the request failed, and the body is null.' },
    message: {
      type: 'string',
      minLength: 1,
      description: 'What was wrong and how to fix it, in English, for a developer to read; a client branches on the X-Error-Code header instead.',
    },
  },
};

/** /meta: the build's facts, from the manifest's schema, and the service's version. */
const buildInfoDescriptions = {
  buildId: 'The build being served: its UTC time to the second and six random hex digits (20261123T172132Z-56f99d). /meta/changes?since= takes it.',
  builtAt: 'When the build was made (ISO 8601, UTC).',
  dataVersion:
    'A hash of the data the build read: the X-Data-Version of every answer. The same data gives the same version, so a client may keep what it fetched while this is unchanged.',
  counts: 'How many records of each type the build holds, by record type (country: 249).',
  holidayYears:
    'The years the holiday, special-day and work-calendar lookups answer, both included: the bounds of their Year parameter. Another year answers 404.',
  'holidayYears.first': 'The first year held.',
  'holidayYears.last': 'The last year held.',
};

function schemas(): JsonObject {
  const records = Object.fromEntries(recordTypes.map((type) => [pascal(type), recordSchema(type, [])]));
  for (const route of routes)
    if (route.omit?.length || route.reveal?.length) records[recordSchemaName(route)] = recordSchema(route.record, route.omit ?? [], route.reveal);
  records.WorkCalendar = {
    ...jsonSchemaOf(workCalendarSchema),
    description: 'A work calendar: a year of the days that are not ordinary working days, and the weekend.',
  };
  return {
    Id: { ...idSchema, description: 'A record identifier: a UUID this service gives the record (lower case), kept across data imports.' },
    SuccessHeader: {
      type: 'object',
      description: 'About the response: its id, and that it succeeded.',
      required: ['globalId', 'isSuccess', 'message'],
      additionalProperties: false,
      properties: {
        globalId,
        isSuccess: { const: true, description: 'true: the body is the answer.' },
        message: { type: 'null', description: 'null on a success; a failure carries its message here.' },
      },
    },
    FailureEnvelope: {
      type: 'object',
      required: ['header', 'body'],
      additionalProperties: false,
      properties: { header: failureHeader, body: { type: 'null', description: 'null: a failure has no answer.' } },
    },
    BuildInfo: withDescriptions(
      jsonSchemaOf(
        manifestSchema.pick({ buildId: true, builtAt: true, dataVersion: true, counts: true, holidayYears: true }).extend({
          version: z
            .string()
            .regex(/^\d+\.\d+\.\d+$/)
            .describe("The service's version (semver); CHANGELOG.md says what each changed."),
        }),
      ),
      buildInfoDescriptions,
    ),
    Liveness: {
      type: 'object',
      required: ['status'],
      additionalProperties: false,
      properties: { status: { const: 'live', description: 'live: the process answers.' } },
    },
    Readiness: {
      type: 'object',
      required: ['status', 'buildId'],
      additionalProperties: false,
      properties: {
        status: { const: 'ready', description: 'ready: a build is loaded and the process is not stopping.' },
        buildId: { type: 'string', minLength: 1, description: 'The build this process serves (the buildId of /meta).' },
      },
    },
    Index: {
      type: 'object',
      required: ['service', 'buildId', 'dataVersion', 'documentation', 'openapi', 'health', 'readiness'],
      additionalProperties: false,
      properties: {
        service: { type: 'string', minLength: 1, description: "The service's name." },
        buildId: { type: 'string', minLength: 1, description: 'The build being served (the buildId of /meta).' },
        dataVersion: { type: 'string', minLength: 1, description: 'A hash of the data the build read: the X-Data-Version of every answer.' },
        documentation: { const: '/docs', description: 'This documentation as a page.' },
        openapi: { const: '/openapi.json', description: 'This OpenAPI document.' },
        health: { const: '/healthz', description: 'The liveness probe.' },
        readiness: { const: '/readyz', description: 'The readiness probe.' },
      },
    },
    ...records,
  };
}

const header = (description: string, schema: JsonObject, required = true): JsonObject => ({ description, required, schema });

function headers(): JsonObject {
  return {
    ETag: header('A strong validator of the body: send it in If-None-Match to get 304 while it is unchanged.', jsonSchemaOf(manifestEntrySchema.shape.etag)),
    CacheControl: header('Lookups are token-gated: no shared cache may keep them; a client may reuse one for a minute.', { const: cacheControl }),
    CacheControlPublic: header(`\`${publicCacheControl}\`: anyone may cache the documentation for five minutes.`, { const: publicCacheControl }, false),
    PublicETag: header(
      'A strong validator of the file: send it in If-None-Match to get 304 while it is unchanged.',
      jsonSchemaOf(manifestEntrySchema.shape.etag),
    ),
    CacheControlNoStore: header('Failures and service endpoints are never cached.', { const: noStore }),
    DataVersion: header('A hash of the data the answer was built from: it changes with every data import.', { type: 'string', minLength: 1 }),
    AmbiguousMatches: header(
      'Extension: on a lookup by name that several records share, how many there are; the answer is the one the ambiguity rule chooses, and `getallbyname` lists them all. Absent where the name names one record.',
      { type: 'integer', minimum: 2 },
      false,
    ),
    RequestId: header(
      'The X-Request-Id the client sent (a UUID one is also the globalId), or else header.globalId of the envelope: quote it when reporting a problem.',
      { type: 'string', minLength: 1, maxLength: 128 },
    ),
    WWWAuthenticate: header(`The RFC 6750 challenge: Bearer realm="${realm}", with error and error_description when a token was given.`, {
      type: 'string',
      pattern: '^Bearer realm=',
    }),
    ErrorCode: header("The failure's stable code, to branch on (`info.x-error-codes` lists each).", {
      type: 'string',
      enum: clientErrorCodes().map(({ code }) => code),
    }),
    AllowOptional: header('On a 405: the methods the service answers.', { const: allowedMethods }, false),
    RetryAfter: header('Seconds to wait before retrying, when the cause is expected to pass.', { type: 'string', pattern: '^[0-9]+$' }, false),
    RetryAfterLimited: header('Seconds until the spent budget has room again.', { type: 'string', pattern: '^[1-9][0-9]*$' }),
    // draft-ietf-httpapi-ratelimit-headers-10 §3 and §4.
    RateLimitPolicy: header(
      'When a budget applies (RATE_LIMIT per token, "token"; an API key\'s own budget, "key"; AUTH_FAILURE_LIMIT per address on a 401 or 429, "failedauth"): the policy, its quota q and its window w in seconds (draft-ietf-httpapi-ratelimit-headers).',
      { type: 'string', pattern: '^"(token|key|failedauth)";q=[0-9]+;w=[0-9]+$' },
      false,
    ),
    RateLimit: header(
      'When a budget applies: the policy, the requests remaining r and the seconds t until the window ends.',
      { type: 'string', pattern: '^"(token|key|failedauth)";r=[0-9]+;t=[0-9]+$' },
      false,
    ),
    ...languageHeaders(header),
    // Absent when Node's HTTP parser refused the request (400), or the origin answered (documentation in origin mode).
    WWWAuthenticateOptional: header(
      'When the Authorization header is malformed: error="invalid_request".',
      { type: 'string', pattern: '^Bearer realm=' },
      false,
    ),
  };
}

/** Headers by their HTTP names, from the components above. */
export const headerRefs = (names: Readonly<Record<string, string>>): JsonObject =>
  Object.fromEntries(Object.entries(names).map(([name, component]) => [name, ref('headers', component)]));

/** A failure: the failure envelope, the usual headers of a failure, and any extra ones. */
export function failure(description: string, extra: Readonly<Record<string, string>> = {}, fromListener = true): JsonObject {
  const usual = fromListener ? headerRefs({ 'Cache-Control': 'CacheControlNoStore', 'X-Request-Id': 'RequestId', 'X-Error-Code': 'ErrorCode' }) : {};
  return {
    description,
    ...(fromListener || Object.keys(extra).length > 0 ? { headers: { ...usual, ...headerRefs(extra) } } : {}),
    content: { 'application/json': { schema: ref('schemas', 'FailureEnvelope') } },
  };
}

/** A 400, also the answer to a malformed request (docs/api.md, "Malformed requests"), which closes the connection. */
function badRequest(causes: string): JsonObject {
  return {
    description: `${causes}; or a malformed request (no or two Host headers, no HTTP version, a bare LF, a GET with a body, a broken header), answered with Connection: close.`,
    headers: headerRefs({
      'Cache-Control': 'CacheControlNoStore',
      'X-Request-Id': 'RequestId',
      'X-Error-Code': 'ErrorCode',
      'WWW-Authenticate': 'WWWAuthenticateOptional',
    }),
    content: { 'application/json': { schema: ref('schemas', 'FailureEnvelope') } },
  };
}

/** The success envelope around a body, which `answer` says what it is. */
export function envelope(body: JsonObject, answer: string): JsonObject {
  return {
    type: 'object',
    required: ['header', 'body'],
    additionalProperties: false,
    properties: {
      header: { ...ref('schemas', 'SuccessHeader'), description: 'About the response: its id, and that it succeeded.' },
      body: { ...body, description: answer },
    },
  };
}

/** The name of a lookup's 200 response: `Bank`, `BankList`, `CountryWithoutFlagList`. */
export const foundResponseName = (route: Route): string => recordSchemaName(route) + (route.shape === 'list' ? 'List' : '');

/** What a lookup's 200 and 304 carry (and any JSON answered like a lookup). */
export const lookupHeaders = {
  ETag: 'ETag',
  'Cache-Control': 'CacheControl',
  'X-Data-Version': 'DataVersion',
  'X-Request-Id': 'RequestId',
  'RateLimit-Policy': 'RateLimitPolicy',
  RateLimit: 'RateLimit',
};

/** One 200 response per record schema and shape the route table uses. */
function foundResponses(): JsonObject {
  const found = routes.map((route): [string, JsonObject] => {
    const record = ref('schemas', recordSchemaName(route));
    const calendar = route.formats?.includes('ics')
      ? {
          'text/calendar': {
            schema: {
              type: 'string',
              description: 'With `format=ics`: RFC 5545 iCalendar, one all-day VEVENT per day, without the envelope and without a token.',
            },
          },
        }
      : {};
    return [
      foundResponseName(route),
      {
        description: route.document
          ? `Found: a ${route.document === 'workCalendar' ? 'work calendar' : route.document}.`
          : route.shape === 'list'
            ? `Found: an array of ${labelOf(route.record)} records.`
            : `Found: one ${labelOf(route.record)} record.`,
        headers: headerRefs(
          route.languages
            ? { ...lookupHeaders, 'Content-Language': 'ContentLanguage', Vary: 'VaryLanguage' }
            : route.shape === 'single'
              ? { ...lookupHeaders, 'X-Ambiguous-Matches': 'AmbiguousMatches' }
              : lookupHeaders,
        ),
        content: {
          'application/json': {
            schema: envelope(
              route.shape === 'list' ? { type: 'array', items: record } : record,
              route.document
                ? 'The work calendar.'
                : route.shape === 'list'
                  ? `The ${labelOf(route.record)} records found, ${route.search ? 'best first' : 'in data order'}.`
                  : `The ${labelOf(route.record)} found.`,
            ),
          },
          ...calendar,
        },
      },
    ];
  });
  return Object.fromEntries(found);
}

function responses(): JsonObject {
  return {
    ...foundResponses(),
    BadParameter: badRequest(
      'A query parameter is missing, malformed or repeated (the message names it and the form expected); for holidays and special days, a language the country has no names in (the message names those it has); or a malformed Authorization header (error="invalid_request")',
    ),
    BadAuthorization: badRequest('A malformed Authorization header (error="invalid_request")'),
    Unparsable: badRequest('Never for this endpoint itself'),
    NotModified: {
      description: 'The body named in If-None-Match is still current: no body.',
      headers: headerRefs(lookupHeaders),
    },
    Unauthorized: failure(
      'No token (the challenge carries no error), or a token that is not accepted: not an API key, a JWT with a bad signature, expired, not yet valid, of another issuer or audience (error="invalid_token"). An invalid token counts against the address\'s budget (AUTH_FAILURE_LIMIT), shown in the "failedauth" RateLimit fields.',
      {
        'WWW-Authenticate': 'WWWAuthenticate',
        'RateLimit-Policy': 'RateLimitPolicy',
        RateLimit: 'RateLimit',
      },
    ),
    TooManyRequests: failure(
      'A budget is spent: the token\'s requests (RATE_LIMIT, policy "token"), or the invalid tokens from this address (AUTH_FAILURE_LIMIT, policy "failedauth"; then no token is checked, except one accepted before). Retry after Retry-After seconds.',
      { 'Retry-After': 'RetryAfterLimited', 'RateLimit-Policy': 'RateLimitPolicy', RateLimit: 'RateLimit' },
    ),
    Forbidden: failure('The token lacks the scope this area requires (error="insufficient_scope"), or is a key bound to other web origins (ERR_KEY_ORIGIN).', {
      'WWW-Authenticate': 'WWWAuthenticate',
    }),
    OtherFailure: failure(
      'Any other refusal, each in the envelope with a message that says what to change: 405 a method other than GET, HEAD and OPTIONS (with Allow); 408 a request not completed in time (headers within 10 s, the whole request within 30 s); 417 an Expect other than 100-continue; 431 a request line and headers over 16 KiB; 505 an HTTP major version other than 1; and in origin mode 502 (the origin unreachable or wrong) and 504 (the origin too slow).',
      { Allow: 'AllowOptional' },
    ),
    Unavailable: failure(
      "Tokens cannot be verified because the identity provider's key set is unreachable (fail closed), the origin is switching builds, or a body file the build lists could not be read.",
      {
        'Retry-After': 'RetryAfter',
      },
    ),
  };
}

/** The request headers every operation reads (document.ts adds If-None-Match where answers carry an ETag). */
function headerParameters(): JsonObject {
  return {
    AcceptLanguage: acceptLanguageParameter,
    IfNoneMatch: {
      name: 'If-None-Match',
      in: 'header',
      required: false,
      description: 'The ETag of an answer the client holds: `304 Not Modified`, without a body, while it is current.',
      schema: { type: 'string', minLength: 1 },
    },
    XRequestId: {
      name: 'X-Request-Id',
      in: 'header',
      required: false,
      description:
        "The client's id for this request (up to 128 of letters, digits and `._:/+=@-`): echoed in the answer's X-Request-Id and logged; a UUID also becomes the envelope's globalId.",
      schema: { type: 'string', maxLength: 128, pattern: '^[A-Za-z0-9._:/+=@-]+$' },
    },
    Traceparent: {
      name: 'traceparent',
      in: 'header',
      required: false,
      description: 'W3C Trace Context: the trace this request belongs to; its trace and parent ids are logged with the request.',
      schema: { type: 'string', pattern: '^[0-9a-f]{2}-[0-9a-f]{32}-[0-9a-f]{16}-[0-9a-f]{2}' },
    },
  };
}

/**
 * Where a token comes from, shown in the Authorize dialog of /docs (proxy/main.ts writes the
 * development key; docs/authentication.md is the operators' side).
 */
export const tokenSources = `**Where a token comes from.** Running the service yourself: \`npm start\` with no auth setting (and \`NODE_ENV\` not \`production\`) makes a development key, keeps it in \`.dev-token\` in the repository's folder and prints it with a \`curl\` line to try; \`cat .dev-token\` shows it. Against a deployed service: its operators issue your team an API key, or the service accepts the JWTs your identity provider issues (a client-credentials grant from Keycloak, Auth0, IdentityServer …), perhaps with a scope per area (finance, address).`;

const bearerDescription = `${tokenSources}

Paste the token alone (Swagger UI adds \`Bearer \`); every request sends \`Authorization: Bearer <token>\`. Accepted: the service's API keys, and JWTs signed with \`HS*\`, \`RS*\`, \`PS*\`, \`ES*\` or \`EdDSA\`, verified against a shared secret, a public key or an identity provider's key set.`;

export function components(): JsonObject {
  return {
    schemas: schemas(),
    headers: headers(),
    responses: responses(),
    parameters: headerParameters(),
    securitySchemes: {
      bearer: {
        type: 'http',
        scheme: 'bearer',
        description: bearerDescription,
      },
    },
  };
}

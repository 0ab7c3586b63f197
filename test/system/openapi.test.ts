/**
 * The OpenAPI document the build writes: valid OpenAPI 3.1, every route with its exact parameters,
 * and true to the proxy: real responses of every operation, successful and failing, are checked
 * against the schema and headers the document gives for that operation and status.
 */
import { exampleIbanOf, expectedForms } from '../../contract/keys.ts';
import { readFile, rm, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { validate } from '@readme/openapi-parser';
import { Ajv2020, type ValidateFunction } from 'ajv/dist/2020.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { clientErrorCodes } from '../../contract/errorCodes.ts';
import type { ManifestHead } from '../../contract/lookupIndex.ts';
import { manifestHeadSchema } from '../../contract/manifest.ts';
import { bodyPath, recordTypes, routes, type Route, type RouteParam } from '../../contract/routes.ts';
import type { RunningServer } from '../../proxy/http/server.ts';
import { buildDist } from '../../generator/build.ts';
import { packedBody, type PackedBody } from '../support/store.ts';
import { buildFixture, fixtureData, fixtureRecords, startProxy, tempDir, testKey, type FixtureRecord } from '../support/service.ts';

type Json = Record<string, unknown>;

const records = Object.fromEntries(await Promise.all(recordTypes.map(async (type) => [type, await fixtureRecords(type)] as const)));
const zeroUuid = '00000000-0000-4000-8000-000000000000';
const scopedKey = 'address-only-key-0123456789';

let distDir: string;
let manifest: ManifestHead;
let document: Json;
let proxy: RunningServer;
/** A second build with one pack of bodies removed, and scopes required: for 403 and 503. */
let strictProxy: RunningServer;
let brokenTarget: string;

async function readManifest(dist: string): Promise<ManifestHead> {
  return manifestHeadSchema.parse(JSON.parse(await readFile(path.join(dist, 'manifest.json'), 'utf8')));
}

beforeAll(async () => {
  distDir = await buildFixture();
  manifest = await readManifest(distDir);
  document = JSON.parse(await readFile(path.join(distDir, 'openapi.json'), 'utf8')) as Json;
  proxy = await startProxy(distDir);

  // In packs of a few bodies each, so that losing region/getall's pack loses little else.
  const strictDist = path.join(await tempDir(), 'dist');
  await buildDist({ dataDir: fixtureData, distDir: strictDist, entriesPerShard: 4 });
  const region = routes.find((route) => route.path.endsWith('/region/getall')) as Route;
  await rm(path.join(strictDist, ((await packedBody(strictDist, bodyPath(region, []))) as PackedBody).pack));
  brokenTarget = region.path;
  const keys = path.join(await tempDir(), 'keys');
  await writeFile(keys, `${testKey}\n${scopedKey} address.read\n`);
  strictProxy = await startProxy(strictDist, { API_KEYS_FILE: keys, FINANCE_SCOPE: 'finance.read', ADDRESS_SCOPE: 'address.read' });
});
afterAll(async () => {
  await proxy.close();
  await strictProxy.close();
});

// ---- reading the document -------------------------------------------------------------------

const pointerSegment = (segment: string): string => segment.replaceAll('~', '~0').replaceAll('/', '~1');

function at(pointer: string): Json | undefined {
  let node: unknown = document;
  for (const segment of pointer.split('/').slice(1)) {
    node = (node as Json | undefined)?.[segment.replaceAll('~1', '/').replaceAll('~0', '~')];
  }
  return node as Json | undefined;
}

/** The pointer of what `pointer` holds, following $refs within the document. */
function follow(pointer: string): string {
  const node = at(pointer);
  return typeof node?.$ref === 'string' ? follow(node.$ref.slice(1)) : pointer;
}

const base = 'https://reference-data.test/openapi.json';
let ajv: Ajv2020;
const validators = new Map<string, ValidateFunction>();

/** A validator for the schema at `pointer`, resolving its $refs in the document itself. */
function validatorAt(pointer: string): ValidateFunction {
  if (!ajv) {
    const uuid = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
    // The record schemas carry their own patterns for dates and base64; the formats add nothing.
    ajv = new Ajv2020({ strict: true, allErrors: true, formats: { uuid, 'date-time': true, base64: true } });
    // The document's own fields are not schema keywords: known to ajv, so strict mode checks only the schemas.
    ajv.addVocabulary(Object.keys(document));
    ajv.addSchema(document, base);
  }
  let validator = validators.get(pointer);
  if (!validator) {
    validator = ajv.compile({ $ref: `${base}#${pointer}` });
    validators.set(pointer, validator);
  }
  return validator;
}

// ---- calling the proxy and checking the answer against the document -------------------------

/** The document's path for a request path: itself, or the templated path it fills in (`/exports/{recordType}.ndjson.gz`). */
function documentedPathOf(pathname: string): string {
  if (at(`/paths/${pointerSegment(pathname)}`)) return pathname;
  const pattern = (template: string): RegExp =>
    new RegExp(
      `^${template
        .split(/\{[^}]+\}/)
        .map((part) => part.replace(/[.*+?^$()|[\]\\]/g, '\\$&'))
        .join('[^/]+')}$`,
    );
  return Object.keys(document.paths as Json).find((template) => template.includes('{') && pattern(template).test(pathname)) ?? pathname;
}

/** Operation and status pairs checked against the document. */
const checked = new Set<string>();

interface Call {
  readonly method?: string;
  readonly token?: string | null;
  readonly headers?: Record<string, string>;
  readonly via?: () => RunningServer;
}

/** Calls the proxy and checks status, headers and body against the document; returns the response. */
async function check(
  target: string,
  { method = 'GET', token = testKey, headers = {}, via = () => proxy }: Call = {},
): Promise<{ status: number; headers: Headers; text: string }> {
  const requestHeaders = new Headers(headers);
  if (token !== null && !requestHeaders.has('Authorization')) requestHeaders.set('Authorization', `Bearer ${token}`);
  const response = await fetch(`${via().url}${target}`, { method, headers: requestHeaders });
  const text = await response.text();
  const pathname = target.split('?')[0] as string;
  const where = `${method} ${target} → ${response.status}`;
  const documentedPath = documentedPathOf(pathname);

  expect(at(`/paths/${pointerSegment(documentedPath)}/get`), `${where}: operation documented`).toBeDefined();
  // OpenAPI 3.1 §4.8.16: the status's own response, else its range (4XX), else the default.
  const responses = `/paths/${pointerSegment(documentedPath)}/get/responses`;
  const key = [String(response.status), `${String(response.status)[0]}XX`, 'default'].find((candidate) => at(`${responses}/${candidate}`) !== undefined);
  const responsePointer = follow(`${responses}/${key ?? response.status}`);
  const documented = at(responsePointer);
  expect(documented, `${where}: status documented`).toBeDefined();

  for (const name of Object.keys((documented?.headers as Json | undefined) ?? {})) {
    const headerPointer = follow(`${responsePointer}/headers/${pointerSegment(name)}`);
    const value = response.headers.get(name);
    if (value === null) {
      expect(at(headerPointer)?.required, `${where}: header ${name} is required`).not.toBe(true);
      continue;
    }
    const validator = validatorAt(`${headerPointer}/schema`);
    expect(validator(value), `${where}: header ${name} ${value}: ${JSON.stringify(validator.errors)}`).toBe(true);
  }
  const content = documented?.content as Json | undefined;
  if (!content) expect(text, `${where}: no body`).toBe('');
  else {
    const mediaType = (response.headers.get('content-type') ?? '').split(';')[0] as string;
    expect(Object.keys(content), `${where}: media type`).toContain(mediaType);
    const body: unknown = mediaType === 'application/json' ? JSON.parse(text) : text;
    const validator = validatorAt(`${responsePointer}/content/${pointerSegment(mediaType)}/schema`);
    expect(validator(body), `${where}: body: ${JSON.stringify(validator.errors)}`).toBe(true);
  }
  checked.add(`${pathname} ${response.status}`);
  return { status: response.status, headers: response.headers, text };
}

// ---- valid and failing requests for every route, derived from the fixture records -----------

const first = (type: string): FixtureRecord => records[type]?.[0] as FixtureRecord;

/** A value the route answers 200 for. */
function validValue(route: Route, param: RouteParam, position: number): string {
  if (param.kind === 'year') return String(manifest.holidayYears.first);
  if (param.kind === 'boolean') return 'true';
  if (param.kind === 'iban') return String(exampleIbanOf('TR', String(first('bank').code)));
  // Regional lookups answer only a subdivision with days of its own: the fixture's Berlin.
  const regional = records.stateProvince?.find((state) => state.id === first('stateProvinceHoliday').stateProvinceId) as FixtureRecord;
  const regionalCode = `${String(records.country?.find((country) => country.id === regional.countryId)?.alpha2Code)}-${String(regional.abbreviation)}`;
  if (param.names === 'stateProvince') return regionalCode;
  if (position === 0 && route.parent?.where) return route.parent.field === 'code' ? regionalCode : regional.id;
  if (position === 0 && route.document) return String(records.country?.find((country) => country.id === regional.countryId)?.alpha2Code);
  if (position === 0 && route.parent) return String(first(route.parent.record)[route.parent.field]);
  const record = first(route.record);
  // District getbyname is scoped by country, a field districts reach through their state or province
  // (and neighbourhoods by postal code, through their district).
  if ((route.record === 'district' || route.record === 'neighborhood') && param.field === 'countryId') {
    const district = route.record === 'district' ? record : records.district?.find((candidate) => candidate.id === record.districtId);
    return String(records.stateProvince?.find((state) => state.id === district?.stateProvinceId)?.countryId);
  }
  return String(record[param.field]);
}

/** A value of the right form that matches nothing, or undefined where every value of the form is answered. */
function unmatchedValue(route: Route, param: RouteParam): string | undefined {
  // A search that matches nothing is an empty list, not a 404 (its scope that names nothing is one).
  if (route.search && param === route.params[0]) return undefined;
  // A subdivision's code within the country asked for (another country's is 400), that none has.
  if (param.within !== undefined) return `${validValue(route, route.params[0] as RouteParam, 0)}-zz9`;
  const values: Record<string, string | undefined> = {
    uuid: zeroUuid,
    code: 'zz9',
    bankCode: '999',
    iban: 'DE89370400440532013000',
    name: 'Nowhere At All',
    domain: 'nowhere.invalid',
    integer: '999999',
    year: '1999',
  };
  return values[param.kind];
}

const query = (route: Route, value: (param: RouteParam, position: number) => string | undefined): string =>
  route.params.length === 0
    ? route.path
    : `${route.path}?${route.params
        .flatMap((param, position) => {
          const given = value(param, position);
          return given === undefined ? [] : [`${param.name}=${encodeURIComponent(given)}`];
        })
        .join('&')}`;

describe('the OpenAPI document', () => {
  it('is valid OpenAPI 3.1 for @readme/openapi-parser, without warnings', async () => {
    expect(document.openapi).toMatch(/^3\.1\./);
    const result = await validate(structuredClone(document) as never);
    expect(result.valid ? [] : result.errors).toEqual([]);
    expect(result.warnings).toEqual([]);
  });

  it('lists every route of the table with its exact parameter names, all required but the optional ones, the language and the format; the extensions marked', () => {
    const lookups = Object.keys(document.paths as Json).filter((pathname) => pathname.includes('/api/'));
    expect(lookups.sort()).toEqual(routes.map((route) => route.path).sort());
    for (const route of routes) {
      const operation = at(`/paths/${pointerSegment(route.path)}/get`) as Json;
      const parameters = ((operation.parameters as Json[] | undefined) ?? []).map((parameter) =>
        typeof parameter.$ref === 'string' ? (at(follow(parameter.$ref.slice(1))) as Json) : parameter,
      );
      expect(
        parameters.filter((parameter) => parameter.in === 'query').map((parameter) => [parameter.name, parameter.required]),
        route.path,
      ).toEqual([
        ...route.params.map((param) => [param.name, !param.optional]),
        ...(route.languages ? [[route.languages.param, false]] : []),
        ...(route.formats ? [['format', false]] : []),
      ]);
      expect(
        parameters.filter((parameter) => parameter.in === 'header').map((parameter) => [parameter.name, parameter.required]),
        route.path,
      ).toEqual([['X-Request-Id', false], ['traceparent', false], ['If-None-Match', false], ...(route.languages ? [['Accept-Language', false]] : [])]);
      // The language parameter is not in the spec: marked as an extension, as the operations the spec lacks are.
      const language = parameters.find((parameter) => parameter.name === route.languages?.param);
      if (route.languages) expect(language?.['x-extension'], route.path).toBe(true);
      expect(operation['x-extension'], route.path).toBe(route.extension === undefined ? undefined : true);
      if (route.extension) expect(operation.description, route.path).toMatch(/Extension/);
    }
  });

  it('types each parameter by kind, for generated clients: UUIDs with their format, integers, booleans, years', () => {
    const schemaOf = (path: string, name: string): Json | undefined =>
      ((at(`/paths/${pointerSegment(path)}/get/parameters`) as unknown as { name: string; schema: Json }[] | undefined) ?? []).find(
        (parameter) => parameter.name === name,
      )?.schema;
    expect(schemaOf('/addressmanagement/api/country/getbyid', 'id')).toEqual({ type: 'string', format: 'uuid' });
    expect(schemaOf('/addressmanagement/api/countryholiday/getbycountryid', 'Year')).toMatchObject({ type: 'integer' });
    expect(schemaOf('/addressmanagement/api/callingcode/getbycode', 'code')).toMatchObject({ type: 'integer' });
    expect(schemaOf('/addressmanagement/api/webdomain/getbyistoplevel', 'istoplevel')).toEqual({ type: 'boolean' });
    const operations = Object.values(document.paths as Record<string, { get: Json }>).map((path) => path.get);
    expect(operations.filter((operation) => typeof operation.operationId !== 'string').length).toBe(0);
    expect(new Set(operations.map((operation) => operation.operationId)).size).toBe(operations.length);
    expect(document.servers).toEqual([{ url: '/', description: 'The service that serves this document.' }]);
  });

  it('describes every parameter and every schema property by what it is, not by its kind', () => {
    // The wording a value's kind has in 400 messages ("a code of letters and digits …"), and bare kinds.
    const kindOnly = (description: string): boolean =>
      Object.values(expectedForms).some((form) => description.toLowerCase().startsWith(form.toLowerCase())) ||
      /code of letters and digits/i.test(description) ||
      /^(an? |the )?(uuid|string|text|integer|number|boolean|code|name|id|identifier|year|date|value)s?\.?$/i.test(description.trim());
    const faults: string[] = [];
    const checkDescription = (where: string, node: Json): void => {
      const { description } = node;
      if (typeof description !== 'string' || description.trim() === '') faults.push(`${where}: no description`);
      else if (kindOnly(description)) faults.push(`${where}: only a kind: ${description}`);
    };
    /** Every schema's properties, and every parameter written in an operation (a $ref is checked at its component). */
    const walk = (node: unknown, where: string): void => {
      if (typeof node !== 'object' || node === null) return;
      for (const [name, value] of Object.entries(node)) {
        const pointer = `${where}/${pointerSegment(name)}`;
        if (name === 'properties' && typeof value === 'object' && value !== null && !Array.isArray(value)) {
          for (const [field, property] of Object.entries(value as Json)) checkDescription(`${pointer}/${field}`, property as Json);
        }
        if (name === 'parameters' && Array.isArray(value)) {
          for (const [index, parameter] of (value as Json[]).entries()) if (parameter.$ref === undefined) checkDescription(`${pointer}/${index}`, parameter);
        }
        walk(value, pointer);
      }
    };
    walk(document, '');
    for (const [name, parameter] of Object.entries(at('/components/parameters') ?? {})) checkDescription(`/components/parameters/${name}`, parameter as Json);
    expect(faults).toEqual([]);

    // A few meanings a client acts on, each naming its source standard.
    const parameter = (path: string, name: string): Json | undefined =>
      ((at(`/paths/${pointerSegment(path)}/get/parameters`) as unknown as Json[] | undefined) ?? []).find((candidate) => candidate.name === name);
    expect(parameter('/addressmanagement/api/country/getbyalpha2code', 'alpha2code')?.description).toMatch(/^The country's ISO 3166-1 alpha-2 code/);
    expect(parameter('/financemanagement/api/currency/getbycode', 'code')?.description).toMatch(/ISO 4217/);
    expect(parameter('/addressmanagement/api/stateprovinceholiday/getbystateprovincecode', 'StateProvinceCode')?.description).toMatch(/ISO 3166-2/);
    expect(parameter('/financemanagement/api/bank/getbycode', 'code')?.description).toMatch(/EFT code/);
    const country = at('/components/schemas/Country/properties') as Record<string, Json>;
    expect(country.numericIsoCode?.description).toMatch(/ISO 3166-1 numeric/);
    expect(country.displayOrder?.description).toMatch(/Türkiye/);
    expect(country.flag?.description).toMatch(/SVG/);
    expect(country.id).toMatchObject({ $ref: '#/components/schemas/Id', description: expect.stringMatching(/^The country's id/) });
  });

  it("bounds every Year parameter by the build's holiday years, which the proxy holds", () => {
    const years = routes.filter((route) => route.params.some((param) => param.kind === 'year'));
    expect(years.length).toBeGreaterThan(0);
    for (const route of years) {
      const year = ((at(`/paths/${pointerSegment(route.path)}/get/parameters`) as unknown as Json[]) ?? []).find((parameter) => parameter.name === 'Year');
      expect(year?.schema, route.path).toEqual({ type: 'integer', minimum: manifest.holidayYears.first, maximum: manifest.holidayYears.last });
      expect(year?.description, route.path).toContain(`${manifest.holidayYears.first} to ${manifest.holidayYears.last}`);
    }
  });

  it('says where a token comes from at the top of /docs and in its Authorize dialog', () => {
    const info = at('/info') as { description: string };
    const bearer = at('/components/securitySchemes/bearer') as { description: string };
    for (const description of [info.description, bearer.description]) {
      expect(description).toContain('`npm start`');
      expect(description).toContain('`.dev-token`');
      expect(description).toMatch(/operators issue your team an API key/);
      expect(description).toMatch(/JWTs your identity provider issues/);
    }
    // The first paragraph says what the service is; the second, where a token comes from.
    expect(info.description.split('\n\n')[1]).toMatch(/^\*\*Where a token comes from\.\*\*/);
  });

  it('shows records without hidden fields, and country getall without flag', () => {
    const schemas = at('/components/schemas') as Record<string, { properties: Json }>;
    expect(Object.keys(schemas.Country?.properties ?? {})).not.toContain('altNames');
    expect(Object.keys(schemas.Country?.properties ?? {})).not.toContain('localizedNames');
    expect(Object.keys(schemas.Bank?.properties ?? {})).toEqual(['id', 'name', 'code']);
    const getAll = follow(`/paths/${pointerSegment('/addressmanagement/api/country/getall')}/get/responses/200`);
    expect(at(`${getAll}/content/application~1json/schema/properties/body/items`)).toEqual({ $ref: '#/components/schemas/CountryWithoutFlag' });
    expect(Object.keys(schemas.CountryWithoutFlag?.properties ?? {})).not.toContain('flag');
  });

  it('is the same file for the same data, and so are the docs page and its assets', async () => {
    expect((await readManifest(await buildFixture())).public).toEqual(manifest.public);
  });
});

describe('the proxy answers as the document says', () => {
  it.each(routes.map((route) => [route.path, route] as const))('%s: 200, 304, 400, 401, 404 and 405', async (_path, route) => {
    const target = query(route, (param, position) => validValue(route, param, position));
    const found = await check(target);
    expect(found.status, found.text).toBe(200);
    expect((await check(target, { headers: { 'If-None-Match': found.headers.get('etag') ?? '' } })).status).toBe(304);
    expect((await check(route.path, { token: null })).status).toBe(401);
    expect((await check(route.path, { method: 'DELETE' })).status).toBe(405);
    if (route.params.length > 0) expect((await check(route.path)).status).toBe(400);
    for (const [unmatched, param] of route.params.entries()) {
      if (unmatchedValue(route, param) === undefined) continue;
      // Other optional parameters are left out: each 404 names one thing that matches nothing.
      const missing = query(route, (other, position) =>
        position === unmatched ? unmatchedValue(route, other) : other.optional ? undefined : validValue(route, other, position),
      );
      expect((await check(missing)).status, missing).toBe(404);
    }
  });

  it('a malformed Authorization header, a token that is not a key, headers too large', async () => {
    const region = '/addressmanagement/api/region/getall';
    expect((await check(region, { headers: { Authorization: 'Basic dXNlcjpwYXNz' } })).status).toBe(400);
    expect((await check(region, { token: 'wrong-key-0123456789abcdef' })).status).toBe(401);
    expect((await check(region, { headers: { 'X-Padding': 'x'.repeat(20_000) } })).status).toBe(431);
  });

  it('403 without the area scope; 503 for a body file the build lists but the disk lost', async () => {
    const bank = '/financemanagement/api/currency/getall';
    expect((await check(bank, { token: scopedKey, via: () => strictProxy })).status).toBe(403);
    expect((await check(brokenTarget, { via: () => strictProxy })).status).toBe(503);
  });

  it('the service endpoints: /meta with a token, /healthz and /readyz without', async () => {
    expect((await check('/meta')).status).toBe(200);
    expect((await check('/meta', { token: null })).status).toBe(401);
    expect((await check('/healthz', { token: null })).status).toBe(200);
    expect((await check('/readyz', { token: null })).status).toBe(200);
  });

  it('the mirroring extensions: the change lists, the exports index and an export file, with their failures', async () => {
    expect((await check('/meta/changes')).status).toBe(200);
    expect((await check(`/meta/changes?since=${manifest.buildId}`)).status).toBe(200);
    expect((await check('/meta/changes?since=20200101T000000Z-abcdef')).status).toBe(404);
    expect((await check('/meta/changes?since=yesterday')).status).toBe(400);
    expect((await check('/meta/changes', { token: null })).status).toBe(401);
    const index = await check('/exports');
    expect(index.status).toBe(200);
    expect((await check('/exports', { headers: { 'If-None-Match': index.headers.get('etag') ?? '' } })).status).toBe(304);
    const file = await check('/exports/country.ndjson.gz');
    expect(file.status).toBe(200);
    expect((await check('/exports/country.ndjson.gz', { headers: { Range: 'bytes=0-9' } })).status).toBe(206);
    expect((await check('/exports/country.ndjson.gz', { headers: { Range: 'bytes=99999999-' } })).status).toBe(416);
    expect((await check('/exports/country.ndjson.gz', { headers: { 'If-None-Match': file.headers.get('etag') ?? '' } })).status).toBe(304);
    expect((await check('/exports/planet.ndjson.gz')).status).toBe(404);
    expect((await check('/exports/bank.ndjson.gz', { token: scopedKey, via: () => strictProxy })).status).toBe(403);
    expect((await check('/exports/bank.ndjson.gz', { token: null })).status).toBe(401);
    for (const operation of ['/meta/changes', '/exports', '/exports/{recordType}.ndjson.gz']) {
      expect(at(`/paths/${pointerSegment(operation)}/get`)?.['x-extension'], operation).toBe(true);
    }
  });

  it('checked every operation for success and failure', () => {
    const operations = new Set([...checked].map((pair) => pair.split(' ')[0]));
    expect(routes.filter((route) => !operations.has(route.path)).map((route) => route.path)).toEqual([]);
    expect(checked.size).toBeGreaterThan(routes.length * 5);
  });
});

describe('the documentation over HTTP, without a token', () => {
  const cases = [
    ['/openapi.json', 'openapi.json', 'application/json; charset=utf-8'],
    ['/docs', 'docs/index.html', 'text/html; charset=utf-8'],
    ['/docs/', 'docs/index.html', 'text/html; charset=utf-8'],
    ['/docs/swagger-ui.css', 'docs/swagger-ui.css', 'text/css; charset=utf-8'],
    ['/docs/swagger-ui-bundle.js', 'docs/swagger-ui-bundle.js', 'text/javascript; charset=utf-8'],
    ['/docs/favicon-32x32.png', 'docs/favicon-32x32.png', 'image/png'],
  ] as const;

  it.each(cases)('GET %s: 200 with its type and ETag, then 304 for If-None-Match', async (target, file, contentType) => {
    const response = await fetch(`${proxy.url}${target}`);
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toBe(contentType);
    // The file's own tag, or its tag in the coding fetch asked for (gzip, br: a representation of its own).
    const etag = manifest.public[file]?.etag ?? '';
    const coding = response.headers.get('content-encoding');
    expect(response.headers.get('etag')).toBe(coding === null ? etag : `${etag.slice(0, -1)}-${coding === 'gzip' ? 'gz' : 'br'}"`);
    expect(response.headers.get('cache-control')).toBe('public, max-age=300');
    // Buffer.equals: toEqual walks a 1.7 MB bundle byte by byte, for seconds.
    expect(Buffer.from(await response.arrayBuffer()).equals(await readFile(path.join(distDir, file))), file).toBe(true);
    const again = await fetch(`${proxy.url}${target}`, { headers: { 'If-None-Match': response.headers.get('etag') ?? '' } });
    expect(again.status).toBe(304);
    if (target === '/openapi.json' || target === '/docs') {
      expect((await check(target, { token: null })).status).toBe(200);
      expect((await check(target, { token: null, headers: { 'If-None-Match': response.headers.get('etag') ?? '' } })).status).toBe(304);
    }
  });

  it('every documentation file forbids content sniffing; the page carries a Content Security Policy allowing only its own files', async () => {
    for (const [target] of cases) expect((await fetch(`${proxy.url}${target}`)).headers.get('x-content-type-options'), target).toBe('nosniff');
    const page = await fetch(`${proxy.url}/docs`);
    const policy = page.headers.get('content-security-policy') ?? '';
    expect(policy).toContain("default-src 'self'");
    expect(policy).toContain("script-src 'self'");
    expect(policy).toContain("frame-ancestors 'none'");
    expect(policy).not.toMatch(/https?:|\*/);
    expect((await fetch(`${proxy.url}/openapi.json`)).headers.get('content-security-policy')).toBeNull();
  });

  it("states the data licences beside the code's, in the document and on the page", async () => {
    const document = (await (await fetch(`${proxy.url}/openapi.json`)).json()) as { info: { license: { identifier: string }; description: string } };
    expect(document.info.license.identifier).toBe('MIT AND ODbL-1.0 AND CC-BY-4.0 AND CC-BY-3.0-IGO AND LGPL-2.1-or-later AND MPL-2.0 AND Unicode-3.0');
    expect(document.info.description).toContain('Open Database License 1.0');
    expect(await (await fetch(`${proxy.url}/docs`)).text()).toContain('ODbL 1.0 (world-countries)');
  });

  it('the page loads only files of the build, and the document from /openapi.json', async () => {
    const page = await readFile(path.join(distDir, 'docs/index.html'), 'utf8');
    const script = await readFile(path.join(distDir, 'docs/index.js'), 'utf8');
    const loaded = [...page.matchAll(/(?:src|href)="([^"]+)"/g)].map((match) => match[1] as string);
    expect(loaded.filter((url) => !url.startsWith('/'))).toEqual([]);
    expect(loaded.filter((url) => url !== '/openapi.json' && !(url.slice(1) in manifest.public))).toEqual([]);
    expect(script).toMatch(/url: '\/openapi\.json'/);
    expect(script).not.toMatch(/https?:/);
  });
});

describe('error codes in the document', () => {
  it('info lists every code a client can see, with its status and meaning, as the proxy answers them', () => {
    expect((document.info as Json)['x-error-codes']).toEqual(clientErrorCodes());
  });

  it("every failure of an operation names the X-Error-Code header, whose values are the codes' list", () => {
    const missing: string[] = [];
    for (const [pathName, item] of Object.entries(document.paths as Json)) {
      const get = (item as Json).get as Json | undefined;
      for (const [status, response] of Object.entries((get?.responses ?? {}) as Json)) {
        if (!/^[45]/.test(status)) continue;
        const resolved = '$ref' in (response as Json) ? at(String((response as Json).$ref).slice(1)) : (response as Json);
        const headers = (resolved?.headers ?? {}) as Json;
        if (!('X-Error-Code' in headers) && (resolved?.content as Json | undefined)?.['application/json'] !== undefined) missing.push(`${pathName} ${status}`);
      }
    }
    expect(missing).toEqual([]);
    const header = at('/components/headers/ErrorCode') as Json;
    expect((header.schema as Json).enum).toEqual(clientErrorCodes().map(({ code }) => code));
  });
});

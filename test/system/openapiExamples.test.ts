/**
 * The example of every lookup parameter in openapi.json (generator/openapi/examples.ts): a real key
 * of the build the document was written with, Türkiye's first, so that "Try it out" on /docs finds
 * something; and picked again from the data by every build, so that a data change cannot leave one
 * stale.
 */
import { readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { routes, type RecordType, type Route } from '../../contract/routes.ts';
import type { RunningServer } from '../../proxy/http/server.ts';
import { buildFixture, copyFixture, realBuildTimeoutMs, realDataServing, repoRoot, startProxy, testKey, type FixtureRecord } from '../support/service.ts';

type Json = Record<string, unknown>;
type Example = string | number | boolean;

interface Build {
  readonly document: { paths: Record<string, { get: { parameters: Json[] } }> };
  readonly holidayYears: { first: number; last: number };
  readonly proxy: RunningServer;
}

const builds: Build[] = [];

async function serve(dataDir: string): Promise<Build> {
  const distDir = await buildFixture(dataDir);
  const read = async (file: string): Promise<Json> => JSON.parse(await readFile(path.join(distDir, file), 'utf8')) as Json;
  const build: Build = {
    document: (await read('openapi.json')) as unknown as Build['document'],
    holidayYears: (await read('manifest.json')).holidayYears as Build['holidayYears'],
    proxy: await startProxy(distDir),
  };
  builds.push(build);
  return build;
}
afterAll(() => Promise.all(builds.map((build) => build.proxy.close())));

const lookups = routes.filter((route) => route.params.length > 0);

/** The examples of a route's query parameters, in the route table's order. */
function examplesOf({ document }: Build, route: Route): (Example | undefined)[] {
  const parameters = document.paths[route.path]?.get.parameters ?? [];
  return route.params.map((param) => parameters.find((parameter) => parameter.in === 'query' && parameter.name === param.name)?.example as Example | undefined);
}

/** The lookup with its examples; an optional parameter without one is left out, as "Try it out" leaves it. */
const targetOf = (route: Route, values: readonly (Example | undefined)[]): string =>
  `${route.path}?${route.params
    .flatMap((param, position) => (param.optional && values[position] === undefined ? [] : [`${param.name}=${encodeURIComponent(String(values[position]))}`]))
    .join('&')}`;

async function call({ proxy }: Build, target: string): Promise<{ status: number; body: unknown }> {
  const response = await fetch(`${proxy.url}${target}`, { headers: { Authorization: `Bearer ${testKey}` } });
  return { status: response.status, body: ((await response.json()) as { body: unknown }).body };
}

/** Every lookup called with its examples: the target and the answer. */
async function callExamples(build: Build): Promise<{ route: Route; target: string; status: number; body: unknown }[]> {
  return Promise.all(
    lookups.map(async (route) => {
      const target = targetOf(route, examplesOf(build, route));
      return { route, target, ...(await call(build, target)) };
    }),
  );
}

/** This year, moved into the build's holiday window. */
const yearIn = ({ holidayYears: { first, last } }: Build): number => Math.min(Math.max(new Date().getUTCFullYear(), first), last);

describe("examples from a build of the real data (Türkiye's addresses)", () => {
  let build: Build;
  beforeAll(async () => {
    build = await serve(await realDataServing(['TR']));
  }, realBuildTimeoutMs);

  it("every query parameter of every lookup carries an example of its schema's type", () => {
    const typed = lookups.flatMap((route) =>
      (build.document.paths[route.path]?.get.parameters ?? [])
        .filter((parameter) => parameter.in === 'query')
        .map((parameter) => {
          const type = (parameter.schema as { type: string }).type;
          const { example } = parameter;
          // An optional subdivision has none: an example would fit one country only.
          if (example === undefined && parameter.required === false && parameter.name !== 'language') return `${route.path} ${String(parameter.name)}: fits`;
          const fits = type === 'integer' ? Number.isInteger(example) : typeof example === type;
          return `${route.path} ${String(parameter.name)}: ${fits ? 'fits' : `${JSON.stringify(example)} is no ${type}`}`;
        }),
    );
    expect(typed.length).toBe(lookups.reduce((count, route) => count + route.params.length + (route.languages ? 1 : 0) + (route.formats ? 1 : 0), 0));
    expect(typed.filter((line) => !line.endsWith(': fits'))).toEqual([]);
  });

  it('every lookup called with its examples answers 200, with a record or a list that is not empty', async () => {
    const answers = await callExamples(build);
    expect(answers.filter(({ status }) => status !== 200).map(({ target, status }) => `${target} → ${status}`)).toEqual([]);
    expect(answers.filter(({ body }) => body === null || (Array.isArray(body) && body.length === 0)).map(({ target }) => target)).toEqual([]);
    for (const { route, target, body } of answers) {
      if (route.path.endsWith('/getbyid')) expect((body as FixtureRecord).id, target).toBe(examplesOf(build, route)[0]);
    }
  });

  it("the examples a user reads are Türkiye's: TR, TUR, Türkiye, TRY, 34 and İstanbul, 90, tr, and this year", () => {
    const example = (suffix: string, position = 0): Example | undefined =>
      examplesOf(build, routes.find((route) => route.path.endsWith(suffix)) as Route)[position];
    expect({
      alpha2code: example('/country/getbyalpha2code'),
      alpha3code: example('/country/getbyalpha3code'),
      country: example('/country/getbyname'),
      currency: example('/currency/getbycode'),
      currencyOfCountries: example('/countrycurrency/getbycurrencycode'),
      abbreviation: example('/stateprovince/getbyabbreviation'),
      stateProvince: example('/stateprovince/getbyname'),
      callingCode: example('/callingcode/getbycode'),
      webDomain: example('/webdomain/getbyname'),
      holidayYear: example('/countryholiday/getbycountryid', 1),
      specialDayYear: example('/countryspecialday/getbycountryid', 1),
    }).toEqual({
      alpha2code: 'TR',
      alpha3code: 'TUR',
      country: 'Türkiye',
      currency: 'TRY',
      currencyOfCountries: 'TRY',
      abbreviation: '34',
      stateProvince: 'İstanbul',
      callingCode: 90,
      webDomain: 'tr',
      holidayYear: yearIn(build),
      specialDayYear: yearIn(build),
    });
  });

  it("Türkiye first: every lookup's examples find Türkiye's records (İstanbul, its districts, a Turkish bank, TRY, Europe/Istanbul …)", async () => {
    // Found here by their codes, over HTTP, independently of the examples.
    const found = async <T>(target: string): Promise<T> => (await call(build, target)).body as T;
    const turkey = await found<FixtureRecord>('/addressmanagement/api/country/getbyalpha2code?alpha2code=TR');
    const istanbul = await found<FixtureRecord>('/addressmanagement/api/stateprovince/getbyabbreviation?abbreviation=34');
    expect(istanbul).toMatchObject({ name: 'İstanbul', countryId: turkey.id });
    const districts = await found<FixtureRecord[]>(`/addressmanagement/api/district/getbystateprovinceid?stateprovinceid=${istanbul.id}`);
    const banks = await found<FixtureRecord[]>(`/financemanagement/api/bank/getbycountryid?countryId=${turkey.id}`);
    const ofTurkey = (record: FixtureRecord): boolean => record.countryId === turkey.id;
    const turkish: Record<RecordType, (record: FixtureRecord) => boolean> = {
      country: (country) => country.id === turkey.id,
      currency: (currency) => currency.code === 'TRY',
      region: (region) => region.id === turkey.regionId,
      callingCode: (callingCode) => callingCode.id === turkey.callingCodeId && callingCode.code === 90,
      stateProvince: (state) => state.id === istanbul.id,
      district: (district) => district.stateProvinceId === istanbul.id,
      neighborhood: (neighborhood) => districts.some((district) => district.id === neighborhood.districtId),
      bank: (bank) => banks.some((turkishBank) => turkishBank.id === bank.id),
      language: (language) => language.uniqueSeoCode === 'tr',
      timeZone: (zone) => zone.name === 'Europe/Istanbul',
      webDomain: (domain) => domain.name === 'tr',
      countryCurrency: (link) => ofTurkey(link) && link.currencyCode === 'TRY',
      countryLanguage: ofTurkey,
      countryTimeZone: ofTurkey,
      countryTopLevelWebDomain: ofTurkey,
      countryHoliday: ofTurkey,
      countrySpecialDay: ofTurkey,
      // Türkiye's provinces have no holidays of their own: the regional examples are Bavaria's.
      stateProvinceHoliday: () => true,
      stateProvinceSpecialDay: () => true,
      weekend: ofTurkey,
    };
    // A list may hold others too (every country of Türkiye's region): Türkiye's must be among them.
    const notTurkish = (await callExamples(build)).filter(({ route, body }) => {
      if (route.document) return (body as FixtureRecord | null)?.countryCode !== 'TR';
      const records = (route.shape === 'list' ? body : [body]) as FixtureRecord[];
      return !records.some(turkish[route.record]);
    });
    expect(notTurkish.map(({ target }) => target)).toEqual([]);
  });
});

describe('examples follow the data', () => {
  it("on the fixture, every example answers 200, and the year example is this year moved into the build's window", async () => {
    const build = await serve(path.join(repoRoot, 'test/fixtures/data'));
    const answers = await callExamples(build);
    expect(answers.filter(({ status }) => status !== 200).map(({ target, status }) => `${target} → ${status}`)).toEqual([]);
    const holidays = routes.find((route) => route.path.endsWith('/countryholiday/getbycountryid')) as Route;
    expect(examplesOf(build, holidays)[1]).toBe(yearIn(build));
    expect(build.holidayYears).toEqual({ first: 2023, last: 2025 });
  });

  it('without the Turkish lira, the currency examples are the first currency in data order, and every example still answers 200', async () => {
    const dataDir = await copyFixture();
    const file = async (type: string): Promise<[string, FixtureRecord[]]> => {
      const name = path.join(dataDir, 'records', `${type}.json`);
      return [name, JSON.parse(await readFile(name, 'utf8')) as FixtureRecord[]];
    };
    const [currencyFile, currencies] = await file('currency');
    const [linkFile, links] = await file('countryCurrency');
    await writeFile(currencyFile, JSON.stringify(currencies.filter((currency) => currency.code !== 'TRY')));
    await writeFile(linkFile, JSON.stringify(links.filter((link) => link.currencyCode !== 'TRY')));
    const [first] = currencies.filter((currency) => currency.code !== 'TRY');
    const [firstLink] = links.filter((link) => link.currencyCode !== 'TRY');

    const build = await serve(dataDir);
    const example = (suffix: string): Example | undefined => examplesOf(build, routes.find((route) => route.path.endsWith(suffix)) as Route)[0];
    expect([
      example('/currency/getbycode'),
      example('/currency/getbyid'),
      example('/countrycurrency/getbycurrencycode'),
      example('/countrycurrency/getbyid'),
    ]).toEqual([first?.code, first?.id, first?.code, firstLink?.id]);
    // Türkiye is still the country example.
    expect(example('/country/getbyalpha2code')).toBe('TR');
    const answers = await callExamples(build);
    expect(answers.filter(({ status }) => status !== 200).map(({ target, status }) => `${target} → ${status}`)).toEqual([]);
  });
});

import { connect } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { maxQueryParams } from '../../proxy/http/query.ts';
import { recordTypes, routeParts, routes, type RecordType } from '../../contract/routes.ts';
import type { RunningServer } from '../../proxy/http/server.ts';
import { buildFixture, fixtureRecords, itemAt, pick, startProxy, testKey, without, type FixtureRecord } from '../support/service.ts';

const uuidV4 = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;
const address = '/addressmanagement/api';
const finance = '/financemanagement/api';

// Loaded before the tests are collected: the success cases below are built from them.
const records = Object.fromEntries(await Promise.all(recordTypes.map(async (type) => [type, await fixtureRecords(type)] as const))) as Record<
  RecordType,
  FixtureRecord[]
>;

let proxy: RunningServer;
beforeAll(async () => {
  proxy = await startProxy(await buildFixture());
});
afterAll(() => proxy.close());

interface Reply {
  status: number;
  headers: Headers;
  envelope: { header: { globalId: string; isSuccess: boolean; message: string | null }; body: unknown };
}

async function call(pathAndQuery: string, init: RequestInit = {}, token: string | null = testKey): Promise<Reply> {
  const headers = new Headers(init.headers);
  if (token !== null && !headers.has('Authorization')) headers.set('Authorization', `Bearer ${token}`);
  const response = await fetch(`${proxy.url}${pathAndQuery}`, { ...init, headers });
  const text = await response.text();
  return { status: response.status, headers: response.headers, envelope: text ? JSON.parse(text) : undefined };
}

const of = (type: RecordType, field: string, value: unknown): FixtureRecord => pick(records[type], field, value);
const country = (alpha2: string): FixtureRecord => of('country', 'alpha2Code', alpha2);
/** What the API shows of a country (its alternative names only find it) and of a bank (no country). */
const shown = (record: FixtureRecord): Record<string, unknown> => without(record, 'altNames', 'localizedNames');
const bankBody = (bank: FixtureRecord): Record<string, unknown> => without(bank, 'countryId');
const noFlag = (record: FixtureRecord): Record<string, unknown> => without(record, 'altNames', 'localizedNames', 'flag');
/** A neighbourhood as the API shows it: its kind of place and PTT's spelling only in getplacesbydistrictid. */
const place = (record: FixtureRecord): Record<string, unknown> => without(record, 'pttName', 'placeType', 'parentPlace');

/** One successful call per operation, with the whole body it must answer. */
function successCases(): [string, unknown][] {
  const tr = country('TR');
  const de = country('DE');
  const istanbul = of('stateProvince', 'name', 'İstanbul');
  const kadikoy = of('district', 'name', 'Kadıköy');
  const turkish = of('language', 'name', 'Turkish');
  const trDomain = of('webDomain', 'name', 'tr');
  const istanbulZone = of('timeZone', 'name', 'Europe/Istanbul');
  const ziraat = of('bank', 'code', '010');
  const caferaga = place(of('neighborhood', 'zipCode', '34710'));
  const berlin = of('stateProvince', 'name', 'Berlin');
  const berlinDays = records.stateProvinceHoliday.map((day) => without(day, 'language', 'translations', 'observedFor', 'provisional'));
  const tryCurrency = of('currency', 'code', 'TRY');
  const trLinks = (type: RecordType): FixtureRecord[] => records[type].filter((link) => link.countryId === tr.id);
  /** Holidays as the API shows them: their language and English names only choose a body. */
  const trDays = (type: RecordType): Record<string, unknown>[] =>
    records[type].filter((day) => day.countryId === tr.id).map((day) => without(day, 'language', 'translations', 'dayType', 'observedFor', 'provisional'));
  return [
    [`${finance}/bank/getbycountryid?countryId=${tr.id}`, records.bank.map(bankBody)],
    [`${finance}/bank/getbyid?id=${ziraat.id}`, bankBody(ziraat)],
    [`${finance}/bank/getbycode?code=010`, bankBody(ziraat)],
    [`${finance}/bank/getbyiban?iban=TR420001000000000000000001`, bankBody(ziraat)],
    [`${finance}/currency/getall`, records.currency],
    [`${finance}/currency/getbyid?id=${tryCurrency.id}`, tryCurrency],
    [`${finance}/currency/getbycode?code=try`, tryCurrency],
    [`${address}/country/getall`, records.country.map(noFlag)],
    [`${address}/country/searchbyname?name=türki`, [noFlag(tr)]],
    [`${address}/country/getbyid?id=${tr.id}`, shown(tr)],
    [`${address}/country/getbyalpha2code?alpha2code=tr`, shown(tr)],
    [`${address}/country/getbyalpha3code?alpha3code=DEU`, shown(de)],
    [`${address}/country/getbyname?name=TÜRKİYE`, shown(tr)],
    [`${address}/country/getbyregionid?regionid=${tr.regionId}`, [shown(tr)]],
    [`${address}/region/getall`, records.region],
    [`${address}/region/getbyid?id=${de.regionId}`, of('region', 'id', de.regionId)],
    [`${address}/stateprovince/getbycountryid?countryid=${de.id}`, records.stateProvince.filter((state) => state.countryId === de.id)],
    [`${address}/stateprovince/getbyid?id=${istanbul.id}`, istanbul],
    [`${address}/stateprovince/getbyname?name=ISTANBUL`, istanbul],
    [`${address}/stateprovince/getallbyname?name=ISTANBUL`, [istanbul]],
    [`${address}/stateprovince/searchbyname?name=ista`, [istanbul]],
    [`${address}/stateprovince/searchbyname?name=İST&countryid=${tr.id}`, [istanbul]],
    [`${address}/stateprovince/getallbyname?name=istanbul&countryid=${tr.id}`, [istanbul]],
    [`${address}/stateprovince/getbyabbreviation?abbreviation=34`, istanbul],
    [`${address}/district/getbystateprovinceid?stateprovinceid=${istanbul.id}`, [kadikoy]],
    [`${address}/district/getbyid?id=${kadikoy.id}`, kadikoy],
    [`${address}/district/getbyname?name=kadikoy&countryId=${tr.id}`, kadikoy],
    [`${address}/district/getallbyname?name=kadikoy&countryId=${tr.id}`, [kadikoy]],
    [`${address}/district/searchbyname?name=kadı&countryid=${tr.id}`, [kadikoy]],
    [`${address}/neighborhood/searchbyname?name=cafer&districtid=${kadikoy.id}`, [caferaga]],
    [`${address}/neighborhood/getbydistrictid?districtid=${kadikoy.id}`, records.neighborhood.filter((n) => n.districtId === kadikoy.id).map(place)],
    [`${address}/neighborhood/getplacesbydistrictid?districtid=${kadikoy.id}`, records.neighborhood.filter((n) => n.districtId === kadikoy.id)],
    [`${address}/neighborhood/getbyid?id=${caferaga.id}`, caferaga],
    [`${address}/neighborhood/getbyzipcode?zipcode=34%20710`, [caferaga]],
    [`${address}/callingcode/getall`, records.callingCode],
    [`${address}/callingcode/getbyid?id=${tr.callingCodeId}`, of('callingCode', 'code', 90)],
    [`${address}/callingcode/getbycode?code=90`, of('callingCode', 'code', 90)],
    [`${address}/language/getall`, records.language],
    [`${address}/language/getbyid?id=${turkish.id}`, turkish],
    [`${address}/timezone/getall`, records.timeZone],
    [`${address}/timezone/getbyid?id=${istanbulZone.id}`, istanbulZone],
    [`${address}/webdomain/getall`, records.webDomain],
    [`${address}/webdomain/getbyid?id=${trDomain.id}`, trDomain],
    [`${address}/webdomain/getbyname?name=COM.TR`, of('webDomain', 'name', 'com.tr')],
    [`${address}/webdomain/getbyistoplevel?istoplevel=true`, records.webDomain.filter((domain) => domain.isTopLevel)],
    [`${address}/countrycurrency/getbycountryid?countryid=${tr.id}`, trLinks('countryCurrency')],
    [`${address}/countrycurrency/getbycurrencycode?currencycode=try`, trLinks('countryCurrency')],
    [`${address}/countrycurrency/getbyid?id=${itemAt(trLinks('countryCurrency'), 0).id}`, trLinks('countryCurrency')[0]],
    [`${address}/countrylanguage/getbycountryid?countryid=${tr.id}`, trLinks('countryLanguage')],
    [`${address}/countrylanguage/getbylanguageid?languageid=${turkish.id}`, trLinks('countryLanguage')],
    [`${address}/countrylanguage/getbyid?id=${itemAt(trLinks('countryLanguage'), 0).id}`, trLinks('countryLanguage')[0]],
    [`${address}/countrytimezone/getbycountryid?countryid=${tr.id}`, trLinks('countryTimeZone')],
    [`${address}/countrytimezone/getbytimezoneid?timezoneid=${istanbulZone.id}`, trLinks('countryTimeZone')],
    [`${address}/countrytimezone/getbyid?id=${itemAt(trLinks('countryTimeZone'), 0).id}`, trLinks('countryTimeZone')[0]],
    [`${address}/countrytoplevelwebdomain/getbyid?id=${itemAt(trLinks('countryTopLevelWebDomain'), 0).id}`, trLinks('countryTopLevelWebDomain')[0]],
    [`${address}/countrytoplevelwebdomain/getbywebdomainid?webdomainid=${trDomain.id}`, trLinks('countryTopLevelWebDomain')],
    [`${address}/countryholiday/getbycountryid?CountryId=${tr.id}&Year=2024`, trDays('countryHoliday')],
    [`${address}/countryspecialday/getbycountryid?CountryId=${tr.id}&Year=2024`, trDays('countrySpecialDay')],
    [`${address}/countryholiday/getbycountrycode?CountryCode=tr&Year=2024`, trDays('countryHoliday')],
    [`${address}/countryspecialday/getbycountrycode?countrycode=TR&year=2024`, trDays('countrySpecialDay')],
    [`${address}/stateprovinceholiday/getbystateprovinceid?StateProvinceId=${berlin.id}&Year=2024`, berlinDays],
    [`${address}/stateprovinceholiday/getbystateprovincecode?StateProvinceCode=de-be&Year=2024`, berlinDays],
    [`${address}/stateprovincespecialday/getbystateprovinceid?StateProvinceId=${berlin.id}&Year=2024`, []],
    [`${address}/stateprovincespecialday/getbystateprovincecode?StateProvinceCode=DE-BE&Year=2024`, []],
    [`${address}/weekend/getbycountrycode?CountryCode=TR`, trLinks('weekend')],
    [
      `${address}/workcalendar/getbycountrycode?CountryCode=DE&Year=2024&StateProvinceCode=DE-BE`,
      {
        countryCode: 'DE',
        stateProvinceCode: 'DE-BE',
        year: 2024,
        weekendDays: [6, 7],
        weekendChanges: [],
        days: [
          { date: '2024-01-01', type: 'public', name: 'Neujahr', scope: 'national' },
          { date: '2024-03-08', type: 'public', name: 'Frauentag', scope: 'regional' },
        ],
      },
    ],
  ];
}

describe('every operation over HTTP', () => {
  it('has a success case here for each of the routes', () => {
    const covered = new Set(successCases().map(([target]) => target.split('?')[0]));
    expect(routes.filter((route) => !covered.has(route.path)).map((route) => route.path)).toEqual([]);
  });

  it.each(successCases())('GET %s answers the whole record or list in the envelope', async (target, body) => {
    const reply = await call(target);
    expect(reply.status).toBe(200);
    expect(reply.headers.get('content-type')).toBe('application/json; charset=utf-8');
    expect(reply.envelope).toEqual({ header: { globalId: expect.stringMatching(uuidV4), isSuccess: true, message: null }, body });
  });

  it('gives every response a fresh globalId', async () => {
    const ids = new Set<string>();
    for (let round = 0; round < 20; round++) ids.add((await call(`${address}/region/getall`)).envelope.header.globalId);
    expect(ids.size).toBe(20);
  });
});

describe('lookups that forgive', () => {
  it('getbyname matches İSTANBUL, istanbul, Istanbul and İstanbul', async () => {
    for (const spelling of ['İSTANBUL', 'istanbul', 'Istanbul', 'İstanbul']) {
      const reply = await call(`${address}/stateprovince/getbyname?name=${encodeURIComponent(spelling)}`);
      expect((reply.envelope.body as FixtureRecord).name, spelling).toBe('İstanbul');
    }
  });

  it('says aloud when a name several records share answers one of them, and lists them all on request', async () => {
    const tr = country('TR');
    const yenisehirs = records.district.filter((district) => district.name === 'Yenişehir');
    expect(yenisehirs).toHaveLength(3);
    const one = await call(`${address}/district/getbyname?name=YENISEHIR&countryId=${tr.id}`, { headers: { Origin: 'https://app.example' } });
    expect(one.status).toBe(200);
    expect(one.headers.get('x-ambiguous-matches')).toBe('3');
    expect((one.envelope.body as FixtureRecord).id).toBe(yenisehirs[0]?.id);
    const all = await call(`${address}/district/getallbyname?name=yenişehir&countryId=${tr.id}`);
    expect((all.envelope.body as FixtureRecord[]).map((district) => district.id)).toEqual(yenisehirs.map((district) => district.id));
    // A name one record has says nothing.
    expect((await call(`${address}/district/getbyname?name=kadikoy&countryId=${tr.id}`)).headers.get('x-ambiguous-matches')).toBeNull();
    await expectFailure(
      call(`${address}/stateprovince/getallbyname?name=istanbul&countryid=${country('DE').id}`),
      404,
      /^No state or province has name "istanbul" and countryid/,
    );
  });

  it('searches as users type: from the first character for countries, the second for the rest; no match is an empty list', async () => {
    const tr = country('TR');
    const names = async (path: string) => ((await call(path)).envelope.body as FixtureRecord[]).map((record) => String(record.name));
    // Every country whose name, in any language, or a word of it starts with the query; Türkiye by its alternative name.
    expect(await names(`${address}/country/searchbyname?name=t`)).toContain('Türkiye');
    expect(await names(`${address}/country/searchbyname?name=turke`)).toEqual(['Türkiye']);
    // A name that starts with the query ("Republic of Türkiye") before a word that does ("Federal Republic of Germany").
    expect(await names(`${address}/country/searchbyname?name=germ`)).toEqual(['Germany']);
    expect(await names(`${address}/country/searchbyname?name=republic`)).toEqual(['Türkiye', 'Germany']);
    expect(await names(`${address}/country/searchbyname?name=deu`)).toEqual(['Germany']);
    expect(await names(`${address}/district/searchbyname?name=yenis&countryid=${tr.id}`)).toEqual(['Yenişehir', 'Yenişehir', 'Yenişehir']);
    expect((await call(`${address}/district/searchbyname?name=zz&countryid=${tr.id}`)).envelope.body).toEqual([]);
    // A neighbourhood by its name as a form shows it, and by PTT's spelling of it.
    const kadikoy = of('district', 'name', 'Kadıköy');
    for (const query of ['caferağa mahallesi', 'Caferağa Mah', 'mahallesi']) {
      expect(await names(`${address}/neighborhood/searchbyname?name=${encodeURIComponent(query)}&districtid=${kadikoy.id}`), query).toContain(
        'Caferağa Mahallesi',
      );
    }
    await expectFailure(
      call(`${address}/stateprovince/searchbyname?name=i`),
      400,
      /^Query parameter name is "i": a search needs at least 2 letters or digits; type 1 more\.$/,
    );
    await expectFailure(
      call(`${address}/country/searchbyname?name=${'a'.repeat(201)}`),
      400,
      /expected a name with at least one letter or digit, at most 200 characters/,
    );
    await expectFailure(
      call(`${address}/district/searchbyname?name=kad&countryid=00000000-0000-4000-8000-000000000000`),
      404,
      /^No country has countryid "00000000-0000-4000-8000-000000000000"\.$/,
    );
    // An answer made from candidates revalidates like any other.
    const first = await call(`${address}/stateprovince/searchbyname?name=ank`);
    const etag = first.headers.get('etag') ?? '';
    expect(etag).toMatch(/^"[A-Za-z0-9_-]+"$/);
    const again = await fetch(`${proxy.url}${address}/stateprovince/searchbyname?name=ank`, {
      headers: { Authorization: `Bearer ${testKey}`, 'If-None-Match': etag },
    });
    expect(again.status).toBe(304);
    expect((await call(`${address}/stateprovince/searchbyname?name=anka`)).headers.get('etag')).not.toBe(etag);
  });

  it('country getbyname accepts Türkiye, Turkiye, TÜRKİYE and the alternative name Turkey', async () => {
    for (const spelling of ['Türkiye', 'Turkiye', 'TÜRKİYE', 'Turkey']) {
      const reply = await call(`${address}/country/getbyname?name=${encodeURIComponent(spelling)}`);
      expect((reply.envelope.body as FixtureRecord).alpha2Code, spelling).toBe('TR');
    }
  });

  it('matches parameter names in any letter case and ignores unknown parameters', async () => {
    const tr = country('TR');
    for (const name of ['countryid', 'countryId', 'CountryId', 'COUNTRYID']) {
      const reply = await call(`${address}/stateprovince/getbycountryid?${name}=${tr.id}&page=2`);
      expect(reply.status, name).toBe(200);
      expect(reply.envelope.body, name).toHaveLength(5);
    }
    const holidays = await call(`${address}/countryholiday/getbycountryid?countryid=${tr.id}&year=2024`);
    expect(holidays.envelope.body).toHaveLength(5);
  });

  it('writes out invisible and reordering characters a message repeats, so it reads as what was sent', async () => {
    const reply = await call(`${address}/country/getbyname?name=${encodeURIComponent('abc\u202egpj.exe\u200b')}`);
    expect(reply.status).toBe(404);
    expect(reply.envelope.header.message).toContain('"abc\\u202egpj.exe\\u200b"');
    expect(reply.envelope.header.message).not.toMatch(/[\u202e\u200b]/);
  });

  it(`refuses a query of more than ${maxQueryParams} parameters before reading any, and takes up to that many`, async () => {
    const tr = country('TR');
    const extra = (count: number): string => Array.from({ length: count }, (_, index) => `&x${index}=1`).join('');
    expect((await call(`${address}/stateprovince/getbycountryid?countryid=${tr.id}${extra(maxQueryParams - 1)}`)).status).toBe(200);
    for (const count of [maxQueryParams, 2000]) {
      const reply = await call(`${address}/stateprovince/getbycountryid?countryid=${tr.id}${extra(count)}`);
      expect(reply.status).toBe(400);
      expect(reply.envelope.header.message).toBe(`The query has more than ${maxQueryParams} parameters: send only the operation's own (see /docs), each once.`);
    }
  });

  it('accepts upper-case UUIDs, braces, and paths in any letter case', async () => {
    const tr = country('TR');
    const reply = await call(`/AddressManagement/API/Country/GetById?ID={${tr.id.toUpperCase()}}`);
    expect((reply.envelope.body as FixtureRecord).id).toBe(tr.id);
  });

  it('answers an empty list for an existing parent without children', async () => {
    const de = country('DE');
    const reply = await call(`${finance}/bank/getbycountryid?countryId=${de.id}`);
    expect(reply.status).toBe(200);
    expect(reply.envelope.body).toEqual([]);
    expect((await call(`${address}/countryholiday/getbycountryid?CountryId=${de.id}&Year=2023`)).envelope.body).toEqual([]);
  });

  it('answers HEAD with the headers of GET and no body', async () => {
    const get = await call(`${address}/region/getall`);
    const head = await call(`${address}/region/getall`, { method: 'HEAD' });
    expect(head.status).toBe(200);
    expect(head.envelope).toBeUndefined();
    expect(head.headers.get('content-length')).toBe(get.headers.get('content-length'));
  });
});

/** A failure: status, the envelope with isSuccess false, body null, and a message matching. */
async function expectFailure(reply: Reply | Promise<Reply>, status: number, message: RegExp): Promise<Reply> {
  const { status: actual, envelope, headers } = await reply;
  expect(actual).toBe(status);
  expect(headers.get('content-type')).toBe('application/json; charset=utf-8');
  expect(envelope).toEqual({ header: { globalId: expect.stringMatching(uuidV4), isSuccess: false, message: expect.stringMatching(message) }, body: null });
  return reply;
}

describe('errors', () => {
  const region = `${address}/region/getall`;

  it('401 without a token, with the RFC 6750 challenge', async () => {
    const reply = await expectFailure(call(region, {}, null), 401, /^Authorization required: send the header "Authorization: Bearer <token>"\.$/);
    expect(reply.headers.get('www-authenticate')).toBe('Bearer realm="reference-data"');
  });

  it('401 for a token that is not a key, with error="invalid_token"', async () => {
    const reply = await expectFailure(call(region, {}, 'wrong-key-0123456789abcdef'), 401, /token is not valid/);
    expect(reply.headers.get('www-authenticate')).toBe('Bearer realm="reference-data", error="invalid_token", error_description="the token is not valid"');
  });

  it('400 for an Authorization header that is not a bearer token', async () => {
    for (const authorization of ['Basic dXNlcjpwYXNz', 'Bearer', 'Bearer two words', testKey]) {
      const reply = await expectFailure(call(region, { headers: { Authorization: authorization } }), 400, /Malformed Authorization header/);
      expect(reply.headers.get('www-authenticate'), authorization).toContain('error="invalid_request"');
    }
  });

  it('400 naming a missing parameter and its expected form', async () => {
    await expectFailure(call(`${address}/country/getbyalpha2code`), 400, /^Missing query parameter alpha2code: expected a code of letters and digits/);
    await expectFailure(
      call(`${address}/countryholiday/getbycountryid?CountryId=${country('TR').id}`),
      400,
      /^Missing query parameter Year: expected a four-digit year/,
    );
  });

  it('400 naming a malformed parameter', async () => {
    await expectFailure(call(`${address}/country/getbyid?id=42`), 400, /^Query parameter id is "42": expected a UUID such as/);
    await expectFailure(call(`${address}/callingcode/getbycode?code=ninety`), 400, /^Query parameter code is "ninety": expected a whole number/);
    await expectFailure(call(`${address}/webdomain/getbyistoplevel?istoplevel=yes`), 400, /^Query parameter istoplevel is "yes": expected true or false/);
    await expectFailure(call(`${address}/country/getbyname?name=%20-%20`), 400, /^Query parameter name is " - ": expected a name with at least one letter/);
  });

  it('400 for a repeated parameter, whatever the letter case of the repeats', async () => {
    const tr = country('TR').id;
    await expectFailure(
      call(`${address}/stateprovince/getbycountryid?countryid=${tr}&CountryId=${tr}`),
      400,
      /^Query parameter countryid is given 2 times: give it once/,
    );
  });

  it("404 for an unknown operation of a resource, listing that resource's operations and naming /docs", async () => {
    const operations = routes.filter((route) => routeParts(route).resource === 'country').map((route) => routeParts(route).operation);
    const { envelope } = await expectFailure(
      call(`${address}/country/getbyalpha3`),
      404,
      /^No operation at "\/addressmanagement\/api\/country\/getbyalpha3": country has getall, getbyid, getbyalpha2code, .* and getbyregionid \(\/addressmanagement\/api\/country\/<operation>\)\. .*\/docs and in \/openapi\.json\.$/,
    );
    const listed = /country has (.*) \(/.exec(envelope.header.message ?? '')?.[1] ?? '';
    expect(listed.split(/, | and /)).toEqual(operations);
    // A resource under the wrong area, in another letter case, is still named with its own path.
    await expectFailure(call(`${finance}/Country/getall`), 404, /: country has getall, .*\(\/addressmanagement\/api\/country\/<operation>\)/);
  });

  it('404 for a path under no resource, naming /docs and every resource', async () => {
    const { envelope } = await expectFailure(
      call(`${address}/planet/getall`),
      404,
      /^No operation at "\/addressmanagement\/api\/planet\/getall": paths look like \/addressmanagement\/api\/country\/getall; the resources are bank and currency under \/financemanagement\/api\/; country, .* under \/addressmanagement\/api\/\. .*\/docs and in \/openapi\.json\.$/,
    );
    const named = (/the resources are (.*)\. Every/.exec(envelope.header.message ?? '')?.[1] ?? '')
      .split(/ under \/[a-z]+\/api\/;? ?/)
      .flatMap((group) => group.split(/, | and /))
      .filter(Boolean);
    expect(named.sort()).toEqual([...new Set(routes.map((route) => routeParts(route).resource))].sort());
  });

  it('404 naming what was looked for when nothing matches', async () => {
    await expectFailure(call(`${address}/country/getbyalpha2code?alpha2code=XX`), 404, /^No country has alpha2code "XX"\.$/);
    await expectFailure(
      call(`${address}/country/getbyid?id=00000000-0000-4000-8000-000000000000`),
      404,
      /^No country has id "00000000-0000-4000-8000-000000000000"\.$/,
    );
    await expectFailure(
      call(`${address}/district/getbyname?name=Kadıköy&countryId=${country('DE').id}`),
      404,
      /^No district has countryId ".*" and name "Kadıköy"\.$/,
    );
    await expectFailure(call(`${address}/neighborhood/getbyzipcode?zipcode=99999`), 404, /^No neighborhood has zipcode "99999"\.$/);
  });

  it('finds a bank by its code with or without leading zeros, and says the form when none has it', async () => {
    const ziraat = bankBody(of('bank', 'code', '010'));
    for (const code of ['10', '010', '0010', '00010']) {
      const reply = await call(`${finance}/bank/getbycode?code=${code}`);
      expect([reply.status, reply.envelope.body], code).toEqual([200, ziraat]);
    }
    await expectFailure(call(`${finance}/bank/getbycode?code=7`), 404, /^No bank has code "7": Türkiye's bank codes are three digits, such as 010/);
    await expectFailure(call(`${finance}/bank/getbycode?code=abc`), 404, /^No bank has code "abc"/);
  });

  it('finds a bank by IBAN in any spacing and case, and names the failed check of a wrong one', async () => {
    const ziraat = bankBody(of('bank', 'code', '010'));
    for (const iban of ['TR420001000000000000000001', 'tr42 0001 0000 0000 0000 0000 01', ' TR42-0001-0000-0000-0000-0000-01 ']) {
      const reply = await call(`${finance}/bank/getbyiban?iban=${encodeURIComponent(iban)}`);
      expect([reply.status, reply.envelope.body], iban).toEqual([200, ziraat]);
    }
    await expectFailure(
      call(`${finance}/bank/getbyiban?iban=TR430001000000000000000001`),
      400,
      /iban is "TR430001000000000000000001": expected .*mod-97 check; these do not/,
    );
    await expectFailure(
      call(`${finance}/bank/getbyiban?iban=TR42000100000000000000001`),
      400,
      /expected an IBAN of 26 characters, as TR's are; this one has 25/,
    );
    await expectFailure(call(`${finance}/bank/getbyiban?iban=XX89370400440532013000`), 400, /XX is no country that uses IBANs/);
    await expectFailure(
      call(`${finance}/bank/getbyiban?iban=DE89370400440532013000`),
      404,
      /it is an IBAN of DE, and the service holds the banks of Türkiye only/,
    );
    // A well-formed Turkish IBAN (check digits computed) of a bank code no bank has.
    await expectFailure(call(`${finance}/bank/getbyiban?iban=TR450099900000000000000001`), 404, /^No bank has code 999, the bank code in IBAN/);
  });

  it('400 for a postal code that cannot be one, naming the form expected', async () => {
    for (const zipcode of ['34', '34710347103', '34_710', 'İ3471']) {
      await expectFailure(call(`${address}/neighborhood/getbyzipcode?zipcode=${encodeURIComponent(zipcode)}`), 400, /zipcode.*a postal code such as 34710/);
    }
  });

  it('404 for a list whose parent does not exist', async () => {
    await expectFailure(
      call(`${address}/stateprovince/getbycountryid?countryid=00000000-0000-4000-8000-000000000000`),
      404,
      /^No country has id "00000000-0000-4000-8000-000000000000"\.$/,
    );
    await expectFailure(call(`${address}/countrycurrency/getbycurrencycode?currencycode=XYZ`), 404, /^No currency has code "XYZ"\.$/);
  });

  it('404 for a year outside the window, naming the window', async () => {
    await expectFailure(
      call(`${address}/countryholiday/getbycountryid?CountryId=${country('TR').id}&Year=2026`),
      404,
      /^Year 2026 is outside the years this service holds: 2023 to 2025\.$/,
    );
  });

  it('405 with Allow for methods that would change something', async () => {
    for (const method of ['POST', 'PUT', 'DELETE', 'PATCH']) {
      const reply = await expectFailure(call(region, { method }), 405, new RegExp(`^Method ${method} is not allowed`));
      expect(reply.headers.get('allow')).toBe('GET, HEAD, OPTIONS');
    }
  });

  it('never reads outside dist: path syntax in values is refused or simply not found', async () => {
    const attempts = [
      `${address}/country/getbyalpha2code?alpha2code=..%2F..%2Fmanifest`,
      `${address}/country/getbyalpha2code?alpha2code=..`,
      `${address}/country/getbyname?name=..%2F..%2F..%2Fetc%2Fpasswd`,
      `${address}/webdomain/getbyname?name=..%2Fmanifest`,
      `/manifest.json`,
      `/${address}/../../manifest.json`,
      `${address}/country/getall/..%2F..%2Fmanifest`,
      `/${address}/region/getall`,
    ];
    for (const attempt of attempts) {
      const reply = await call(attempt);
      expect([400, 404], attempt).toContain(reply.status);
      expect(reply.envelope.header.isSuccess, attempt).toBe(false);
    }
  });

  it('answers a request the HTTP parser refuses with a 400 envelope, not a dropped connection', async () => {
    const raw = await new Promise<string>((resolve, reject) => {
      const socket = connect(Number(new URL(proxy.url).port), '127.0.0.1');
      let received = '';
      socket.on('data', (chunk) => (received += chunk.toString()));
      socket.on('end', () => resolve(received));
      socket.on('error', reject);
      socket.write('GET /addressmanagement/api/country/getbyname?name=İstanbul HTTP/1.1\r\nHost: x\r\n\r\n');
    });
    expect(raw).toMatch(/^HTTP\/1\.1 400 Bad Request\r\n/);
    expect(raw).toMatch(/\r\nX-Request-Id: [0-9a-f-]{36}\r\n/);
    expect(raw).toContain('\r\nCache-Control: no-store\r\n');
    const envelope = JSON.parse(raw.slice(raw.indexOf('\r\n\r\n') + 4));
    expect(envelope.header.isSuccess).toBe(false);
    expect(envelope.header.message).toMatch(/percent-encode/);
  });
});

/**
 * Neighbourhoods by postal code in every country or in one, and districts by their other common
 * names, over HTTP against the fixture build: Türkiye's rows beside real GeoNames rows of Germany
 * and the United Kingdom (test/fixtures/facts/geonames-postal-rows.md).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RecordType } from '../../contract/routes.ts';
import type { RunningServer } from '../../proxy/http/server.ts';
import { buildFixture, fixtureRecords, pick, startProxy, testKey, without, type FixtureRecord } from '../support/service.ts';

const address = '/addressmanagement/api';
const records = Object.fromEntries(
  await Promise.all((['country', 'stateProvince', 'district', 'neighborhood'] as const).map(async (type) => [type, await fixtureRecords(type)] as const)),
) as Record<Extract<RecordType, 'country' | 'stateProvince' | 'district' | 'neighborhood'>, FixtureRecord[]>;

const country = (alpha2: string) => pick(records.country, 'alpha2Code', alpha2);
const neighbourhood = (name: string) => pick(records.neighborhood, 'name', name);
const district = (name: string) => pick(records.district, 'name', name);
/** A neighbourhood as the API shows it: Türkiye's kind of place and PTT's spelling only in getplacesbydistrictid. */
const place = (record: FixtureRecord) => without(record, 'pttName', 'placeType', 'parentPlace');
/** A district as the API shows it: its other names only find it. */
const shownDistrict = (record: FixtureRecord) => without(record, 'aliases');

let proxy: RunningServer;
beforeAll(async () => {
  proxy = await startProxy(await buildFixture());
});
afterAll(() => proxy.close());

interface Reply {
  readonly status: number;
  readonly text: string;
  readonly body: unknown;
  readonly message: string | null;
}

async function call(pathAndQuery: string): Promise<Reply> {
  const response = await fetch(`${proxy.url}${pathAndQuery}`, { headers: { Authorization: `Bearer ${testKey}` } });
  const text = await response.text();
  const envelope = JSON.parse(text) as { header: { message: string | null }; body: unknown };
  return { status: response.status, text, body: envelope.body, message: envelope.header.message };
}

const zipcode = (code: string, countryId?: string) =>
  call(`${address}/neighborhood/getbyzipcode?zipcode=${encodeURIComponent(code)}${countryId === undefined ? '' : `&countryId=${countryId}`}`);
const names = (reply: Reply) => (reply.body as FixtureRecord[]).map((record) => record.name);

describe('neighborhood/getbyzipcode', () => {
  it("answers Türkiye's codes as they were, byte for byte, with or without Türkiye's countryId", async () => {
    const tr = country('TR');
    for (const name of ['Caferağa Mahallesi', 'Osmanağa Mahallesi', 'Afşar Mahallesi']) {
      const record = neighbourhood(name);
      const body = JSON.stringify([place(record)]);
      for (const reply of [await zipcode(String(record.zipCode)), await zipcode(String(record.zipCode), tr.id)]) {
        expect(reply.status, name).toBe(200);
        expect(reply.text, name).toContain(`"body":${body}}`);
      }
    }
  });

  it("answers every country's neighbourhoods of a code several share, and only one country's with its countryId", async () => {
    const [kizilay, konnern] = [neighbourhood('Kızılay Mahallesi'), neighbourhood('Könnern')];
    expect((await zipcode('06420')).body).toEqual([place(kizilay), place(konnern)]);
    expect((await zipcode('06420', country('TR').id)).body).toEqual([place(kizilay)]);
    expect((await zipcode('06420', country('DE').id)).body).toEqual([place(konnern)]);
    expect(names(await zipcode('80331'))).toEqual(['München']);
    expect(names(await zipcode('10115', country('DE').id))).toEqual(['Berlin']);
  });

  it("finds a UK outward code's places by the whole postcode, in any case and spacing", async () => {
    const westminster = [place(neighbourhood('Westminster Abbey'))];
    for (const typed of ['SW1A 1AA', 'sw1a 1aa', 'SW1A1AA', 'sw1a1aa', 'SW1A', 'sw1a', ' Sw1A 1aA ']) {
      const reply = await zipcode(typed);
      expect([reply.status, reply.body], typed).toEqual([200, westminster]);
    }
    expect((await zipcode('SW1A 1AA', country('GB').id)).body).toEqual(westminster);
  });

  it('forgives spaces and hyphens in any code', async () => {
    for (const typed of ['06 420', '06-420', ' 06420 ', '０６４２０']) expect(names(await zipcode(typed)), typed).toEqual(['Kızılay Mahallesi', 'Könnern']);
  });

  it('says a leading zero is missing where the code with it has neighbourhoods', async () => {
    const reply = await zipcode('6420', country('DE').id);
    expect(reply.status).toBe(404);
    expect(reply.message).toMatch(/^No neighborhood has zipcode "6420" and countryId ".*"; zipcode "06420" has: a postal code keeps its leading zeros/);
    expect((await zipcode('6420')).message).toMatch(/^No neighborhood has zipcode "6420"; zipcode "06420" has/);
    expect((await zipcode('99999')).message).toBe('No neighborhood has zipcode "99999".');
  });

  it('404 for a country that has no such code, or no such country; 400 for a countryId that is no UUID', async () => {
    const elsewhere = await zipcode('80331', country('TR').id);
    expect(elsewhere.status).toBe(404);
    expect(elsewhere.message).toMatch(
      /^No neighborhood has zipcode "80331" and countryId ".*": leave countryId out for every neighborhood with that zipcode\.$/,
    );
    const unknown = await zipcode('34710', '00000000-0000-4000-8000-000000000000');
    expect([unknown.status, unknown.message]).toEqual([404, 'No country has countryId "00000000-0000-4000-8000-000000000000".']);
    const malformed = await zipcode('34710', 'TR');
    expect(malformed.status).toBe(400);
    expect(malformed.message).toMatch(/^Query parameter countryId is "TR": expected a UUID such as /);
  });
});

describe('districts by another common name', () => {
  const de = () => country('DE').id;

  it('getbyname and getallbyname find München by Munich too, and the answer does not show the other names', async () => {
    const munchen = shownDistrict(district('München'));
    for (const name of ['München', 'MUNCHEN', 'Munich', 'munich']) {
      expect((await call(`${address}/district/getbyname?countryId=${de()}&name=${encodeURIComponent(name)}`)).body, name).toEqual(munchen);
      expect((await call(`${address}/district/getallbyname?countryId=${de()}&name=${encodeURIComponent(name)}`)).body, name).toEqual([munchen]);
    }
    expect((await call(`${address}/district/getbyname?countryId=${country('TR').id}&name=Munich`)).status).toBe(404);
  });

  it('searchbyname finds München as users type its English name', async () => {
    const munchen = shownDistrict(district('München'));
    for (const typed of ['mu', 'mun', 'muni', 'Munich', 'münch']) {
      expect((await call(`${address}/district/searchbyname?countryid=${de()}&name=${encodeURIComponent(typed)}`)).body, typed).toEqual([munchen]);
    }
  });

  it("answers Türkiye's districts as they were", async () => {
    const kadikoy = district('Kadıköy');
    const tr = country('TR').id;
    expect((await call(`${address}/district/getbyname?countryId=${tr}&name=kadikoy`)).text).toContain(`"body":${JSON.stringify(kadikoy)}}`);
    expect((await call(`${address}/district/searchbyname?countryid=${tr}&name=kad`)).body).toEqual([kadikoy]);
  });
});

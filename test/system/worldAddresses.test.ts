/**
 * The world's addresses, served: the real data/ built with `addressCountries: ["TR", "DE", "FR"]`
 * and asked over HTTP what an address form asks. A second build, of Türkiye alone, shows that
 * adding countries leaves Türkiye's answers as they were, byte for byte.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunningServer } from '../../proxy/http/server.ts';
import { buildFixture, itemAt, realBuildTimeoutMs, realDataServing, startProxy, testKey } from '../support/service.ts';

const address = '/addressmanagement/api';

interface Answer {
  status: number;
  errorCode: string | null;
  etag: string | null;
  message: string | null;
  /** The body's bytes as the response carries them, inside the envelope. */
  bodyBytes: Buffer;
}

async function ask(proxy: RunningServer, target: string): Promise<Answer> {
  const response = await fetch(`${proxy.url}${target}`, { headers: { Authorization: `Bearer ${testKey}` } });
  const bytes = Buffer.from(await response.arrayBuffer());
  const envelope = JSON.parse(bytes.toString('utf8')) as { header: { message: string | null } };
  const bodyStart = bytes.indexOf('"body":') + '"body":'.length;
  return {
    status: response.status,
    errorCode: response.headers.get('x-error-code'),
    etag: response.headers.get('etag'),
    message: envelope.header.message,
    bodyBytes: bytes.subarray(bodyStart, bytes.length - 1),
  };
}

async function body<T>(proxy: RunningServer, target: string): Promise<T> {
  const answer = await ask(proxy, target);
  expect(answer.status, `${target}: ${answer.message}`).toBe(200);
  return JSON.parse(answer.bodyBytes.toString('utf8')) as T;
}

interface StateProvince {
  id: string;
  countryId: string;
  name: string;
  abbreviation: string;
}
interface District {
  id: string;
  stateProvinceId: string;
  name: string;
}
interface Neighborhood {
  id: string;
  districtId: string;
  name: string;
  zipCode: string;
}

let proxy: RunningServer;
const countryIds: Record<'TR' | 'DE' | 'FR' | 'AT', string> = { TR: '', DE: '', FR: '', AT: '' };

beforeAll(async () => {
  proxy = await startProxy(await buildFixture(await realDataServing(['TR', 'DE', 'FR'])));
  for (const code of ['TR', 'DE', 'FR', 'AT'] as const) {
    countryIds[code] = (await body<{ id: string }>(proxy, `${address}/country/getbyalpha2code?alpha2code=${code}`)).id;
  }
}, realBuildTimeoutMs);
afterAll(() => proxy?.close());

const get = <T>(target: string) => body<T>(proxy, target);
const districtNamed = (name: string, countryId: string) =>
  get<District>(`${address}/district/getbyname?name=${encodeURIComponent(name)}&countryid=${countryId}`);
const countryOfDistrict = async (districtId: string) => {
  const district = await get<District>(`${address}/district/getbyid?id=${districtId}`);
  return (await get<StateProvince>(`${address}/stateprovince/getbyid?id=${district.stateProvinceId}`)).countryId;
};

describe('an address form, on a build serving Türkiye, Germany and France', () => {
  it('München is a district of Bavaria (Bayern), and among the districts Bavaria lists', async () => {
    const provinces = await get<StateProvince[]>(`${address}/stateprovince/getbycountryid?countryid=${countryIds.DE}`);
    const bavaria = provinces.find((province) => province.abbreviation === 'BY');
    expect(bavaria).toMatchObject({ name: 'Bayern', countryId: countryIds.DE });
    expect(await get(`${address}/stateprovince/getbyname?name=bayern`)).toEqual(bavaria);
    const munich = await districtNamed('münchen', countryIds.DE);
    expect(munich).toMatchObject({ name: 'München', stateProvinceId: bavaria?.id });
    expect(await get(`${address}/district/getbystateprovinceid?stateprovinceid=${bavaria?.id}`)).toContainEqual(munich);
  });

  it('Munich and MÜNCHEN find the same München as münchen', async () => {
    const munich = await districtNamed('münchen', countryIds.DE);
    expect(await districtNamed('Munich', countryIds.DE)).toEqual(munich);
    expect(await districtNamed('MÜNCHEN', countryIds.DE)).toEqual(munich);
  });

  it("the type-ahead lists München among Germany's districts for münch", async () => {
    const found = await get<District[]>(`${address}/district/searchbyname?name=${encodeURIComponent('münch')}&countryid=${countryIds.DE}`);
    expect(found.length).toBeLessThanOrEqual(20);
    expect(found).toContainEqual(await districtNamed('München', countryIds.DE));
  });

  it('Lyon is a district of France, in the département Rhône (FR-69)', async () => {
    const lyon = await districtNamed('lyon', countryIds.FR);
    expect(lyon.name).toBe('Lyon');
    expect(await get(`${address}/stateprovince/getbyid?id=${lyon.stateProvinceId}`)).toMatchObject({
      countryId: countryIds.FR,
      name: 'Rhône',
      abbreviation: '69',
    });
  });

  it("80331 with Germany's id answers places of the district München", async () => {
    const munich = await districtNamed('München', countryIds.DE);
    const places = await get<Neighborhood[]>(`${address}/neighborhood/getbyzipcode?zipcode=80331&countryid=${countryIds.DE}`);
    expect(places.length).toBeGreaterThan(0);
    expect(places.map((place) => [place.districtId, place.zipCode])).toEqual(places.map(() => [munich.id, '80331']));
  });

  it("10115 with Germany's id answers places of the district Berlin", async () => {
    const berlin = await districtNamed('Berlin', countryIds.DE);
    expect(await get<StateProvince>(`${address}/stateprovince/getbyid?id=${berlin.stateProvinceId}`)).toMatchObject({ abbreviation: 'BE' });
    const places = await get<Neighborhood[]>(`${address}/neighborhood/getbyzipcode?zipcode=10115&countryid=${countryIds.DE}`);
    expect(places.length).toBeGreaterThan(0);
    expect(places.map((place) => [place.districtId, place.zipCode])).toEqual(places.map(() => [berlin.id, '10115']));
  });

  it("80331 without countryId answers Germany's places only: the other countries' 80331 are not in this build", async () => {
    const places = await get<Neighborhood[]>(`${address}/neighborhood/getbyzipcode?zipcode=80331`);
    expect(places).toEqual(await get(`${address}/neighborhood/getbyzipcode?zipcode=80331&countryid=${countryIds.DE}`));
    for (const place of places) expect(await countryOfDistrict(place.districtId), place.name).toBe(countryIds.DE);
  });

  it("34710 answers Caferağa of Kadıköy with Türkiye's id; without it, France's Lespignan beside it", async () => {
    const withTurkey = await get<Neighborhood[]>(`${address}/neighborhood/getbyzipcode?zipcode=34710&countryid=${countryIds.TR}`);
    expect(withTurkey.map((place) => place.name)).toEqual(['Caferağa Mahallesi']);
    expect(await get(`${address}/district/getbyid?id=${itemAt(withTurkey, 0).districtId}`)).toMatchObject({ name: 'Kadıköy' });
    const everywhere = await get<Neighborhood[]>(`${address}/neighborhood/getbyzipcode?zipcode=34710`);
    expect(everywhere.map((place) => place.name)).toEqual(['Caferağa Mahallesi', 'Lespignan']);
    expect(everywhere[0]).toEqual(withTurkey[0]);
    expect(await countryOfDistrict(itemAt(everywhere, 1).districtId)).toBe(countryIds.FR);
  });

  it("a district of Austria, which this build does not serve, is 404 ERR_NOT_FOUND naming the setting that leaves it out; Austria's provinces list no districts", async () => {
    const target = `${address}/district/getbyname?name=${encodeURIComponent('Wien, Innere Stadt')}&countryid=${countryIds.AT}`;
    const answer = await ask(proxy, target);
    expect([answer.status, answer.errorCode, answer.bodyBytes.toString()]).toEqual([404, 'ERR_NOT_FOUND', 'null']);
    expect(answer.message).toBe(
      `No district has countryId "${countryIds.AT}" and name "Wien, Innere Stadt": this build serves the districts and postal codes of DE, FR, TR only (addressCountries in data/build.json); a build with "all" there serves every country's.`,
    );
    const search = await ask(proxy, `${address}/district/searchbyname?name=wien&countryid=${countryIds.AT}`);
    expect([search.status, search.errorCode]).toEqual([404, 'ERR_NOT_FOUND']);
    expect(search.message).toMatch(
      /^No district can be searched there: this build serves the districts and postal codes of DE, FR, TR only \(addressCountries in data\/build\.json\)/,
    );
    // A served country's miss is a plain one.
    expect((await ask(proxy, `${address}/district/getbyname?name=nowhere&countryid=${countryIds.DE}`)).message).toBe(
      `No district has countryId "${countryIds.DE}" and name "nowhere".`,
    );
    const provinces = await get<StateProvince[]>(`${address}/stateprovince/getbycountryid?countryid=${countryIds.AT}`);
    const vienna = provinces.find((province) => province.name === 'Wien');
    expect(vienna).toBeDefined();
    expect(await get(`${address}/district/getbystateprovinceid?stateprovinceid=${vienna?.id}`)).toEqual([]);
  });
});

describe('Türkiye, unchanged by the countries added', () => {
  let turkeyAlone: RunningServer;
  beforeAll(async () => {
    turkeyAlone = await startProxy(await buildFixture(await realDataServing(['TR'])));
  }, realBuildTimeoutMs);
  afterAll(() => turkeyAlone?.close());

  /** The same lookup of both builds: the same body, byte for byte, and the same ETag. */
  async function expectSameAnswer(threeCountries: string, alone = threeCountries): Promise<void> {
    const [served, reference] = [await ask(proxy, threeCountries), await ask(turkeyAlone, alone)];
    expect(served.status, threeCountries).toBe(200);
    expect(served.bodyBytes.toString('utf8'), threeCountries).toBe(reference.bodyBytes.toString('utf8'));
    expect(served.bodyBytes.equals(reference.bodyBytes), threeCountries).toBe(true);
    expect(served.etag, threeCountries).toBe(reference.etag);
  }

  it("34710 with Türkiye's id answers what a build of Türkiye alone answers, with or without the id", async () => {
    const withTurkey = `${address}/neighborhood/getbyzipcode?zipcode=34710&countryid=${countryIds.TR}`;
    await expectSameAnswer(withTurkey);
    await expectSameAnswer(withTurkey, `${address}/neighborhood/getbyzipcode?zipcode=34710`);
  });

  it("Kadıköy, İstanbul's districts and Kadıköy's neighbourhoods answer as in a build of Türkiye alone", async () => {
    const kadikoy = await districtNamed('kadıköy', countryIds.TR);
    await expectSameAnswer(`${address}/district/getbyname?name=kadikoy&countryid=${countryIds.TR}`);
    await expectSameAnswer(`${address}/district/getbystateprovinceid?stateprovinceid=${kadikoy.stateProvinceId}`);
    await expectSameAnswer(`${address}/neighborhood/getbydistrictid?districtid=${kadikoy.id}`);
    await expectSameAnswer(`${address}/district/searchbyname?name=kad&countryid=${countryIds.TR}`);
    await expectSameAnswer(`${address}/neighborhood/searchbyname?name=cafer&districtid=${kadikoy.id}`);
    expect((await get<Neighborhood[]>(`${address}/neighborhood/searchbyname?name=cafer&districtid=${kadikoy.id}`)).map((place) => place.name)).toContain(
      'Caferağa Mahallesi',
    );
  });

  it("80331 with Germany's id, on a build of Türkiye alone, is a 404 that names the setting, not a bare miss", async () => {
    const answer = await ask(turkeyAlone, `${address}/neighborhood/getbyzipcode?zipcode=80331&countryid=${countryIds.DE}`);
    expect([answer.status, answer.errorCode]).toEqual([404, 'ERR_NOT_FOUND']);
    expect(answer.message).toBe(
      `No neighborhood has zipcode "80331" and countryId "${countryIds.DE}": this build serves the districts and postal codes of TR only (addressCountries in data/build.json); a build with "all" there serves every country's.`,
    );
    expect((await ask(turkeyAlone, `${address}/neighborhood/getbyzipcode?zipcode=80331`)).message).toMatch(
      /: this build serves the districts and postal codes of TR only/,
    );
  });
});

/** The real data in data/, built and served end to end: what a client of `npm start` sees. */
import { createHash } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import path from 'node:path';
import { once } from 'node:events';
import { createInterface } from 'node:readline';
import { Readable } from 'node:stream';
import type { ReadableStream as NodeReadableStream } from 'node:stream/web';
import { brotliDecompressSync, createGunzip, gunzipSync } from 'node:zlib';
import type { RunningServer } from '../../proxy/http/server.ts';
import { buildFixture, realBuildTimeoutMs, repoRoot, startProxy, testKey } from '../support/service.ts';

let proxy: RunningServer;
beforeAll(async () => {
  proxy = await startProxy(await buildFixture(path.join(repoRoot, 'data')));
}, realBuildTimeoutMs);
afterAll(() => proxy.close());

async function body<T>(target: string): Promise<T> {
  const response = await fetch(`${proxy.url}${target}`, { headers: { Authorization: `Bearer ${testKey}` } });
  expect(response.status, target).toBe(200);
  return ((await response.json()) as { body: T }).body;
}

interface Country {
  id: string;
  name: string;
  alpha2Code: string;
  numericIsoCode: number;
  capitalCity: string;
  callingCodeId: string;
  regionId: string;
  flag?: string;
}

describe('the real data, served', () => {
  it('lists every ISO 3166-1 country, without flags', async () => {
    const countries = await body<Country[]>('/addressmanagement/api/country/getall');
    expect(countries).toHaveLength(249);
    expect(countries.filter((country) => 'flag' in country)).toEqual([]);
  });

  it('finds Türkiye by every spelling, with its capital, ISO number, region and calling code', async () => {
    for (const name of ['Türkiye', 'TÜRKİYE', 'turkiye', 'Turkey', 'TURKEY']) {
      expect((await body<Country>(`/addressmanagement/api/country/getbyname?name=${encodeURIComponent(name)}`)).alpha2Code, name).toBe('TR');
    }
    const turkey = await body<Country>('/addressmanagement/api/country/getbyalpha3code?alpha3code=tur');
    expect(turkey).toMatchObject({ name: 'Türkiye', alpha2Code: 'TR', numericIsoCode: 792, capitalCity: 'Ankara' });
    expect(Buffer.from(turkey.flag ?? '', 'base64').toString('utf8')).toMatch(/^<svg/);
    expect(await body(`/addressmanagement/api/callingcode/getbyid?id=${turkey.callingCodeId}`)).toEqual({ id: turkey.callingCodeId, code: 90 });
    expect(await body(`/addressmanagement/api/region/getbyid?id=${turkey.regionId}`)).toEqual({ id: turkey.regionId, name: 'Asia' });
    expect((await body<Country>('/addressmanagement/api/country/getbyname?name=Czech%20Republic')).alpha2Code).toBe('CZ');
  });

  it('finds a country by its name in other languages (Unicode CLDR), answering the same body as by code', async () => {
    const germany = await body<Country>('/addressmanagement/api/country/getbyalpha2code?alpha2code=DE');
    for (const name of ['Almanya', 'ALMANYA', 'Allemagne', 'allemagne', 'Deutschland', 'ドイツ', 'Германия', 'ГЕРМАНИЯ', 'Alemania', '德国']) {
      expect(await body(`/addressmanagement/api/country/getbyname?name=${encodeURIComponent(name)}`), name).toEqual(germany);
    }
    // Hindi: Togo and Tonga differ only in their vowel signs, which folding keeps.
    expect((await body<Country>(`/addressmanagement/api/country/getbyname?name=${encodeURIComponent('टोगो')}`)).alpha2Code).toBe('TG');
    expect((await body<Country>(`/addressmanagement/api/country/getbyname?name=${encodeURIComponent('टोंगा')}`)).alpha2Code).toBe('TO');
    // "Kata" is Qatar in nine CLDR locales and Chad in one (Māori "Kāta"): the majority wins.
    expect((await body<Country>('/addressmanagement/api/country/getbyname?name=Kata')).alpha2Code).toBe('QA');
    // A name longer than a file name allows once folded (41 Georgian letters and more) still finds it.
    const southGeorgia = 'სამხრეთ ჯორჯია და სამხრეთ სენდვიჩის კუნძულები';
    expect((await body<Country>(`/addressmanagement/api/country/getbyname?name=${encodeURIComponent(southGeorgia)}`)).alpha2Code).toBe('GS');
  });

  it('resolves every country’s calling code and region over HTTP', async () => {
    const countries = await body<Country[]>('/addressmanagement/api/country/getall');
    for (const country of countries) {
      await body(`/addressmanagement/api/callingcode/getbyid?id=${country.callingCodeId}`);
      const inRegion = await body<Country[]>(`/addressmanagement/api/country/getbyregionid?regionid=${country.regionId}`);
      expect(
        inRegion.some((member) => member.id === country.id && typeof member.flag === 'string'),
        country.name,
      ).toBe(true);
    }
  });

  it('answers currencies by code in any case, upper case in the body', async () => {
    expect(await body('/financemanagement/api/currency/getbycode?code=try')).toMatchObject({ code: 'TRY', name: 'Turkish Lira' });
    expect(await body('/financemanagement/api/currency/getbycode?code=Eur')).toMatchObject({ code: 'EUR', name: 'Euro' });
    expect(await body('/addressmanagement/api/callingcode/getbycode?code=%2B90')).toMatchObject({ code: 90 });
  });

  it("finds neighbourhoods by postal code: İstanbul Kadıköy's 34710 lists Caferağa, each of them by id too", async () => {
    interface Neighborhood {
      id: string;
      districtId: string;
      name: string;
      zipCode: string;
    }
    const listed = await body<Neighborhood[]>('/addressmanagement/api/neighborhood/getbyzipcode?zipcode=34710');
    expect(listed.map((neighborhood) => neighborhood.name)).toContain('Caferağa Mahallesi');
    expect(listed.every((neighborhood) => neighborhood.zipCode === '34710')).toBe(true);
    const [first] = listed;
    expect(await body(`/addressmanagement/api/district/getbyid?id=${first?.districtId}`)).toMatchObject({ name: 'Kadıköy' });
    for (const neighborhood of listed) expect(await body(`/addressmanagement/api/neighborhood/getbyid?id=${neighborhood.id}`)).toEqual(neighborhood);
  });
});

describe("every country's addresses, as data/build.json ships", () => {
  const address = '/addressmanagement/api';

  it("80331 with Germany's id answers places of München; 34710 with Türkiye's, Caferağa", async () => {
    const germany = await body<{ id: string }>(`${address}/country/getbyalpha2code?alpha2code=DE`);
    const places = await body<{ districtId: string; zipCode: string }[]>(`${address}/neighborhood/getbyzipcode?zipcode=80331&countryid=${germany.id}`);
    expect(places.length).toBeGreaterThan(0);
    for (const place of places) expect(await body(`${address}/district/getbyid?id=${place.districtId}`)).toMatchObject({ name: 'München' });
    const turkey = await body<{ id: string }>(`${address}/country/getbyalpha2code?alpha2code=TR`);
    const caferaga = await body<{ name: string }[]>(`${address}/neighborhood/getbyzipcode?zipcode=34710&countryid=${turkey.id}`);
    expect(caferaga.map((place) => place.name)).toEqual(['Caferağa Mahallesi']);
  });

  it("a German city's type-ahead lists it among Germany's districts", async () => {
    const germany = await body<{ id: string }>(`${address}/country/getbyalpha2code?alpha2code=DE`);
    const found = await body<{ name: string }[]>(`${address}/district/searchbyname?name=${encodeURIComponent('münch')}&countryid=${germany.id}`);
    expect(found.map((district) => district.name)).toContain('München');
  });
});

describe('holiday names in English', () => {
  interface Day {
    id: string;
    summary: string;
    startDate: string;
  }
  const countryByCode = async (code: string) => body<Country>(`/addressmanagement/api/country/getbyalpha2code?alpha2code=${code}`);
  async function days(target: string, headers: Record<string, string> = {}) {
    const response = await fetch(`${proxy.url}${target}`, { headers: { Authorization: `Bearer ${testKey}`, ...headers } });
    const envelope = (await response.json()) as { header: { message: string | null }; body: Day[] | null };
    return { status: response.status, headers: response.headers, message: envelope.header.message, days: envelope.body ?? [] };
  }
  const on = (list: readonly Day[], day: string) => list.filter((entry) => entry.startDate.startsWith(day)).map((entry) => entry.summary);

  it("language=en gives Türkiye's Republic Day on 29 October; without it, Cumhuriyet Bayramı as before", async () => {
    const turkey = await countryByCode('TR');
    const target = `/addressmanagement/api/countryholiday/getbycountryid?CountryId=${turkey.id}&Year=2024`;
    const english = await days(`${target}&language=en`);
    expect(english.status).toBe(200);
    expect(on(english.days, '2024-10-29')).toEqual(['Republic Day']);
    expect(english.headers.get('content-language')).toBe('en');
    const own = await days(target);
    expect(on(own.days, '2024-10-29')).toEqual(['Cumhuriyet Bayramı']);
    expect(own.headers.get('content-language')).toBe('tr');
    // The same records, day for day: only the names differ.
    expect(english.days.map(({ id, startDate }) => ({ id, startDate }))).toEqual(own.days.map(({ id, startDate }) => ({ id, startDate })));
    const eve = await days(`/addressmanagement/api/countryspecialday/getbycountryid?CountryId=${turkey.id}&Year=2024&language=en`);
    expect(on(eve.days, '2024-10-28')).toEqual(['Republic Day (from 1pm)']);
  });

  it('Accept-Language: en chooses English, with Vary: Accept-Language; a language Türkiye has no names in is 400 naming tr and en', async () => {
    const turkey = await countryByCode('TR');
    const target = `/addressmanagement/api/countryholiday/getbycountryid?CountryId=${turkey.id}&Year=2024`;
    const chosen = await days(target, { 'Accept-Language': 'en-US,en;q=0.9' });
    expect(on(chosen.days, '2024-10-29')).toEqual(['Republic Day']);
    expect(chosen.headers.get('vary')).toBe('Authorization, Accept-Encoding, Accept-Language');
    const refused = await days(`${target}&language=fr`);
    expect(refused.status).toBe(400);
    expect(refused.message).toMatch(/"fr": this country's names are in tr and en: give language=tr or language=en/);
  });

  it("pairs each of a date's names with its own English name: Mongolia's New Harvest Days on 14 September 2024", async () => {
    const mongolia = await countryByCode('MN');
    const target = `/addressmanagement/api/countryspecialday/getbycountryid?CountryId=${mongolia.id}&Year=2024`;
    const own = await days(target);
    const english = new Map((await days(`${target}&language=en`)).days.map((day) => [day.id, day.summary]));
    const pairs = own.days.filter((day) => day.startDate.startsWith('2024-09-14')).map((day) => [day.summary, english.get(day.id)]);
    expect(Object.fromEntries(pairs)).toEqual({
      'Шинэ ургацын өдрүүд': 'New Harvest Days',
      'Үндэсний бичиг соёл, номын өдрүүд': 'National Literary, Cultural and Book Days',
    });
  });

  it('answers a country without names of another language in its own for en: the United Kingdom in British English, Bouvet Island with []', async () => {
    const kingdom = await countryByCode('GB');
    const target = `/addressmanagement/api/countryholiday/getbycountryid?CountryId=${kingdom.id}&Year=2024`;
    const english = await days(`${target}&language=en`);
    expect(english.days).toEqual((await days(target)).days);
    expect(english.headers.get('content-language')).toBe('en-GB');
    const bouvet = await countryByCode('BV');
    const none = await days(`/addressmanagement/api/countryholiday/getbycountryid?CountryId=${bouvet.id}&Year=2024&language=en`);
    expect([none.status, none.days, none.headers.get('content-language')]).toEqual([200, [], null]);
  });
});

describe('compression, on real bodies', () => {
  const countries = '/addressmanagement/api/country/getall';
  const region = '/addressmanagement/api/region/getall';
  /** undici's fetch decodes bodies itself; a raw request shows the coding on the wire. */
  async function raw(target: string, acceptEncoding: string, method = 'GET'): Promise<{ status: number; headers: Record<string, string>; body: Buffer }> {
    const { request } = await import('undici');
    const response = await request(`${proxy.url}${target}`, {
      method: method as 'GET',
      headers: { Authorization: `Bearer ${testKey}`, 'Accept-Encoding': acceptEncoding },
    });
    return { status: response.statusCode, headers: response.headers as Record<string, string>, body: Buffer.from(await response.body.arrayBuffer()) };
  }
  const withoutId = (text: string): unknown => {
    const envelope = JSON.parse(text) as { header: Record<string, unknown>; body: unknown };
    return { ...envelope, header: { ...envelope.header, globalId: 'x' } };
  };

  it('gzip (stitched from a cached deflate) or brotli by Accept-Encoding for a large body, the same JSON once decoded', async () => {
    const plain = await raw(countries, 'identity');
    expect(plain.headers['content-encoding']).toBeUndefined();
    const gzip = await raw(countries, 'gzip, deflate, br');
    expect(gzip.headers['content-encoding']).toBe('gzip');
    expect(withoutId(gunzipSync(gzip.body).toString())).toEqual(withoutId(plain.body.toString()));
    expect(Number(gzip.headers['content-length'])).toBe(gzip.body.length);
    expect(gzip.body.length).toBeLessThan(plain.body.length / 2);
    // Two responses share the cached deflate but not the globalId: both decode, each to its own id.
    const again = await raw(countries, 'gzip');
    const ids = [gzip, again].map((reply) => (JSON.parse(gunzipSync(reply.body).toString()) as { header: { globalId: string } }).header.globalId);
    expect(new Set(ids).size).toBe(2);
    for (const wanted of ['br', 'br;q=1.0, gzip;q=0.5', 'gzip;q=0, br']) {
      const br = await raw(countries, wanted);
      expect(br.headers['content-encoding'], wanted).toBe('br');
      expect(withoutId(brotliDecompressSync(br.body).toString())).toEqual(withoutId(plain.body.toString()));
    }
  });

  it('leaves small bodies and HEAD uncompressed', async () => {
    expect((await raw(region, 'br')).headers['content-encoding']).toBeUndefined();
    const head = await raw(countries, 'br', 'HEAD');
    expect(head.headers['content-encoding']).toBeUndefined();
    expect(Number(head.headers['content-length'])).toBe((await raw(countries, 'identity')).body.length);
  });
});

describe('the exports and change list of a first build, on the real data', () => {
  it('exports every record the build serves: the counts of /meta, and Caferağa (34710) among the neighbourhoods', async () => {
    const index = await body<{ exports: Record<string, { path: string; records: number; sha256: string }> }>('/exports/');
    const meta = await body<{ counts: Record<string, number> }>('/meta');
    expect(Object.fromEntries(Object.entries(index.exports).map(([type, entry]) => [type, entry.records]))).toEqual(meta.counts);
    // The export of the world's neighbourhoods is tens of megabytes: it is read as a stream, so that
    // the proxy, in this same process, keeps answering (and closing idle connections) meanwhile.
    const response = await fetch(`${proxy.url}/exports/neighborhood.ndjson.gz`, { headers: { Authorization: `Bearer ${testKey}` } });
    const hash = createHash('sha256');
    const gunzip = createGunzip();
    const reading = (async () => {
      for await (const chunk of Readable.fromWeb(response.body as NodeReadableStream<Uint8Array>)) {
        hash.update(chunk as Buffer);
        if (!gunzip.write(chunk)) await once(gunzip, 'drain');
      }
      gunzip.end();
    })();
    let lineCount = 0;
    const caferaga: unknown[] = [];
    for await (const line of createInterface({ input: gunzip, crlfDelay: Infinity })) {
      if (line === '') continue;
      lineCount += 1;
      if (line.includes('Cafera')) caferaga.push(JSON.parse(line));
    }
    await reading;
    expect(hash.digest('hex')).toBe(index.exports.neighborhood?.sha256);
    expect(lineCount).toBe(meta.counts.neighborhood ?? -1);
    expect(caferaga).toContainEqual(expect.objectContaining({ name: 'Caferağa Mahallesi', zipCode: '34710' }));
  });

  it('/meta/changes of a first build says there was none before it', async () => {
    expect(await body('/meta/changes')).toMatchObject({ from: null, records: {}, sources: [] });
  });
});

describe('business-day calendars, on the real data', () => {
  const calendar = '/addressmanagement/api/workcalendar/getbycountrycode';
  type Calendar = { weekendDays: number[]; weekendChanges: { from: string; weekendDays: number[] }[]; days: Record<string, unknown>[] };
  const dayOf = (found: Calendar, date: string) => found.days.filter((day) => day.date === date);

  it("Bavaria 2026: Epiphany and Corpus Christi as its own days, not Reformation Day (Brandenburg's)", async () => {
    const bavaria = await body<Calendar>(`${calendar}?CountryCode=DE&Year=2026&StateProvinceCode=DE-BY&language=en`);
    expect(dayOf(bavaria, '2026-01-06')).toEqual([{ date: '2026-01-06', type: 'public', name: 'Epiphany', scope: 'regional' }]);
    expect(dayOf(bavaria, '2026-06-04')).toEqual([{ date: '2026-06-04', type: 'public', name: 'Corpus Christi', scope: 'regional' }]);
    expect(dayOf(bavaria, '2026-10-31')).toEqual([]);
    const brandenburg = await body<{ summary: string; startDate: string }[]>(
      '/addressmanagement/api/stateprovinceholiday/getbystateprovincecode?StateProvinceCode=DE-BB&Year=2026&language=en',
    );
    expect(brandenburg.map((day) => day.startDate.slice(0, 10))).toContain('2026-10-31');
  });

  it('the weekend as it was that year: Saudi Arabia Friday–Saturday since 2013-06-28, the UAE Saturday–Sunday since 2022', async () => {
    expect((await body<Calendar>(`${calendar}?CountryCode=SA&Year=2026`)).weekendDays).toEqual([5, 6]);
    expect(await body<Calendar>(`${calendar}?CountryCode=SA&Year=2013`)).toMatchObject({
      weekendDays: [4, 5],
      weekendChanges: [{ from: '2013-06-28', weekendDays: [5, 6] }],
    });
    expect((await body<Calendar>(`${calendar}?CountryCode=AE&Year=2026`)).weekendDays).toEqual([6, 7]);
    expect((await body<Calendar>(`${calendar}?CountryCode=AE&Year=2021`)).weekendDays).toEqual([5, 6]);
  });

  it("typed days: Türkiye's Republic Day eve from 13:00, China's 4 January 2026 a working day, the UK's substitute Monday", async () => {
    expect(dayOf(await body<Calendar>(`${calendar}?CountryCode=TR&Year=2026`), '2026-10-28')).toEqual([
      { date: '2026-10-28', type: 'halfDay', name: 'Cumhuriyet Bayramı Arifesi', startTime: '13:00', scope: 'national' },
    ]);
    expect(dayOf(await body<Calendar>(`${calendar}?CountryCode=CN&Year=2026`), '2026-01-04')).toMatchObject([{ type: 'workday', scope: 'national' }]);
    expect(dayOf(await body<Calendar>(`${calendar}?CountryCode=GB&Year=2022`), '2022-01-03')).toMatchObject([
      { type: 'public', name: "New Year's Day (observed)", observedFor: '2022-01-01' },
    ]);
  });

  it('Hong Kong 2026: a statutory holiday once, Good Friday a general holiday only (a day off for some until 2028)', async () => {
    const hongKong = await body<Calendar>(`${calendar}?CountryCode=HK&Year=2026&language=en`);
    expect(dayOf(hongKong, '2026-01-01')).toEqual([{ date: '2026-01-01', type: 'public', name: 'The first day of January', scope: 'national' }]);
    expect(dayOf(hongKong, '2026-04-03')).toEqual([{ date: '2026-04-03', type: 'optional', name: 'Good Friday', scope: 'national' }]);
  });

  it("China's days off moved by the State Council's notice are settled for 2026 and provisional for 2027, projected by rule", async () => {
    expect(dayOf(await body<Calendar>(`${calendar}?CountryCode=CN&Year=2026`), '2026-04-06')).toMatchObject([{ observedFor: '2026-04-05' }]);
    expect(dayOf(await body<Calendar>(`${calendar}?CountryCode=CN&Year=2026`), '2026-04-06')[0]?.provisional).toBeUndefined();
    expect(dayOf(await body<Calendar>(`${calendar}?CountryCode=CN&Year=2027`), '2027-02-09')).toMatchObject([{ observedFor: '2027-02-06', provisional: true }]);
  });

  it("Türkiye's bayrams after Diyanet's published years are provisional, those it published are not", async () => {
    const published = await body<Calendar>(`${calendar}?CountryCode=TR&Year=2026`);
    expect(published.days.filter((day) => day.provisional)).toEqual([]);
    const computed = await body<Calendar>(`${calendar}?CountryCode=TR&Year=2040`);
    expect(computed.days.filter((day) => String(day.name).startsWith('Ramazan Bayramı')).every((day) => day.provisional === true)).toBe(true);
  });
});

describe('regional special days, on the real data', () => {
  it("Fribourg's Easter Monday is a regional day off for some (optional), its Good Friday a regional holiday", async () => {
    const fribourg = await body<{ days: Record<string, unknown>[] }>(
      '/addressmanagement/api/workcalendar/getbycountrycode?CountryCode=CH&Year=2026&StateProvinceCode=CH-FR&language=en',
    );
    expect(fribourg.days.filter((day) => day.date === '2026-04-03')).toEqual([{ date: '2026-04-03', type: 'public', name: 'Good Friday', scope: 'regional' }]);
    expect(fribourg.days.filter((day) => day.date === '2026-04-06')).toEqual([
      { date: '2026-04-06', type: 'optional', name: 'Easter Monday', scope: 'regional' },
    ]);
    const special = await body<{ summary: string; startDate: string }[]>(
      '/addressmanagement/api/stateprovincespecialday/getbystateprovincecode?StateProvinceCode=ch-fr&Year=2026&language=en',
    );
    expect(special.map((day) => `${day.startDate.slice(0, 10)} ${day.summary}`)).toContain('2026-04-06 Easter Monday');
  });
});

describe('forms and payments, on the real data', () => {
  const address = '/addressmanagement/api';
  const names = async (target: string) => (await body<{ name: string }[]>(target)).map((record) => record.name);

  it('a type-ahead finds Germany by alma, deu, ドイ and alle, İstanbul first by ista, Kadıköy by kadı, Caferağa by cafer', async () => {
    for (const query of ['alma', 'deu', 'ドイ', 'alle']) {
      const found = await names(`${address}/country/searchbyname?name=${encodeURIComponent(query)}`);
      expect(found.length, query).toBeLessThanOrEqual(20);
      expect(found, query).toContain('Germany');
    }
    const turkey = await body<{ id: string }>(`${address}/country/getbyalpha2code?alpha2code=TR`);
    expect((await names(`${address}/stateprovince/searchbyname?name=ista&countryid=${turkey.id}`))[0]).toBe('İstanbul');
    expect(await names(`${address}/district/searchbyname?name=${encodeURIComponent('kadı')}&countryid=${turkey.id}`)).toContain('Kadıköy');
    const kadikoy = await body<{ id: string }>(`${address}/district/getbyname?name=kadikoy&countryId=${turkey.id}`);
    const caferaga = await body<{ name: string; zipCode: string }[]>(`${address}/neighborhood/searchbyname?name=cafer&districtid=${kadikoy.id}`);
    expect(caferaga.map((record) => [record.name, record.zipCode])).toEqual([['Caferağa Mahallesi', '34710']]);
  });

  it('every Merkez district is listed, and the single lookup says how many there are', async () => {
    const turkey = await body<{ id: string }>(`${address}/country/getbyalpha2code?alpha2code=TR`);
    const all = await body<{ name: string }[]>(`${address}/district/getallbyname?name=merkez&countryId=${turkey.id}`);
    expect(all.length).toBeGreaterThan(30);
    expect(all.every((district) => district.name === 'Merkez')).toBe(true);
    const one = await fetch(`${proxy.url}${address}/district/getbyname?name=merkez&countryId=${turkey.id}`, {
      headers: { Authorization: `Bearer ${testKey}` },
    });
    expect(one.headers.get('x-ambiguous-matches')).toBe(String(all.length));
  });

  it('Ziraat by 10, 0010, 00010 and by IBAN TR420001000000000000000001', async () => {
    const finance = '/financemanagement/api';
    for (const code of ['10', '0010', '00010']) expect((await body<{ code: string }>(`${finance}/bank/getbycode?code=${code}`)).code).toBe('010');
    expect((await body<{ code: string }>(`${finance}/bank/getbyiban?iban=TR420001000000000000000001`)).code).toBe('010');
  });
});

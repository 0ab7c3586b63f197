/** The real data in data/, built and served end to end: what a client of `npm start` sees. */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import path from 'node:path';
import type { RunningServer } from '../proxy/server.ts';
import { buildFixture, repoRoot, startProxy, testKey } from './support.ts';

let proxy: RunningServer;
beforeAll(async () => {
  proxy = await startProxy(await buildFixture(path.join(repoRoot, 'data')));
});
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

  it('resolves every country’s calling code and region over HTTP', async () => {
    const countries = await body<Country[]>('/addressmanagement/api/country/getall');
    for (const country of countries) {
      await body(`/addressmanagement/api/callingcode/getbyid?id=${country.callingCodeId}`);
      const inRegion = await body<Country[]>(`/addressmanagement/api/country/getbyregionid?regionid=${country.regionId}`);
      expect(inRegion.some((member) => member.id === country.id && typeof member.flag === 'string'), country.name).toBe(true);
    }
  });

  it('answers currencies by code in any case, upper case in the body', async () => {
    expect(await body('/financemanagement/api/currency/getbycode?code=try')).toMatchObject({ code: 'TRY', name: 'Turkish Lira' });
    expect(await body('/financemanagement/api/currency/getbycode?code=Eur')).toMatchObject({ code: 'EUR', name: 'Euro' });
    expect(await body('/addressmanagement/api/callingcode/getbycode?code=%2B90')).toMatchObject({ code: 90 });
  });
});

/**
 * Holiday and special-day names in English, over HTTP on the fixture dataset: Türkiye's
 * days in Turkish and in English, Germany's in German only (a country without English names).
 */
import { readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Manifest } from '../../contract/manifest.ts';
import { buildDist } from '../../generator/build.ts';
import type { RunningServer } from '../../proxy/http/server.ts';
import { buildFixture, copyFixture, fixtureRecords, pick, startProxy, tempDir, testKey, without, type FixtureRecord } from '../support/service.ts';
import { readBuildManifest } from '../support/store.ts';

const holidays = '/addressmanagement/api/countryholiday/getbycountryid';
const specialDays = '/addressmanagement/api/countryspecialday/getbycountryid';
const countries = await fixtureRecords('country');
const turkey = pick(countries, 'alpha2Code', 'TR');
const germany = pick(countries, 'alpha2Code', 'DE');
const holidayRecords = await fixtureRecords('countryHoliday');
const states = await fixtureRecords('stateProvince');

let proxy: RunningServer;
let manifest: Manifest;
beforeAll(async () => {
  const distDir = await buildFixture();
  manifest = await readBuildManifest(distDir);
  proxy = await startProxy(distDir);
});
afterAll(() => proxy.close());

interface Day {
  id: string;
  summary: string;
  startDate: string;
}

async function call(target: string, headers: Record<string, string> = {}) {
  const response = await fetch(`${proxy.url}${target}`, { headers: { Authorization: `Bearer ${testKey}`, ...headers } });
  const text = await response.text();
  const envelope = text === '' ? undefined : (JSON.parse(text) as { header: { message: string | null }; body: Day[] | null });
  return { status: response.status, headers: response.headers, envelope, days: envelope?.body ?? [] };
}

const turkey2024 = `${holidays}?CountryId=${turkey.id}&Year=2024`;
const inTurkish = (type: FixtureRecord[]) => type.filter((day) => day.countryId === turkey.id).map((day) => without(day, 'language', 'translations'));

describe('holiday names by the language parameter', () => {
  it("language=en gives Türkiye's Republic Day on 29 October, each record otherwise the same", async () => {
    const reply = await call(`${turkey2024}&language=en`);
    expect(reply.status).toBe(200);
    expect(reply.headers.get('content-language')).toBe('en');
    expect(reply.days.find((day) => day.startDate.startsWith('2024-10-29'))?.summary).toBe('Republic Day');
    const own = inTurkish(holidayRecords);
    expect(reply.days).toEqual(own.map((day) => ({ ...day, summary: (pick(holidayRecords, 'id', day.id).translations as Record<string, string>).en })));
  });

  it('without it, the names are the country’s own, byte for byte as before, in the language Content-Language names', async () => {
    const reply = await call(turkey2024);
    expect(reply.days).toEqual(inTurkish(holidayRecords));
    expect(reply.days.find((day) => day.startDate.startsWith('2024-10-29'))?.summary).toBe('Cumhuriyet Bayramı');
    expect(reply.headers.get('content-language')).toBe('tr');
    expect((await call(`${turkey2024}&language=tr`)).days).toEqual(reply.days);
  });

  it('takes the name and the value in any letter case, and a region or _ after the language', async () => {
    for (const query of ['language=EN', 'LANGUAGE=en', 'Language=en-US', 'language=en_GB', 'language=en-Latn-GB']) {
      const reply = await call(`${turkey2024}&${query}`);
      expect(reply.status, query).toBe(200);
      expect(
        reply.days.map((day) => day.summary),
        query,
      ).toContain('Republic Day');
    }
  });

  it("answers special days in English too: Öğretmenler Günü is Teachers' Day", async () => {
    const reply = await call(`${specialDays}?CountryId=${turkey.id}&Year=2024&language=en`);
    expect(reply.days.map((day) => day.summary)).toEqual(['Republic Day (from 1pm)', "Teachers' Day"]);
    expect((await call(`${specialDays}?CountryId=${turkey.id}&Year=2024`)).days.map((day) => day.summary)).toEqual([
      'Cumhuriyet Bayramı Arifesi',
      'Öğretmenler Günü',
    ]);
  });

  it('answers a country without English names in its own names for en, saying so in Content-Language', async () => {
    const own = await call(`${holidays}?CountryId=${germany.id}&Year=2024`);
    const english = await call(`${holidays}?CountryId=${germany.id}&Year=2024&language=en`);
    expect(english.status).toBe(200);
    expect(english.days).toEqual(own.days);
    expect(english.days.map((day) => day.summary)).toEqual(['Neujahr']);
    expect(english.headers.get('content-language')).toBe('de');
    expect(english.headers.get('etag')).toBe(own.headers.get('etag'));
  });

  it('refuses a language the country has no names in with 400, naming those it has', async () => {
    const reply = await call(`${turkey2024}&language=de`);
    expect(reply.status).toBe(400);
    expect(reply.envelope?.header.message).toBe(
      'Query parameter language is "de": this country\'s names are in tr and en: give language=tr or language=en, or leave it out for tr (any letter case; en-US and en_GB mean en).',
    );
    const german = await call(`${holidays}?CountryId=${germany.id}&Year=2024&language=fr`);
    expect(german.status).toBe(400);
    expect(german.envelope?.header.message).toMatch(/names are in de and en: give language=de or language=en, or leave it out for de/);
    expect(german.headers.get('cache-control')).toBe('no-store');
  });

  it('refuses a malformed or repeated language with 400, saying what a language looks like', async () => {
    for (const [query, message] of [
      ['language=', /language is "": expected a language tag such as en or tr/],
      ['language=english', /language is "english": expected a language tag such as en or tr/],
      ['language=..%2F..%2Fetc', /language is "..\/..\/etc": expected a language tag/],
      ['language=en&language=tr', /language is given 2 times: give it once/],
    ] as const) {
      const reply = await call(`${turkey2024}&${query}`);
      expect(reply.status, query).toBe(400);
      expect(reply.envelope?.header.message, query).toMatch(message);
    }
  });

  it('checks the country and the year before the language', async () => {
    expect((await call(`${holidays}?CountryId=00000000-0000-4000-8000-000000000000&Year=2024&language=de`)).status).toBe(404);
    expect((await call(`${turkey2024.replace('2024', '1999')}&language=de`)).status).toBe(404);
  });
});

describe('holidays by country code', () => {
  const byCode = '/addressmanagement/api/countryholiday/getbycountrycode';

  it("answers the same days as by id, in any letter case, in the country's own names or in English", async () => {
    for (const code of ['TR', 'tr', 'Tr']) expect((await call(`${byCode}?CountryCode=${code}&Year=2024`)).days).toEqual((await call(turkey2024)).days);
    const english = await call(`${byCode}?countrycode=tr&year=2024&language=en`);
    expect(english.headers.get('content-language')).toBe('en');
    expect(english.days).toEqual((await call(`${turkey2024}&language=en`)).days);
    const chosen = await call(`${byCode}?CountryCode=TR&Year=2024`, { 'Accept-Language': 'en-GB, tr;q=0.5' });
    expect(chosen.days.find((day) => day.startDate.startsWith('2024-10-29'))?.summary).toBe('Republic Day');
  });

  it('refuses a code no country has (404), a malformed code or year (400), naming what is wrong', async () => {
    const unknown = await call(`${byCode}?CountryCode=XQ&Year=2024`);
    expect(unknown.status).toBe(404);
    expect(unknown.envelope?.header.message).toBe('No country has alpha2Code "XQ".');
    const malformed = await call(`${byCode}?CountryCode=T!&Year=2024`);
    expect(malformed.status).toBe(400);
    expect(malformed.envelope?.header.message).toMatch(/^Query parameter CountryCode is "T!": expected /);
    const year = await call(`${byCode}?CountryCode=TR&Year=26`);
    expect(year.status).toBe(400);
    expect(year.envelope?.header.message).toMatch(/^Query parameter Year is "26": expected /);
  });
});

describe('holiday names by Accept-Language', () => {
  it('chooses English for Accept-Language: en, and says that the answer varies with it', async () => {
    const reply = await call(turkey2024, { 'Accept-Language': 'en' });
    expect(reply.days.find((day) => day.startDate.startsWith('2024-10-29'))?.summary).toBe('Republic Day');
    expect(reply.headers.get('content-language')).toBe('en');
    expect(reply.headers.get('vary')).toBe('Authorization, Accept-Encoding, Accept-Language');
  });

  it('weighs q-values: a browser preferring Turkish gets Turkish, one preferring English over Turkish gets English', async () => {
    const turkishFirst = await call(turkey2024, { 'Accept-Language': 'tr-TR,tr;q=0.9,en-US;q=0.8,en;q=0.7' });
    expect(turkishFirst.headers.get('content-language')).toBe('tr');
    const englishFirst = await call(turkey2024, { 'Accept-Language': 'de-DE, en-GB;q=0.8, tr;q=0.5' });
    expect(englishFirst.headers.get('content-language')).toBe('en');
    const neither = await call(turkey2024, { 'Accept-Language': 'de, fr;q=0.5' });
    expect(neither.headers.get('content-language')).toBe('tr');
    expect(neither.status).toBe(200);
  });

  it('gives the parameter precedence over the header', async () => {
    const reply = await call(`${turkey2024}&language=tr`, { 'Accept-Language': 'en' });
    expect(reply.headers.get('content-language')).toBe('tr');
    expect(reply.headers.get('vary')).toContain('Accept-Language');
  });

  it('answers one URL asked again with another Accept-Language in the other language (the resolved target is remembered, the choice is not)', async () => {
    const target = `${holidays}?CountryId=${turkey.id}&Year=2024&_=memo`;
    const answers: (string | null)[] = [];
    for (const header of ['en', 'tr', 'en', undefined]) {
      answers.push((await call(target, header === undefined ? {} : { 'Accept-Language': header })).headers.get('content-language'));
    }
    expect(answers).toEqual(['en', 'tr', 'en', 'tr']);
  });

  it('revalidates each language by its own ETag', async () => {
    const english = await call(turkey2024, { 'Accept-Language': 'en' });
    const turkish = await call(turkey2024);
    const etag = english.headers.get('etag') ?? '';
    expect(etag).not.toBe(turkish.headers.get('etag'));
    const notModified = await call(turkey2024, { 'Accept-Language': 'en', 'If-None-Match': etag });
    expect(notModified.status).toBe(304);
    expect(notModified.headers.get('vary')).toContain('Accept-Language');
    expect((await call(turkey2024, { 'If-None-Match': etag })).status).toBe(200);
  });

  it('leaves every other lookup’s Vary as it was, and sends no Content-Language there', async () => {
    const reply = await call(`/addressmanagement/api/country/getbyid?id=${turkey.id}`, { 'Accept-Language': 'en' });
    expect(reply.headers.get('vary')).toBe('Authorization, Accept-Encoding');
    expect(reply.headers.get('content-language')).toBeNull();
  });
});

describe('the build', () => {
  it("lists each country's languages in the manifest, its own first, and writes a language's bodies beside the country's only where a name differs", () => {
    // Berlin's own days, by its id and its code, are named in German and in English.
    const berlin = pick(states, 'abbreviation', 'BE');
    expect(manifest.languages).toEqual({
      [germany.id]: ['de'],
      [turkey.id]: ['tr', 'en'],
      [berlin.id]: ['de', 'en-US'],
      de: ['de'],
      'de-be': ['de', 'en-US'],
      tr: ['tr', 'en'],
    });
    const files = Object.keys(manifest.files).filter((file) => file.includes(`/getbycountryid/${turkey.id}/`) && file.includes('/en/'));
    // Türkiye's 2023 and 2025 have no days in the fixture: their [] answers for English too.
    expect(files.sort()).toEqual([
      `addressmanagement/api/countryholiday/getbycountryid/${turkey.id}/en/2024.json`,
      `addressmanagement/api/countryspecialday/getbycountryid/${turkey.id}/en/2024.json`,
    ]);
    expect(Object.keys(manifest.files).filter((file) => file.includes(`${germany.id}/en/`))).toEqual([]);
    // The lookups by country code answer with the bodies by id (the manifest's aliases), the work calendar with its own.
    expect(Object.keys(manifest.files).filter((file) => file.includes('/getbycountrycode/tr/en/'))).toEqual([
      'addressmanagement/api/workcalendar/getbycountrycode/tr/en/2024.json',
    ]);
    expect(manifest.aliases['/addressmanagement/api/countryholiday/getbycountrycode']).toEqual(
      Object.fromEntries(countries.map((country) => [String(country.alpha2Code).toLowerCase(), country.id])),
    );
    expect(manifest.aliases['/addressmanagement/api/stateprovinceholiday/getbystateprovincecode']).toEqual({ 'de-be': berlin.id });
  });

  it("stops on a country whose records name their days in two languages, naming the country's key", async () => {
    const dataDir = await copyFixture();
    const file = path.join(dataDir, 'records', 'countryHoliday.json');
    const records = JSON.parse(await readFile(file, 'utf8')) as Record<string, unknown>[];
    for (const record of records) if (record.summary === 'Yılbaşı') record.language = 'az';
    await writeFile(file, JSON.stringify(records));
    await expect(buildDist({ dataDir, distDir: path.join(await tempDir(), 'dist') })).rejects.toThrow(
      new RegExp(`the records of ${turkey.id} name their days in (tr and az|az and tr): one language per country`),
    );
  });
});

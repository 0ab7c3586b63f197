/**
 * Business-day calendars over HTTP on the fixture dataset: regional holidays (Berlin's own days),
 * the weekend, the work calendar in JSON and in iCalendar (parsed with ical.js), and the errors a
 * client gets for a country, subdivision, year or format that does not fit.
 */
import ICAL from 'ical.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { WorkCalendar } from '../../contract/workCalendar.ts';
import { workCalendarSchema } from '../../generator/records/schemas.ts';
import type { RunningServer } from '../../proxy/http/server.ts';
import { buildFixture, fixtureRecords, pick, startProxy, testKey } from '../support/service.ts';

const api = '/addressmanagement/api';
const calendar = `${api}/workcalendar/getbycountrycode`;
const regional = `${api}/stateprovinceholiday`;
const states = await fixtureRecords('stateProvince');
const berlin = pick(states, 'abbreviation', 'BE');
const istanbul = pick(states, 'abbreviation', '34');

let proxy: RunningServer;
beforeAll(async () => {
  proxy = await startProxy(await buildFixture());
});
afterAll(() => proxy.close());

async function call(target: string, headers: Record<string, string> = { Authorization: `Bearer ${testKey}` }) {
  const response = await fetch(`${proxy.url}${target}`, { headers });
  const text = await response.text();
  const json = response.headers.get('content-type')?.startsWith('application/json')
    ? (JSON.parse(text) as { header: { message: string | null }; body: unknown })
    : undefined;
  return { status: response.status, headers: response.headers, text, message: json?.header.message, body: json?.body };
}

describe('regional holidays', () => {
  it("answers a subdivision's own days by its id and by its ISO 3166-2 code in any case, in its names or in English", async () => {
    const byId = await call(`${regional}/getbystateprovinceid?StateProvinceId=${berlin.id}&Year=2024`);
    expect(byId.status).toBe(200);
    expect(byId.body).toEqual([
      {
        id: '7a8000b3-a044-465a-8b83-5fe32711c854',
        stateProvinceId: berlin.id,
        summary: 'Frauentag',
        startDate: '2024-03-08 00:00:00 GMT+01:00',
        endDate: '2024-03-09 00:00:00 GMT+01:00',
      },
    ]);
    for (const code of ['DE-BE', 'de-be', 'De-Be'])
      expect((await call(`${regional}/getbystateprovincecode?StateProvinceCode=${code}&Year=2024`)).body).toEqual(byId.body);
    const english = await call(`${regional}/getbystateprovincecode?StateProvinceCode=DE-BE&Year=2024&language=en`);
    expect((english.body as { summary: string }[])[0]?.summary).toBe("Women's Day");
    expect((await call(`${regional}/getbystateprovincecode?StateProvinceCode=DE-BE&Year=2023`)).body).toEqual([]);
  });

  it('answers 404 for a subdivision without days of its own, naming why, and 400 for a malformed code', async () => {
    const none = await call(`${regional}/getbystateprovincecode?StateProvinceCode=TR-34&Year=2024`);
    expect(none.status).toBe(404);
    expect(none.message).toMatch(/^No state or province with holidays of its own has code "TR-34": .*countryholiday\/getbycountrycode/);
    expect((await call(`${regional}/getbystateprovinceid?StateProvinceId=${istanbul.id}&Year=2024`)).status).toBe(404);
    const malformed = await call(`${regional}/getbystateprovincecode?StateProvinceCode=DE%20BE&Year=2024`);
    expect(malformed.status).toBe(400);
    expect(malformed.message).toMatch(/^Query parameter StateProvinceCode is "DE BE": expected /);
  });
});

describe('the weekend', () => {
  it("lists a country's weekend periods by its code", async () => {
    const reply = await call(`${api}/weekend/getbycountrycode?CountryCode=tr`);
    expect(reply.status).toBe(200);
    expect(reply.body).toMatchObject([{ stateProvinceId: null, from: null, until: null, weekendDays: [6, 7] }]);
  });
});

describe('the work calendar', () => {
  it("gives Türkiye's 2024: holidays, the eve of Republic Day as a half day from 13:00, no observances", async () => {
    const reply = await call(`${calendar}?CountryCode=TR&Year=2024`);
    expect(reply.status).toBe(200);
    const body = workCalendarSchema.parse(reply.body);
    expect(body).toMatchObject({ countryCode: 'TR', stateProvinceCode: null, year: 2024, weekendDays: [6, 7], weekendChanges: [] });
    expect(body.days.find((day) => day.date === '2024-10-28')).toEqual({
      date: '2024-10-28',
      type: 'halfDay',
      name: 'Cumhuriyet Bayramı Arifesi',
      startTime: '13:00',
      scope: 'national',
    });
    expect(body.days.find((day) => day.date === '2024-10-29')).toMatchObject({ type: 'public', name: 'Cumhuriyet Bayramı' });
    // Teachers' Day is an observance: a working day like any other.
    expect(body.days.some((day) => day.date === '2024-11-24')).toBe(false);
    expect(body.days.map((day) => day.date)).toEqual([...body.days.map((day) => day.date)].sort());
  });

  it("adds a subdivision's own days as regional, beside the national ones, in the language asked for", async () => {
    const reply = await call(`${calendar}?CountryCode=de&Year=2024&StateProvinceCode=de-be`);
    expect(reply.status).toBe(200);
    expect(reply.headers.get('content-language')).toBe('de');
    const body = workCalendarSchema.parse(reply.body);
    expect(body.stateProvinceCode).toBe('DE-BE');
    expect(body.days).toContainEqual({ date: '2024-03-08', type: 'public', name: 'Frauentag', scope: 'regional' });
    const english = workCalendarSchema.parse((await call(`${calendar}?CountryCode=TR&Year=2024&language=en`)).body);
    expect(english.days.find((day) => day.date === '2024-10-29')?.name).toBe('Republic Day');
    expect(body.days).toContainEqual(expect.objectContaining({ date: '2024-01-01', scope: 'national' }));
    const national = workCalendarSchema.parse((await call(`${calendar}?CountryCode=DE&Year=2024`)).body);
    expect(national.days.some((day) => day.scope === 'regional')).toBe(false);
  });

  it('refuses what does not fit with a message that says what to send', async () => {
    const cases: [string, number, RegExp][] = [
      [`${calendar}?CountryCode=XQ&Year=2024`, 404, /^No country has alpha2Code "XQ"\.$/],
      [
        `${calendar}?CountryCode=DE&Year=2024&StateProvinceCode=DE-XX`,
        404,
        /^No state or province of DE with holidays of its own has StateProvinceCode "DE-XX": leave StateProvinceCode out/,
      ],
      [
        `${calendar}?CountryCode=DE&Year=2024&StateProvinceCode=TR-34`,
        400,
        /^Query parameter StateProvinceCode is "TR-34": that is a code of TR, not of DE; give one of DE's/,
      ],
      [`${calendar}?CountryCode=DE&Year=24`, 400, /^Query parameter Year is "24": expected a four-digit year/],
      [`${calendar}?CountryCode=DE&Year=2031`, 404, /^Year 2031 is outside the years this service holds: 2023 to 2025\.$/],
      [`${calendar}?CountryCode=DE&Year=2024&format=pdf`, 400, /^Query parameter format is "pdf": expected format=json or format=ics\.$/],
      [`${calendar}?Year=2024`, 400, /^Missing query parameter CountryCode/],
    ];
    for (const [target, status, message] of cases) {
      const reply = await call(target);
      expect({ target, status: reply.status }).toEqual({ target, status });
      expect(reply.message, target).toMatch(message);
    }
  });
});

describe('the work calendar as iCalendar', () => {
  it('is served without a token, as text/calendar that a real parser reads: one all-day event per day, stable UIDs', async () => {
    const reply = await call(`${calendar}?CountryCode=TR&Year=2024&format=ics&language=en`, {});
    expect(reply.status).toBe(200);
    expect(reply.headers.get('content-type')).toBe('text/calendar; charset=utf-8');
    expect(reply.headers.get('cache-control')).toMatch(/^public/);
    expect(reply.headers.get('content-language')).toBe('en');
    expect(reply.text.split('\r\n').every((line) => Buffer.byteLength(line) <= 75)).toBe(true);
    const json = (await call(`${calendar}?CountryCode=TR&Year=2024&language=en`)).body as WorkCalendar;
    const events = new ICAL.Component(ICAL.parse(reply.text)).getAllSubcomponents('vevent').map((component) => new ICAL.Event(component));
    expect(events.map((event) => [event.startDate.toString(), event.summary])).toEqual(json.days.map((day) => [day.date, day.name]));
    for (const event of events) {
      expect(event.startDate.isDate).toBe(true);
      expect(event.endDate.toJSDate().getTime() - event.startDate.toJSDate().getTime()).toBe(86_400_000);
    }
    const halfDay = events.find((event) => event.startDate.toString() === '2024-10-28');
    expect(halfDay?.description).toBe('Half day; from 13:00.');
    const uids = events.map((event) => event.uid);
    expect(new Set(uids).size).toBe(uids.length);
    // The same day has the same UID in every language, so an app updates it rather than adding another.
    const turkish = await call(`${calendar}?CountryCode=TR&Year=2024&format=ICS`, {});
    const turkishEvents = new ICAL.Component(ICAL.parse(turkish.text)).getAllSubcomponents('vevent').map((component) => new ICAL.Event(component));
    expect(turkishEvents.map((event) => event.uid)).toEqual(uids);
    expect(turkishEvents.find((event) => event.startDate.toString() === '2024-10-29')?.summary).toBe('Cumhuriyet Bayramı');
  });

  it('answers 304 to its own ETag, and the JSON form still needs a token', async () => {
    const target = `${calendar}?CountryCode=DE&Year=2024&StateProvinceCode=DE-BE&format=ics`;
    const first = await call(target, {});
    const etag = first.headers.get('etag') ?? '';
    // The tag names the build's time, which the text carries: one tag, one text.
    const stamp = /^DTSTAMP:(\d{8}T\d{6}Z)\r$/m.exec(first.text)?.[1];
    expect(stamp).toBeDefined();
    expect(etag).toMatch(new RegExp(`-ics${stamp}"$`));
    expect((await call(target, { 'If-None-Match': etag })).status).toBe(304);
    expect((await call(`${calendar}?CountryCode=DE&Year=2024`, {})).status).toBe(401);
  });
});

describe('the calendar path without a token', () => {
  it('refuses a parameter the operation does not take, naming those it does: a cache keyed by URL keeps one copy per calendar', async () => {
    const reply = await call(`${calendar}?CountryCode=TR&Year=2024&format=ics&r=8127361`, {});
    expect(reply.status).toBe(400);
    expect(reply.headers.get('x-error-code')).toBe('ERR_PARAM_UNKNOWN');
    expect(reply.message).toMatch(/^Query parameter "r" is not one this operation takes: it takes CountryCode, Year, StateProvinceCode, format and language\./);
    // Case and order are the client's own: only the names count.
    expect((await call(`${calendar}?format=ICS&year=2024&countrycode=TR`, {})).status).toBe(200);
  });

  it('gives each client address a budget of calendars (ANONYMOUS_LIMIT): 429 with Retry-After past it, lookups with a token unaffected', async () => {
    const limited = await startProxy(await buildFixture(), { API_KEYS: testKey, ANONYMOUS_LIMIT: '3/60' });
    try {
      const ask = (headers: Record<string, string> = {}) => fetch(`${limited.url}${calendar}?CountryCode=TR&Year=2024&format=ics`, { headers });
      for (let count = 0; count < 3; count++) expect((await ask()).status).toBe(200);
      const refused = await ask();
      expect(refused.status).toBe(429);
      expect(refused.headers.get('x-error-code')).toBe('ERR_RATE_LIMITED');
      expect(Number(refused.headers.get('retry-after'))).toBeGreaterThan(0);
      expect(refused.headers.get('ratelimit-policy')).toBe('"anonymous";q=3;w=60');
      const envelope = (await refused.json()) as { header: { message: string } };
      expect(envelope.header.message).toMatch(/^Too many requests without a token from this address: at most 3 per 60 s\./);
      const lookup = await fetch(`${limited.url}${calendar}?CountryCode=TR&Year=2024`, { headers: { Authorization: `Bearer ${testKey}` } });
      expect(lookup.status).toBe(200);
    } finally {
      await limited.close();
    }
  });
});

/**
 * The holiday and special-day records `npm run data:import` wrote: one record per local day for
 * every country python-holidays gives days for (its committed snapshot), Türkiye's from curated
 * rules and Diyanet's published bayram dates (re-import stability is test/data/import.test.ts's).
 */
import { readdir, readFile } from 'node:fs/promises';
import path from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { dayMarksOf } from '../../generator/import/holidays/dayTypes.ts';
import { correctHolidays, loadHolidayCorrections, type HolidayCorrection } from '../../generator/import/holidays/holidayCorrections.ts';
import { holidayTimeZone } from '../../generator/import/holidays/holidayZones.ts';
import { loadWorkingDayTerms, nameWorkingDays, type WorkingDayTerms } from '../../generator/import/holidays/workingDays.ts';
import { ImportError } from '../../generator/import/shared/importError.ts';
import { addDays, localDaySpan } from '../../generator/import/holidays/localDates.ts';
import { readSnapshot, type PythonHolidaysSnapshot } from '../../generator/import/holidays/pythonHolidays.ts';
import { buildSettingsSchema, countrySpecialDaySchema, countrySchema, type Country } from '../../generator/records/schemas.ts';
import { dataDir, recordsDir, uuidV4 } from '../support/data.ts';

type CountryDay = z.infer<typeof countrySpecialDaySchema>;

/** Diyanet's published bayram dates, copied with their source into test/fixtures/facts/. */
const factsFile = path.resolve(import.meta.dirname, '../fixtures/facts/turkey-religious-holidays.md');

async function readParts(recordType: string): Promise<Map<string, CountryDay[]>> {
  const directory = path.join(recordsDir, recordType);
  const parts = new Map<string, CountryDay[]>();
  for (const file of (await readdir(directory)).filter((name) => name.endsWith('.json')).sort()) {
    parts.set(file.replace(/\.json$/, ''), z.array(countrySpecialDaySchema).parse(JSON.parse(await readFile(path.join(directory, file), 'utf8'))));
  }
  return parts;
}

const dayOf = (record: CountryDay) => record.startDate.slice(0, 10);
const yearOf = (record: CountryDay) => Number(record.startDate.slice(0, 4));

let window: { first: number; last: number };
let countries: Country[];
let holidays: Map<string, CountryDay[]>;
let specialDays: Map<string, CountryDay[]>;
let snapshot: PythonHolidaysSnapshot;
let corrections: HolidayCorrection[];
let workingDayTerms: WorkingDayTerms;

beforeAll(async () => {
  window = buildSettingsSchema.parse(JSON.parse(await readFile(path.join(dataDir, 'build.json'), 'utf8'))).holidayYears;
  countries = z.array(countrySchema).parse(JSON.parse(await readFile(path.join(recordsDir, 'country.json'), 'utf8')));
  holidays = await readParts('countryHoliday');
  specialDays = await readParts('countrySpecialDay');
  snapshot = await readSnapshot(dataDir, window);
  corrections = await loadHolidayCorrections(dataDir);
  workingDayTerms = await loadWorkingDayTerms(dataDir);
});

function partOf(parts: Map<string, CountryDay[]>, alpha2Code: string): CountryDay[] {
  const part = parts.get(alpha2Code.toLowerCase());
  if (!part) throw new Error(`no part ${alpha2Code}`);
  return part;
}

const named = (records: readonly CountryDay[], summary: string) => records.filter((record) => record.summary === summary);

describe('Türkiye: Ramazan and Kurban Bayramı', () => {
  const turkishHolidays = () => partOf(holidays, 'TR');
  const turkishSpecialDays = () => partOf(specialDays, 'TR');

  /** The bayram days and eves the records hold for a first day, as the law counts them. */
  function expectBayram(summary: string, firstDay: string, dayCount: number): void {
    const days = Array.from({ length: dayCount }, (_, offset) => addDays(firstDay, offset));
    const recorded = named(turkishHolidays(), summary).map(dayOf);
    for (const day of days) expect(recorded, `${summary} ${day}`).toContain(day);
    expect(recorded, `${summary} ${firstDay}: no day before the first`).not.toContain(addDays(firstDay, -1));
    expect(recorded, `${summary} ${firstDay}: no day after the last`).not.toContain(addDays(firstDay, dayCount));
    const eve = named(turkishSpecialDays(), `${summary} Arifesi`).find((record) => dayOf(record) === addDays(firstDay, -1));
    expect(eve?.startDate, `${summary} ${firstDay} eve`).toMatch(new RegExp(`^${addDays(firstDay, -1)} 13:00:00 GMT\\+0[23]:00$`));
    expect(eve?.endDate.slice(0, 19), `${summary} ${firstDay} eve ends at midnight`).toBe(`${firstDay} 00:00:00`);
  }

  it('are on the days Diyanet published, for every year of the shared facts table', async () => {
    const rows = [...(await readFile(factsFile, 'utf8')).matchAll(/^\| (\d{4}) \| (\d{4}-\d{2}-\d{2}) \| (\d{4}-\d{2}-\d{2}) \|$/gm)];
    expect(rows.length).toBeGreaterThanOrEqual(7);
    for (const [, year, ramazan, kurban] of rows) {
      expectBayram('Ramazan Bayramı', ramazan ?? '', 3);
      expectBayram('Kurban Bayramı', kurban ?? '', 4);
      const ofYear = turkishHolidays().filter((record) => yearOf(record) === Number(year));
      expect(named(ofYear, 'Ramazan Bayramı'), `${year}`).toHaveLength(3);
      expect(named(ofYear, 'Kurban Bayramı'), `${year}`).toHaveLength(4);
    }
  });

  it('are on the first days of the curated Diyanet file, for every year it covers', async () => {
    const curated = z
      .object({
        years: z.array(
          z.object({ year: z.number(), ramazanBayrami: z.union([z.string(), z.array(z.string())]), kurbanBayrami: z.union([z.string(), z.array(z.string())]) }),
        ),
      })
      .parse(JSON.parse(await readFile(path.join(dataDir, 'curated', 'turkey-religious-holidays.json'), 'utf8')));
    expect(curated.years.length).toBeGreaterThanOrEqual(20);
    for (const entry of curated.years) {
      for (const first of [entry.ramazanBayrami].flat()) expectBayram('Ramazan Bayramı', first, 3);
      for (const first of [entry.kurbanBayrami].flat()) expectBayram('Kurban Bayramı', first, 4);
    }
  });

  it("2015 and 2010: Diyanet's days, at +03:00 in summer and +02:00 in winter before 2016", () => {
    const days = (summary: string, year: number) =>
      named(turkishHolidays(), summary)
        .filter((record) => yearOf(record) === year)
        .map((record) => record.startDate);
    expect(days('Ramazan Bayramı', 2015)).toEqual(['2015-07-17 00:00:00 GMT+03:00', '2015-07-18 00:00:00 GMT+03:00', '2015-07-19 00:00:00 GMT+03:00']);
    // date-holidays computes 2015-09-23; Diyanet's first day is 24 September.
    expect(days('Kurban Bayramı', 2015)).toEqual([
      '2015-09-24 00:00:00 GMT+03:00',
      '2015-09-25 00:00:00 GMT+03:00',
      '2015-09-26 00:00:00 GMT+03:00',
      '2015-09-27 00:00:00 GMT+03:00',
    ]);
    expect(days('Kurban Bayramı', 2010)).toEqual([
      '2010-11-16 00:00:00 GMT+02:00',
      '2010-11-17 00:00:00 GMT+02:00',
      '2010-11-18 00:00:00 GMT+02:00',
      '2010-11-19 00:00:00 GMT+02:00',
    ]);
    expect(named(turkishSpecialDays(), 'Kurban Bayramı Arifesi').find((record) => yearOf(record) === 2010)).toMatchObject({
      startDate: '2010-11-15 13:00:00 GMT+02:00',
      endDate: '2010-11-16 00:00:00 GMT+02:00',
    });
    expect(days('Ramazan Bayramı', 2010)[0]).toBe('2010-09-09 00:00:00 GMT+03:00');
  });

  it('a Kurban Bayramı starting on 31 December 2006 puts its other days in 2007', () => {
    const kurban = named(turkishHolidays(), 'Kurban Bayramı').map(dayOf);
    expect(kurban).toEqual(expect.arrayContaining(['2006-12-31', '2007-01-01', '2007-01-02', '2007-01-03']));
    expect(kurban.filter((day) => day.startsWith('2007'))).toHaveLength(7);
  });
});

describe('Türkiye: holidays by law', () => {
  const daysOf = (summary: string) => named(partOf(holidays, 'TR'), summary).map(dayOf);

  it('15 Temmuz is a holiday every year from 2017 (Law No. 6752), never before', () => {
    const days = daysOf('Demokrasi ve Millî Birlik Günü');
    expect(days.every((day) => day.endsWith('-07-15'))).toBe(true);
    expect(days.map((day) => Number(day.slice(0, 4)))).toEqual(Array.from({ length: window.last - 2017 + 1 }, (_, index) => 2017 + index));
    expect(partOf(holidays, 'TR').filter((record) => dayOf(record).endsWith('-07-15') && yearOf(record) < 2017)).toEqual([]);
  });

  it('1 Mayıs is a holiday every year from 2009 (Law No. 5892), never before', () => {
    const days = daysOf('Emek ve Dayanışma Günü');
    expect(days.map((day) => Number(day.slice(0, 4)))).toEqual(Array.from({ length: window.last - 2009 + 1 }, (_, index) => 2009 + index));
    expect(partOf(holidays, 'TR').filter((record) => dayOf(record).endsWith('-05-01') && yearOf(record) < 2009)).toEqual([]);
  });

  it('29 Ekim every year, with its eve from 13:00 on 28 Ekim', () => {
    expect(daysOf('Cumhuriyet Bayramı')).toHaveLength(window.last - window.first + 1);
    const eves = named(partOf(specialDays, 'TR'), 'Cumhuriyet Bayramı Arifesi');
    expect(eves).toHaveLength(window.last - window.first + 1);
    for (const eve of eves) expect(eve.startDate).toMatch(/^\d{4}-10-28 13:00:00 GMT\+0[23]:00$/);
  });
});

describe('Türkiye: special days', () => {
  const daysOf = (summary: string) => named(partOf(specialDays, 'TR'), summary).map(dayOf);

  it('Anneler Günü is the second Sunday of May: 2024-05-12', () => {
    expect(daysOf('Anneler Günü')).toContain('2024-05-12');
    expect(daysOf('Babalar Günü')).toContain('2024-06-16');
  });

  it('Öğretmenler Günü is 24 November every year', () => {
    const days = daysOf('Öğretmenler Günü');
    expect(days).toHaveLength(window.last - window.first + 1);
    for (const day of days) expect(day.slice(5)).toBe('11-24');
  });

  it("kandil nights are Diyanet's where published: Regaib 2024 on 11 January, Kadir 2026 on 16 March", () => {
    expect(daysOf('Regaib Kandili')).toContain('2024-01-11');
    expect(daysOf('Kadir Gecesi')).toContain('2026-03-16');
    expect(daysOf('Mevlid Kandili').filter((day) => day.startsWith('2015'))).toEqual(['2015-01-02', '2015-12-22']);
  });
});

describe('every country', () => {
  /** Public days python-holidays gives each entity in the window (its snapshot, as the importer read it). */
  const publicDays = (alpha2Code: string) => (snapshot.countries[alpha2Code]?.days ?? []).filter(([, category]) => category === 'public');

  it('every base country python-holidays gives a public day has a holiday part: at least 240 of 249 with one in 2025', () => {
    const ours = new Set(countries.map((country) => country.alpha2Code));
    const expected = Object.keys(snapshot.countries).filter((code) => ours.has(code) && (code === 'TR' || publicDays(code).length > 0));
    expect([...holidays.keys()].sort()).toEqual(expected.map((code) => code.toLowerCase()).sort());
    expect(holidays.has('xk')).toBe(false);
    const in2025 = [...holidays].filter(([, records]) => records.some((record) => yearOf(record) === 2025)).map(([part]) => part.toUpperCase());
    expect(in2025.length).toBeGreaterThanOrEqual(240);
    // The uninhabited ones python-holidays gives no day, and Ukraine under martial law (below).
    expect(
      countries
        .map((country) => country.alpha2Code)
        .filter((code) => !in2025.includes(code))
        .sort(),
    ).toEqual(['BV', 'HM', 'IO', 'UA']);
  });

  it("each record belongs to its part's country, lies in the window and has a unique id", () => {
    const countryIdByPart = new Map(countries.map((country) => [country.alpha2Code.toLowerCase(), country.id]));
    const ids = new Set<string>();
    const problems: string[] = [];
    let count = 0;
    for (const parts of [holidays, specialDays]) {
      for (const [part, records] of parts) {
        if (records.length === 0) problems.push(`${part}: empty part`);
        for (const record of records) {
          count += 1;
          ids.add(record.id);
          const where = `${part} ${record.startDate} ${record.summary}`;
          if (record.countryId !== countryIdByPart.get(part)) problems.push(`${where}: another country`);
          if (yearOf(record) < window.first || yearOf(record) > window.last) problems.push(`${where}: outside the window`);
          if (!uuidV4.test(record.id)) problems.push(`${where}: id ${record.id}`);
        }
      }
    }
    expect(problems).toEqual([]);
    expect(ids.size).toBe(count);
  });

  it('each record ends at the next local midnight, and its part is ordered by start, then name', () => {
    const problems: string[] = [];
    for (const parts of [holidays, specialDays]) {
      for (const [part, records] of parts) {
        const timeZone = part === 'tr' ? 'Europe/Istanbul' : holidayTimeZone(part.toUpperCase());
        for (const record of records) {
          const nextDay = addDays(dayOf(record), 1);
          if (record.endDate.slice(0, 10) !== nextDay || record.endDate !== localDaySpan(timeZone, nextDay).startDate) {
            problems.push(`${part} ${record.summary} ${record.startDate} ends ${record.endDate}`);
          }
        }
        const keys = records.map((record) => `${record.startDate}\u0000${record.summary}`);
        expect(keys, part).toEqual([...keys].sort());
        expect(new Set(keys).size, part).toBe(keys.length);
      }
    }
    expect(problems).toEqual([]);
  });

  it('every day starts at local midnight, except Turkish eves at 13:00 and days whose midnight does not exist', () => {
    const others = [...holidays.values(), ...specialDays.values()].flat().filter((record) => !record.startDate.includes(' 00:00:00 '));
    const notEves = others.filter((record) => !record.summary.endsWith('Arifesi'));
    for (const record of notEves) expect(record.startDate, record.summary).toMatch(/ 01:00:00 GMT/);
    expect(notEves.length).toBeLessThan(80);
  });

  it('every public day of python-holidays, as data/curated/holiday-corrections.json corrects it, is a holiday record and every other day a special day, by date and name', () => {
    const problems: string[] = [];
    for (const [alpha2Code, entity] of Object.entries(snapshot.countries)) {
      if (alpha2Code === 'TR' || alpha2Code === 'XK') continue;
      const keysOf = (parts: Map<string, CountryDay[]>) =>
        new Set((parts.get(alpha2Code.toLowerCase()) ?? []).map((record) => `${dayOf(record)} ${record.summary}`));
      const holidayKeys = keysOf(holidays);
      const specialDayKeys = keysOf(specialDays);
      const marks = dayMarksOf(entity);
      const publicDays = entity.days.filter(([, category]) => category === 'public').map(([day, , summary]) => ({ day, summary, ...marks(day, summary) }));
      const otherDays = entity.days.filter(([, category]) => category !== 'public').map(([day, , summary]) => ({ day, summary }));
      const corrected = correctHolidays(
        alpha2Code,
        { holidays: publicDays, specialDays: [...otherDays, ...nameWorkingDays(alpha2Code, entity, workingDayTerms)] },
        corrections,
      );
      for (const { day, summary } of corrected.holidays) if (!holidayKeys.has(`${day} ${summary}`)) problems.push(`${alpha2Code} public ${day} ${summary}`);
      for (const { day, summary } of corrected.specialDays)
        if (!specialDayKeys.has(`${day} ${summary}`)) problems.push(`${alpha2Code} special ${day} ${summary}`);
      expect(specialDayKeys.size, alpha2Code).toBe(new Set(corrected.specialDays.map(({ day, summary }) => `${day} ${summary}`)).size);
      expect(holidayKeys.size, alpha2Code).toBe(new Set(corrected.holidays.map(({ day, summary }) => `${day} ${summary}`)).size);
    }
    expect(problems.slice(0, 10)).toEqual([]);
  });

  it('Germany: New Year 2024 at +01:00, Tag der Deutschen Einheit at summer time +02:00', () => {
    const germany = partOf(holidays, 'DE');
    expect(germany.find((record) => dayOf(record) === '2024-01-01')).toMatchObject({
      summary: 'Neujahr',
      startDate: '2024-01-01 00:00:00 GMT+01:00',
      endDate: '2024-01-02 00:00:00 GMT+01:00',
    });
    expect(germany.find((record) => dayOf(record) === '2024-10-03')?.startDate).toBe('2024-10-03 00:00:00 GMT+02:00');
  });

  it('United States: New York time, a negative offset', () => {
    expect(partOf(holidays, 'US').find((record) => dayOf(record) === '2024-07-04')).toMatchObject({
      summary: 'Independence Day',
      startDate: '2024-07-04 00:00:00 GMT-04:00',
    });
    expect(partOf(holidays, 'US').find((record) => dayOf(record) === '2024-12-25')?.startDate).toBe('2024-12-25 00:00:00 GMT-05:00');
  });

  it('a holiday of several days is a record per day: Eid al-Fitr 2024 in the United Arab Emirates, 8 to 12 April', () => {
    const days = partOf(holidays, 'AE').filter((record) => yearOf(record) === 2024 && record.startDate.startsWith('2024-04'));
    expect(days.map((record) => `${dayOf(record)} ${record.summary}`)).toEqual([
      '2024-04-08 عطلة عيد الفطر',
      '2024-04-09 عطلة عيد الفطر',
      '2024-04-10 عيد الفطر',
      '2024-04-11 عطلة عيد الفطر',
      '2024-04-12 عطلة عيد الفطر',
    ]);
  });

  it('Sweden: its named holidays, not every Sunday', () => {
    const sweden2025 = partOf(holidays, 'SE').filter((record) => yearOf(record) === 2025);
    expect(sweden2025.length).toBeLessThan(20);
    expect(sweden2025.map((record) => record.summary)).toContain('Midsommardagen');
  });
});

/** Days date-holidays 3.37.0 gives wrong, as python-holidays gives them. */
describe('faults of the former source, fixed', () => {
  const on = (parts: Map<string, CountryDay[]>, alpha2Code: string, day: string) =>
    (parts.get(alpha2Code.toLowerCase()) ?? []).filter((record) => dayOf(record) === day).map((record) => record.summary);
  const weekday = (day: string) => new Date(`${day}T00:00:00Z`).getUTCDay();

  it('Sri Lanka: each year has its own full moons (Duruthu Poya 2024-01-25, 2025-01-13, 2026-01-03)', () => {
    const duruthu = named(partOf(holidays, 'LK'), 'දුරුතු පුර පසළොස්වක පෝය දිනය').map(dayOf);
    expect(duruthu).toEqual(expect.arrayContaining(['2024-01-25', '2025-01-13', '2026-01-03']));
    expect(duruthu.filter((day) => day.startsWith('2024'))).toEqual(['2024-01-25']);
  });

  it('Cyprus: Clean Monday 2025 is Monday 3 March (Orthodox Easter − 48), Kataklysmos Monday 9 June', () => {
    expect(on(holidays, 'CY', '2025-03-03')).toEqual(['Καθαρά Δευτέρα']);
    expect(weekday('2025-03-03')).toBe(1);
    expect(on(holidays, 'CY', '2025-03-04')).toEqual([]);
    expect(on(holidays, 'CY', '2025-06-09')).toEqual(['Δευτέρα του Αγίου Πνεύματος']);
  });

  it('Ukraine: no public holiday since martial law suspended them (2023–), the days kept as working special days; 8 May, not 9 May', () => {
    const ukraine = partOf(holidays, 'UA');
    expect(ukraine.filter((record) => yearOf(record) >= 2023)).toEqual([]);
    expect(on(specialDays, 'UA', '2025-08-24')).toEqual(['День незалежності України']);
    expect(on(specialDays, 'UA', '2025-05-08').length).toBe(1);
    expect(on(specialDays, 'UA', '2025-05-09')).toEqual([]);
  });

  it('Azerbaijan: Novruz 2025 is five days (20–24 March) and 8 November is Zəfər Günü', () => {
    expect(
      named(partOf(holidays, 'AZ'), 'Novruz bayramı')
        .filter((record) => yearOf(record) === 2025)
        .map(dayOf),
    ).toEqual(['2025-03-20', '2025-03-21', '2025-03-22', '2025-03-23', '2025-03-24']);
    expect(on(holidays, 'AZ', '2025-11-08')).toEqual(['Zəfər Günü']);
  });

  it("China 2025: a weekend make-up working day is a special day named as a working day and by the day off it pays for; the days of one group (Women's Day) are not public", () => {
    const label = (dayOff: string) => workingDayTerms.CN?.label.replace('{date}', dayOff);
    expect(on(specialDays, 'CN', '2025-01-26')).toEqual([label('2025-02-03')]);
    expect(on(holidays, 'CN', '2025-02-03')).toEqual(['休息日（由 2025-01-26 调休）']);
    expect(on(specialDays, 'CN', '2025-02-08')).toEqual([label('2025-02-04')]);
    expect(on(holidays, 'CN', '2025-03-08')).toEqual([]);
    expect(on(specialDays, 'CN', '2025-03-08')).toEqual(['国际妇女节']);
  });

  it('Russia 2025: Saturday 1 November is a working day for the day off of Monday 3 November, written as Russian dates are', () => {
    expect(on(specialDays, 'RU', '2025-11-01')).toEqual([workingDayTerms.RU?.label.replace('{date}', '03.11.2025')]);
    expect(on(holidays, 'RU', '2025-11-03')).toEqual(['Выходной (перенесено с 01.11.2025)']);
  });

  it('no special day calls a worked weekend day a day off', () => {
    const misnamed: string[] = [];
    for (const [alpha2Code, entity] of Object.entries(snapshot.countries)) {
      for (const [workday, dayOffName] of entity.weekendWorkdays) {
        if (on(specialDays, alpha2Code, workday).includes(dayOffName)) misnamed.push(`${alpha2Code} ${workday} ${dayOffName}`);
      }
    }
    expect(misnamed).toEqual([]);
  });

  it('Ethiopia 2024: Timket 20 January, Enkutatash 11 September, Meskel 27 September', () => {
    expect(on(holidays, 'ET', '2024-01-20')).toEqual(['የጥምቀት በዓል']);
    expect(on(holidays, 'ET', '2024-09-11')).toEqual(['የዘመን መለወጫ (እንቁጣጣሽ) በዓል']);
    expect(on(holidays, 'ET', '2024-09-27')).toEqual(['የመስቀል በዓል']);
  });

  it('Brunei: Armed Forces Day on 31 May, not 31 March', () => {
    expect(on(holidays, 'BN', '2024-05-31')).toEqual(['Hari Angkatan Bersenjata Diraja Brunei']);
    expect(on(holidays, 'BN', '2024-03-31')).toEqual([]);
  });

  it("Cayman Islands and Saint Helena: King's Birthday since 2023, no Queen's Birthday after 2022", () => {
    for (const alpha2Code of ['KY', 'SH']) {
      const birthdays = partOf(holidays, alpha2Code).filter((record) => record.summary.endsWith('Birthday'));
      expect(
        birthdays.filter((record) => yearOf(record) >= 2023).every((record) => record.summary === "King's Birthday"),
        alpha2Code,
      ).toBe(true);
      expect(
        birthdays.filter((record) => yearOf(record) === 2025).map((record) => record.summary),
        alpha2Code,
      ).toEqual(["King's Birthday"]);
    }
  });
});

describe('weekend working days (data/curated/working-day-terms.json)', () => {
  const term = { language: 'xx', label: 'Working day (day off {date})', english: 'Working day', source: 'https://example.org/decree', evidence: 'working day' };
  const entity = (dayOffName: string, workday = '2025-11-01', dayOffEnglish: string | null = null) => ({
    language: 'xx',
    english: dayOffEnglish === null ? null : 'en_US',
    categories: ['public'],
    days: [['2025-11-03', 'public', dayOffName, dayOffEnglish] as [string, string, string, string | null]],
    weekendWorkdays: [[workday, dayOffName, dayOffEnglish] as [string, string, string | null]],
    weekends: [['2000-01-01', [6, 7]] as [string, number[]]],
    observed: [],
    estimated: [],
    subdivisions: {},
  });

  it('names each worked day by the day off it pays for, its date written as the snapshot writes dates', () => {
    expect(nameWorkingDays('XA', entity('Day off (substituted from 01.11.2025)'), { XA: term })).toEqual([
      { day: '2025-11-01', summary: 'Working day (day off 03.11.2025)' },
    ]);
    expect(nameWorkingDays('XA', entity('Day off (2025. 11. 01.-től)'), { XA: term })).toEqual([
      { day: '2025-11-01', summary: 'Working day (day off 2025. 11. 03.)' },
    ]);
    expect(nameWorkingDays('XA', entity('Day off (11/01/2025)'), { XA: term })).toEqual([{ day: '2025-11-01', summary: 'Working day (day off 11/03/2025)' }]);
  });

  it("names them in English too, the date written as the day off's English name writes it", () => {
    expect(nameWorkingDays('XA', entity('Day off (01.11.2025)', '2025-11-01', 'Day off (substituted from 11/01/2025)'), { XA: term })).toEqual([
      { day: '2025-11-01', summary: 'Working day (day off 03.11.2025)', english: 'Working day (→ 11/03/2025)' },
    ]);
  });

  it('a country with worked days but no term, or a date written in an unknown way, stops the import', () => {
    expect(() => nameWorkingDays('XA', entity('Day off (01.11.2025)'), {})).toThrow(
      /weekend working days for XA .*add its term to data\/curated\/working-day-terms.json/,
    );
    expect(() => nameWorkingDays('XA', entity('Day off (1 Nov 2025)'), { XA: term })).toThrow(/XA writes the dates of its days off .* add it to dateWriters/);
  });
});

describe('holiday corrections (data/curated/holiday-corrections.json)', () => {
  const why = 'a reason of at least twenty characters';
  const source = 'https://example.org/gazette';
  const days = [
    { day: '2025-01-01', summary: 'New Year' },
    { day: '2025-04-17', summary: 'Holy Thursday' },
    { day: '2025-09-10', summary: "Women's Day" },
    { day: '2025-10-17', summary: 'Dignity Day' },
  ];

  const lists = (holidays: typeof days, specialDays: typeof days = []) => ({ holidays, specialDays });

  it('removes, demotes (to a day off for some) and moves the days of their own country only; a moved day is no longer provisional', () => {
    const own: HolidayCorrection[] = [
      { alpha2Code: 'XA', action: 'remove', date: '2025-10-17', why, source },
      { alpha2Code: 'XA', action: 'demote', date: '2025-04-17', why, source },
      { alpha2Code: 'XA', action: 'move', date: '2025-09-10', to: '2025-12-10', why, source },
      { alpha2Code: 'XB', action: 'remove', date: '2025-01-01', why, source },
    ];
    expect(correctHolidays('XA', lists(days), own)).toEqual({
      holidays: [
        { day: '2025-01-01', summary: 'New Year' },
        { day: '2025-12-10', summary: "Women's Day" },
      ],
      specialDays: [{ day: '2025-04-17', summary: 'Holy Thursday', type: 'optional' }],
    });
    expect(correctHolidays('XC', lists(days), own)).toEqual({ holidays: days, specialDays: [] });
    const estimated = [{ day: '2025-09-10', summary: "Women's Day", provisional: true as const }];
    expect(correctHolidays('XA', lists(estimated), [{ alpha2Code: 'XA', action: 'move', date: '2025-09-10', to: '2025-09-11', why, source }])).toEqual({
      holidays: [{ day: '2025-09-11', summary: "Women's Day" }],
      specialDays: [],
    });
  });

  it('adds a day off the snapshot lacks, and promotes a special day to a public holiday', () => {
    const specialDays = [
      { day: '2025-06-05', summary: 'Arafat Day' },
      { day: '2025-03-08', summary: "Women's Day" },
    ];
    const own: HolidayCorrection[] = [
      { alpha2Code: 'XA', action: 'add', date: '2025-12-26', name: 'Boxing Day', why, source },
      { alpha2Code: 'XA', action: 'promote', date: '2025-06-05', name: 'Arafat Day', why, source },
    ];
    const corrected = correctHolidays('XA', lists(days, specialDays), own);
    expect(corrected.holidays).toEqual([...days, { day: '2025-06-05', summary: 'Arafat Day' }, { day: '2025-12-26', summary: 'Boxing Day' }]);
    expect(corrected.specialDays).toEqual([{ day: '2025-03-08', summary: "Women's Day" }]);
  });

  it('an addition the snapshot already has, or a promotion of a day it does not have, stops the import', () => {
    const added: HolidayCorrection[] = [{ alpha2Code: 'XA', action: 'add', date: '2025-01-01', name: 'New Year', why, source }];
    expect(() => correctHolidays('XA', lists(days), added)).toThrow(/XA 2025-01-01 "New Year" \(add\) adds a public holiday the snapshot already has/);
    const promoted: HolidayCorrection[] = [{ alpha2Code: 'XA', action: 'promote', date: '2025-06-05', name: 'Arafat Day', why, source }];
    expect(() => correctHolidays('XA', lists(days), promoted)).toThrow(/XA 2025-06-05 "Arafat Day" \(promote\) matches no special day of the snapshot/);
  });

  it('a rule by name corrects that holiday in every year of its range, and no other', () => {
    const years = [
      { day: '2024-09-10', summary: "Women's Day" },
      { day: '2025-09-10', summary: "Women's Day" },
      { day: '2026-09-10', summary: "Women's Day" },
      { day: '2026-10-17', summary: 'Dignity Day' },
    ];
    const rules: HolidayCorrection[] = [
      { alpha2Code: 'XA', action: 'move', name: "Women's Day", years: { first: 2025, last: 2050 }, toMonthDay: '12-10', why, source },
      { alpha2Code: 'XA', action: 'remove', name: 'Dignity Day', years: { first: 2000, last: 2050 }, why, source },
    ];
    expect(correctHolidays('XA', lists(years), rules).holidays).toEqual([
      { day: '2024-09-10', summary: "Women's Day" },
      { day: '2025-12-10', summary: "Women's Day" },
      { day: '2026-12-10', summary: "Women's Day" },
    ]);
    const unmatched: HolidayCorrection[] = [{ alpha2Code: 'XA', action: 'demote', name: 'Dignity Day', years: { first: 2000, last: 2010 }, why, source }];
    expect(() => correctHolidays('XA', lists(years), unmatched)).toThrow(/XA "Dignity Day" 2000–2010 \(demote\) matches no public holiday/);
  });

  it("renames a holiday's English name, and leaves a weekend holiday's own date to its substitute", () => {
    const substituted = [
      { day: '2022-01-01', summary: "New Year's Day" },
      { day: '2022-01-03', summary: "New Year's Day (observed)", observedFor: '2022-01-01' },
      { day: '2022-05-01', summary: 'Święto Państwowe', english: 'National Day' },
    ];
    const rules: HolidayCorrection[] = [
      { alpha2Code: 'XA', action: 'substituted', years: { first: 2000, last: 2050 }, why, source },
      { alpha2Code: 'XA', action: 'renameEnglish', name: 'Święto Państwowe', english: 'Labour Day', why, source },
    ];
    expect(correctHolidays('XA', lists(substituted), rules)).toEqual({
      holidays: [
        { day: '2022-01-03', summary: "New Year's Day (observed)", observedFor: '2022-01-01' },
        { day: '2022-05-01', summary: 'Święto Państwowe', english: 'Labour Day' },
      ],
      specialDays: [{ day: '2022-01-01', summary: "New Year's Day" }],
    });
    expect(() => correctHolidays('XA', lists(days), [rules[0] as HolidayCorrection])).toThrow(/XA 2000–2050 \(substituted\) finds no substitute day/);
  });

  it('a correction that matches no public day stops the import, naming itself', () => {
    const stale: HolidayCorrection[] = [{ alpha2Code: 'XA', action: 'remove', date: '2025-10-18', why, source }];
    expect(() => correctHolidays('XA', lists(days), stale)).toThrow(ImportError);
    expect(() => correctHolidays('XA', lists(days), stale)).toThrow(/XA 2025-10-18 \(remove\) matches no public holiday/);
  });

  // These hold once data/records is re-imported with the corrections.
  it('Croatia 2024: the parliamentary election day, 17 April, is a day off for everyone', () => {
    expect(named(partOf(holidays, 'HR'), 'Dan izbora za zastupnike u Hrvatski sabor').map(dayOf)).toEqual(['2024-04-17']);
  });

  it('Iraq 2024: Christmas is a holiday for everyone by the Council of Ministers; Poland: 1 May is Labour Day in English', () => {
    expect(
      partOf(holidays, 'IQ')
        .filter((record) => dayOf(record) === '2024-12-25')
        .map((record) => record.summary),
    ).toEqual(['عيد الميلاد']);
    const mayDay = partOf(holidays, 'PL').find((record) => dayOf(record) === '2026-05-01');
    expect(mayDay?.translations).toEqual({ 'en-US': 'Labour Day' });
  });

  it('Spain: a national holiday on a Sunday keeps its date (Real Decreto 2001/1983, art. 45.1): All Saints 2026 on Sunday 1 November', () => {
    const spain = partOf(holidays, 'ES');
    expect(spain.filter((record) => dayOf(record) === '2026-11-01').map((record) => record.summary)).toEqual(['Todos los Santos']);
    expect(spain.filter((record) => dayOf(record) === '2024-12-08').map((record) => record.summary)).toEqual(['Inmaculada Concepción']);
  });

  it('United Kingdom: a weekend bank holiday is its substitute weekday only; the weekend date is a special day', () => {
    const britain = partOf(holidays, 'GB');
    const standsFor = britain.flatMap((record) => (record.observedFor === undefined ? [] : [record.observedFor]));
    expect(standsFor).toContain('2022-12-25');
    expect(britain.filter((record) => standsFor.includes(dayOf(record))).map(dayOf)).toEqual([]);
    expect(
      partOf(specialDays, 'GB')
        .filter((record) => dayOf(record) === '2022-12-25')
        .map((record) => record.summary),
    ).toEqual(['Christmas Day']);
  });

  it('Russia 2026: the days off the Government moved (9 January, 31 December) and the Labour Code moved (9 March, 11 May) are holidays', () => {
    const russia = partOf(holidays, 'RU').map(dayOf);
    for (const day of ['2026-01-09', '2026-03-09', '2026-05-11', '2026-12-31']) expect(russia, day).toContain(day);
  });

  it('Kenya: Idd-ul-Azha, gazetted for everyone, is a public holiday and no longer a special day; Bahrain: Arafat Day is a day off', () => {
    expect(
      partOf(holidays, 'KE')
        .filter((record) => dayOf(record) === '2025-06-06')
        .map((record) => record.summary),
    ).toEqual(['Idd-ul-Azha (estimated)']);
    expect(partOf(specialDays, 'KE').filter((record) => dayOf(record) === '2025-06-06')).toEqual([]);
    expect(
      partOf(holidays, 'BH')
        .filter((record) => dayOf(record) === '2025-06-05')
        .map((record) => record.summary),
    ).toEqual(['يوم عرفة']);
  });

  it('Namibia: the Day of the Namibian Women is 10 December (Act 16 of 2004), not 10 September', () => {
    const namibia = partOf(holidays, 'NA').map(dayOf);
    expect(namibia).toContain('2025-12-10');
    expect(namibia).not.toContain('2025-09-10');
  });

  it('Bolivia: 17 October is no holiday; Argentina: the 2025 tourist days are special days, not holidays', () => {
    expect(partOf(holidays, 'BO').map(dayOf)).not.toContain('2025-10-17');
    expect(partOf(holidays, 'AR').map(dayOf)).not.toContain('2025-05-02');
    expect(partOf(specialDays, 'AR').filter((record) => dayOf(record) === '2025-05-02').length).toBe(1);
  });
});

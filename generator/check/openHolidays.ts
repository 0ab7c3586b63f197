/**
 * The `openHolidays` check against OpenHolidays' data (data/checks/references/openholidays-public.json.gz,
 * written by references/openHolidays.py), a source independent of python-holidays and of
 * date-holidays: the nation-wide public holidays of 2024–2027 (countryHoliday) against
 * OpenHolidays' public holidays that name no subdivision, for every country both cover. The
 * snapshot's reader and the day tallies are shared with the `regionalHolidays` check
 * (regionalHolidays.ts).
 *
 * Only the years the reference holds for a country are compared, and only the days that fall on its
 * working days: a holiday on a weekend day changes no one's working time, and the two sources list
 * such days by different rules (OpenHolidays holds Belgium's Easter Sunday and Switzerland's Federal
 * Fast, a Sunday, but not Hungary's or Croatia's Easter Sunday; python-holidays holds Zürich's
 * Easter Sunday), so comparing them would measure that choice, not the data. The weekend is the
 * country's in that year (the weekend records, themselves checked against CLDR). The figures over
 * every day are reported beside, with the number of weekend days set aside. Days are compared by
 * date (names differ by source and language); a disagreement is keyed `<alpha-2> <YYYY-MM-DD>` or
 * `<ISO 3166-2> <YYYY-MM-DD>`.
 */
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { gunzipSync } from 'node:zlib';
import { z } from 'zod';
import { addDays } from '../import/holidays/localDates.ts';
import { dayExplainedFigures, type CheckedData, type DataCheck, type Disagreement } from './check.ts';

const years = { first: 2024, last: 2027 };
const inYears = (day: string) => Number(day.slice(0, 4)) >= years.first && Number(day.slice(0, 4)) <= years.last;

export const openHolidaysFile = 'openholidays-public.json.gz';

const snapshotSchema = z.strictObject({
  source: z.strictObject({ repository: z.string(), commit: z.string().regex(/^[0-9a-f]{40}$/), committed: z.string(), licence: z.string() }),
  countries: z.record(z.string().regex(/^[A-Z]{2}$/), z.strictObject({ holidays: z.record(z.string(), z.string()), subdivisions: z.string() })),
});
export type Snapshot = z.infer<typeof snapshotSchema>;

/** Semicolon-separated rows with a header, RFC 4180 quoting (`""` inside quotes), a BOM ignored. */
export function parseCsv(text: string): Record<string, string>[] {
  const rows: string[][] = [];
  let row: string[] = [];
  let field = '';
  let quoted = false;
  const body = text.replace(/^\uFEFF/, '');
  for (let index = 0; index < body.length; index += 1) {
    const character = body[index];
    if (quoted) {
      if (character === '"' && body[index + 1] === '"') {
        field += '"';
        index += 1;
      } else if (character === '"') quoted = false;
      else field += character;
    } else if (character === '"') quoted = true;
    else if (character === ';') {
      row.push(field);
      field = '';
    } else if (character === '\n' || character === '\r') {
      if (character === '\r' && body[index + 1] === '\n') index += 1;
      row.push(field);
      if (row.some((value) => value !== '')) rows.push(row);
      row = [];
      field = '';
    } else field += character;
  }
  row.push(field);
  if (row.some((value) => value !== '')) rows.push(row);
  const [header = [], ...data] = rows;
  return data.map((values) => Object.fromEntries(header.map((name, position) => [name, values[position] ?? ''])));
}

/** A day of OpenHolidays, one entry per day, with the subdivisions it names (short codes). */
interface ReferenceDay {
  readonly day: string;
  readonly name: string;
  readonly subdivisions: readonly string[];
}

export async function readOpenHolidays(dataDir: string): Promise<Snapshot> {
  const file = path.join(dataDir, 'checks', 'references', openHolidaysFile);
  return snapshotSchema.parse(JSON.parse(gunzipSync(await readFile(file)).toString('utf8')));
}

export function referenceDays(country: Snapshot['countries'][string], types: readonly string[] = ['Public']): ReferenceDay[] {
  const days: ReferenceDay[] = [];
  for (const text of Object.values(country.holidays)) {
    for (const row of parseCsv(text)) {
      if (!types.includes(row.Type ?? '') || !row.StartDate) continue;
      const name =
        (row.Name ?? '')
          .split(',')
          .find((part) => part.startsWith('EN '))
          ?.slice(3) ??
        row.Name ??
        '';
      const subdivisions = (row.Subdivisions ?? '').split(',').filter((code) => code !== '');
      for (let day = row.StartDate; day <= (row.EndDate || row.StartDate); day = addDays(day, 1)) if (inYears(day)) days.push({ day, name, subdivisions });
    }
  }
  return days;
}

/** OpenHolidays' subdivisions by short code: the ISO 3166-2 code of each, or of the nearest ancestor that has one, and whether it is that one itself. */
export function subdivisionIndex(country: Snapshot['countries'][string]): Map<string, { iso: string; whole: boolean }> {
  const rows = parseCsv(country.subdivisions);
  const byShort = new Map(rows.map((row) => [row.ShortName ?? '', row]));
  const index = new Map<string, { iso: string; whole: boolean }>();
  for (const row of rows) {
    let current: Record<string, string> | undefined = row;
    let whole = true;
    while (current && !current.IsoCode) {
      current = current.Parent ? byShort.get(current.Parent) : undefined;
      whole = false;
    }
    if (current?.IsoCode) index.set(row.ShortName ?? '', { iso: current.IsoCode, whole });
  }
  return index;
}

export type Days = Map<string, Map<string, string[]>>;

export function add(days: Days, owner: string, day: string, name: string): void {
  const ofOwner = days.get(owner) ?? new Map<string, string[]>();
  const names = ofOwner.get(day) ?? [];
  if (!names.includes(name)) names.push(name);
  ofOwner.set(day, names);
  days.set(owner, ofOwner);
}

const ratio = (part: number, whole: number) => (whole === 0 ? 1 : part / whole);

/** Whether a day falls on its country's weekend as the nation-wide weekend records give it for that day. */
function weekendTest(data: CheckedData, alpha2ById: ReadonlyMap<unknown, string>): (alpha2Code: string, day: string) => boolean {
  const periods = new Map<string, { from: string; until: string; weekendDays: readonly number[] }[]>();
  for (const period of data.get('weekend') ?? []) {
    const alpha2Code = alpha2ById.get(String(period.countryId));
    if (period.stateProvinceId !== null || !alpha2Code) continue;
    const ofCountry = periods.get(alpha2Code) ?? [];
    ofCountry.push({
      from: (period.from as string | null) ?? '0000-00-00',
      until: (period.until as string | null) ?? '9999-99-99',
      weekendDays: period.weekendDays as number[],
    });
    periods.set(alpha2Code, ofCountry);
  }
  return (alpha2Code, day) => {
    const weekday = new Date(`${day}T00:00:00Z`).getUTCDay() || 7;
    const period = periods.get(alpha2Code)?.find(({ from, until }) => from <= day && day <= until);
    return period?.weekendDays.includes(weekday) ?? false;
  };
}

/** Agreement over working days, the figures the targets read, and over every day, reported beside. */
export class Tally {
  served = 0;
  inReference = 0;
  agreedOurs = 0;
  agreedTheirs = 0;
  servedAll = 0;
  inReferenceAll = 0;
  agreedOursAll = 0;
  agreedTheirsAll = 0;
  setAside = new Set<string>();
  disagreeingSetAside = new Set<string>();

  count(key: string, side: 'ours' | 'theirs', agreed: boolean, onWeekend: boolean): void {
    if (side === 'ours') {
      this.servedAll += 1;
      if (agreed) this.agreedOursAll += 1;
    } else {
      this.inReferenceAll += 1;
      if (agreed) this.agreedTheirsAll += 1;
    }
    if (onWeekend) {
      this.setAside.add(key);
      if (!agreed) this.disagreeingSetAside.add(key);
      return;
    }
    if (side === 'ours') {
      this.served += 1;
      if (agreed) this.agreedOurs += 1;
    } else {
      this.inReference += 1;
      if (agreed) this.agreedTheirs += 1;
    }
  }

  figures(): Record<string, number> {
    return {
      precision: ratio(this.agreedOurs, this.served),
      recall: ratio(this.agreedTheirs, this.inReference),
      daysServed: this.served,
      daysInReference: this.inReference,
      precisionAllDays: ratio(this.agreedOursAll, this.servedAll),
      recallAllDays: ratio(this.agreedTheirsAll, this.inReferenceAll),
      weekendDaysSetAside: this.setAside.size,
      weekendDisagreementsSetAside: this.disagreeingSetAside.size,
    };
  }
}

/** Our days: nation-wide by alpha-2 code, and each subdivision's own by ISO 3166-2 code. */
export function ourDays(data: CheckedData): {
  national: Days;
  regional: Days;
  stateCodes: Map<string, string>;
  onWeekend: (alpha2Code: string, day: string) => boolean;
} {
  const alpha2ById = new Map((data.get('country') ?? []).map((country) => [country.id, String(country.alpha2Code)]));
  const stateCodes = new Map(
    (data.get('stateProvince') ?? []).map((state) => [state.id, `${alpha2ById.get(String(state.countryId))}-${String(state.abbreviation)}`]),
  );
  const national: Days = new Map();
  for (const record of data.get('countryHoliday') ?? []) {
    const day = String(record.startDate).slice(0, 10);
    const alpha2Code = alpha2ById.get(String(record.countryId));
    if (alpha2Code && inYears(day)) add(national, alpha2Code, day, String(record.summary));
  }
  const regional: Days = new Map();
  const daysOff = new Set(['optional', 'bank']);
  const regionalDays = [
    ...(data.get('stateProvinceHoliday') ?? []),
    ...(data.get('stateProvinceSpecialDay') ?? []).filter((day) => daysOff.has(String(day.dayType))),
  ];
  for (const record of regionalDays) {
    const day = String(record.startDate).slice(0, 10);
    const code = stateCodes.get(String(record.stateProvinceId));
    if (code && inYears(day)) add(regional, code, day, String(record.summary));
  }
  return { national, regional, stateCodes, onWeekend: weekendTest(data, alpha2ById) };
}

export const referenceName = (snapshot: Snapshot) =>
  `OpenHolidays data (${snapshot.source.repository}, commit ${snapshot.source.commit.slice(0, 7)} of ${snapshot.source.committed.slice(0, 10)}, ${snapshot.source.licence}), public holidays ${years.first}–${years.last}`;

export const check: DataCheck = {
  name: 'openHolidays',
  explainedFigures: dayExplainedFigures,
  async run(data, dataDir) {
    const snapshot = await readOpenHolidays(dataDir);
    const { national, onWeekend } = ourDays(data);
    const covered = Object.keys(snapshot.countries)
      .filter((code) => national.has(code))
      .sort();
    const disagreements: Disagreement[] = [];
    const tally = new Tally();
    for (const alpha2Code of covered) {
      const theirs: Days = new Map();
      const days = referenceDays(snapshot.countries[alpha2Code] as Snapshot['countries'][string]);
      for (const { day, name, subdivisions } of days) {
        if (subdivisions.length === 0) add(theirs, alpha2Code, day, name);
      }
      // Only the years the reference holds for the country (Brazil's end in 2025).
      const heldYears = new Set(days.map(({ day }) => day.slice(0, 4)));
      const ours = new Map([...(national.get(alpha2Code) ?? new Map<string, string[]>())].filter(([day]) => heldYears.has(day.slice(0, 4))));
      const reference = theirs.get(alpha2Code) ?? new Map<string, string[]>();
      for (const day of [...new Set([...ours.keys(), ...reference.keys()])].sort()) {
        const key = `${alpha2Code} ${day}`;
        const ourNames = ours.get(day);
        const theirNames = reference.get(day);
        const weekend = onWeekend(alpha2Code, day);
        if (ourNames) tally.count(key, 'ours', theirNames !== undefined, weekend);
        if (theirNames) tally.count(key, 'theirs', ourNames !== undefined, weekend);
        if ((!ourNames || !theirNames) && !weekend)
          disagreements.push({ key, ours: ourNames?.join('; ') ?? 'absent', theirs: theirNames?.join('; ') ?? 'absent' });
      }
    }
    return {
      name: 'openHolidays',
      reference: referenceName(snapshot),
      figures: { ...tally.figures(), countriesCompared: covered.length },
      targets: { precision: 0.97, recall: 0.97 },
      disagreements,
    };
  },
};

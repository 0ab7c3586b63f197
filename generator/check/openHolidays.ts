/**
 * Two checks against OpenHolidays' data (data/checks/references/openholidays-public.json.gz,
 * written by references/openHolidays.py), a source independent of python-holidays and of
 * date-holidays:
 *
 * - `openHolidays`: the nation-wide public holidays of 2024–2027 (countryHoliday) against
 *   OpenHolidays' public holidays that name no subdivision, for every country both cover.
 * - `regionalHolidays`: each subdivision's own days off of 2024–2027 (its holidays, and its special
 *   days that are days off for all or some: `public`, `optional` and `bank` days) against
 *   OpenHolidays' days that name it (types Public, Optional and Bank), for every subdivision both
 *   give days of their own (Italy's provinces, whose patron-saint days OpenHolidays does not hold,
 *   are not compared). A day either side calls national is a day off in the subdivision either way
 *   and counts as agreement; a day OpenHolidays gives only part of the subdivision (some of a
 *   canton's districts) agrees with ours but is not required of us.
 *
 * Only the years the reference holds for a country are compared. Days are compared by date (names
 * differ by source and language); a disagreement is keyed
 * `<alpha-2> <YYYY-MM-DD>` or `<ISO 3166-2> <YYYY-MM-DD>`.
 */
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { gunzipSync } from 'node:zlib';
import { z } from 'zod';
import { addDays } from '../import/localDates.ts';
import { dayExplainedFigures, type CheckedData, type DataCheck, type Disagreement } from './check.ts';

const years = { first: 2024, last: 2027 };
const inYears = (day: string) => Number(day.slice(0, 4)) >= years.first && Number(day.slice(0, 4)) <= years.last;

export const openHolidaysFile = 'openholidays-public.json.gz';

const snapshotSchema = z.strictObject({
  source: z.strictObject({ repository: z.string(), commit: z.string().regex(/^[0-9a-f]{40}$/), committed: z.string(), licence: z.string() }),
  countries: z.record(z.string().regex(/^[A-Z]{2}$/), z.strictObject({ holidays: z.record(z.string(), z.string()), subdivisions: z.string() })),
});
type Snapshot = z.infer<typeof snapshotSchema>;

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

function referenceDays(country: Snapshot['countries'][string], types: readonly string[] = ['Public']): ReferenceDay[] {
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
function subdivisionIndex(country: Snapshot['countries'][string]): Map<string, { iso: string; whole: boolean }> {
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

type Days = Map<string, Map<string, string[]>>;

function add(days: Days, owner: string, day: string, name: string): void {
  const ofOwner = days.get(owner) ?? new Map<string, string[]>();
  const names = ofOwner.get(day) ?? [];
  if (!names.includes(name)) names.push(name);
  ofOwner.set(day, names);
  days.set(owner, ofOwner);
}

const ratio = (part: number, whole: number) => (whole === 0 ? 1 : part / whole);

/** Our days: nation-wide by alpha-2 code, and each subdivision's own by ISO 3166-2 code. */
function ourDays(data: CheckedData): { national: Days; regional: Days; stateCodes: Map<string, string> } {
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
  return { national, regional, stateCodes };
}

const referenceName = (snapshot: Snapshot) =>
  `OpenHolidays data (${snapshot.source.repository}, commit ${snapshot.source.commit.slice(0, 7)} of ${snapshot.source.committed.slice(0, 10)}, ${snapshot.source.licence}), public holidays ${years.first}–${years.last}`;

export const openHolidaysCheck: DataCheck = {
  name: 'openHolidays',
  explainedFigures: dayExplainedFigures,
  async run(data, dataDir) {
    const snapshot = await readOpenHolidays(dataDir);
    const { national } = ourDays(data);
    const covered = Object.keys(snapshot.countries)
      .filter((code) => national.has(code))
      .sort();
    const disagreements: Disagreement[] = [];
    let served = 0;
    let inReference = 0;
    let agreed = 0;
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
        const ourNames = ours.get(day);
        const theirNames = reference.get(day);
        if (ourNames && theirNames) agreed += 1;
        else disagreements.push({ key: `${alpha2Code} ${day}`, ours: ourNames?.join('; ') ?? 'absent', theirs: theirNames?.join('; ') ?? 'absent' });
      }
      served += ours.size;
      inReference += reference.size;
    }
    return {
      name: 'openHolidays',
      reference: referenceName(snapshot),
      figures: {
        precision: ratio(agreed, served),
        recall: ratio(agreed, inReference),
        countriesCompared: covered.length,
        daysServed: served,
        daysInReference: inReference,
        daysAgreed: agreed,
      },
      targets: { precision: 0.97, recall: 0.97 },
      disagreements,
    };
  },
};

export const regionalHolidaysCheck: DataCheck = {
  name: 'regionalHolidays',
  explainedFigures: dayExplainedFigures,
  async run(data, dataDir) {
    const snapshot = await readOpenHolidays(dataDir);
    const { national, regional, stateCodes } = ourDays(data);
    const ourCountries = new Set([...regional.keys()].map((code) => code.slice(0, 2)));
    const disagreements: Disagreement[] = [];
    const perSubdivision: Record<string, { ours: number; theirs: number }> = {};
    let served = 0;
    let inReference = 0;
    let agreedOurs = 0;
    let agreedTheirs = 0;
    const compared: string[] = [];
    let onlyOurs = 0;
    let onlyTheirs = 0;
    for (const alpha2Code of Object.keys(snapshot.countries).sort()) {
      const country = snapshot.countries[alpha2Code] as Snapshot['countries'][string];
      const days = referenceDays(country, ['Public', 'Optional', 'Bank']);
      if (!ourCountries.has(alpha2Code) || !days.some((day) => day.subdivisions.length > 0)) continue;
      compared.push(alpha2Code);
      const index = subdivisionIndex(country);
      const theirNational = new Set(days.filter((day) => day.subdivisions.length === 0).map((day) => day.day));
      const ourNational = new Set((national.get(alpha2Code) ?? new Map()).keys());
      // Theirs, per ISO subdivision: the days it has whole, and those only part of it has.
      const whole: Days = new Map();
      const partial: Days = new Map();
      for (const { day, name, subdivisions } of days) {
        for (const code of subdivisions) {
          const found = index.get(code);
          if (found) add(found.whole ? whole : partial, found.iso, day, name);
        }
      }
      // The subdivisions both give days of their own; the others are counted, not compared.
      const ofCountry = [...new Set([...stateCodes.values()].filter((code) => code.startsWith(`${alpha2Code}-`)))];
      const subdivisionCodes = ofCountry.filter((code) => regional.has(code) && whole.has(code));
      onlyOurs += ofCountry.filter((code) => regional.has(code) && !whole.has(code)).length;
      onlyTheirs += ofCountry.filter((code) => !regional.has(code) && whole.has(code)).length;
      const heldYears = new Set(days.map(({ day }) => day.slice(0, 4)));
      for (const code of subdivisionCodes.sort()) {
        const ours = new Map([...(regional.get(code) ?? new Map<string, string[]>())].filter(([day]) => heldYears.has(day.slice(0, 4))));
        const theirs = whole.get(code) ?? new Map<string, string[]>();
        const theirsInPart = partial.get(code) ?? new Map<string, string[]>();
        for (const [day, names] of ours) {
          if (theirs.has(day) || theirsInPart.has(day) || theirNational.has(day)) agreedOurs += 1;
          else disagreements.push({ key: `${code} ${day}`, ours: names.join('; '), theirs: 'absent' });
        }
        for (const [day, names] of theirs) {
          if (ours.has(day) || ourNational.has(day)) agreedTheirs += 1;
          else disagreements.push({ key: `${code} ${day}`, ours: 'absent', theirs: names.join('; ') });
        }
        served += ours.size;
        inReference += theirs.size;
        perSubdivision[code] = { ours: ours.size, theirs: theirs.size };
      }
    }
    return {
      name: 'regionalHolidays',
      reference: referenceName(snapshot),
      figures: {
        precision: ratio(agreedOurs, served),
        recall: ratio(agreedTheirs, inReference),
        countriesCompared: compared.length,
        subdivisionsCompared: Object.keys(perSubdivision).length,
        subdivisionsOnlyWithOurs: onlyOurs,
        subdivisionsOnlyWithTheirs: onlyTheirs,
        daysServed: served,
        daysInReference: inReference,
      },
      targets: { precision: 0.97, recall: 0.97 },
      disagreements,
      detail: { countries: compared, perSubdivision },
    };
  },
};

/**
 * The `holidays` check: the public holidays served for 2024–2026 (countryHoliday, from
 * python-holidays; Türkiye's from curated rules) against date-holidays, an independent source
 * (another project, other maintainers, its own rules and sources), computed at check time from
 * the installed devDependency with the day rules the importer used when it read that package:
 * type "public" only, one day per local calendar day of a holiday of several days
 * (max(1, floor(hours / 24)) on the clock of the package's first zone for the country), each day
 * in the year it falls in.
 *
 * Days are compared by date, not by name (the two sources name days differently, and in different
 * languages). Only the countries date-holidays covers are compared; a disagreement is keyed
 * `<alpha-2> <YYYY-MM-DD>`, with the names on each side or "absent".
 */
import { readFile } from 'node:fs/promises';
import Holidays from 'date-holidays';
import { packageFilePath } from '../import/shared/packages.ts';
import { addDays, wallClockHours } from '../import/holidays/localDates.ts';
import { dayExplainedFigures, type CheckReport, type DataCheck, type Disagreement } from './check.ts';

const years = { first: 2024, last: 2026 };
const countedYear = 2025;
const targets = { precision: 0.97, recall: 0.97, countriesWithHolidays2025: 240 };

type DaysByCountry = Map<string, Map<string, string[]>>;

const yearOf = (day: string) => Number(day.slice(0, 4));
const inYears = (day: string) => yearOf(day) >= years.first && yearOf(day) <= years.last;

function addDay(days: DaysByCountry, alpha2Code: string, day: string, name: string): void {
  let ofCountry = days.get(alpha2Code);
  if (ofCountry === undefined) {
    ofCountry = new Map();
    days.set(alpha2Code, ofCountry);
  }
  const names = ofCountry.get(day) ?? [];
  if (!names.includes(name)) names.push(name);
  ofCountry.set(day, names);
}

/** date-holidays' public days by country, each day of a holiday of several days on its own. */
function referenceDays(alpha2Codes: readonly string[]): DaysByCountry {
  const days: DaysByCountry = new Map();
  for (const alpha2Code of alpha2Codes) {
    const calendar = new Holidays(alpha2Code);
    const timeZone = calendar.getTimezones()[0];
    if (timeZone === undefined) throw new Error(`date-holidays gives no time zone for ${alpha2Code}`);
    days.set(alpha2Code, new Map());
    // From the year before: a holiday of several days may start in it and run into the window.
    for (let year = years.first - 1; year <= years.last; year += 1) {
      for (const holiday of calendar.getHolidays(year)) {
        if (holiday.type !== 'public') continue;
        const dayCount = Math.max(1, Math.floor(wallClockHours(timeZone, holiday.start.getTime(), holiday.end.getTime()) / 24));
        for (let offset = 0; offset < dayCount; offset += 1) {
          const day = addDays(holiday.date.slice(0, 10), offset);
          if (inYears(day)) addDay(days, alpha2Code, day, holiday.name);
        }
      }
    }
  }
  return days;
}

const ratio = (part: number, whole: number) => (whole === 0 ? 1 : part / whole);

export const check: DataCheck = {
  name: 'holidays',
  explainedFigures: dayExplainedFigures,
  async run(data) {
    const alpha2ById = new Map<string, string>();
    for (const country of data.get('country') ?? []) alpha2ById.set(country.id, String(country.alpha2Code));

    const ours: DaysByCountry = new Map();
    const countriesWithHolidays = new Set<string>();
    for (const record of data.get('countryHoliday') ?? []) {
      const alpha2Code = alpha2ById.get(String(record.countryId));
      const day = String(record.startDate).slice(0, 10);
      if (alpha2Code === undefined) continue;
      if (yearOf(day) === countedYear) countriesWithHolidays.add(alpha2Code);
      if (inYears(day)) addDay(ours, alpha2Code, day, String(record.summary));
    }

    const covered = Object.keys(new Holidays().getCountries())
      .filter((code) => [...alpha2ById.values()].includes(code))
      .sort();
    const theirs = referenceDays(covered);

    const disagreements: Disagreement[] = [];
    const perCountry: Record<string, { ours: number; theirs: number; agreed: number; precision: number; recall: number }> = {};
    let oursTotal = 0;
    let theirsTotal = 0;
    let agreedTotal = 0;
    for (const alpha2Code of covered) {
      const ourDays = ours.get(alpha2Code) ?? new Map<string, string[]>();
      const theirDays = theirs.get(alpha2Code) ?? new Map<string, string[]>();
      let agreed = 0;
      for (const day of [...new Set([...ourDays.keys(), ...theirDays.keys()])].sort()) {
        const ourNames = ourDays.get(day);
        const theirNames = theirDays.get(day);
        if (ourNames && theirNames) agreed += 1;
        else disagreements.push({ key: `${alpha2Code} ${day}`, ours: ourNames?.join('; ') ?? 'absent', theirs: theirNames?.join('; ') ?? 'absent' });
      }
      perCountry[alpha2Code] = {
        ours: ourDays.size,
        theirs: theirDays.size,
        agreed,
        precision: ratio(agreed, ourDays.size),
        recall: ratio(agreed, theirDays.size),
      };
      oursTotal += ourDays.size;
      theirsTotal += theirDays.size;
      agreedTotal += agreed;
    }

    const { version } = JSON.parse(await readFile(packageFilePath('date-holidays', 'package.json'), 'utf8')) as { version: string };
    const report: CheckReport = {
      name: 'holidays',
      reference: `date-holidays@${version}, public holidays ${years.first}–${years.last} computed at check time`,
      figures: {
        precision: ratio(agreedTotal, oursTotal),
        recall: ratio(agreedTotal, theirsTotal),
        countriesCompared: covered.length,
        countriesWithHolidays2025: countriesWithHolidays.size,
        daysServed: oursTotal,
        daysInReference: theirsTotal,
        daysAgreed: agreedTotal,
      },
      targets,
      disagreements,
      detail: { perCountry },
    };
    return report;
  },
};

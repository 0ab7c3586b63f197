/**
 * The `regionalHolidays` check against OpenHolidays' data (openHolidays.ts reads it): each
 * subdivision's own days off of 2024–2027 (its holidays, and its special days that are days off for
 * all or some: `public`, `optional` and `bank` days) against OpenHolidays' days that name it (types
 * Public, Optional and Bank), for every subdivision both give days of their own (Italy's provinces,
 * whose patron-saint days OpenHolidays does not hold, are not compared). A day either side calls
 * national is a day off in the subdivision either way and counts as agreement; a day OpenHolidays
 * gives only part of the subdivision (some of a canton's districts) agrees with ours but is not
 * required of us. Weekend days are set aside as in the `openHolidays` check.
 */
import { dayExplainedFigures, type DataCheck, type Disagreement } from './check.ts';
import { add, type Days, ourDays, readOpenHolidays, referenceDays, referenceName, type Snapshot, subdivisionIndex, Tally } from './openHolidays.ts';

export const check: DataCheck = {
  name: 'regionalHolidays',
  explainedFigures: dayExplainedFigures,
  async run(data, dataDir) {
    const snapshot = await readOpenHolidays(dataDir);
    const { national, regional, stateCodes, onWeekend } = ourDays(data);
    const ourCountries = new Set([...regional.keys()].map((code) => code.slice(0, 2)));
    const disagreements: Disagreement[] = [];
    const perSubdivision: Record<string, { ours: number; theirs: number }> = {};
    const tally = new Tally();
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
          const key = `${code} ${day}`;
          const agreed = theirs.has(day) || theirsInPart.has(day) || theirNational.has(day);
          const weekend = onWeekend(alpha2Code, day);
          tally.count(key, 'ours', agreed, weekend);
          if (!agreed && !weekend) disagreements.push({ key, ours: names.join('; '), theirs: 'absent' });
        }
        for (const [day, names] of theirs) {
          const key = `${code} ${day}`;
          const agreed = ours.has(day) || ourNational.has(day);
          const weekend = onWeekend(alpha2Code, day);
          tally.count(key, 'theirs', agreed, weekend);
          if (!agreed && !weekend) disagreements.push({ key, ours: 'absent', theirs: names.join('; ') });
        }
        perSubdivision[code] = { ours: ours.size, theirs: theirs.size };
      }
    }
    return {
      name: 'regionalHolidays',
      reference: referenceName(snapshot),
      figures: {
        ...tally.figures(),
        countriesCompared: compared.length,
        subdivisionsCompared: Object.keys(perSubdivision).length,
        subdivisionsOnlyWithOurs: onlyOurs,
        subdivisionsOnlyWithTheirs: onlyTheirs,
      },
      targets: { precision: 0.97, recall: 0.97 },
      disagreements,
      detail: { countries: compared, perSubdivision },
    };
  },
};

/**
 * The `weekends` check: each country's weekend in force today (the weekend records whose period
 * is open, from python-holidays' rules) against Unicode CLDR's `weekData` (cldr-core, a source
 * kept by other people from other evidence: CLDR's territory data), which gives each territory's
 * weekend as a range of days (`weekendStart` to `weekendEnd`, the world's `001` where it names
 * none). Keyed by alpha-2 code, each side written as ISO weekdays.
 */
import { readFile } from 'node:fs/promises';
import { packageFilePath } from '../import/shared/packages.ts';
import type { DataCheck, Disagreement } from './check.ts';
import { compareCodePoints } from '../records/ordering.ts';

const cldrDays = ['mon', 'tue', 'wed', 'thu', 'fri', 'sat', 'sun'];

interface WeekData {
  readonly supplemental: { readonly weekData: { readonly weekendStart: Record<string, string>; readonly weekendEnd: Record<string, string> } };
}

/** CLDR's weekend of a territory as ISO weekdays: from its start to its end, across Sunday if need be. */
export function cldrWeekend(weekData: WeekData, alpha2Code: string): number[] {
  const { weekendStart, weekendEnd } = weekData.supplemental.weekData;
  const start = cldrDays.indexOf(weekendStart[alpha2Code] ?? weekendStart['001'] ?? 'sat') + 1;
  const end = cldrDays.indexOf(weekendEnd[alpha2Code] ?? weekendEnd['001'] ?? 'sun') + 1;
  const days: number[] = [];
  for (let day = start; ; day = (day % 7) + 1) {
    days.push(day);
    if (day === end || days.length === 7) break;
  }
  return days.sort((a, b) => a - b);
}

const written = (days: readonly number[]) => `[${days.join(',')}]`;

export const check: DataCheck = {
  name: 'weekends',
  explainedFigures: (report, notExplained) => {
    const compared = report.figures.countriesCompared ?? 0;
    return { agreementCountingExplained: compared === 0 ? 0 : (compared - notExplained.length) / compared };
  },
  async run(data) {
    const file = packageFilePath('cldr-core', 'supplemental/weekData.json');
    const weekData = JSON.parse(await readFile(file, 'utf8')) as WeekData;
    const { version } = JSON.parse(await readFile(packageFilePath('cldr-core', 'package.json'), 'utf8')) as { version: string };
    const alpha2ById = new Map((data.get('country') ?? []).map((country) => [country.id, String(country.alpha2Code)]));
    const today = new Map<string, number[]>();
    for (const period of data.get('weekend') ?? []) {
      if (period.stateProvinceId !== null || period.until !== null) continue;
      const alpha2Code = alpha2ById.get(String(period.countryId));
      if (alpha2Code) today.set(alpha2Code, [...(period.weekendDays as number[])]);
    }
    const disagreements: Disagreement[] = [];
    for (const [alpha2Code, ours] of [...today].sort(([a], [b]) => compareCodePoints(a, b))) {
      const theirs = cldrWeekend(weekData, alpha2Code);
      if (written(ours) !== written(theirs)) disagreements.push({ key: alpha2Code, ours: written(ours), theirs: written(theirs) });
    }
    return {
      name: 'weekends',
      reference: `Unicode CLDR ${version} weekData (cldr-core), today's weekend of each territory`,
      figures: {
        countriesCompared: today.size,
        countriesEqual: today.size - disagreements.length,
        agreement: (today.size - disagreements.length) / Math.max(1, today.size),
      },
      targets: { agreement: 0.97, countriesCompared: 240 },
      disagreements,
    };
  },
};

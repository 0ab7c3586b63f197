/**
 * `germanPostalCodes`: Germany's served postal places (GeoNames) against OpenStreetMap's postal
 * codes as open-postal-codes extracts them (data/checks/references/open-postal-codes-de.json,
 * ODbL, used here only), by postal code: the codes each has, the place names, the Land
 * (generator/check/postalComparison.ts).
 *
 * OpenStreetMap maps the postal areas of addresses, so Deutsche Post's large-customer codes (one
 * code for one company, "33311 Bertelsmann") and post-box codes are mostly absent from it: served
 * codes it lacks are counted, not disagreements. It writes "Oßling u.a." for a code that covers
 * Oßling and other places ("und andere"): read as "Oßling".
 */
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { z } from 'zod';
import { foldName } from '../../contract/keys.ts';
import type { CheckReport, DataCheck } from './check.ts';
import { comparePostalCodes, postalExplainedFigures, type ReferenceCode } from './postalComparison.ts';
import { servedPlaces } from './servedPlaces.ts';

export const germanReferenceFile = 'open-postal-codes-de.json';

const referenceSchema = z.object({
  title: z.string().min(1),
  repository: z.string().url(),
  commit: z.string().regex(/^[0-9a-f]{40}$/),
  commitDate: z.string().regex(/^\d{4}-\d{2}-\d{2}$/),
  fileSha256: z.string().regex(/^[0-9a-f]{64}$/),
  rows: z.array(z.tuple([z.string().regex(/^\d{5}$/), z.string().min(1), z.string().min(1), z.boolean()])).min(1),
});

/** "Oßling u.a." is Oßling and others: the place named. */
export const germanPlaceName = (city: string): string => city.replace(/\s+u\.\s?a\.$/u, '');

/**
 * Words a German place name carries before its name or not: a spa's "Bad" (the Land grants it, so
 * one list may lag: Staffelstein is Bad Staffelstein since 2001), "Stadt", "Kloster", an island's
 * "Insel" or "Hallig", a resort's "Ostseebad" or "Seeheilbad", "Lutherstadt".
 */
export const germanTitleWords = ['Bad', 'Stadt', 'Kloster', 'Insel', 'Hallig', 'Ostseebad', 'Seeheilbad', 'Lutherstadt', 'Gemeinde'];

/** The Länder by folded name, as ISO 3166-2 names them (the served StateProvince names). */
export function landCodes(subdivisions: readonly { name: string; abbreviation: string }[]): Map<string, string> {
  return new Map(subdivisions.map((subdivision) => [foldName(subdivision.name), subdivision.abbreviation]));
}

export const check: DataCheck = {
  name: 'germanPostalCodes',
  explainedFigures: (report, notExplained) => postalExplainedFigures(report.figures, notExplained),
  async run(data, dataDir): Promise<CheckReport> {
    const file = path.join(dataDir, 'checks', 'references', germanReferenceFile);
    const snapshot = referenceSchema.parse(JSON.parse(await readFile(file, 'utf8')));
    const germany = (data.get('country') ?? []).find((record) => record.alpha2Code === 'DE');
    const lands = landCodes(
      (data.get('stateProvince') ?? [])
        .filter((record) => record.countryId === germany?.id)
        .map((record) => ({ name: String(record.name), abbreviation: String(record.abbreviation) })),
    );
    const codes = new Map<string, { names: string[]; stateProvinces: Set<string>; states: Set<string> }>();
    for (const [code, city, state] of snapshot.rows) {
      const entry = codes.get(code) ?? { names: [], stateProvinces: new Set<string>(), states: new Set<string>() };
      entry.names.push(germanPlaceName(city));
      const land = lands.get(foldName(state));
      if (land) entry.stateProvinces.add(land);
      entry.states.add(state);
      codes.set(code, entry);
    }
    const reference = new Map<string, ReferenceCode>(
      [...codes].map(([code, entry]) => [code, { names: entry.names, stateProvinces: [...entry.stateProvinces], stateLabel: [...entry.states].join(', ') }]),
    );
    const result = comparePostalCodes({ country: 'DE', served: servedPlaces(data, ['DE']), reference, titleWords: germanTitleWords });
    return {
      name: 'germanPostalCodes',
      reference: `${snapshot.title} (${snapshot.repository} ${snapshot.commit.slice(0, 7)}, ${snapshot.commitDate}; OpenStreetMap contributors, ODbL)`,
      figures: result.figures,
      targets: { referenceCodesServed: 0.99, namesAgree: 0.96 },
      disagreements: result.disagreements,
      detail: result.detail,
    };
  },
};

/**
 * `frenchPostalCodes`: France's served postal places (GeoNames) against INSEE's Code officiel
 * géographique 2026 with La Poste's postal codes (@etalab/decoupage-administratif 6.0.0;
 * data/checks/references/cog-2026-postal-codes-fr.json.gz), by postal code: the codes each has, the
 * commune names, the département (generator/check/postalComparison.ts).
 *
 * - The overseas codes (971–988) are set apart: GeoNames files them under their own countries
 *   (GP, MQ, GF, RE, YT …), so they are looked for there too and counted on their own.
 * - A served name that is a former commune of the reference's commune nouvelle (a commune
 *   déléguée or associée whose commune carries the code: "Pelvoux" in Vallouise-Pelvoux) is a
 *   name disagreement of the class `communeNouvelle`: the postal list names the place as it was.
 * - The département is the served StateProvince: ISO 3166-2 codes the départements by their
 *   numbers, Paris as FR-75C; the Métropole de Lyon (FR-69M) and the Collectivité européenne
 *   d'Alsace (FR-6AE) stand for the COG's départements 69, 67 and 68 too.
 */
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { gunzipSync } from 'node:zlib';
import { z } from 'zod';
import type { CheckReport, DataCheck } from './check.ts';
import { comparePostalCodes, namesAgree, postalExplainedFigures, type ReferenceCode } from './postalComparison.ts';
import { servedPlaces } from './servedPlaces.ts';

export const frenchReferenceFile = 'cog-2026-postal-codes-fr.json.gz';

const referenceSchema = z.object({
  title: z.string().min(1),
  package: z.string().min(1),
  version: z.string().min(1),
  tarballSha256: z.string().regex(/^[0-9a-f]{64}$/),
  rows: z
    .array(
      z.tuple([
        z.string().regex(/^\d{5}$/),
        z.string().min(1),
        z.string().regex(/^(\d{2,3}|2[AB])$/),
        z.enum(['commune', 'arrondissement', 'deleguee', 'associee']),
      ]),
    )
    .min(1),
});

/** The countries GeoNames files France's overseas postal codes under. */
export const overseasCountries = ['GP', 'MQ', 'GF', 'RE', 'YT', 'PM', 'BL', 'MF', 'WF', 'PF', 'NC'] as const;

/** France's overseas codes: 971–988. */
export const isOverseasCode = (code: string): boolean => code >= '97100' && code < '98900';

/** The ISO 3166-2 suffixes a COG département stands for. */
export function departementSubdivisions(departement: string): string[] {
  if (departement === '75') return ['75C'];
  if (departement === '69') return ['69', '69M'];
  if (departement === '67' || departement === '68') return [departement, '6AE'];
  return [departement];
}

export const check: DataCheck = {
  name: 'frenchPostalCodes',
  explainedFigures: (report, notExplained) => postalExplainedFigures(report.figures, notExplained),
  async run(data, dataDir): Promise<CheckReport> {
    const file = path.join(dataDir, 'checks', 'references', frenchReferenceFile);
    const snapshot = referenceSchema.parse(JSON.parse(gunzipSync(await readFile(file)).toString('utf8')));
    const codes = new Map<string, { names: string[]; former: string[]; stateProvinces: Set<string>; departements: Set<string> }>();
    for (const [code, name, departement, kind] of snapshot.rows) {
      const entry = codes.get(code) ?? { names: [], former: [], stateProvinces: new Set<string>(), departements: new Set<string>() };
      if (kind === 'commune' || kind === 'arrondissement') {
        entry.names.push(name);
        for (const subdivision of departementSubdivisions(departement)) entry.stateProvinces.add(subdivision);
        entry.departements.add(departement);
      } else entry.former.push(name);
      codes.set(code, entry);
    }
    const reference = new Map<string, ReferenceCode>(
      [...codes].map(([code, entry]) => [
        code,
        { names: entry.names, stateProvinces: [...entry.stateProvinces], stateLabel: `département ${[...entry.departements].join(', ')}` },
      ]),
    );
    const result = comparePostalCodes({
      country: 'FR',
      served: servedPlaces(data, ['FR']),
      reference,
      setApart: (code) => (isOverseasCode(code) ? 'overseas' : undefined),
      servedElsewhere: servedPlaces(data, overseasCountries),
      classifyName: (code, ours) => {
        const former = codes.get(code)?.former ?? [];
        const names = ours.flatMap((place) => [place.district, place.place]);
        return names.some((name) => former.some((other) => namesAgree(name, other) !== undefined)) ? 'communeNouvelle' : undefined;
      },
    });
    return {
      name: 'frenchPostalCodes',
      reference: `${snapshot.title} (npm ${snapshot.package}@${snapshot.version})`,
      figures: result.figures,
      targets: { referenceCodesServed: 0.99, namesAgree: 0.99 },
      disagreements: result.disagreements,
      detail: result.detail,
    };
  },
};

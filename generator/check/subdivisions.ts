/**
 * `subdivisions`: the ISO 3166-2 codes served per country (stateProvince.json, from iso-codes)
 * against Unicode CLDR's subdivision hierarchy (cldr-core, supplemental/subdivisionContainment.json).
 *
 * CLDR is an independent second source: its committee takes ISO's own XML export from the Online
 * Browsing Platform and generates its data with its own tools, while iso-codes is kept by hand by
 * the Debian team. Both follow one standard, so any difference is one of them lagging a newsletter.
 * CLDR's hierarchy holds every current code at every level, as the served data does; codes ISO
 * withdrew stay in CLDR only as aliases, most of which name their replacement.
 */
import { z } from 'zod';
import { readPackageJson } from '../import/shared/packages.ts';
import { countrySchema, stateProvinceSchema } from '../records/schemas.ts';
import type { CheckedData, CheckReport, DataCheck, Disagreement } from './check.ts';
import { compareCodePoints } from '../import/shared/ordering.ts';

const containmentSchema = z.object({
  supplemental: z.object({
    /** `FR` → { _contains: [frara, …] }, `frara` → { _contains: [fr01, …] }: countries upper-case, subdivisions lower-case. */
    subdivisionContainment: z.record(z.string(), z.object({ _contains: z.array(z.string().regex(/^[a-z]{2}[a-z0-9]{1,4}$/)) })),
  }),
});
const aliasesSchema = z.object({
  supplemental: z.object({
    metadata: z.object({
      alias: z.object({ subdivisionAlias: z.record(z.string(), z.object({ _reason: z.string(), _replacement: z.string() })) }),
    }),
  }),
});
const manifestSchema = z.object({ version: z.string() });

/** CLDR's `fr69m` → ISO's `FR-69M`. */
function isoCodeOf(cldrId: string): string {
  return `${cldrId.slice(0, 2)}-${cldrId.slice(2)}`.toUpperCase();
}

/** Every code CLDR places under each country, at any depth, by alpha-2 code. */
async function loadReferenceCodes(): Promise<Map<string, Set<string>>> {
  const { supplemental } = await readPackageJson('cldr-core', 'supplemental/subdivisionContainment.json', containmentSchema);
  const containment = supplemental.subdivisionContainment;
  const byCountry = new Map<string, Set<string>>();
  for (const country of Object.keys(containment).filter((key) => /^[A-Z]{2}$/.test(key))) {
    const codes = new Set<string>();
    const pending = [country];
    for (let key = pending.pop(); key !== undefined; key = pending.pop()) {
      for (const child of containment[key]?._contains ?? []) {
        const code = isoCodeOf(child);
        if (codes.has(code)) continue;
        codes.add(code);
        pending.push(child);
      }
    }
    byCountry.set(country, codes);
  }
  return byCountry;
}

/** CLDR's aliases of codes ISO withdrew or that a country code covers, as text (`FR-C` → `deprecated in CLDR, replaced by FR-ARA`). */
async function loadAliases(): Promise<Map<string, string>> {
  const { supplemental } = await readPackageJson('cldr-core', 'supplemental/aliases.json', aliasesSchema);
  return new Map(
    Object.entries(supplemental.metadata.alias.subdivisionAlias).map(([id, alias]) => {
      // A replacement is a subdivision (`frara`) or, for an overseas part, a country (`RE`).
      const replacements = alias._replacement.split(' ').map((replacement) => (/^[a-z]/.test(replacement) ? isoCodeOf(replacement) : replacement));
      return [isoCodeOf(id), `${alias._reason} in CLDR, replaced by ${replacements.join(' ')}`];
    }),
  );
}

function servedCodes(data: CheckedData): Map<string, Map<string, string>> {
  const countries = z.array(countrySchema).parse(data.get('country') ?? []);
  const alpha2ById = new Map(countries.map((country) => [country.id, country.alpha2Code]));
  const byCountry = new Map<string, Map<string, string>>();
  for (const record of z.array(stateProvinceSchema).parse(data.get('stateProvince') ?? [])) {
    const alpha2Code = alpha2ById.get(record.countryId) ?? record.countryId;
    const names = byCountry.get(alpha2Code) ?? new Map<string, string>();
    byCountry.set(alpha2Code, names);
    names.set(`${alpha2Code}-${record.abbreviation}`, record.name);
  }
  return byCountry;
}

const sorted = (codes: Iterable<string>) => [...codes].sort(compareCodePoints);

export const check: DataCheck = {
  name: 'subdivisions',
  async run(data): Promise<CheckReport> {
    const { version } = await readPackageJson('cldr-core', 'package.json', manifestSchema);
    const reference = await loadReferenceCodes();
    const aliases = await loadAliases();
    const served = servedCodes(data);

    const disagreements: Disagreement[] = [];
    const unequal: Record<string, { served: number; reference: number; missing: number; extra: number }> = {};
    let codesServed = 0;
    let codesReference = 0;
    let codesMissing = 0;
    let codesExtra = 0;
    const countries = sorted(new Set([...served.keys(), ...[...reference].filter(([, codes]) => codes.size > 0).map(([country]) => country)]));
    for (const country of countries) {
      const ours = served.get(country) ?? new Map<string, string>();
      const theirs = reference.get(country) ?? new Set<string>();
      const missing = sorted([...theirs].filter((code) => !ours.has(code)));
      const extra = sorted([...ours.keys()].filter((code) => !theirs.has(code)));
      codesServed += ours.size;
      codesReference += theirs.size;
      codesMissing += missing.length;
      codesExtra += extra.length;
      if (missing.length === 0 && extra.length === 0) continue;
      unequal[country] = { served: ours.size, reference: theirs.size, missing: missing.length, extra: extra.length };
      // A country one side has no codes for at all is one disagreement, not one per code.
      if (ours.size === 0 || theirs.size === 0) {
        disagreements.push({
          key: country,
          ours: ours.size === 0 ? 'absent' : `${ours.size} codes`,
          theirs: theirs.size === 0 ? 'absent' : `${theirs.size} codes`,
        });
        continue;
      }
      for (const code of missing) disagreements.push({ key: code, ours: 'absent', theirs: 'a current code' });
      for (const code of extra) {
        disagreements.push({ key: code, ours: `"${ours.get(code) ?? ''}"`, theirs: aliases.get(code) ?? 'absent' });
      }
    }

    const countriesEqualCount = countries.length - Object.keys(unequal).length;
    return {
      name: 'subdivisions',
      reference: `Unicode CLDR (cldr-core@${version}), supplemental/subdivisionContainment.json`,
      figures: {
        countriesCompared: countries.length,
        countriesEqualCount,
        countriesEqual: countries.length === 0 ? 0 : countriesEqualCount / countries.length,
        codesServed,
        codesReference,
        codesMissing,
        codesExtra,
      },
      targets: { countriesEqual: 0.98 },
      disagreements,
      detail: { unequalCountries: unequal },
    };
  },
};

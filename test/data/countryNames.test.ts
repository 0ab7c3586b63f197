/**
 * The country names against iso-codes' translations (generator/check/countryNames.ts), on the
 * committed snapshot: which CLDR locale a gettext catalogue stands for, what the real data scores,
 * and that a served name answering another country is a disagreement while a spelling CLDR lacks
 * only lowers the figures.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import type { RecordType } from '../../contract/routes.ts';
import type { CheckReport } from '../../generator/check/check.ts';
import { check as countryNamesCheck } from '../../generator/check/countryNames.ts';
import { loadLocaleMatcher, type LocaleMatcher } from '../../generator/check/gettextLocales.ts';
import { countrySchema, type Country, type DataRecord } from '../../generator/records/schemas.ts';
import { dataDir, readValidated } from '../support/data.ts';

let countries: Country[];
let matcher: LocaleMatcher;
let report: CheckReport;

const checkWith = (records: readonly Country[]): Promise<CheckReport> =>
  countryNamesCheck.run(new Map<RecordType, readonly DataRecord[]>([['country', records as unknown as DataRecord[]]]), dataDir);

/** The countries with one of them changed. */
const changing = (alpha2Code: string, change: (country: Country) => Country): Country[] =>
  countries.map((country) => (country.alpha2Code === alpha2Code ? change(country) : country));

const perCatalogue = (result: CheckReport): Record<string, { cldrLocale: string; found: number }> =>
  (result.detail?.perCatalogue ?? {}) as Record<string, { cldrLocale: string; found: number }>;

beforeAll(async () => {
  countries = await readValidated('country', countrySchema);
  matcher = await loadLocaleMatcher(new Set(countries.flatMap((country) => (country.localizedNames ?? []).flatMap(({ locales }) => locales))));
  report = await checkWith(countries);
});

describe('gettext catalogues and CLDR locales', () => {
  it.each([
    ['de', 'de'],
    ['pt_BR', 'pt'],
    ['pt', 'pt-PT'],
    ['zh_CN', 'zh'],
    ['zh_TW', 'zh-Hant'],
    ['zh_HK', 'zh-Hant-HK'],
    ['sr', 'sr'],
    ['sr@latin', 'sr-Latn'],
    ['nb_NO', 'nb'],
    ['bn_BD', 'bn'],
    ['bn_IN', 'bn-IN'],
    ['ro_MD', 'ro-MD'],
    ['kmr', 'ku'],
    ['tl', 'fil'],
  ])('%s is CLDR %s', (catalogue, cldrLocale) => {
    expect(matcher.cldrLocaleOf(catalogue)).toBe(cldrLocale);
  });

  it('a catalogue whose language, script or region CLDR does not name every country in stands for none: Shahmukhi Punjabi, Latin Tatar, Sorani, Asturian', () => {
    for (const catalogue of ['pa_PK', 'tt@iqtelif', 'ckb', 'ast']) expect(matcher.cldrLocaleOf(catalogue), catalogue).toBeUndefined();
  });
});

describe('countryNames on the real data', () => {
  it('compares 107 of iso-codes 4.20.1 catalogues, and finds 75% of their countries by their short or common name', () => {
    expect(report.figures.cataloguesCompared).toBe(107);
    expect(report.figures.cataloguesNotInCldr).toBe(52);
    expect(report.figures.countriesFound).toBeGreaterThanOrEqual(0.75);
    expect(report.figures.medianCatalogueFound).toBeGreaterThanOrEqual(0.84);
  });

  it('German, French, Turkish and Simplified Chinese find at least 90% of their countries', () => {
    for (const catalogue of ['de', 'fr', 'tr', 'zh_CN']) expect(perCatalogue(report)[catalogue]?.found, catalogue).toBeGreaterThanOrEqual(0.9);
  });

  it('29 names find another country, each an ambiguous name or a translation error in iso-codes (data/checks/exceptions/countryNames.json)', () => {
    expect(report.figures.namesFindingAnother).toBe(29);
    expect(report.disagreements.map(({ key }) => key)).toContain('MX→HN "ಹೊಂಡುರಾಸ್" kn name');
    expect(report.disagreements.filter(({ key }) => key.startsWith('CG→CD "Конго" '))).toHaveLength(12);
  });
});

describe('what the check tells apart', () => {
  it('a served name that answers another country is a disagreement', async () => {
    const result = await checkWith(changing('AT', (austria) => ({ ...austria, altNames: [...(austria.altNames ?? []), 'Deutschland'] })));
    expect(result.disagreements).toContainEqual({
      key: 'DE→AT "Deutschland" de name',
      ours: 'finds AT (Austria)',
      theirs: 'DE (Germany), translating "Germany"',
    });
    expect(result.figures.namesFindingAnother).toBeGreaterThan(29);
  });

  it('a name CLDR lacks is no disagreement: it lowers the figures and is listed', async () => {
    const result = await checkWith(changing('DE', ({ localizedNames: _, ...germany }) => germany));
    expect(result.disagreements.filter(({ key }) => key.startsWith('DE→'))).toEqual([]);
    expect(result.figures.countriesFound).toBeLessThan(report.figures.countriesFound ?? 0);
    const lacking = (result.detail?.spellingsCldrLacks ?? {}) as Record<string, string[]>;
    expect(lacking['DE Deutschland']).toContain('de');
  });
});

/**
 * `population`: every country's population against UN World Population Prospects 2024
 * (data/checks/references/un-wpp-2024-population.tsv), for the countries whose figure comes from
 * the World Bank. The territories the World Bank does not publish take WPP's own figure, so
 * comparing them would prove nothing; those and the few that only CLDR covers are listed, not
 * compared.
 *
 * The two are not wholly independent: the World Bank takes many countries' figures from WPP and
 * others from national statistical offices and Eurostat. A disagreement therefore points at a
 * census that one has and the other has not, or at a difference in what is counted.
 *
 * The report also gives the share of countries within 10% of the World Bank's latest figure, which says whether the import took what it should.
 */
import { z } from 'zod';
import { readUnWppPopulation, readWorldBankPopulation } from '../import/countries/population.ts';
import { countrySchema } from '../records/schemas.ts';
import type { DataCheck, Disagreement } from './check.ts';

/** Two figures for the same place agree when they are no more than 10% apart. */
const tolerance = 0.1;

const countriesSchema = z.array(countrySchema);

function relativeDifference(ours: number, theirs: number): number {
  return Math.abs(ours - theirs) / theirs;
}

function median(values: readonly number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  if (sorted.length === 0) return 0;
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1 ? (sorted[middle] ?? 0) : ((sorted[middle - 1] ?? 0) + (sorted[middle] ?? 0)) / 2;
}

const persons = new Intl.NumberFormat('en');

function describe(theirs: number, ours: number, source: string): string {
  const signed = (ours - theirs) / theirs;
  return `${persons.format(theirs)} (${source}; ours is ${signed >= 0 ? '+' : ''}${(signed * 100).toFixed(1)}%)`;
}

export const check: DataCheck = {
  name: 'population',
  async run(data, dataDir) {
    const countries = countriesSchema.parse(data.get('country') ?? []);
    const worldBank = await readWorldBankPopulation(dataDir);
    const unWpp = await readUnWppPopulation(dataDir);

    const disagreements: Disagreement[] = [];
    const differences: number[] = [];
    let withWorldBank = 0;
    let withinWorldBank = 0;
    /** Not compared: the figure is WPP's own, or there is none to compare with. */
    const servedFromUnWpp: string[] = [];
    const notCompared: string[] = [];
    for (const country of countries) {
      const ours = country.countryPopulation;
      const bank = worldBank.get(country.alpha3Code);
      const un = unWpp.get(country.numericIsoCode);
      if (bank) {
        withWorldBank += 1;
        if (relativeDifference(ours, bank.population) <= tolerance) withinWorldBank += 1;
        else
          disagreements.push({
            key: `${country.alpha2Code} world-bank`,
            ours: persons.format(ours),
            theirs: describe(bank.population, ours, `World Bank ${bank.year}`),
          });
      }
      if (!bank || un === undefined) {
        (!bank && un !== undefined ? servedFromUnWpp : notCompared).push(country.alpha2Code);
        continue;
      }
      const difference = relativeDifference(ours, un);
      differences.push(difference);
      if (difference > tolerance)
        disagreements.push({ key: country.alpha2Code, ours: persons.format(ours), theirs: describe(un, ours, 'UN WPP 2024, 1 January 2025') });
    }

    return {
      name: 'population',
      reference:
        'UN World Population Prospects 2024, medium variant, 1 January 2025 (wpp2024 R package 1.1-3); World Bank SP.POP.TOTL 2024 (datasets/population, 2026-03-06)',
      figures: {
        countriesCompared: differences.length,
        withinTenPercent: differences.length === 0 ? 0 : differences.filter((difference) => difference <= tolerance).length / differences.length,
        medianAbsoluteRelativeDifference: median(differences),
        countriesWithWorldBankFigure: withWorldBank,
        withinTenPercentOfWorldBank: withWorldBank === 0 ? 0 : withinWorldBank / withWorldBank,
      },
      targets: { withinTenPercent: 0.95, withinTenPercentOfWorldBank: 0.95 },
      disagreements,
      detail: { servedFromUnWpp, notCompared },
    };
  },
};

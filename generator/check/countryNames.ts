/**
 * `countryNames`: does `country/getbyname` find each country by the name iso-codes' translators give
 * it? The reference is every translation of an ISO 3166-1 name in iso-codes' gettext catalogues
 * (data/checks/references/iso-codes-country-names.json.gz, generator/check/references/
 * isoCodesCountryNames.py); the served names are CLDR's (country.json `name`, `altNames`,
 * `localizedNames`). iso-codes' translation teams work apart from CLDR's, so agreement is evidence
 * and a name that finds another country is a wrong answer some client will get.
 *
 * Each translated name (of a catalogue whose locale CLDR also names every country in; iso-codes'
 * fields: the ISO short `name`, the `common_name`, the `official_name`) is looked up as the build
 * answers it (bodies.ts, the ambiguity rule included) and finds the same country, another country (a
 * disagreement, keyed `KR→ZA "દક્ષિણ આફ્રિકા" gu common_name`: the country iso-codes means, the one
 * found, the name, the catalogue and the field), or nothing (a spelling CLDR lacks: counted and
 * listed in the detail, not a disagreement, since the data takes its names from CLDR alone).
 * A country counts as found in a catalogue when its short or common name finds it; official names
 * are compared for wrong answers only, as CLDR has none.
 */
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { gunzipSync } from 'node:zlib';
import { z } from 'zod';
import { foldName, normaliseKey } from '../../contract/keys.ts';
import { routes } from '../../contract/routes.ts';
import { indexData } from '../bodies.ts';
import { type Country, countrySchema, type DataRecord } from '../records/schemas.ts';
import type { CheckReport, DataCheck, Disagreement } from './check.ts';
import { loadLocaleMatcher } from './gettextLocales.ts';

const fields = ['name', 'common_name', 'official_name'] as const;
type IsoField = (typeof fields)[number];
const namesSchema = z.object({ name: z.string().optional(), common_name: z.string().optional(), official_name: z.string().optional() });
const snapshotSchema = z.object({
  package: z.literal('pycountry'),
  version: z.string().min(1),
  english: z.record(z.string().regex(/^[A-Z]{2}$/), namesSchema),
  catalogues: z.record(z.string(), z.object({ revised: z.string(), countries: z.record(z.string().regex(/^[A-Z]{2}$/), namesSchema) })),
});

export const referenceFile = (dataDir: string): string => path.join(dataDir, 'checks', 'references', 'iso-codes-country-names.json.gz');

const getByName = routes.find((route) => route.path.endsWith('/country/getbyname'));

/** What `country/getbyname` answers, by name key: the alpha-2 code of the country the build serves. */
function servedAnswers(countries: readonly Country[]): Map<string, string> {
  if (!getByName) throw new Error('contract/routes.ts has no country/getbyname route');
  const records = countries as unknown as DataRecord[];
  const { bodies } = indexData({ records: new Map([['country', records]]), where: () => undefined }, { holidayYears: { first: 2000, last: 2000 } }, [
    getByName,
  ]);
  const prefix = getByName.path.slice(1);
  const alpha2ByBody = new Map<string, string>();
  const answers = new Map<string, string>();
  for (const [file, body] of bodies) {
    let alpha2Code = alpha2ByBody.get(body);
    if (alpha2Code === undefined) {
      alpha2Code = z.object({ alpha2Code: z.string() }).parse(JSON.parse(body)).alpha2Code;
      alpha2ByBody.set(body, alpha2Code);
    }
    answers.set(file.slice(prefix.length + 1, -'.json'.length), alpha2Code);
  }
  return answers;
}

type Spelling = 'name' | 'altName' | readonly string[];

/** How a country's own data spells a name key: its name or alternative names, or the CLDR locales of a localized name. */
function servedSpellings(country: Country): Map<string, Spelling> {
  const spellings = new Map<string, Spelling>();
  const add = (name: string, how: Spelling): void => {
    const result = normaliseKey('name', name);
    if (result.ok && !spellings.has(result.key)) spellings.set(result.key, how);
  };
  add(country.name, 'name');
  for (const name of country.altNames ?? []) add(name, 'altName');
  for (const { name, locales } of country.localizedNames ?? []) add(name, locales);
  return spellings;
}

type Outcome = 'sameLocale' | 'ownName' | 'otherLocale' | 'another' | 'nothing';
const agreeing: readonly Outcome[] = ['sameLocale', 'ownName', 'otherLocale'];
const outcomeNames: readonly Outcome[] = [...agreeing, 'another', 'nothing'];

/** What the build answers for one name and, when it is the right country, which of its names found it. */
function lookUp(
  name: string,
  alpha2Code: string,
  cldrLocale: string,
  answers: ReadonlyMap<string, string>,
  spellings: ReadonlyMap<string, Spelling>,
): { outcome: Outcome; answer?: string } {
  const result = normaliseKey('name', name);
  const answer = result.ok ? answers.get(result.key) : undefined;
  if (!result.ok || answer === undefined) return { outcome: 'nothing' };
  if (answer !== alpha2Code) return { outcome: 'another', answer };
  const how = spellings.get(result.key);
  if (!Array.isArray(how)) return { outcome: 'ownName', answer };
  return { outcome: how.includes(cldrLocale) ? 'sameLocale' : 'otherLocale', answer };
}

interface CatalogueFigures {
  readonly cldrLocale: string;
  /** Countries with a translated short or common name. */
  countries: number;
  /** Of those, the ones that name finds. */
  countriesFound: number;
}

const ratio = (part: number, whole: number): number => (whole === 0 ? 0 : part / whole);

/** What the comparison of every catalogue adds up, and what it looks names up in. */
interface Tally {
  readonly outcomes: Record<IsoField, Record<Outcome, number>>;
  readonly disagreements: Disagreement[];
  readonly notFound: Map<string, { name: string; catalogues: string[] }>;
  readonly answers: ReturnType<typeof servedAnswers>;
  readonly spellings: ReadonlyMap<string, ReturnType<typeof servedSpellings>>;
  readonly byAlpha2: ReadonlyMap<string, Country>;
  readonly english: Readonly<Record<string, Partial<Record<IsoField, string | undefined>>>>;
}

/** One catalogue's names of one country, each looked up as a client would: whether it is named, and found. */
function compareCountry(
  {
    catalogue,
    cldrLocale,
    alpha2Code,
    names,
    country,
  }: { catalogue: string; cldrLocale: string; alpha2Code: string; names: Partial<Record<IsoField, string | undefined>>; country: Country },
  tally: Tally,
): { named: boolean; found: boolean } {
  let named = false;
  let found = false;
  for (const field of fields) {
    const name = names[field];
    if (name === undefined) continue;
    const { outcome, answer = '' } = lookUp(name, alpha2Code, cldrLocale, tally.answers, tally.spellings.get(alpha2Code) ?? new Map());
    tally.outcomes[field][outcome] += 1;
    if (outcome === 'another') {
      tally.disagreements.push({
        key: `${alpha2Code}→${answer} "${name}" ${catalogue} ${field}`,
        ours: `finds ${answer} (${tally.byAlpha2.get(answer)?.name ?? answer})`,
        theirs: `${alpha2Code} (${country.name}), translating "${tally.english[alpha2Code]?.[field] ?? ''}"`,
      });
    }
    if (field === 'official_name') continue;
    named = true;
    found ||= agreeing.includes(outcome);
    if (outcome === 'nothing') {
      const key = `${alpha2Code} ${foldName(name)}`;
      const entry = tally.notFound.get(key) ?? { name, catalogues: [] };
      entry.catalogues.push(catalogue);
      tally.notFound.set(key, entry);
    }
  }
  return { named, found };
}

export const check: DataCheck = {
  name: 'countryNames',
  async run(data, dataDir): Promise<CheckReport> {
    const snapshot = snapshotSchema.parse(JSON.parse(gunzipSync(await readFile(referenceFile(dataDir))).toString('utf8')));
    const countries = z.array(countrySchema).parse(data.get('country') ?? []);
    const byAlpha2 = new Map(countries.map((country) => [country.alpha2Code, country]));
    const answers = servedAnswers(countries);
    const spellings = new Map(countries.map((country) => [country.alpha2Code, servedSpellings(country)]));
    const matcher = await loadLocaleMatcher(new Set(countries.flatMap((country) => (country.localizedNames ?? []).flatMap(({ locales }) => locales))));

    const disagreements: Disagreement[] = [];
    const outcomes = Object.fromEntries(fields.map((field) => [field, Object.fromEntries(outcomeNames.map((outcome) => [outcome, 0]))])) as Record<
      IsoField,
      Record<Outcome, number>
    >;
    const perCatalogue: Record<string, CatalogueFigures> = {};
    /** Short and common names that find nothing, by country and folded name: the catalogues that use each. */
    const notFound = new Map<string, { name: string; catalogues: string[] }>();
    const notCovered: string[] = [];
    const tally: Tally = { outcomes, disagreements, notFound, answers, spellings, byAlpha2, english: snapshot.english };

    for (const [catalogue, { countries: translated }] of Object.entries(snapshot.catalogues)) {
      const cldrLocale = matcher.cldrLocaleOf(catalogue);
      if (cldrLocale === undefined) {
        notCovered.push(catalogue);
        continue;
      }
      const figures: CatalogueFigures = { cldrLocale, countries: 0, countriesFound: 0 };
      perCatalogue[catalogue] = figures;
      for (const [alpha2Code, names] of Object.entries(translated)) {
        const country = byAlpha2.get(alpha2Code);
        if (!country) throw new Error(`${referenceFile(dataDir)}: ${catalogue} translates ${alpha2Code}, which country.json lacks`);
        const { named, found } = compareCountry({ catalogue, cldrLocale, alpha2Code, names, country }, tally);
        if (named) figures.countries += 1;
        if (found) figures.countriesFound += 1;
      }
    }

    const count = (field: IsoField, which: readonly Outcome[]): number => which.reduce((total, outcome) => total + outcomes[field][outcome], 0);
    const total = (outcome: Outcome): number => fields.reduce((sum, field) => sum + outcomes[field][outcome], 0);
    const foundRatio = (field: IsoField): number => ratio(count(field, agreeing), count(field, outcomeNames));
    const catalogueFigures = Object.values(perCatalogue);
    const pairs = catalogueFigures.reduce((sum, figures) => sum + figures.countries, 0);
    const pairsFound = catalogueFigures.reduce((sum, figures) => sum + figures.countriesFound, 0);
    const catalogueRatios = catalogueFigures.map((figures) => ratio(figures.countriesFound, figures.countries)).sort((a, b) => a - b);
    const lacking = [...notFound.values()];
    return {
      name: 'countryNames',
      reference: `iso-codes' ISO 3166-1 translations, as bundled in pycountry ${snapshot.version} (the iso_3166-1 catalogues of iso-codes 4.20.1)`,
      figures: {
        cataloguesCompared: catalogueFigures.length,
        cataloguesNotInCldr: notCovered.length,
        countriesCompared: pairs,
        countriesFound: ratio(pairsFound, pairs),
        medianCatalogueFound: catalogueRatios[Math.floor(catalogueRatios.length / 2)] ?? 0,
        shortNamesFound: foundRatio('name'),
        commonNamesFound: foundRatio('common_name'),
        officialNamesFound: foundRatio('official_name'),
        namesCompared: fields.reduce((sum, field) => sum + count(field, outcomeNames), 0),
        namesOfSameLocale: total('sameLocale'),
        namesOwnOrAlternative: total('ownName'),
        namesOfOtherLocales: total('otherLocale'),
        namesFindingNothing: total('nothing'),
        namesFindingAnother: total('another'),
        spellingsCldrLacks: lacking.length,
        spellingsCldrLacksInTwoCatalogues: lacking.filter(({ catalogues }) => catalogues.length >= 2).length,
      },
      // Measured with CLDR 48 and iso-codes 4.20.1 (0.754 and 0.843), to hold the line. What is not
      // found is a spelling CLDR lacks (ISO's inverted forms, older transliterations), not a wrong answer.
      targets: { countriesFound: 0.75, medianCatalogueFound: 0.84 },
      disagreements,
      detail: {
        outcomesByField: outcomes,
        perCatalogue: Object.fromEntries(
          Object.entries(perCatalogue).map(([catalogue, figures]) => [catalogue, { ...figures, found: ratio(figures.countriesFound, figures.countries) }]),
        ),
        notCovered,
        spellingsCldrLacks: Object.fromEntries([...notFound].map(([key, { name, catalogues }]) => [`${key.slice(0, 2)} ${name}`, catalogues])),
      },
    };
  },
};

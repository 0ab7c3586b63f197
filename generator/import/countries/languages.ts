/**
 * Languages (language.json) and country languages (countryLanguage.json): the official and de
 * facto official languages of every country, from Unicode CLDR (Unicode License v3): which
 * languages from cldr-core territoryInfo, culture tags from likelySubtags, right-to-left from
 * scriptMetadata, English names from cldr-localenames-full main/en.
 */
import { z } from 'zod';
import { countryLanguageSchema, languageSchema } from '../../records/schemas.ts';
import { byCountryName, reuseLinkIds } from './countryLinks.ts';
import type { DatasetImporter } from '../importer.ts';
import { reuseIds } from '../shared/ids.ts';
import { ImportError } from '../shared/importError.ts';
import { readPackageJson } from '../shared/packages.ts';
import { englishCollator } from '../shared/ordering.ts';

type Language = z.infer<typeof languageSchema>;

/**
 * Statuses that make a language a language of the whole country. CLDR's `official_regional`
 * (official in part of a country only: Catalan in Spain, Tamil in India) is left out on purpose.
 */
const countryWideStatuses: ReadonlySet<string> = new Set(['official', 'de_facto_official']);

/**
 * Official languages CLDR 48 has no English name for: Ndzwani and Ngazidja Comorian (Comoros).
 * Left out rather than named by us; the import fails once CLDR names one, so it is taken then.
 */
const leftOutWithoutEnglishName: ReadonlySet<string> = new Set(['wni', 'zdj']);

/** A CLDR language code: a language subtag, with a script where the script is the point (zh_Hant). */
const languageCode = z.string().regex(/^[a-z]{2,3}(_[A-Z][a-z]{3})?$/, 'must be a language code such as tr or zh_Hant');

const territoryInfoSchema = z.object({
  supplemental: z.object({
    territoryInfo: z.record(
      z.string(),
      z.object({ languagePopulation: z.record(z.string(), z.object({ _officialStatus: z.string().optional() })).optional() }),
    ),
  }),
});
const likelySubtagsSchema = z.object({
  supplemental: z.object({
    likelySubtags: z.record(z.string(), z.string().regex(/^[a-z]{2,8}-[A-Z][a-z]{3}-([A-Z]{2}|\d{3})$/, 'must be language-Script-REGION')),
  }),
});
const scriptMetadataSchema = z.object({ scriptMetadata: z.record(z.string(), z.object({ rtl: z.enum(['YES', 'NO', 'UNKNOWN']) })) });
const englishNames = <Shape extends z.ZodRawShape>(shape: Shape) => z.object({ main: z.object({ en: z.object({ localeDisplayNames: z.object(shape) }) }) });
const languageNamesSchema = englishNames({ languages: z.record(z.string(), z.string()) });
const scriptNamesSchema = englishNames({ scripts: z.record(z.string(), z.string()) });
const localePatternSchema = englishNames({
  localeDisplayPattern: z.object({ localePattern: z.string().includes('{0}').includes('{1}') }),
});

/** What the language record says about one CLDR language code, without its id. */
export type LanguageFacts = Omit<Language, 'id' | 'uniqueSeoCode'> & { readonly uniqueSeoCode: string };
/** Every language record this import writes has its code as uniqueSeoCode, never null. */
type LanguageRecord = { readonly id: string } & LanguageFacts;

/**
 * Describes a CLDR language code (tr, zh_Hant) the way a language record does, or undefined when
 * CLDR has no English name for it:
 * - name: the English name, or CLDR's "{language} ({script})" pattern for a script variant
 *   without a name of its own ("Serbian (Latin)");
 * - languageCulture: language-REGION with the region CLDR's likely subtags give (tr-TR, ar-EG,
 *   en-US); a script variant keeps its script, language-Script-REGION (zh-Hant-TW, sr-Latn-RS), so
 *   that it does not share Serbian's sr-RS;
 * - uniqueSeoCode: the code itself in BCP 47 spelling (tr, zh-Hant);
 * - rtl: whether the language's script (its own, else the likely one) is written right to left.
 */
export async function loadLanguageDescriber(): Promise<(code: string) => LanguageFacts | undefined> {
  const { likelySubtags } = (await readPackageJson('cldr-core', 'supplemental/likelySubtags.json', likelySubtagsSchema)).supplemental;
  const { scriptMetadata } = await readPackageJson('cldr-core', 'scriptMetadata.json', scriptMetadataSchema);
  const languageNames = (await readPackageJson('cldr-localenames-full', 'main/en/languages.json', languageNamesSchema)).main.en.localeDisplayNames.languages;
  const scriptNames = (await readPackageJson('cldr-localenames-full', 'main/en/scripts.json', scriptNamesSchema)).main.en.localeDisplayNames.scripts;
  const { localePattern } = (await readPackageJson('cldr-localenames-full', 'main/en/localeDisplayNames.json', localePatternSchema)).main.en.localeDisplayNames
    .localeDisplayPattern;

  return (code) => {
    const tag = code.replace('_', '-');
    const [language = '', script] = tag.split('-');
    // UTS #35 "Add Likely Subtags": language-Script, then language, then und-Script.
    const likely = likelySubtags[tag] ?? likelySubtags[language] ?? (script === undefined ? undefined : likelySubtags[`und-${script}`]);
    if (likely === undefined) throw new ImportError([`cldr-core likelySubtags knows nothing of ${code}`]);
    const [, likelyScript = '', region = ''] = likely.split('-');
    const writtenIn = script ?? likelyScript;
    const direction = scriptMetadata[writtenIn];
    if (direction === undefined || direction.rtl === 'UNKNOWN') {
      throw new ImportError([`cldr-core scriptMetadata does not say which way ${writtenIn}, the script of ${code}, is written`]);
    }

    const languageName = languageNames[language];
    const scriptName = script === undefined ? undefined : scriptNames[script];
    const name =
      languageNames[tag] ??
      (script === undefined || languageName === undefined || scriptName === undefined
        ? languageName
        : localePattern.replace('{0}', languageName).replace('{1}', scriptName));
    if (name === undefined) return undefined;
    return {
      name,
      languageCulture: script === undefined ? `${language}-${region}` : `${language}-${script}-${region}`,
      uniqueSeoCode: tag,
      rtl: direction.rtl === 'YES',
    };
  };
}

/** The country-wide official languages CLDR lists, by alpha-2 code. */
async function loadOfficialLanguages(): Promise<Map<string, string[]>> {
  const { territoryInfo } = (await readPackageJson('cldr-core', 'supplemental/territoryInfo.json', territoryInfoSchema)).supplemental;
  const byTerritory = new Map<string, string[]>();
  const problems: string[] = [];
  for (const [territory, info] of Object.entries(territoryInfo)) {
    const codes = Object.entries(info.languagePopulation ?? {})
      .filter(([, population]) => population._officialStatus !== undefined && countryWideStatuses.has(population._officialStatus))
      .map(([code]) => code);
    for (const code of codes)
      if (!languageCode.safeParse(code).success) problems.push(`cldr-core territoryInfo ${territory}: unexpected language code ${code}`);
    byTerritory.set(territory, codes);
  }
  if (problems.length > 0) throw new ImportError(problems);
  return byTerritory;
}

export const importer: DatasetImporter = async ({ countries, previous }) => {
  const describe = await loadLanguageDescriber();
  const officialByTerritory = await loadOfficialLanguages();
  const alpha2Codes = new Set(countries.map((country) => country.alpha2Code));

  const codes = new Set([...officialByTerritory].filter(([territory]) => alpha2Codes.has(territory)).flatMap(([, languages]) => languages));
  const languageIdFor = reuseIds('language', await previous('language', languageSchema), (language) => language.uniqueSeoCode);
  const languageByCode = new Map<string, LanguageRecord>();
  const problems: string[] = [];
  for (const code of codes) {
    const facts = describe(code);
    if (facts === undefined) {
      if (!leftOutWithoutEnglishName.has(code)) problems.push(`CLDR has no English name for the official language ${code}`);
      continue;
    }
    if (leftOutWithoutEnglishName.has(code)) problems.push(`CLDR now names ${code} "${facts.name}": remove it from leftOutWithoutEnglishName`);
    languageByCode.set(code, { id: languageIdFor(facts.uniqueSeoCode), ...facts });
  }
  if (problems.length > 0) throw new ImportError(problems);
  const byName = (a: LanguageRecord, b: LanguageRecord) => englishCollator.compare(a.name, b.name) || a.languageCulture.localeCompare(b.languageCulture);
  const languages = [...languageByCode.values()].sort(byName);

  const seoCodeById = new Map(languages.map((language) => [language.id, language.uniqueSeoCode]));
  const linkIdFor = reuseLinkIds('countryLanguage', await previous('countryLanguage', countryLanguageSchema), countries, (link) =>
    seoCodeById.get(link.languageId),
  );
  const links = byCountryName(countries).flatMap((country) =>
    (officialByTerritory.get(country.alpha2Code) ?? [])
      .flatMap((code) => languageByCode.get(code) ?? [])
      .sort(byName)
      .map((language) => ({ id: linkIdFor(country.alpha3Code, language.uniqueSeoCode), countryId: country.id, languageId: language.id })),
  );
  return [
    { recordType: 'language', records: languages, schema: languageSchema },
    { recordType: 'countryLanguage', records: links, schema: countryLanguageSchema },
  ];
};

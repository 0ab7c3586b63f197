/**
 * Which CLDR locale a gettext catalogue's locale stands for (`pt_BR` → `pt`, `zh_TW` → `zh-Hant`,
 * `sr@latin` → `sr-Latn`), so that iso-codes' translations can be set beside CLDR's.
 *
 * Two locales stand for the same language when UTS #35's "Add Likely Subtags" makes the same
 * language-Script-REGION of both: CLDR's `pt` is Portuguese of Brazil (pt-Latn-BR), so gettext's
 * `pt_BR` is CLDR's `pt`, and CLDR's `zh-Hant` is Chinese of Taiwan (zh-Hant-TW). Language codes
 * are first replaced as CLDR's own aliases say (`kmr` → `ku`, `tl` → `fil`). Of several CLDR
 * locales with one meaning (`zh`, `zh-Hans`) the shortest is taken.
 */
import { z } from 'zod';
import { readPackageJson } from '../import/shared/packages.ts';
import { compareCodePoints } from '../records/ordering.ts';

const likelySubtagsSchema = z.object({ supplemental: z.object({ likelySubtags: z.record(z.string(), z.string()) }) });
const aliasesSchema = z.object({
  supplemental: z.object({
    metadata: z.object({ alias: z.object({ languageAlias: z.record(z.string(), z.object({ _replacement: z.string() })) }) }),
  }),
});

/** gettext's script modifiers (`sr@latin`, `uz@cyrillic`, Tatar's Latin `tt@iqtelif`) as ISO 15924 codes. */
const scriptModifiers: Readonly<Record<string, string>> = { latin: 'Latn', cyrillic: 'Cyrl', iqtelif: 'Latn' };

/**
 * By GNU convention a bare `pt` catalogue is the Portuguese of Portugal (Brazil's is `pt_BR`), while
 * CLDR's bare `pt` is Brazil's; iso-codes' `pt` confirms it (Iran is "Irão", in `pt_BR` "Irã").
 */
const gettextConventions: Readonly<Record<string, string>> = { pt: 'pt_PT' };

export interface LocaleMatcher {
  /** The CLDR locale among `cldrLocales` that a gettext locale stands for, if any. */
  cldrLocaleOf(gettextLocale: string): string | undefined;
}

interface Subtags {
  readonly language: string;
  readonly script?: string | undefined;
  readonly region?: string | undefined;
}

function parseTag(tag: string): Subtags {
  const [language = '', ...rest] = tag.split('-');
  return {
    language,
    script: rest.find((part) => /^[A-Z][a-z]{3}$/.test(part)),
    region: rest.find((part) => /^([A-Z]{2}|\d{3})$/.test(part)),
  };
}

export async function loadLocaleMatcher(cldrLocales: Iterable<string>): Promise<LocaleMatcher> {
  const { likelySubtags } = (await readPackageJson('cldr-core', 'supplemental/likelySubtags.json', likelySubtagsSchema)).supplemental;
  const { languageAlias } = (await readPackageJson('cldr-core', 'supplemental/aliases.json', aliasesSchema)).supplemental.metadata.alias;

  /** UTS #35 Add Likely Subtags: the first of language-Script-REGION, language-REGION, language-Script, language, und-Script CLDR knows fills what the tag lacks. */
  const maximise = (tag: string): string | undefined => {
    const { language, script, region } = parseTag(tag);
    const lookups = [
      script && region ? `${language}-${script}-${region}` : undefined,
      region ? `${language}-${region}` : undefined,
      script ? `${language}-${script}` : undefined,
      language,
      script ? `und-${script}` : undefined,
    ];
    const likely = lookups.flatMap((key) => (key === undefined ? [] : [likelySubtags[key]])).find((found) => found !== undefined);
    if (likely === undefined) return undefined;
    const filled = parseTag(likely);
    return [language === 'und' ? filled.language : language, script ?? filled.script, region ?? filled.region].join('-');
  };

  const byMeaning = new Map<string, string>();
  for (const locale of [...cldrLocales].sort((a, b) => a.length - b.length || compareCodePoints(a, b))) {
    const meaning = maximise(locale);
    if (meaning !== undefined && !byMeaning.has(meaning)) byMeaning.set(meaning, locale);
  }

  return {
    cldrLocaleOf(gettextLocale) {
      const [base = '', modifier] = (gettextConventions[gettextLocale] ?? gettextLocale).split('@');
      const [language = '', region] = base.split('_');
      const script = modifier === undefined ? undefined : scriptModifiers[modifier];
      if (modifier !== undefined && script === undefined) return undefined;
      const alias = languageAlias[language]?._replacement ?? language;
      // An alias may carry a script of its own (`sh` → `sr-Latn`); the catalogue's wins.
      const aliased = parseTag(alias);
      const tag = [aliased.language, script ?? aliased.script, region ?? aliased.region].filter((part) => part !== undefined).join('-');
      const meaning = maximise(tag);
      return meaning === undefined ? undefined : byMeaning.get(meaning);
    },
  };
}

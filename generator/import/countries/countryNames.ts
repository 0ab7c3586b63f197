/**
 * Country names in other languages, from Unicode CLDR (cldr-localenames-full, Unicode License v3):
 * `main/<locale>/territories.json` of every locale that names every country we import. They find a
 * country by name (`Almanya`, `Allemagne`, `ドイツ` → Germany) and are never shown.
 *
 * cldr-json resolves each locale against its parents, but not against root, so a locale that lacks
 * a name has no entry at all: that is how a locale without a full territory list is recognised.
 */
import { access, readdir } from 'node:fs/promises';
import { z } from 'zod';
import { normaliseKey } from '../../../contract/keys.ts';
import type { Country } from '../../records/schemas.ts';
import { compareCodePoints } from '../shared/ordering.ts';
import { packageFilePath, readPackageJson } from '../shared/packages.ts';

const territoriesSchema = z.object({
  main: z.record(z.string(), z.object({ localeDisplayNames: z.object({ territories: z.record(z.string(), z.string()) }) })),
});

/** CLDR's other forms of a territory's name: `GB-alt-short` "UK", `CI-alt-variant` "Ivory Coast". */
const alternativeForms = ['', '-alt-short', '-alt-variant'];

/** A name and the CLDR locales that call the country so: the more, the stronger its claim to the name. */
export interface LocalizedName {
  readonly name: string;
  readonly locales: string[];
}

export interface LocalizedCountryNames {
  /** Names by alpha-2 code, one spelling per folded key (the first locale's), in key order. */
  readonly byCountry: ReadonlyMap<string, readonly LocalizedName[]>;
  /** The locales whose names were taken. */
  readonly locales: readonly string[];
  /** Names a lookup key cannot hold (too long once written as a key), left out. */
  readonly unkeyable: readonly string[];
}

/**
 * Each country's names in every locale with a full territory list, without the names that fold like
 * one it already has (`known`: its own name and alternative names), which find it anyway.
 */
export async function loadLocalizedCountryNames(known: ReadonlyMap<string, readonly string[]>): Promise<LocalizedCountryNames> {
  const locales: string[] = [];
  const found = new Map<string, Map<string, LocalizedName>>([...known.keys()].map((code) => [code, new Map()]));
  const unkeyable = new Set<string>();
  const candidates = (await readdir(packageFilePath('cldr-localenames-full', 'main'))).sort();
  for (const locale of candidates) {
    const file = `main/${locale}/territories.json`;
    if (
      !(await access(packageFilePath('cldr-localenames-full', file)).then(
        () => true,
        () => false,
      ))
    )
      continue;
    const territories = (await readPackageJson('cldr-localenames-full', file, territoriesSchema)).main[locale]?.localeDisplayNames.territories ?? {};
    if (![...known.keys()].every((code) => code in territories)) continue;
    locales.push(locale);
    for (const [code, names] of found) {
      for (const form of alternativeForms) {
        const name = territories[`${code}${form}`]?.trim();
        if (!name) continue;
        const result = normaliseKey('name', name);
        if (!result.ok) {
          unkeyable.add(`${locale} ${code}: ${name}`);
          continue;
        }
        const named = names.get(result.key) ?? { name, locales: [] };
        if (!named.locales.includes(locale)) named.locales.push(locale);
        names.set(result.key, named);
      }
    }
  }
  const byCountry = new Map<string, LocalizedName[]>();
  for (const [code, names] of found) {
    const knownKeys = new Set(
      (known.get(code) ?? []).flatMap((name) => {
        const result = normaliseKey('name', name);
        return result.ok ? [result.key] : [];
      }),
    );
    const localized = [...names].filter(([key]) => !knownKeys.has(key)).sort(([a], [b]) => compareCodePoints(a, b));
    byCountry.set(
      code,
      localized.map(([, named]) => named),
    );
  }
  return { byCountry, locales, unkeyable: [...unkeyable] };
}

/** The countries with their CLDR names as `localizedNames` (a field only where there are any). */
export async function withLocalizedNames(countries: readonly Country[]): Promise<{ countries: Country[]; names: LocalizedCountryNames }> {
  const names = await loadLocalizedCountryNames(new Map(countries.map((country) => [country.alpha2Code, [country.name, ...(country.altNames ?? [])]])));
  return {
    names,
    countries: countries.map((country) => {
      const localizedNames = names.byCountry.get(country.alpha2Code) ?? [];
      return localizedNames.length > 0 ? { ...country, localizedNames: localizedNames.map(({ name, locales }) => ({ name, locales })) } : country;
    }),
  };
}

/**
 * Web domains (webDomain.json) and country top-level web domains (countryTopLevelWebDomain.json):
 * every IANA top-level domain (tlds, MIT), the ICANN second-level public suffixes of the Public
 * Suffix List (as bundled in psl; the list is MPL-2.0), and each country's ccTLDs from
 * world-countries (ODbL-1.0), less the generic TLDs listed in data/curated/country-top-level-domains.json.
 */
import { domainToASCII, pathToFileURL } from 'node:url';
import { z } from 'zod';
import { countryTopLevelWebDomainSchema, webDomainSchema } from '../../records/schemas.ts';
import { compareCodePoints } from '../shared/ordering.ts';
import { byCountryName, reuseLinkIds } from './countryLinks.ts';
import { readCuratedFile, sourceUrl } from '../shared/curatedFile.ts';
import type { DatasetImporter } from '../importer.ts';
import { reuseIds } from '../shared/ids.ts';
import { ImportError } from '../shared/importError.ts';
import { packageFilePath, readPackageJson } from '../shared/packages.ts';

type WebDomain = z.infer<typeof webDomainSchema>;

const curatedExclusionsSchema = z.strictObject({
  note: z.string().min(1),
  excluded: z.array(z.strictObject({ alpha2Code: z.string().regex(/^[A-Z]{2}$/), domain: z.string().min(1), why: z.string().min(1), source: sourceUrl })),
});
const worldCountryDomainsSchema = z.array(z.object({ cca2: z.string(), tld: z.array(z.string()) }));

/**
 * A domain as our records write it: ASCII (an internationalised label in its punycode form,
 * "рф" → "xn--p1ai", as node:url's WHATWG domainToASCII computes it), lower case, no dots at
 * either end. world-countries writes eight Arabic-script TLDs with the dot after the name
 * ("امارات."), a right-to-left typing artefact, so a dot is dropped at either end.
 */
export function toAsciiDomain(domain: string): string | undefined {
  const ascii = domainToASCII(domain.replace(/^\.|\.$/g, ''));
  return webDomainSchema.shape.name.safeParse(ascii).success ? ascii : undefined;
}

function toAsciiOrFail(source: string, domain: string): string {
  const ascii = toAsciiDomain(domain);
  if (ascii === undefined) throw new ImportError([`${source}: "${domain}" is not a valid domain name`]);
  return ascii;
}

/** IANA's list of top-level domains, as the tlds package carries it (Unicode for the IDN ones). */
async function loadTopLevelDomains(): Promise<Set<string>> {
  const tlds = await readPackageJson('tlds', 'index.json', z.array(z.string().min(1)).min(1));
  return new Set(tlds.map((tld) => toAsciiOrFail('tlds', tld)));
}

/**
 * The two-label rules of the Public Suffix List's ICANN section ("com.tr", "co.uk").
 *
 * psl bundles the list as a flat array of rules (data/rules.js) in the list's order, without its
 * "===BEGIN/END ICANN DOMAINS===" markers. The ICANN section comes first and ends with the block
 * of new generic TLDs, each a single label; the PRIVATE section that follows holds only names
 * under someone's registered domain, never a bare TLD. So the ICANN section ends at the last
 * single-label rule. Wildcard ("*.bd") and exception ("!www.ck") rules are not names and are
 * skipped, as are rules whose TLD is not in IANA's list.
 */
async function loadSecondLevelSuffixes(topLevelDomains: ReadonlySet<string>): Promise<Set<string>> {
  // The package's exports map hides data/, so the file is imported by its path.
  const module: unknown = await import(pathToFileURL(packageFilePath('psl', 'data/rules.js')).href);
  const parsed = z.object({ default: z.array(z.string().min(1)).min(1) }).safeParse(module);
  if (!parsed.success) throw new ImportError([`psl/data/rules.js no longer has the shape the importer expects:\n${z.prettifyError(parsed.error)}`]);
  const rules = parsed.data.default;

  const isSingleLabel = (rule: string) => !rule.includes('.') && !rule.startsWith('!') && !rule.startsWith('*');
  let icannEnd = rules.length;
  while (icannEnd > 0 && !isSingleLabel(rules[icannEnd - 1] ?? '')) icannEnd -= 1;
  const icannTopLevel = rules.slice(0, icannEnd).filter(isSingleLabel).length;
  // The ICANN section names every TLD; far fewer means the list's layout changed.
  if (icannTopLevel < topLevelDomains.size * 0.9) {
    throw new ImportError([`psl/data/rules.js: only ${icannTopLevel} single-label rules before the PRIVATE section; has the list's layout changed?`]);
  }
  const suffixes = new Set<string>();
  for (const rule of rules.slice(0, icannEnd)) {
    if (rule.startsWith('*') || rule.startsWith('!') || rule.split('.').length !== 2) continue;
    const ascii = toAsciiOrFail('psl', rule);
    if (topLevelDomains.has(ascii.split('.')[1] ?? '')) suffixes.add(ascii);
  }
  return suffixes;
}

export const importer: DatasetImporter = async ({ dataDir, countries, previous }) => {
  const topLevelDomains = await loadTopLevelDomains();
  const secondLevelSuffixes = await loadSecondLevelSuffixes(topLevelDomains);
  const idFor = reuseIds('webDomain', await previous('webDomain', webDomainSchema), (webDomain) => webDomain.name);
  const webDomains: WebDomain[] = [
    ...[...topLevelDomains].map((name) => ({ name, isTopLevel: true })),
    ...[...secondLevelSuffixes].map((name) => ({ name, isTopLevel: false })),
  ]
    // Plain code-point order: every name is ASCII, where UTF-16 order is code-point order.
    .sort((a, b) => compareCodePoints(a.name, b.name))
    .map(({ name, isTopLevel }) => ({ id: idFor(name), name, isTopLevel }));

  const { excluded } = await readCuratedFile(dataDir, 'country-top-level-domains.json', curatedExclusionsSchema);
  const excludedKeys = new Set(excluded.map(({ alpha2Code, domain }) => `${alpha2Code} ${toAsciiOrFail('country-top-level-domains.json', domain)}`));
  const worldCountries = await readPackageJson('world-countries', 'countries.json', worldCountryDomainsSchema);
  const domainsByCountry = new Map(worldCountries.map(({ cca2, tld }) => [cca2, tld.map((domain) => toAsciiOrFail(`world-countries ${cca2}`, domain))]));
  const stale = [...excludedKeys].filter((key) => {
    const [alpha2Code = '', domain = ''] = key.split(' ');
    return !(domainsByCountry.get(alpha2Code) ?? []).includes(domain);
  });
  if (stale.length > 0) throw new ImportError(stale.map((key) => `country-top-level-domains.json: world-countries no longer lists ${key}; remove the entry`));

  const idByTopLevelName = new Map(webDomains.filter((webDomain) => webDomain.isTopLevel).map((webDomain) => [webDomain.name, webDomain.id]));
  const nameById = new Map(webDomains.map((webDomain) => [webDomain.id, webDomain.name]));
  const linkIdFor = reuseLinkIds('countryTopLevelWebDomain', await previous('countryTopLevelWebDomain', countryTopLevelWebDomainSchema), countries, (link) =>
    nameById.get(link.webDomainId),
  );
  const links = byCountryName(countries).flatMap((country) =>
    [...new Set(domainsByCountry.get(country.alpha2Code) ?? [])]
      .filter((domain) => !excludedKeys.has(`${country.alpha2Code} ${domain}`))
      .sort()
      .flatMap((domain) => {
        const webDomainId = idByTopLevelName.get(domain);
        return webDomainId === undefined ? [] : [{ id: linkIdFor(country.alpha3Code, domain), countryId: country.id, webDomainId }];
      }),
  );
  return [
    { recordType: 'webDomain', records: webDomains, schema: webDomainSchema },
    { recordType: 'countryTopLevelWebDomain', records: links, schema: countryTopLevelWebDomainSchema },
  ];
};

/**
 * Banks (bank.json): Türkiye's banks operating today with their bank (EFT) codes, from the
 * hand-curated data/curated/banks.json, where every bank cites the published lists it was read from.
 */
import { z } from 'zod';
import { bankSchema } from '../../records/schemas.ts';
import { readCuratedFile, sourceUrl } from '../shared/curatedFile.ts';
import type { DatasetImporter } from '../importer.ts';
import { reuseIds } from '../shared/ids.ts';
import { ImportError } from '../shared/importError.ts';

const sourceId = z.string().min(1);

const curatedBanksSchema = z.object({
  description: z.string().min(1),
  sources: z.array(z.object({ id: sourceId, title: z.string().min(1), url: sourceUrl })).min(1),
  banks: z
    .array(
      z.object({
        /** The four-digit code of the TCMB payment-systems list: "0010". */
        code: z.string().regex(/^\d{4}$/, 'must be the four-digit code of the TCMB list, such as 0010'),
        name: z.string().trim().min(1),
        type: z.enum(['deposit', 'participation', 'development-investment']),
        sources: z.array(sourceId).min(1, 'must cite at least one source'),
      }),
    )
    .min(1),
  excluded: z.array(z.object({ name: z.string().min(1), reason: z.string().min(1) })).optional(),
});

/** The country every curated bank belongs to. */
const bankCountryAlpha2 = 'TR';

/**
 * The API's bank code is three digits, zero-padded: the TCMB list's "0010" is "010". Every code
 * must be below 1000, so dropping the leading zero loses nothing.
 */
export function toApiBankCode(tcmbCode: string): string | undefined {
  const value = Number(tcmbCode);
  return Number.isInteger(value) && value >= 0 && value < 1000 ? String(value).padStart(3, '0') : undefined;
}

export const importer: DatasetImporter = async ({ dataDir, countries, previous }) => {
  const curated = await readCuratedFile(dataDir, 'banks.json', curatedBanksSchema);
  const country = countries.find((candidate) => candidate.alpha2Code === bankCountryAlpha2);
  if (country === undefined) throw new ImportError([`banks.json: no imported country ${bankCountryAlpha2}`]);

  const sourceIds = new Set(curated.sources.map((source) => source.id));
  const problems: string[] = [];
  if (sourceIds.size !== curated.sources.length) problems.push('banks.json: two sources share an id');
  const seenCodes = new Set<string>();
  const banks = curated.banks.flatMap((bank) => {
    const code = toApiBankCode(bank.code);
    for (const cited of bank.sources) if (!sourceIds.has(cited)) problems.push(`banks.json: ${bank.code} ${bank.name} cites unknown source "${cited}"`);
    if (code === undefined) {
      problems.push(`banks.json: ${bank.code} ${bank.name} does not fit a three-digit code`);
      return [];
    }
    if (seenCodes.has(code)) problems.push(`banks.json: code ${bank.code} appears twice`);
    seenCodes.add(code);
    return [{ code, name: bank.name }];
  });
  if (problems.length > 0) throw new ImportError(problems);

  const idFor = reuseIds('bank', await previous('bank', bankSchema), (bank) => bank.code);
  const records = banks.sort((a, b) => a.code.localeCompare(b.code)).map(({ code, name }) => ({ id: idFor(code), name, code, countryId: country.id }));
  return [{ recordType: 'bank', records, schema: bankSchema }];
};

/**
 * Currency records: ISO 4217 "list one" (current currencies and funds) with its English names, from
 * currency-codes, narrowed by CLDR to what is still in use, plus curated currencies ISO added after
 * the package's data was taken.
 */
import { data as iso4217, publishDate } from 'currency-codes';
import type { Currency } from '../../records/schemas.ts';
import type { IdFor } from '../shared/ids.ts';
import { ImportError } from '../shared/importError.ts';
import { englishCollator } from '../shared/ordering.ts';

/** ISO 4217 codes that are not money and would only confuse a currency picker. */
const notCurrencies = new Map([
  ['XTS', 'reserved for testing'],
  ['XXX', 'transactions where no currency is involved'],
]);

export interface CurrencyImport {
  readonly currencies: Currency[];
  /** ISO list-one codes CLDR shows as no longer in use anywhere, for the log. */
  readonly withdrawn: string[];
}

/**
 * A currency-codes entry is kept unless it is XTS/XXX or CLDR ends its use in every region (the
 * package's data is dated `publishDate` and lags withdrawals such as BGN when Bulgaria took the euro).
 * Funds codes, precious metals and units of account stay: they are current ISO 4217 entries.
 */
export function buildCurrencies(inUse: ReadonlySet<string>, curatedNames: ReadonlyMap<string, string>, idForCode: IdFor<string>): CurrencyImport {
  const withdrawn: string[] = [];
  const nameByCode = new Map<string, string>();
  for (const entry of iso4217) {
    if (notCurrencies.has(entry.code)) continue;
    if (!inUse.has(entry.code)) {
      withdrawn.push(entry.code);
      continue;
    }
    // ISO's own list has stray spaces ("Comorian Franc ").
    nameByCode.set(entry.code, entry.currency.trim());
  }
  const problems: string[] = [];
  for (const [code, name] of curatedNames) {
    if (nameByCode.has(code)) problems.push(`data/curated/currencies.json: ${code} is in currency-codes (${publishDate}) now; remove it`);
    else if (!inUse.has(code)) problems.push(`data/curated/currencies.json: CLDR does not show ${code} in use`);
    else nameByCode.set(code, name);
  }
  if (problems.length > 0) throw new ImportError(problems);

  const currencies = [...nameByCode]
    .map(([code, name]) => ({ id: idForCode(code), name, code }))
    .sort((a, b) => englishCollator.compare(a.name, b.name) || englishCollator.compare(a.code, b.code));
  return { currencies, withdrawn };
}

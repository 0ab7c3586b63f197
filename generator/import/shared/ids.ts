/**
 * Stable ids. A record's id is minted once (a random UUID v4) and then found again on every
 * re-import through the record's natural key (alpha-3 code, currency code, calling code, region
 * name). Ids are never derived from names: names change (Turkey became Türkiye) and the id must
 * not, because other record files and API clients hold on to it.
 */
import { randomUUID } from 'node:crypto';
import { ImportError } from './importError.ts';

export type IdFor<Key> = (naturalKey: Key) => string;

export function reuseIds<ExistingRecord extends { readonly id: string }, Key>(
  recordType: string,
  existing: readonly ExistingRecord[],
  naturalKeyOf: (record: ExistingRecord) => Key,
): IdFor<Key> {
  const idByKey = new Map<Key, string>();
  const problems: string[] = [];
  for (const record of existing) {
    const key = naturalKeyOf(record);
    if (idByKey.has(key)) problems.push(`${recordType}: two existing records share the natural key ${String(key)}`);
    idByKey.set(key, record.id);
  }
  if (new Set(idByKey.values()).size !== idByKey.size) problems.push(`${recordType}: an id is used by two existing records`);
  if (problems.length > 0) throw new ImportError(problems);

  return (naturalKey) => {
    let id = idByKey.get(naturalKey);
    if (id === undefined) {
      id = randomUUID();
      idByKey.set(naturalKey, id);
    }
    return id;
  };
}

/** What changed among a type's records between the previous build's data and this one's. */
import type { DataRecord } from '../records/schemas.ts';

/** A type's changed records in their versions: `before` as the previous build had them, `after` as they are. */
export interface Changed {
  readonly before: DataRecord[];
  readonly after: DataRecord[];
}

/**
 * The records of one type's changed files that differ: added, removed or changed, each in its
 * versions. Where the records common to both stand in another order (or a file was added or
 * removed), every record of those files counts as changed: lists hold records in data order.
 */
export function diffRecords(before: readonly DataRecord[], after: readonly DataRecord[], moved: boolean): Changed {
  if (moved) return { before: [...before], after: [...after] };
  const textBefore = new Map(before.map((record) => [record.id, JSON.stringify(record)]));
  const same = new Set<string>();
  for (const record of after) if (textBefore.get(record.id) === JSON.stringify(record)) same.add(record.id);
  const orderBefore = before.filter((record) => same.has(record.id)).map((record) => record.id);
  const orderAfter = after.filter((record) => same.has(record.id)).map((record) => record.id);
  if (orderBefore.some((id, index) => orderAfter[index] !== id)) return { before: [...before], after: [...after] };
  return { before: before.filter((record) => !same.has(record.id)), after: after.filter((record) => !same.has(record.id)) };
}

/** Whether the changed records of a type keep their ids and these fields: none added, removed or changed in them. */
export function sameSignatures({ before, after }: Changed, fields: readonly string[]): boolean {
  const signature = (record: DataRecord) => JSON.stringify(fields.map((field) => record[field]));
  const was = new Map(before.map((record) => [record.id, signature(record)]));
  if (before.length !== after.length) return false;
  return after.every((record) => was.get(record.id) === signature(record));
}

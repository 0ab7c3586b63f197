/**
 * The single lookups' bodies: each key a record can be found by (its own field, and its alias
 * fields' names), and the record the ambiguity rule (ambiguity.ts) chooses where a key names several.
 */
import { bodyPath, type Route } from '../../contract/routes.ts';
import type { DataRecord } from '../records/schemas.ts';
import { aliasesOf, Candidates, keyTuples, type KeyReach } from './ambiguity.ts';
import type { GroupFilter, Indexing } from './indexing.ts';

/** Each parameter's keys for a record, each with how it reaches the record. */
function keysPerParam(route: Route, record: DataRecord, { keys }: Pick<Indexing, 'keys'>): KeyReach[][] {
  return route.params.map((param) => {
    const own = { value: keys.fieldValue(route.record, record, param.field), tier: 0, weight: 1, field: param.field };
    const aliases = (param.aliasFields ?? []).flatMap((field, position) =>
      aliasesOf(record, field).map(({ value, weight }) => ({ value, tier: position + 1, weight, field })),
    );
    return [own, ...aliases].flatMap(({ value, tier, weight, field }) => {
      const key = keys.keyOf(route.record, record, param, value, field);
      return key === undefined ? [] : [{ key, tier, weight }];
    });
  });
}

/** A record's key tuples, joined. */
export function singleTuples(route: Route, record: DataRecord, indexing: Pick<Indexing, 'keys'>): string[] {
  return keyTuples(keysPerParam(route, record, indexing)).map(({ keys }) => keys.join('/'));
}

export function indexSingle(route: Route, records: readonly DataRecord[], indexing: Indexing, only?: GroupFilter): void {
  const [first, ...more] = route.params;
  // Ids are unique within a type (validate.ts): a key of a lookup by id alone names one record, so
  // no rule chooses, and the millions of keys of the world's addresses need no candidates gathered.
  if (first?.field === 'id' && more.length === 0 && (first.aliasFields ?? []).length === 0) {
    for (const record of records) {
      const key = indexing.keys.ownKey(route.record, record, first);
      if (key !== undefined && (only === undefined || only(key)))
        indexing.bodies.set(bodyPath(route, [key]), indexing.projection.project(route.record, record, route.omit));
    }
    return;
  }
  const candidates = new Candidates();
  for (const record of records) {
    for (const { keys, tier, weight } of keyTuples(keysPerParam(route, record, indexing))) {
      const tuple = keys.join('/');
      if (only === undefined || only(tuple)) candidates.add(tuple, { record, tier, weight });
    }
  }
  for (const [tuple, { chosen, others }] of candidates.choices()) {
    const file = bodyPath(route, tuple.split('/'));
    indexing.bodies.set(file, indexing.projection.project(route.record, chosen, route.omit));
    if (others.length > 0) indexing.ambiguous.push({ file, chosen: chosen.id, others: others.map((record) => record.id) });
  }
}

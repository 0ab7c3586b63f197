/**
 * A record's lookup keys: the value of a route parameter's field (its own, or one the lookup
 * derives), normalised as the proxy normalises a query (contract/keys.ts). A value that cannot be
 * looked up is a problem of the data, named with the record's place in data/records/.
 */
import { recordTypes, type RecordType, type RouteParam } from '../../contract/routes.ts';
import { recordDefinitions, type DerivedField, type RecordIndex } from '../records/recordTypes.ts';
import { keyOfValid, type DataRecord } from '../records/schemas.ts';
import type { Dataset } from '../validate.ts';

const byIdOf = new WeakMap<readonly DataRecord[], ReadonlyMap<unknown, DataRecord>>();
const none: readonly DataRecord[] = [];

/**
 * The records by id, made once for each list of records: a rebuild looks keys up in the data as it
 * is and as it was, which share the lists of every type that did not change (the world's districts).
 */
function byId(records: readonly DataRecord[] = none): ReadonlyMap<unknown, DataRecord> {
  let found = byIdOf.get(records);
  if (found === undefined) {
    found = new Map(records.map((record) => [record.id, record]));
    byIdOf.set(records, found);
  }
  return found;
}

/** The fields each type's lookups derive from other records (generator/records/recordTypes.ts), worked out once per dataset. */
function derivedFields(dataset: Dataset): ReadonlyMap<RecordType, Readonly<Record<string, DerivedField>>> {
  const records: RecordIndex = { of: (type) => dataset.records.get(type) ?? none, byId: (type) => byId(dataset.records.get(type)) };
  const derived = new Map<RecordType, Readonly<Record<string, DerivedField>>>();
  for (const type of recordTypes) {
    const derivations = recordDefinitions[type].derived;
    if (derivations !== undefined) derived.set(type, Object.fromEntries(Object.entries(derivations).map(([field, { of }]) => [field, of(records)])));
  }
  return derived;
}

export class RecordKeys {
  readonly #derived: ReturnType<typeof derivedFields>;

  /** `problems` collects each value that cannot be looked up, in the order met. */
  constructor(
    private readonly dataset: Dataset,
    readonly problems: string[],
  ) {
    this.#derived = derivedFields(dataset);
  }

  /** A field's value: the record's own, or derived from other records (a district's country). */
  fieldValue(type: RecordType, record: DataRecord, field: string): unknown {
    return field in record ? record[field] : this.#derived.get(type)?.[field]?.(record);
  }

  /** The record as validate.ts named it: file, position and id. */
  whereIs(type: RecordType, record: DataRecord): string {
    return this.dataset.where(record) ?? `${type} ${record.id}`;
  }

  /** `value`'s key for `param`, or undefined (and a problem) when it has none; `field` is the one the value came from. */
  keyOf(type: RecordType, record: DataRecord, param: RouteParam, value: unknown, field = param.field): string | undefined {
    const result = keyOfValid(param.kind, value);
    if (result.ok) return result.key;
    this.problems.push(`${this.whereIs(type, record)}: field ${field}: "${String(value)}" cannot be looked up, expected ${result.expected}`);
    return undefined;
  }

  /** The key of the record's own value of `param`'s field. */
  ownKey(type: RecordType, record: DataRecord, param: RouteParam): string | undefined {
    return this.keyOf(type, record, param, this.fieldValue(type, record, param.field));
  }
}

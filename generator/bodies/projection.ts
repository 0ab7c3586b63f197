/**
 * A record as the API shows it: its shown fields (records/schemas.ts) in schema order, the route's omitted
 * ones left out. Each record's JSON is made once per field set and reused by every body and export
 * line that holds it.
 */
import type { RecordType } from '../../contract/routes.ts';
import { shownFields } from '../records/recordTypes.ts';
import type { DataRecord } from '../records/schemas.ts';

/** One field's value replaced: a record's names in another language. */
export interface ReplacedField {
  readonly field: string;
  readonly value: unknown;
}

/** No field left out, or none revealed: one array, so that the field set is found by identity. */
const none: readonly string[] = Object.freeze([]);

/** A field set: the fields shown, and the record property its JSON is kept in. */
interface FieldSet {
  readonly fields: readonly string[];
  readonly slot: symbol;
}

export class Projection {
  /** Field sets by their omitted and revealed fields' arrays (routes pass the same arrays each time). */
  readonly #byArrays = new Map<RecordType, Map<readonly string[], Map<readonly string[], FieldSet>>>();
  /** Field sets by content, for arrays met for the first time. */
  readonly #byContent = new Map<string, FieldSet>();

  /**
   * The record's JSON with `omit` left out (and hidden fields in `reveal` shown), made once per
   * record and field set. It is kept on the record under a symbol of this projection (records are
   * never changed once validated): a build projects millions of records several times each, and a
   * property is found far sooner than an entry of a map of millions. Symbols are invisible to
   * JSON.stringify, `in` with a field's name and Object.keys.
   */
  project(type: RecordType, record: DataRecord, omit: readonly string[] = none, reveal: readonly string[] = none): string {
    const { fields, slot } = this.#fieldSet(type, omit, reveal);
    const kept = record as unknown as Record<symbol, string | undefined>;
    let json = kept[slot];
    if (json === undefined) {
      json = showFields(fields, record);
      kept[slot] = json;
    }
    return json;
  }

  /** The record's JSON with `omit` left out and, where given, one field's value replaced; not kept. */
  show(type: RecordType, record: DataRecord, omit: readonly string[] = none, replaced?: ReplacedField, reveal: readonly string[] = none): string {
    return showFields(this.#fieldSet(type, omit, reveal).fields, record, replaced);
  }

  #fieldSet(type: RecordType, omit: readonly string[], reveal: readonly string[]): FieldSet {
    let byOmit = this.#byArrays.get(type);
    if (byOmit === undefined) {
      byOmit = new Map();
      this.#byArrays.set(type, byOmit);
    }
    let byReveal = byOmit.get(omit);
    if (byReveal === undefined) {
      byReveal = new Map();
      byOmit.set(omit, byReveal);
    }
    let set = byReveal.get(reveal);
    if (set === undefined) {
      const content = `${type}:${omit.join(',')}:${reveal.join(',')}`;
      set = this.#byContent.get(content);
      if (set === undefined) {
        set = { fields: shownFields(type, omit, reveal), slot: Symbol(content) };
        this.#byContent.set(content, set);
      }
      byReveal.set(reveal, set);
    }
    return set;
  }
}

function showFields(fields: readonly string[], record: DataRecord, replaced?: ReplacedField): string {
  const shown: Record<string, unknown> = {};
  for (const field of fields) if (field in record) shown[field] = field === replaced?.field ? replaced.value : record[field];
  return JSON.stringify(shown);
}

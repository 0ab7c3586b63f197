/**
 * A record as the API shows it: its shown fields (schemas.ts) in schema order, the route's omitted
 * ones left out. Each record's JSON is made once per field set and reused by every body and export
 * line that holds it.
 */
import type { RecordType } from '../../contract/routes.ts';
import { shownFields, type DataRecord } from '../schemas.ts';

/** One field's value replaced: a record's names in another language. */
export interface ReplacedField {
  readonly field: string;
  readonly value: unknown;
}

export class Projection {
  readonly #made = new Map<string, Map<DataRecord, string>>();
  /** shownFields of each field set, worked out once: a build projects millions of records. */
  readonly #fields = new Map<string, readonly string[]>();

  /** The record's JSON with `omit` left out (and hidden fields in `reveal` shown), made once per record and field set. */
  project(type: RecordType, record: DataRecord, omit: readonly string[], reveal: readonly string[] = []): string {
    const setKey = `${type}:${omit.join(',')}:${reveal.join(',')}`;
    let made = this.#made.get(setKey);
    if (!made) {
      made = new Map();
      this.#made.set(setKey, made);
    }
    let json = made.get(record);
    if (json === undefined) {
      json = this.show(type, record, omit, undefined, reveal);
      made.set(record, json);
    }
    return json;
  }

  /** The record's JSON with `omit` left out and, where given, one field's value replaced; not kept. */
  show(type: RecordType, record: DataRecord, omit: readonly string[], replaced?: ReplacedField, reveal: readonly string[] = []): string {
    const setKey = `${type}:${omit.join(',')}:${reveal.join(',')}`;
    let fields = this.#fields.get(setKey);
    if (fields === undefined) {
      fields = shownFields(type, omit, reveal);
      this.#fields.set(setKey, fields);
    }
    const shown: Record<string, unknown> = {};
    for (const field of fields) if (field in record) shown[field] = field === replaced?.field ? replaced.value : record[field];
    return JSON.stringify(shown);
  }
}

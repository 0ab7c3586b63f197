/**
 * Validate: every record against its zod schema, ids unique per record type, the values of every
 * code lookup unique, and every reference pointing at an existing record. All problems are
 * collected so one run shows them all.
 */
import type { z } from 'zod';
import { recordTypes, routes, type RecordType, type Route, type RouteParam } from '../contract/routes.ts';
import { labelOf } from '../contract/recordTypes.ts';
import { BuildError } from './records/errors.ts';
import type { RecordFile } from './load.ts';
import { recordDefinitions } from './records/recordTypes.ts';
import { buildSettingsSchema, keyOfValid, type BuildSettings, type DataRecord } from './records/schemas.ts';

/** Every record of every type, in data order (files by path, records as written). */
export interface Dataset {
  readonly records: ReadonlyMap<RecordType, readonly DataRecord[]>;
  /**
   * Where a record was read, `data/records/country.json record #12 (id …)`, for later stages'
   * messages; undefined for a record of no file. Worked out when asked, which is only for a
   * problem: a string per record would cost the world's build hundreds of megabytes.
   */
  readonly where: (record: DataRecord) => string | undefined;
}

/** The dataset as validated from files: each file's records too. */
export interface ValidatedDataset extends Dataset {
  /** Each record file's valid records, in its order, by the file's path in the data directory (a rebuild compares files). */
  readonly byFile: ReadonlyMap<string, readonly DataRecord[]>;
}

/**
 * A type's valid records, with where each was read: the runs of records from one file, each with the
 * position of the run's first record and the places in the file of the run's records (millions of
 * records: no object per record).
 */
interface LocatedRecords {
  readonly records: DataRecord[];
  readonly runs: { readonly file: RecordFile; readonly start: number; readonly indexes: readonly number[] | 'all' }[];
  /** Positions (in `records`) of the records of files checked before (CheckedBefore.files). */
  readonly checkedBefore: { start: number; end: number }[];
}

/** The file and place of the record at `at` of `located`. */
function placeOf({ runs }: LocatedRecords, at: number): { file: RecordFile; index: number } {
  let low = 0;
  let high = runs.length - 1;
  while (low < high) {
    const middle = (low + high + 1) >> 1;
    if ((runs[middle] as LocatedRecords['runs'][number]).start <= at) low = middle;
    else high = middle - 1;
  }
  const run = runs[low] as LocatedRecords['runs'][number];
  const offset = at - run.start;
  return { file: run.file, index: run.indexes === 'all' ? offset : (run.indexes[offset] as number) };
}

/** For each record of `located`, 1 when it is of a file checked before (CheckedBefore.files), else 0; undefined when none is. */
function checkedMarks({ records, checkedBefore }: LocatedRecords): Uint8Array | undefined {
  if (checkedBefore.length === 0) return undefined;
  const marks = new Uint8Array(records.length);
  for (const { start, end } of checkedBefore) marks.fill(1, start, end);
  return marks;
}

/**
 * Single lookups by a code-kind value that docs/api.md documents as shared across countries by design,
 * answered by the first record in data order: a province abbreviation is a plate or ISO 3166-2 code
 * unique only within its country (`34` is İstanbul and Hérault), and the operation takes no country.
 * Within the country it must still be unique: the value is checked together with this field.
 */
const sharedCodeLookups: ReadonlyMap<string, RouteParam> = new Map([
  ['/addressmanagement/api/stateprovince/getbyabbreviation', { name: 'countryId', kind: 'uuid', field: 'countryId' }],
]);

/** Fields whose values must tell the records of one type apart, and the lookup that needs it. */
interface UniqueLookup {
  readonly params: readonly RouteParam[];
  readonly route?: Route;
  /** The field the values are unique within, for a lookup shared across it (sharedCodeLookups). */
  readonly within?: RouteParam;
}

/**
 * The lookups that must find exactly one record: single lookups by id, code, number or domain,
 * unique per value tuple when the lookup takes several. Name lookups are left out: several records
 * may share a name, and the bodies resolve that (bodies/ambiguity.ts) by the documented rule. Ids are unique for every
 * record type, with or without a getbyid.
 */
function uniqueLookups(type: RecordType): UniqueLookup[] {
  const lookups = new Map<string, UniqueLookup>([['id', { params: [{ name: 'id', kind: 'uuid', field: 'id' }] }]]);
  for (const route of routes) {
    if (route.record !== type || route.shape !== 'single' || route.document) continue;
    if (route.params.some((param) => param.kind === 'name')) continue;
    const within = sharedCodeLookups.get(route.path);
    const params = within ? [within, ...route.params] : route.params;
    const fields = params.map((param) => param.field).join(' + ');
    if (!lookups.has(fields)) lookups.set(fields, { params, route, ...(within ? { within } : {}) });
  }
  return [...lookups.values()];
}

function describeIssue(issue: z.core.$ZodIssue): string {
  const field = issue.path.length > 0 ? `field ${issue.path.join('.')}` : 'record';
  return `${field}: ${issue.message}`;
}

function recordName(file: RecordFile, index: number, record: unknown): string {
  const id = typeof record === 'object' && record !== null && 'id' in record ? ` (id ${String(record.id)})` : '';
  return `${file.displayPath} record #${index + 1}${id}`;
}

export function validateSettings(settings: unknown): BuildSettings {
  const result = buildSettingsSchema.safeParse(settings);
  if (!result.success) throw new BuildError(result.error.issues.map((issue) => `data/build.json ${describeIssue(issue)}`));
  return result.data;
}

/** What an earlier build of this generator checked of the data as it is now (rebuild.ts checkedBefore). */
export interface CheckedBefore {
  /**
   * Files (by path in the data directory) whose bytes passed their schemas: a record's schema check
   * depends only on its bytes and the code, so their records are taken as parsed (the schemas are
   * strict objects without transforms: what a valid record parses to is what it is).
   */
  readonly files?: ReadonlySet<string>;
  /**
   * Types whose records are all as they were: their values stayed unique, and their references to
   * other such types still find their records. References to a type that changed are checked again.
   */
  readonly types?: ReadonlySet<RecordType>;
}

/** Each file's records through their type's schema, where the previous build did not already pass its bytes. */
function checkSchemas(files: readonly RecordFile[], schemaChecked: ReadonlySet<string>, problems: string[]) {
  const located = new Map<RecordType, LocatedRecords>(recordTypes.map((type) => [type, { records: [], runs: [], checkedBefore: [] }]));
  const byFile = new Map<string, DataRecord[]>();
  for (const file of files) {
    const ofType = located.get(file.recordType) as LocatedRecords;
    const start = ofType.records.length;
    if (schemaChecked.has(file.relativePath)) {
      const valid = file.records as DataRecord[];
      for (const record of valid) ofType.records.push(record);
      ofType.runs.push({ file, start, indexes: 'all' });
      ofType.checkedBefore.push({ start, end: ofType.records.length });
      byFile.set(file.relativePath, valid);
      continue;
    }
    const { schema } = recordDefinitions[file.recordType];
    const valid: DataRecord[] = [];
    const indexes: number[] = [];
    file.records.forEach((raw, index) => {
      const result = schema.safeParse(raw);
      if (result.success) {
        ofType.records.push(result.data as DataRecord);
        indexes.push(index);
        valid.push(result.data as DataRecord);
      } else for (const issue of result.error.issues) problems.push(`${recordName(file, index, raw)}: ${describeIssue(issue)}`);
    });
    ofType.runs.push({ file, start, indexes: indexes.length === file.records.length ? 'all' : indexes });
    byFile.set(file.relativePath, valid);
  }
  return { located, byFile };
}

/** Where a type's record `at` is, as a problem names it: file, position and id. */
const whereIn =
  (ofType: LocatedRecords) =>
  (at: number): string => {
    const { file, index } = placeOf(ofType, at);
    return recordName(file, index, ofType.records[at]);
  };

/**
 * The values a lookup answers one record for are one record's each. Compared as the lookup compares
 * them (normalised keys), so `90` and `090` would collide. The records of files checked before were
 * told apart among themselves then (`checked` marks them): any two records sharing values now
 * include one of another file, so only the values of those are tracked.
 */
function checkUnique(type: RecordType, ofType: LocatedRecords, checked: Uint8Array | undefined, problems: string[]): void {
  const { records } = ofType;
  const whereOf = whereIn(ofType);
  for (const { params, route, within } of uniqueLookups(type)) {
    const seen = new Map<string, number>();
    const answers = !route
      ? ''
      : within
        ? ` (values of ${route.path} must differ within one ${within.field})`
        : ` (${route.path} answers one record per value)`;
    const tracked = checked ? new Set<string>() : undefined;
    if (tracked)
      for (let at = 0; at < records.length; at++) {
        if (checked?.[at] === 1) continue;
        const tuple = keyTuple(params, records[at] as DataRecord);
        if (tuple !== undefined) tracked.add(tuple);
      }
    for (let at = 0; at < records.length; at++) {
      const tuple = keyTuple(params, records[at] as DataRecord);
      if (tuple === undefined || (tracked !== undefined && !tracked.has(tuple))) continue;
      const first = seen.get(tuple);
      if (first !== undefined) {
        const fields = params.map((param) => param.field).join(' + ');
        const values = params.map((param) => String((records[at] as DataRecord)[param.field]));
        problems.push(`${whereOf(at)}: field ${fields}: ${values.join(' + ')} is already used by ${whereOf(first)}${answers}`);
      } else seen.set(tuple, at);
    }
  }
}

/** Each reference of a type's records finds its record; `skip` marks the records that found theirs when last checked. */
function checkReferences(type: RecordType, ofType: LocatedRecords, context: ReferenceCheck, problems: string[]): void {
  const { records } = ofType;
  const whereOf = whereIn(ofType);
  for (const reference of recordDefinitions[type].references) {
    if (context.typesChecked.has(type) && context.typesChecked.has(reference.to)) continue;
    const toField = reference.toField ?? 'id';
    const existing = context.targetValues(reference.to, toField);
    // A record of a file checked before found its reference then, among the same records.
    const skip = context.typesChecked.has(reference.to) ? context.checked : undefined;
    for (let at = 0; at < records.length; at++) {
      if (skip?.[at] === 1) continue;
      const value = (records[at] as DataRecord)[reference.field];
      if (value === null && reference.nullable) continue;
      if (!existing.has(value)) problems.push(`${whereOf(at)}: field ${reference.field}: no ${labelOf(reference.to)} has ${toField} ${String(value)}`);
    }
  }
}

interface ReferenceCheck {
  readonly typesChecked: ReadonlySet<RecordType>;
  readonly checked: Uint8Array | undefined;
  /** The values of a type's field, made once per type and field. */
  readonly targetValues: (type: RecordType, field: string) => ReadonlySet<unknown>;
}

export function validateData(files: readonly RecordFile[], before: CheckedBefore = {}): ValidatedDataset {
  const typesChecked = before.types ?? new Set<RecordType>();
  const problems: string[] = [];
  const { located, byFile } = checkSchemas(files, before.files ?? new Set<string>(), problems);
  const valuesByType = new Map<string, Set<unknown>>();
  const targetValues = (type: RecordType, field: string): Set<unknown> => {
    const cacheKey = `${type}.${field}`;
    let values = valuesByType.get(cacheKey);
    if (!values) {
      values = new Set(located.get(type)?.records.map((record) => record[field]));
      valuesByType.set(cacheKey, values);
    }
    return values;
  };
  for (const [type, ofType] of located) {
    const checked = checkedMarks(ofType);
    if (!typesChecked.has(type)) checkUnique(type, ofType, checked, problems);
    checkReferences(type, ofType, { typesChecked, checked, targetValues }, problems);
  }
  if (problems.length > 0) throw new BuildError(problems);
  return {
    records: new Map([...located].map(([type, { records }]) => [type, records])),
    where: lazyWhere(byFile, new Map(files.map((file) => [file.relativePath, file.displayPath]))),
    byFile,
  };
}

/**
 * A record's values of `params` as the lookup finds them (keys, joined as body paths join them);
 * undefined when a value is missing or no key at all (the bodies report that, as they cannot write its file).
 */
function keyTuple(params: readonly RouteParam[], record: DataRecord): string | undefined {
  let tuple = '';
  for (let position = 0; position < params.length; position++) {
    const param = params[position] as RouteParam;
    const value = record[param.field];
    if (value === undefined) return undefined;
    const result = keyOfValid(param.kind, value);
    if (!result.ok) return undefined;
    tuple = position === 0 ? result.key : `${tuple}/${result.key}`;
  }
  return tuple;
}

/**
 * `where` of a dataset: the records' places indexed the first time one is asked for, from the
 * records of each file (by its path) and the paths files are shown by.
 */
function lazyWhere(byFile: ReadonlyMap<string, readonly DataRecord[]>, shownPaths: ReadonlyMap<string, string>): Dataset['where'] {
  let places: Map<DataRecord, string> | undefined;
  return (record) => {
    if (places === undefined) {
      const found = new Map<DataRecord, string>();
      for (const [relativePath, records] of byFile) {
        const displayPath = shownPaths.get(relativePath) ?? relativePath;
        for (const [index, each] of records.entries()) found.set(each, `${displayPath} record #${index + 1} (id ${each.id})`);
      }
      places = found;
    }
    return places.get(record);
  };
}

/** A file's records read through their schema alone (an earlier build's file, valid when it was built); undefined when one is not. */
export function parseFileRecords(file: RecordFile): DataRecord[] | undefined {
  const { schema } = recordDefinitions[file.recordType];
  const records: DataRecord[] = [];
  for (const raw of file.records) {
    const result = schema.safeParse(raw);
    if (!result.success) return undefined;
    records.push(result.data as DataRecord);
  }
  return records;
}

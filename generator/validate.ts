/**
 * Validate: every record against its zod schema, ids unique per record type, the values of every
 * code lookup unique, and every reference pointing at an existing record. All problems are
 * collected so one run shows them all.
 */
import type { z } from 'zod';
import { recordLabels, recordTypes, routes, type RecordType, type Route, type RouteParam } from '../contract/routes.ts';
import { BuildError } from './errors.ts';
import type { RecordFile } from './load.ts';
import { buildSettingsSchema, keyOfValid, recordDefinitions, type BuildSettings, type DataRecord } from './schemas.ts';

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

/** A type's valid records, each with the file it was read from and its place there (parallel lists: millions of records). */
interface LocatedRecords {
  readonly records: DataRecord[];
  readonly files: RecordFile[];
  readonly indexes: number[];
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
 * may share a name, and index.ts resolves that by the documented rule. Ids are unique for every
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

export function validateData(files: readonly RecordFile[], before: CheckedBefore = {}): ValidatedDataset {
  const schemaChecked = before.files ?? new Set<string>();
  const typesChecked = before.types ?? new Set<RecordType>();
  const problems: string[] = [];
  const located = new Map<RecordType, LocatedRecords>(recordTypes.map((type) => [type, { records: [], files: [], indexes: [] }]));
  const byFile = new Map<string, DataRecord[]>();

  for (const file of files) {
    const { schema } = recordDefinitions[file.recordType];
    const ofType = located.get(file.recordType) as LocatedRecords;
    const valid: DataRecord[] = [];
    const checked = schemaChecked.has(file.relativePath);
    file.records.forEach((raw, index) => {
      const result = checked ? { success: true as const, data: raw } : schema.safeParse(raw);
      if (result.success) {
        ofType.records.push(result.data as DataRecord);
        ofType.files.push(file);
        ofType.indexes.push(index);
        valid.push(result.data as DataRecord);
      } else for (const issue of result.error.issues) problems.push(`${recordName(file, index, raw)}: ${describeIssue(issue)}`);
    });
    byFile.set(file.relativePath, valid);
  }

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
    const { records } = ofType;
    const whereOf = (at: number) => recordName(ofType.files[at] as RecordFile, ofType.indexes[at] as number, records[at]);
    // Compared as the lookup compares them (normalised keys), so `90` and `090` would collide. Code
    // lookups read the record's own fields; the derived fields of index.ts serve name and list lookups.
    for (const { params, route, within } of typesChecked.has(type) ? [] : uniqueLookups(type)) {
      const seen = new Map<string, number>();
      const answers = !route
        ? ''
        : within
          ? ` (values of ${route.path} must differ within one ${within.field})`
          : ` (${route.path} answers one record per value)`;
      for (let at = 0; at < records.length; at++) {
        const tuple = keyTuple(params, records[at] as DataRecord);
        if (tuple === undefined) continue;
        const first = seen.get(tuple);
        if (first !== undefined) {
          const fields = params.map((param) => param.field).join(' + ');
          const values = params.map((param) => String((records[at] as DataRecord)[param.field]));
          problems.push(`${whereOf(at)}: field ${fields}: ${values.join(' + ')} is already used by ${whereOf(first)}${answers}`);
        } else seen.set(tuple, at);
      }
    }
    for (const reference of recordDefinitions[type].references) {
      if (typesChecked.has(type) && typesChecked.has(reference.to)) continue;
      const toField = reference.toField ?? 'id';
      const existing = targetValues(reference.to, toField);
      for (let at = 0; at < records.length; at++) {
        const value = (records[at] as DataRecord)[reference.field];
        if (value === null && reference.nullable) continue;
        if (!existing.has(value)) {
          problems.push(`${whereOf(at)}: field ${reference.field}: no ${recordLabels[reference.to]} has ${toField} ${String(value)}`);
        }
      }
    }
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
 * undefined when a value is missing or no key at all (index.ts reports that, as it cannot write its file).
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

/**
 * Validate: every record against its zod schema, ids unique per record type, the values of every
 * code lookup unique, and every reference pointing at an existing record. All problems are
 * collected so one run shows them all.
 */
import type { z } from 'zod';
import { normaliseKey } from '../contract/keys.ts';
import { recordLabels, recordTypes, routes, type RecordType, type Route, type RouteParam } from '../contract/routes.ts';
import { BuildError } from './errors.ts';
import type { RecordFile } from './load.ts';
import { buildSettingsSchema, recordDefinitions, type BuildSettings, type DataRecord } from './schemas.ts';

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

interface Located {
  readonly record: DataRecord;
  readonly file: RecordFile;
  readonly index: number;
}

/** Where a located record was read, for a message. */
function whereOf({ record, file, index }: Located): string {
  return recordName(file, index, record);
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
  const located = new Map<RecordType, Located[]>(recordTypes.map((type) => [type, []]));
  const byFile = new Map<string, DataRecord[]>();

  for (const file of files) {
    const { schema } = recordDefinitions[file.recordType];
    const valid: DataRecord[] = [];
    if (schemaChecked.has(file.relativePath)) {
      const records = located.get(file.recordType);
      file.records.forEach((raw, index) => {
        records?.push({ record: raw as DataRecord, file, index });
        valid.push(raw as DataRecord);
      });
      byFile.set(file.relativePath, valid);
      continue;
    }
    file.records.forEach((raw, index) => {
      const result = schema.safeParse(raw);
      if (result.success) {
        located.get(file.recordType)?.push({ record: result.data as DataRecord, file, index });
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
      values = new Set(located.get(type)?.map(({ record }) => record[field]));
      valuesByType.set(cacheKey, values);
    }
    return values;
  };

  for (const [type, records] of located) {
    // Compared as the lookup compares them (normalised keys), so `90` and `090` would collide. Code
    // lookups read the record's own fields; the derived fields of index.ts serve name and list lookups.
    for (const { params, route, within } of typesChecked.has(type) ? [] : uniqueLookups(type)) {
      const seen = new Map<string, Located>();
      const answers = !route
        ? ''
        : within
          ? ` (values of ${route.path} must differ within one ${within.field})`
          : ` (${route.path} answers one record per value)`;
      for (const entry of records) {
        const { record } = entry;
        const values = params.map((param) => record[param.field]);
        if (values.some((value) => value === undefined)) continue;
        const keys = params.map((param, position) => normaliseKey(param.kind, String(values[position])));
        // A value that is no key at all is reported by index.ts, which cannot write its file.
        if (!keys.every((key) => key.ok)) continue;
        const tuple = keys.map((key) => key.key).join('/');
        const first = seen.get(tuple);
        if (first) {
          const fields = params.map((param) => param.field).join(' + ');
          problems.push(`${whereOf(entry)}: field ${fields}: ${values.map(String).join(' + ')} is already used by ${whereOf(first)}${answers}`);
        } else seen.set(tuple, entry);
      }
    }
    for (const reference of recordDefinitions[type].references) {
      if (typesChecked.has(type) && typesChecked.has(reference.to)) continue;
      const toField = reference.toField ?? 'id';
      const existing = targetValues(reference.to, toField);
      for (const entry of records) {
        const value = entry.record[reference.field];
        if (value === null && reference.nullable) continue;
        if (!existing.has(value)) {
          problems.push(`${whereOf(entry)}: field ${reference.field}: no ${recordLabels[reference.to]} has ${toField} ${String(value)}`);
        }
      }
    }
  }

  if (problems.length > 0) throw new BuildError(problems);
  return {
    records: new Map([...located].map(([type, records]) => [type, records.map(({ record }) => record)])),
    where: lazyWhere(byFile, new Map(files.map((file) => [file.relativePath, file.displayPath]))),
    byFile,
  };
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

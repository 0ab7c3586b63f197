/**
 * Validate: every record against its zod schema, ids unique per record type, and every reference
 * pointing at an existing record. All problems are collected so one run shows them all.
 */
import type { z } from 'zod';
import { recordLabels, recordTypes, type RecordType } from '../proxy/routes.ts';
import { BuildError } from './errors.ts';
import type { RecordFile } from './load.ts';
import { buildSettingsSchema, recordDefinitions, type BuildSettings, type DataRecord } from './schemas.ts';

/** Every record of every type, in data order (files by path, records as written). */
export type Dataset = ReadonlyMap<RecordType, readonly DataRecord[]>;

interface Located {
  readonly record: DataRecord;
  readonly where: string;
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

export function validateData(files: readonly RecordFile[]): Dataset {
  const problems: string[] = [];
  const located = new Map<RecordType, Located[]>(recordTypes.map((type) => [type, []]));

  for (const file of files) {
    const { schema } = recordDefinitions[file.recordType];
    file.records.forEach((raw, index) => {
      const where = recordName(file, index, raw);
      const result = schema.safeParse(raw);
      if (result.success) located.get(file.recordType)?.push({ record: result.data as DataRecord, where });
      else for (const issue of result.error.issues) problems.push(`${where}: ${describeIssue(issue)}`);
    });
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
    const seen = new Map<string, string>();
    for (const { record, where } of records) {
      const id = record.id.toLowerCase();
      const first = seen.get(id);
      if (first) problems.push(`${where}: field id: ${record.id} is already used by ${first}`);
      else seen.set(id, where);
    }
    for (const reference of recordDefinitions[type].references) {
      const toField = reference.toField ?? 'id';
      const existing = targetValues(reference.to, toField);
      for (const { record, where } of records) {
        const value = record[reference.field];
        if (!existing.has(value)) {
          problems.push(`${where}: field ${reference.field}: no ${recordLabels[reference.to]} has ${toField} ${String(value)}`);
        }
      }
    }
  }

  if (problems.length > 0) throw new BuildError(problems);
  return new Map([...located].map(([type, records]) => [type, records.map(({ record }) => record)]));
}

/**
 * data/records/<recordType>.json: a JSON array with one record per line, so that a re-import's
 * diff shows exactly the records that changed.
 */
import { readFile, rename, writeFile } from 'node:fs/promises';
import { z } from 'zod';
import { ImportError } from './importError.ts';

export function formatRecords(records: readonly object[]): string {
  return `[\n${records.map((record) => JSON.stringify(record)).join(',\n')}\n]\n`;
}

async function readTextIfPresent(file: string): Promise<string | undefined> {
  try {
    return await readFile(file, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw error;
  }
}

/**
 * The records written last time, for their ids. A file that exists but does not validate stops
 * the import: regenerating it would silently mint new ids for every record.
 */
export async function readRecords<Schema extends z.ZodType>(file: string, schema: Schema): Promise<z.infer<Schema>[]> {
  const text = await readTextIfPresent(file);
  if (text === undefined) return [];
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch (error) {
    throw new ImportError([`${file} is not valid JSON (${(error as Error).message}); fix or delete it before importing`]);
  }
  const parsed = z.array(schema).safeParse(json);
  if (!parsed.success) {
    throw new ImportError([`${file} holds invalid records; fix or delete it before importing:\n${z.prettifyError(parsed.error)}`]);
  }
  return parsed.data;
}

/** Fails on the first record that does not match its schema, naming the record. */
export function assertValid<Schema extends z.ZodType>(recordType: string, records: readonly unknown[], schema: Schema): void {
  const problems = records.flatMap((record, index) => {
    const parsed = schema.safeParse(record);
    return parsed.success ? [] : [`${recordType} #${index} ${JSON.stringify(record).slice(0, 120)}:\n${z.prettifyError(parsed.error)}`];
  });
  if (problems.length > 0) throw new ImportError(problems);
}

/**
 * Writes only when the bytes differ, through a temporary file and a rename, so readers never see a
 * half-written file. The temporary name does not end in .json, so the build's glob skips it.
 */
export async function writeRecords(file: string, records: readonly object[]): Promise<'written' | 'unchanged'> {
  const text = formatRecords(records);
  if ((await readTextIfPresent(file)) === text) return 'unchanged';
  const temporaryFile = `${file}.${process.pid}.tmp`;
  await writeFile(temporaryFile, text, 'utf8');
  await rename(temporaryFile, file);
  return 'written';
}

/** Shared by the data tests: the committed data/, validated reads of it, and copies to change. */
import { cp, mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { z } from 'zod';

export const dataDir = path.resolve(import.meta.dirname, '../../data');
export const recordsDir = path.join(dataDir, 'records');
export const uuidV4 = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;

export async function readRecordFile(directory: string, recordType: string): Promise<string> {
  return readFile(path.join(directory, 'records', `${recordType}.json`), 'utf8');
}

/** A record file of data/, every record checked against its schema. */
export async function readValidated<Schema extends z.ZodType>(recordType: string, schema: Schema): Promise<z.infer<Schema>[]> {
  return z.array(schema).parse(JSON.parse(await readRecordFile(dataDir, recordType)));
}

const copies: string[] = [];

/** A copy of data/ (records, curated facts, SOURCES.md) that a test may change and re-import. */
export async function copyData(): Promise<string> {
  const parent = await mkdtemp(path.join(tmpdir(), 'data-copy-'));
  copies.push(parent);
  const copy = path.join(parent, 'data');
  await cp(dataDir, copy, { recursive: true });
  return copy;
}

/** For afterAll: removes every copy made. */
export async function removeCopies(): Promise<void> {
  await Promise.all(copies.splice(0).map((parent) => rm(parent, { recursive: true, force: true })));
}

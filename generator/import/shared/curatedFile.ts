/**
 * Reading one hand-curated file of data/curated/ for a dataset importer: parsed, checked against
 * its zod schema, and refused with the file's name when it does not match.
 */
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { z } from 'zod';
import { ImportError } from './importError.ts';

/** A curated fact must name the public page it was taken from. */
export const sourceUrl = z.string().regex(/^https?:\/\/\S+$/, 'must cite a public source by URL');

export async function readCuratedFile<Schema extends z.ZodType>(dataDir: string, fileName: string, schema: Schema): Promise<z.infer<Schema>> {
  const file = path.join(dataDir, 'curated', fileName);
  let json: unknown;
  try {
    json = JSON.parse(await readFile(file, 'utf8'));
  } catch (error) {
    throw new ImportError([`${file} could not be read as JSON: ${(error as Error).message}`]);
  }
  const parsed = schema.safeParse(json);
  if (!parsed.success) throw new ImportError([`${file}:\n${z.prettifyError(parsed.error)}`]);
  return parsed.data;
}

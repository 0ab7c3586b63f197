/**
 * Load: find the data files with fast-glob and parse them. Nothing is validated here beyond
 * "is JSON and is an array"; validate.ts judges the records.
 */
import { createHash } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import fg from 'fast-glob';
import { recordTypes, type RecordType } from '../proxy/routes.ts';
import { BuildError } from './errors.ts';

/** Records live in `records/<recordType>.json` or, when large, `records/<recordType>/**\/*.json`. */
const recordGlob = 'records/**/*.json';
const settingsFile = 'build.json';

export interface RecordFile {
  /** Path as shown in messages, relative to the working directory. */
  readonly displayPath: string;
  readonly recordType: RecordType;
  readonly records: readonly unknown[];
}

export interface LoadedData {
  readonly files: readonly RecordFile[];
  readonly settings: unknown;
  /** sha256 over every input's path and bytes, so equal data gives an equal version. */
  readonly dataVersion: string;
}

function isRecordType(name: string): name is RecordType {
  return (recordTypes as readonly string[]).includes(name);
}

function parseJson(displayPath: string, text: string): unknown {
  try {
    return JSON.parse(text);
  } catch (error) {
    throw new BuildError([`${displayPath}: not valid JSON (${(error as Error).message})`]);
  }
}

export async function loadData(dataDir: string): Promise<LoadedData> {
  const relativePaths = (await fg(recordGlob, { cwd: dataDir, onlyFiles: true })).sort();
  const hash = createHash('sha256');
  const files: RecordFile[] = [];
  const problems: string[] = [];
  for (const relativePath of relativePaths) {
    const displayPath = path.relative(process.cwd(), path.join(dataDir, relativePath)) || relativePath;
    const typeName = relativePath.split('/')[1]?.replace(/\.json$/, '') ?? '';
    if (!isRecordType(typeName)) {
      problems.push(`${displayPath}: "${typeName}" is not a record type (expected one of ${recordTypes.join(', ')})`);
      continue;
    }
    const text = await readFile(path.join(dataDir, relativePath), 'utf8');
    hash.update(relativePath).update('\0').update(text).update('\0');
    const records = parseJson(displayPath, text);
    if (!Array.isArray(records)) {
      problems.push(`${displayPath}: expected a JSON array of ${typeName} records`);
      continue;
    }
    files.push({ displayPath, recordType: typeName, records });
  }
  if (problems.length > 0) throw new BuildError(problems);

  const settingsPath = path.join(dataDir, settingsFile);
  const settingsText = await readFile(settingsPath, 'utf8').catch(() => {
    throw new BuildError([`${settingsPath}: missing (it holds the build settings, e.g. the holiday year window)`]);
  });
  hash.update(settingsFile).update('\0').update(settingsText);
  return { files, settings: parseJson(settingsPath, settingsText), dataVersion: hash.digest('hex').slice(0, 16) };
}

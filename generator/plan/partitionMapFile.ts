/**
 * The partition map's file (plan/partitionMap.ts says what it holds): its shape, and its reading
 * and writing, apart from the code that makes it so that writing a build loads none of that.
 */
import { readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';

export const partitionMapFileName = 'build-partitions.json';

/** One partitioned type's record file as the build that saved the map found it. */
export interface FilePartition {
  readonly sha256: string;
  /** Its records as the build served them, in file order. */
  readonly records: number;
  /** The countries (ids) its records are in. */
  readonly countries: readonly string[];
  /** By route path, for each route whose groups may span countries: the groups of that part its records fall in. */
  readonly spanning: Readonly<Record<string, readonly string[]>>;
}

export interface PartitionMap {
  /** By the file's path in the data directory. */
  readonly files: Readonly<Record<string, FilePartition>>;
  /** By partitioned type, the record the OpenAPI document's examples of it came from, and its file. */
  readonly examples?: Readonly<Record<string, { readonly id: string; readonly file: string }>>;
}

const isObject = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value);
const isStrings = (value: unknown): boolean => Array.isArray(value) && value.every((each) => typeof each === 'string');

/** Whether `value` is a map of this shape (checked by hand: a schema library takes a third of a second over the world's million groups). */
function isPartitionMap(value: unknown): value is PartitionMap {
  if (!isObject(value) || !isObject(value.files)) return false;
  const { examples } = value;
  if (
    examples !== undefined &&
    !(isObject(examples) && Object.values(examples).every((each) => isObject(each) && typeof each.id === 'string' && typeof each.file === 'string'))
  )
    return false;
  return Object.values(value.files).every(
    (entry) =>
      isObject(entry) &&
      typeof entry.sha256 === 'string' &&
      Number.isInteger(entry.records) &&
      isStrings(entry.countries) &&
      isObject(entry.spanning) &&
      Object.values(entry.spanning).every(isStrings),
  );
}

/** The map a build saved, or undefined when it has none that parses (a rebuild then reads every record). */
export async function readPartitionMap(buildDir: string | undefined): Promise<PartitionMap | undefined> {
  if (buildDir === undefined) return undefined;
  const text = await readFile(path.join(buildDir, partitionMapFileName), 'utf8').catch(() => undefined);
  if (text === undefined) return undefined;
  try {
    const parsed: unknown = JSON.parse(text);
    return isPartitionMap(parsed) ? parsed : undefined;
  } catch {
    return undefined;
  }
}

export async function writePartitionMap(buildDir: string, map: PartitionMap): Promise<void> {
  await writeFile(path.join(buildDir, partitionMapFileName), JSON.stringify(map));
}

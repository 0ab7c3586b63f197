/**
 * The exports: per record type, every record as the API shows it (shownFields), one JSON object a
 * line in data order, gzipped; and their index (contract/downloads.ts), which states each type's
 * licence and attribution where its sources ask for them. The same data gives the same bytes: a
 * fixed compression level and no time or name in the gzip headers, so an unchanged type keeps its
 * SHA-256 and ETag from build to build, and a mirror downloads only what changed.
 *
 * Each file is a run of gzip members, one per chunk of about a megabyte of lines (chunks.ts):
 * a rebuild compresses only the chunks whose text the previous build's file does not hold. A type
 * whose NDJSON is the previous build's comes out as the previous file, which write.ts hard-links.
 */
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { exportFile, exportsIndexFile, exportsIndexSchema, recordAreaOf, type ExportsIndex } from '../../contract/downloads.ts';
import { jsonType } from '../../contract/http.ts';
import { recordTypes, type RecordType } from '../../contract/routes.ts';
import { recordTypeFacts } from '../../contract/recordTypes.ts';
import type { IndexedBodies } from '../bodies.ts';
import { chunkWriter, defaultChunkSize, fileEnds, keepType, readEarlierFile, writeType, type ExportedType } from './chunks.ts';
import { patchType } from './patch.ts';
import { writeFromFiles, type ExportedFile } from './unread.ts';
import { typeNameOf } from '../load.ts';
import type { DataRecord } from '../records/schemas.ts';
import { compareCodePoints } from '../records/ordering.ts';
import type { DataSources } from '../records/sources.ts';
import type { Dataset } from '../validate.ts';
import type { DownloadFile } from '../write.ts';

export type { ExportedType };

export interface BuiltExports {
  /** The files by their path in the build: the index and one gzip file per record type. */
  readonly files: ReadonlyMap<string, DownloadFile>;
  readonly index: ExportsIndex;
  /** Each type's chunks, and its lines when asked for: what the change lists compare. */
  readonly lines: ReadonlyMap<RecordType, ExportedType>;
}

/** A type's file could not be made from the previous build's for the files a rebuild did not read: it must read them. */
export class UnreadNotCopied extends Error {
  constructor(readonly type: RecordType) {
    super(`the previous build's export of ${type} does not hold the lines of the files this build did not read as whole members`);
  }
}

/** Who the index describes: the build being written. */
export interface ExportedBuild {
  readonly buildId: string;
  readonly builtAt: string;
  readonly dataVersion: string;
  readonly sources: DataSources;
}

/** A build whose exports another starts from: its directory and its exports index. */
export interface ExportsOf {
  readonly dir: string;
  readonly index: ExportsIndex;
}

export interface ExportOptions {
  /**
   * What a rebuild knows changed since `previous` (made by the same code and settings): per record
   * type, the ids of the records added, removed or changed; a type it does not name has the same
   * records. A type not named is taken from the previous file as it is (keepType), a type named is
   * made from the previous file and its changed records' lines (patch.ts): neither makes
   * the lines of records that did not change. Without it, every line is made.
   */
  readonly changed?: ReadonlyMap<RecordType, ReadonlySet<string>>;
  /** Characters per chunk on average: smaller in tests, to have many members. */
  readonly chunkSize?: number;
  /**
   * The record files a rebuild did not read (plan/readPlan.ts), or read as `previous` read them, by
   * path: how many records each has and where its lines began in `previous`'s file of its type.
   * Their lines are copied from there; a type with such a file is made by writeFromFiles.
   */
  readonly unread?: ReadonlyMap<string, { readonly count: number; readonly previousStart: number }>;
}

/** The records as validate.ts hands them over: by type, and by record file where it knows them. */
export type ExportedData = Dataset & { readonly byFile?: ReadonlyMap<string, readonly DataRecord[]> };

/** A type's record files in data order (the records of a dataset without files as one), read or not. */
function filesOf(type: RecordType, dataset: ExportedData, unread: ExportOptions['unread']): ExportedFile[] {
  if (dataset.byFile === undefined) return [{ file: type, records: dataset.records.get(type) ?? [] }];
  // A file named in `unread` is copied, read or not.
  const read = [...dataset.byFile].filter(([file]) => typeNameOf(file) === type && !unread?.has(file));
  const notRead = [...(unread ?? [])].filter(([file]) => typeNameOf(file) === type);
  if (notRead.length === 0) return read.map(([file, records]) => ({ file, records }));
  const files: ExportedFile[] = [...read.map(([file, records]) => ({ file, records })), ...notRead.map(([file, counted]) => ({ file, unread: counted }))];
  // The order readInputs reads files in: their paths, sorted.
  return files.sort((a, b) => compareCodePoints(a.file, b.file));
}

/** The index of the build in `buildDir`, if it has one that parses: a kept build's, or the previous build's. */
export async function readExportsIndex(buildDir: string): Promise<ExportsIndex | undefined> {
  const text = await readFile(path.join(buildDir, exportsIndexFile), 'utf8').catch(() => undefined);
  if (text === undefined) return undefined;
  try {
    const parsed = exportsIndexSchema.safeParse(JSON.parse(text));
    return parsed.success ? parsed.data : undefined;
  } catch {
    return undefined; // damaged: treated as a build without exports
  }
}

/** The type's terms for its index entry (NDJSON has no place for them without changing the records' lines). */
function licenceOf(type: RecordType): Pick<ExportsIndex['exports'][string], 'licence'> {
  const licence = recordTypeFacts[type].licence;
  return licence ? { licence: { spdx: licence.spdx, attribution: [...licence.attribution], terms: licence.terms } } : {};
}

/**
 * `shown` is the record as its bodies show it (bodies.ts): its shown fields in schema order, the id
 * first, which compareLines (changes.ts) relies on. `previous` is the build this one replaces,
 * whose files' members are reused.
 */
export async function buildExports(
  dataset: ExportedData,
  shown: IndexedBodies['shown'],
  build: ExportedBuild,
  previous: ExportsOf | undefined,
  { changed, chunkSize = defaultChunkSize, unread }: ExportOptions = {},
): Promise<BuiltExports> {
  const how = chunkWriter(shown, chunkSize);
  // One type after another: a type's chunks are compressed side by side (how.press), a few at a time.
  const written = [];
  for (const type of recordTypes) {
    const records = dataset.records.get(type) ?? [];
    const earlier = previous && (await readEarlierFile(path.join(previous.dir, exportFile(type)), previous.index.exports[type], how));
    const files = filesOf(type, dataset, unread);
    if (files.some((file) => 'unread' in file)) {
      const made = await writeFromFiles(type, files, earlier, how);
      if (made === undefined) throw new UnreadNotCopied(type);
      written.push({ type, ...made });
      continue;
    }
    const ends = fileEnds(files.map((file) => ('records' in file ? file.records.length : 0)));
    const ids = changed?.get(type);
    const known =
      changed === undefined ? undefined : ids ? await patchType(type, records, ends, ids, earlier, how) : await keepType(type, records, earlier, how);
    written.push({ type, ...(known ?? (await writeType(type, records, ends, earlier, how))) });
  }
  const files = new Map<string, DownloadFile>();
  const lines = new Map<RecordType, ExportedType>();
  const exports: ExportsIndex['exports'] = {};
  for (const { type, exported, file, sha256, etag, ndjson } of written) {
    lines.set(type, exported);
    files.set(exportFile(type), file);
    exports[type] = {
      path: `/${exportFile(type)}`,
      area: recordAreaOf(type),
      records: exported.count,
      bytes: file.bytes.length,
      sha256,
      etag,
      ndjson: await ndjson,
      ...licenceOf(type),
    };
  }
  const index: ExportsIndex = { ...build, exports };
  files.set(exportsIndexFile, { bytes: Buffer.from(JSON.stringify(index)), contentType: jsonType });
  return { files, index, lines };
}

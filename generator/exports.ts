/**
 * The exports: per record type, every record as the API shows it (shownFields), one JSON object a
 * line in data order, gzipped; and their index (contract/downloads.ts), which states each type's
 * licence and attribution where its sources ask for them. The same data gives the same
 * bytes: a fixed compression level and no time or name in the gzip header, so an unchanged type
 * keeps its SHA-256 and ETag from build to build, and a mirror downloads only what changed.
 *
 * A type whose NDJSON is the previous build's is not compressed again: the previous file is read,
 * checked against its index, and hard-linked by write.ts.
 */
import { createHash } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { promisify } from 'node:util';
import { gzip } from 'node:zlib';
import { exportFile, exportsIndexFile, exportsIndexSchema, gzipType, recordAreas, recordLicences, type ExportsIndex } from '../contract/downloads.ts';
import { jsonType } from '../contract/http.ts';
import { computeEtag } from '../contract/manifest.ts';
import { recordTypes, type RecordType } from '../contract/routes.ts';
import type { IndexedBodies } from './bodies.ts';
import type { DataSources } from './sources.ts';
import type { Dataset } from './validate.ts';
import type { DownloadFile } from './write.ts';

const compress = promisify(gzip);

/**
 * zlib's best compression: 4 % smaller than its default on the real data, for about half a second
 * more per full build (both cores). Fixed, because another level would change every file's hash.
 */
const gzipLevel = 9;

export interface BuiltExports {
  /** The files by their path in the build: the index and one gzip file per record type. */
  readonly files: ReadonlyMap<string, DownloadFile>;
  readonly index: ExportsIndex;
  /** Each type's NDJSON lines (without the newline), for the change lists. */
  readonly lines: ReadonlyMap<RecordType, readonly string[]>;
}

/** Who the index describes: the build being written. */
export interface ExportedBuild {
  readonly buildId: string;
  readonly builtAt: string;
  readonly dataVersion: string;
  readonly sources: DataSources;
}

const sha256 = (bytes: Buffer): string => createHash('sha256').update(bytes).digest('hex');

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

/** The previous build's gzip file of a type, when its NDJSON was exactly `ndjsonSha256` and the file is intact. */
async function reusable(previous: { dir: string; index: ExportsIndex } | undefined, type: RecordType, ndjsonSha256: string): Promise<DownloadFile | undefined> {
  const entry = previous?.index.exports[type];
  if (!previous || entry?.ndjson.sha256 !== ndjsonSha256) return undefined;
  const file = path.join(previous.dir, exportFile(type));
  const bytes = await readFile(file).catch(() => undefined);
  return bytes && sha256(bytes) === entry.sha256 ? { bytes, contentType: gzipType, linkFrom: file } : undefined;
}

/** The type's terms for its index entry (NDJSON has no place for them without changing the records' lines). */
function licenceOf(type: RecordType): Pick<ExportsIndex['exports'][string], 'licence'> {
  const licence = recordLicences[type];
  return licence ? { licence: { spdx: licence.spdx, attribution: [...licence.attribution], terms: licence.terms } } : {};
}

/**
 * `shown` is the record as its bodies show it (bodies.ts): its shown fields in schema order, the id
 * first, which compareLines (changes.ts) relies on.
 */
export async function buildExports(
  dataset: Dataset,
  shown: IndexedBodies['shown'],
  build: ExportedBuild,
  previous: { dir: string; index: ExportsIndex } | undefined,
): Promise<BuiltExports> {
  const files = new Map<string, DownloadFile>();
  const lines = new Map<RecordType, string[]>();
  const exports: ExportsIndex['exports'] = {};
  // Side by side: zlib compresses on libuv's threads, so the largest types share the cores.
  const built = await Promise.all(
    recordTypes.map(async (type) => {
      const typeLines = (dataset.records.get(type) ?? []).map((record) => shown(type, record));
      const ndjson = Buffer.from(typeLines.map((line) => `${line}\n`).join(''), 'utf8');
      const ndjsonSha256 = sha256(ndjson);
      const file = (await reusable(previous, type, ndjsonSha256)) ?? { bytes: await compress(ndjson, { level: gzipLevel }), contentType: gzipType };
      return { type, typeLines, ndjson, ndjsonSha256, file };
    }),
  );
  for (const { type, typeLines, ndjson, ndjsonSha256, file } of built) {
    lines.set(type, typeLines);
    files.set(exportFile(type), file);
    exports[type] = {
      path: `/${exportFile(type)}`,
      area: recordAreas[type],
      records: typeLines.length,
      bytes: file.bytes.length,
      sha256: sha256(file.bytes),
      etag: computeEtag(file.bytes),
      ndjson: { bytes: ndjson.length, sha256: ndjsonSha256 },
      ...licenceOf(type),
    };
  }
  const index: ExportsIndex = { ...build, exports };
  files.set(exportsIndexFile, { bytes: Buffer.from(JSON.stringify(index)), contentType: jsonType });
  return { files, index, lines };
}

/**
 * The data as the previous build had it, rebuilt from the record files it saved: the changed files
 * are read as they were, parsed, gated and validated as that build did; every unchanged file's
 * records are the very objects of this build's data. With it, each changed type's records in their
 * two versions.
 */
import type { RecordType } from '../../contract/recordTypes.ts';
import type { RebuildBasis } from '../builds/summary.ts';
import { gateAddressCountries, parseRecordFiles, type InputFile, type LoadedData, type RecordFile } from '../load.ts';
import type { DataRecord } from '../records/schemas.ts';
import { compareCodePoints } from '../records/ordering.ts';
import { parseFileRecords, type Dataset, type ValidatedDataset } from '../validate.ts';
import { diffRecords, type Changed } from './changes.ts';
import { readSaved } from './savedInputs.ts';

/** The previous build's data and what changed since, or why it cannot be had. */
export type PreviousData =
  | { readonly kind: 'full'; readonly reason: string }
  | {
      readonly kind: 'previous';
      readonly before: Dataset;
      /** Each changed type's records that differ, in both versions. */
      readonly changed: ReadonlyMap<RecordType, Changed>;
      /** The records read from the previous build's copies (not shared with this build's data). */
      readonly readBefore: ReadonlySet<DataRecord>;
      /** The previous build's records by file, in data order: the changed files' as read from its copies, the others this build's. */
      readonly beforeFiles: ReadonlyMap<string, readonly DataRecord[]>;
    };

export interface PreviousInputs {
  readonly buildsRoot: string;
  readonly basis: RebuildBasis;
  readonly current: RebuildBasis;
  readonly loaded: LoadedData;
  readonly dataset: ValidatedDataset;
}

const full = (reason: string): PreviousData => ({ kind: 'full', reason });

/** The changed files as the previous build read them, or why one cannot be had. */
async function savedFiles(buildsRoot: string, basis: RebuildBasis, changedPaths: ReadonlySet<string>): Promise<RecordFile[] | string> {
  const inputs: InputFile[] = [];
  for (const file of changedPaths) {
    const hash = basis.records[file];
    if (hash === undefined) continue;
    const bytes = await readSaved(buildsRoot, hash);
    if (bytes === undefined) return `the previous build's copy of ${file} is not saved`;
    inputs.push({ relativePath: file, displayPath: file, bytes, sha256: hash });
  }
  const problems: string[] = [];
  const files = parseRecordFiles(inputs, problems);
  return problems.length > 0 ? `the previous build's copy of a file does not parse: ${problems[0]}` : files;
}

export async function previousData({ buildsRoot, basis, current, loaded, dataset }: PreviousInputs): Promise<PreviousData> {
  const paths = [...new Set([...Object.keys(basis.records), ...Object.keys(current.records)])].sort();
  const changedPaths = new Set(paths.filter((file) => basis.records[file] !== current.records[file]));
  // Files added or removed move other files' records in data order: every record of them counts as changed.
  const movedPaths = new Set([...changedPaths].filter((file) => basis.records[file] === undefined || current.records[file] === undefined));
  const oldFiles = await savedFiles(buildsRoot, basis, changedPaths);
  if (typeof oldFiles === 'string') return full(oldFiles);
  const oldAll = [...loaded.allFiles.filter((file) => !changedPaths.has(file.relativePath)), ...oldFiles].sort((a, b) =>
    compareCodePoints(a.relativePath, b.relativePath),
  );
  let gated: readonly RecordFile[];
  try {
    gated = gateAddressCountries(oldAll, loaded.settings);
  } catch {
    return full("the previous build's data does not gate");
  }
  const recordsBefore = new Map<string, readonly DataRecord[]>();
  const typeOf = new Map<string, RecordType>();
  for (const file of gated) {
    typeOf.set(file.relativePath, file.recordType);
    if (!changedPaths.has(file.relativePath)) continue;
    const records = parseFileRecords(file);
    if (records === undefined) return full(`the previous build's copy of ${file.relativePath} does not validate`);
    recordsBefore.set(file.relativePath, records);
  }
  for (const file of loaded.files) typeOf.set(file.relativePath, file.recordType);

  const gatedPaths = gated.map((file) => file.relativePath);
  const changedTypes = new Set([...changedPaths].flatMap((file) => typeOf.get(file) ?? []));
  const beforeRecords = new Map(dataset.records);
  const changed = new Map<RecordType, Changed>();
  for (const type of changedTypes) {
    beforeRecords.set(
      type,
      gatedPaths.filter((file) => typeOf.get(file) === type).flatMap((file) => recordsBefore.get(file) ?? dataset.byFile.get(file) ?? []),
    );
    const filesOfType = paths.filter((file) => changedPaths.has(file) && typeOf.get(file) === type);
    const olds = filesOfType.flatMap((file) => recordsBefore.get(file) ?? []);
    const news = filesOfType.flatMap((file) => dataset.byFile.get(file) ?? []);
    changed.set(
      type,
      diffRecords(
        olds,
        news,
        filesOfType.some((file) => movedPaths.has(file)),
      ),
    );
  }
  const before: Dataset = { records: beforeRecords, where: () => undefined };
  const beforeFiles = new Map(gatedPaths.map((file) => [file, recordsBefore.get(file) ?? dataset.byFile.get(file) ?? []]));
  return { kind: 'previous', before, changed, readBefore: new Set([...recordsBefore.values()].flat()), beforeFiles };
}

/**
 * A type's export file for a rebuild that read only some of the type's record files (the files its
 * changes reach, plan/partitionMap.ts): a file it did not read is unchanged since the previous
 * build, whose file holds that file's lines as whole members (a chunk ends at every record file's
 * end), and they are copied; a file it read has its lines made and cut as writeType cuts them.
 * The bytes are writeType's from every line, had every file been read.
 */
import { gunzipSync } from 'node:zlib';
import { openSync, readSync, closeSync } from 'node:fs';
import type { RecordType } from '../../contract/routes.ts';
import type { DataRecord } from '../records/schemas.ts';
import { chunkIds, endsChunk, ExportFile, type ChunkWriter, type EarlierFile, type ExportedType, type WrittenType } from './chunks.ts';
import type { GzipMember } from './gzipMembers.ts';
import { digestNdjson, type DigestPart } from './ndjsonDigest.ts';

/** A type's record file in data order: its records, or, not read, how many it had and where its lines began in the previous build's file. */
export type ExportedFile =
  | { readonly file: string; readonly records: readonly DataRecord[] }
  | { readonly file: string; readonly unread: { readonly count: number; readonly previousStart: number } };

/** The members of `earlier` holding its lines [start, start + count), or undefined where no run of whole members does. */
function membersOf(earlier: EarlierFile, start: number, count: number): GzipMember[] | undefined {
  const found: GzipMember[] = [];
  let line = 0;
  for (const member of earlier.members) {
    if (line >= start + count) break;
    if (line >= start) found.push(member);
    else if (line + member.lines > start) return undefined;
    line += member.lines;
  }
  const held = found.reduce((sum, member) => sum + member.lines, 0);
  return held === count ? found : undefined;
}

/** A run of the new file's lines, [start, end): a read file's records from `first`, or members of the earlier file. */
type Run = { readonly start: number; readonly end: number } & (
  | { readonly records: readonly DataRecord[]; readonly first: number }
  | { readonly members: readonly GzipMember[] }
);

/** Lines [start, end) of the runs: a read file's made again, an unread file's decompressed from the earlier file. */
function linesOfRuns(type: RecordType, runs: readonly Run[], earlier: EarlierFile, how: ChunkWriter): ExportedType['lines'] {
  return (start, end) => {
    const lines: string[] = [];
    for (const run of runs) {
      if (run.end <= start || run.start >= end) continue;
      const from = Math.max(start, run.start) - run.start;
      const to = Math.min(end, run.end) - run.start;
      if ('records' in run) {
        for (let at = from; at < to; at++) lines.push(how.shown(type, run.records[run.first + at] as DataRecord));
        continue;
      }
      const handle = openSync(earlier.path, 'r');
      try {
        const text: string[] = [];
        for (const member of run.members) {
          const zipped = Buffer.allocUnsafe(member.bytes);
          readSync(handle, zipped, 0, member.bytes, member.offset);
          const unzipped = gunzipSync(zipped).toString('utf8');
          if (unzipped.length > 0) text.push(...unzipped.slice(0, -1).split('\n'));
        }
        lines.push(...text.slice(from, to));
      } finally {
        closeSync(handle);
      }
    }
    return lines;
  };
}

/**
 * The type's file from `files`, or undefined where an unread file's lines are not whole members of
 * `earlier` (another writer's, or a damaged file): the rebuild then reads every file.
 */
export async function writeFromFiles(
  type: RecordType,
  files: readonly ExportedFile[],
  earlier: EarlierFile | undefined,
  how: ChunkWriter,
): Promise<WrittenType | undefined> {
  if (!earlier || earlier.members.some((member) => member.writer !== how.writer)) return undefined;
  const file = new ExportFile(earlier, how);
  const parts: DigestPart[] = [];
  const runs: Run[] = [];
  const { text, ids } = how;
  text.clear();
  ids.clear();
  let start = 0;
  for (const each of files) {
    if ('unread' in each) {
      const members = membersOf(earlier, each.unread.previousStart, each.unread.count);
      if (members === undefined) return undefined;
      let at = start;
      for (const member of members) {
        file.copy(at, at + member.lines, member);
        parts.push({ offset: member.offset, bytes: member.bytes });
        at += member.lines;
      }
      runs.push({ start, end: at, members });
      start = at;
      continue;
    }
    const { records } = each;
    let first = 0;
    for (const [at, record] of records.entries()) {
      const line = how.shown(type, record);
      text.add(line);
      if (!endsChunk(record.id, line, how) && at < records.length - 1) continue;
      const bytes = text.take();
      parts.push({ text: Buffer.from(bytes) });
      await file.add(start + first, start + at + 1, bytes, chunkIds(records, first, at + 1, ids));
      first = at + 1;
    }
    runs.push({ start, end: start + records.length, records, first: 0 });
    start += records.length;
  }
  if (start === 0) {
    parts.push({ text: Buffer.alloc(0) });
    await file.add(0, 0, Buffer.alloc(0), chunkIds([], 0, 0, ids));
  }
  return file.finish(start, linesOfRuns(type, runs, earlier, how), digestNdjson(earlier.path, parts));
}

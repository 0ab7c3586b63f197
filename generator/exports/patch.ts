/**
 * A type's export file for a rebuild that knows which of its records changed since the previous
 * build (generator/rebuild.ts plans one): made from the previous file and the changed records'
 * lines, without making the lines of the others. At the world's size a record's line costs a
 * microsecond or two to make once the bodies no longer hold it, so making every neighbourhood's
 * line again would cost seconds; the previous file's members decompress in a fraction of that.
 *
 * The build's word is taken that a record whose id it does not name has the line it had. Then:
 *
 * - a chunk ends after such a record where one ended before: after the last record of a member
 *   (its header names it), but the file's last member, which only the end of the file may have
 *   ended, and whose last line is made to tell;
 * - a chunk of such records only, whose ids in order are a previous member's (its header holds
 *   their hash), is that member's text, decompressed;
 * - any other chunk's lines are made, and its cuts checked against endsChunk: a cut that does not
 *   hold means the build's word was wrong, and the file is written from every line instead.
 *
 * The text is writeType's from every line, and so is the file: the NDJSON's hash is taken over
 * every chunk's text in order, and ExportFile copies or compresses each member as for writeType.
 */
import type { RecordType } from '../../contract/routes.ts';
import { chunkIds, endsChunk, ExportFile, linesOf, type ChunkWriter, type EarlierFile, type WrittenType } from './chunks.ts';
import { digestNdjson, type DigestPart } from './ndjsonDigest.ts';
import type { DataRecord } from '../records/schemas.ts';

/**
 * A type's file from `earlier` and the lines of the records `changed` names (added, removed or
 * changed since), or undefined where it cannot be made so: no earlier file of this writer's
 * members, or a cut that does not hold.
 */
export async function patchType(
  type: RecordType,
  records: readonly DataRecord[],
  ends: ReadonlySet<number>,
  changed: ReadonlySet<string>,
  earlier: EarlierFile | undefined,
  how: ChunkWriter,
): Promise<WrittenType | undefined> {
  const members = earlier?.members ?? [];
  if (!earlier || members.length === 0 || members.some((member) => member.writer !== how.writer)) return undefined;
  const cuts = new Set(members.slice(0, -1).map((member) => member.lastId));
  const finalMember = members.at(-1);
  const openEnd = finalMember?.lines ? finalMember.lastId : undefined;
  const byIds = new Map(members.map((member) => [member.idsSha256, member]));
  const file = new ExportFile(earlier, how);
  const parts: DigestPart[] = [];
  const { text, ids } = how;
  text.clear();
  ids.clear();
  let start = 0;
  let touched = false;
  for (const [at, record] of records.entries()) {
    const isChanged = changed.has(record.id);
    touched ||= isChanged;
    const last = at === records.length - 1;
    const cut = ends.has(at) || (isChanged || record.id === openEnd ? endsChunk(record.id, how.shown(type, record), how) : cuts.has(record.id));
    if (!cut && !last) continue;
    const end = at + 1;
    const chunk = chunkIds(records, start, end, ids);
    const same = touched ? undefined : byIds.get(chunk.idsSha256);
    if (same) {
      file.copy(start, end, same);
      parts.push({ offset: same.offset, bytes: same.bytes });
    } else {
      for (let line = start; line < end; line++) {
        const shown = how.shown(type, records[line] as DataRecord);
        const endsHere = ends.has(line) || endsChunk((records[line] as DataRecord).id, shown, how);
        if (endsHere !== (line < at ? false : last ? endsHere : true)) return undefined;
        text.add(shown);
      }
      const bytes = text.take();
      parts.push({ text: Buffer.from(bytes) });
      await file.add(start, end, bytes, chunk);
    }
    start = end;
    touched = false;
  }
  if (records.length === 0) {
    parts.push({ text: Buffer.alloc(0) });
    await file.add(0, 0, Buffer.alloc(0), chunkIds(records, 0, 0, ids));
  }
  return file.finish(records.length, linesOf(type, records, how.shown), digestNdjson(earlier.path, parts));
}

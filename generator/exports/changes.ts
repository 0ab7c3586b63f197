/**
 * The change lists: what changed between a kept build and this one, per record type the ids added,
 * removed and changed (with the shown fields whose values differ), and the sources whose versions
 * moved. Worked out at build time from the kept builds' exports, one list per kept build, so that
 * a request for one is a file like any other and nothing is compared per request.
 *
 * A kept build is a directory beside this one under `.dist-builds/` with an exports index (write.ts
 * keeps them and prunes the rest). A type whose NDJSON hash is the same in both builds is not read
 * at all; of another, only the chunks whose text differs (compareType).
 */
import { readdir } from 'node:fs/promises';
import path from 'node:path';
import { buildFormat, buildFormatOf } from '../../contract/lookupIndex.ts';
import { changeListFile, exportFile, firstChangeListFile, type ChangeList, type ExportsIndex, type RecordChanges } from '../../contract/downloads.ts';
import { jsonType } from '../../contract/http.ts';
import type { Manifest } from '../../contract/manifest.ts';
import { recordTypes, type RecordType } from '../../contract/routes.ts';
import { LineBuffer } from './chunks.ts';
import { readExportsIndex, type ExportedType, type ExportsOf } from './files.ts';
import { readMembers, readMemberTexts } from './gzipMembers.ts';
import { movedSources } from '../records/sources.ts';
import { compareCodePoints } from '../records/ordering.ts';
import type { DownloadFile } from '../write.ts';

/** A build whose exports are kept: its directory and its exports index. */
export type KeptBuild = ExportsOf;

/**
 * The builds under `buildsRoot` whose exports a new build keeps: the one it replaces (`previousDir`)
 * first when it has exports, then the newest others, `keep - 1` in all (the new build is the
 * `keep`th). Unfinished builds (`.partial`), builds of another format (contract/lookupIndex.ts,
 * `buildFormat`) and directories without a readable index are left out.
 */
export async function keptBuilds(buildsRoot: string, previousDir: string | undefined, keep: number): Promise<KeptBuild[]> {
  const entries = await readdir(buildsRoot).catch(() => [] as string[]);
  const found: KeptBuild[] = [];
  for (const entry of entries.filter((name) => !name.endsWith('.partial'))) {
    const dir = path.join(buildsRoot, entry);
    // A build of another format is not read: its change list is not made, and the proxy answers that it is not kept.
    if ((await buildFormatOf(dir)) !== buildFormat) continue;
    const index = await readExportsIndex(dir);
    if (index) found.push({ dir, index });
  }
  const newestFirst = found.sort((a, b) => compareCodePoints(b.index.builtAt, a.index.builtAt));
  const previous = newestFirst.find((build) => build.dir === previousDir);
  const others = newestFirst.filter((build) => build !== previous);
  return [...(previous ? [previous] : []), ...others].slice(0, keep - 1);
}

/** The id a line starts with (`{"id":"…"`, as exportLines writes every record), else the parsed record's. */
function idOf(line: string): string {
  const quoted = /^\{"id":("(?:[^"\\]|\\.)*")/.exec(line)?.[1];
  return quoted === undefined ? String((JSON.parse(line) as { id: unknown }).id) : (JSON.parse(quoted) as string);
}

/** The fields whose values differ between two versions of a record, in the newer one's order. */
function changedFields(before: Record<string, unknown>, after: Record<string, unknown>): string[] {
  const fields = [...new Set([...Object.keys(after), ...Object.keys(before)])];
  return fields.filter((field) => JSON.stringify(before[field]) !== JSON.stringify(after[field]));
}

/**
 * A type's changes worked out line by line: the earlier lines by id, then the later lines in data
 * order (added and changed come out in that order, removed in the earlier one).
 */
class Comparison {
  readonly #earlier: Map<string, string>;
  readonly #added: string[] = [];
  readonly #changed: RecordChanges['changed'] = [];

  constructor(before: readonly string[]) {
    this.#earlier = new Map(before.map((line) => [idOf(line), line]));
  }

  /** A later line, its record looked up among the earlier ones by id. */
  line(line: string): void {
    const id = idOf(line);
    const old = this.#earlier.get(id);
    this.#earlier.delete(id);
    if (old === undefined) this.#added.push(id);
    else if (old !== line) this.#differ(id, old, line);
  }

  /**
   * The lines of a chunk whose records are those of an earlier chunk, one by one in the same order
   * (the same ids' hash): compared line by line, as bytes, and only a line that differs is read.
   */
  pair(before: Buffer, after: Buffer): void {
    let from = 0;
    let to = 0;
    while (from < before.length && to < after.length) {
      const beforeEnd = before.indexOf(0x0a, from);
      const afterEnd = after.indexOf(0x0a, to);
      if (beforeEnd < 0 || afterEnd < 0) break;
      if (before.compare(after, to, afterEnd, from, beforeEnd) !== 0) {
        const line = after.toString('utf8', to, afterEnd);
        this.#differ(idOf(line), before.toString('utf8', from, beforeEnd), line);
      }
      from = beforeEnd + 1;
      to = afterEnd + 1;
    }
  }

  #differ(id: string, old: string, line: string): void {
    const fields = changedFields(JSON.parse(old) as Record<string, unknown>, JSON.parse(line) as Record<string, unknown>);
    if (fields.length > 0) this.#changed.push({ id, fields });
  }

  result(): RecordChanges {
    return { added: this.#added, removed: [...this.#earlier.keys()], changed: this.#changed };
  }
}

/** One type's changes from `before` to `after` (export lines): added and changed in the new data order, removed in the old. */
export function compareLines(before: readonly string[], after: readonly string[]): RecordChanges {
  const comparison = new Comparison(before);
  for (const line of after) comparison.line(line);
  return comparison.result();
}

/** The lines of an NDJSON text, each ended by a newline there. */
const linesOf = (text: Buffer): string[] => (text.length === 0 ? [] : text.toString('utf8').slice(0, -1).split('\n'));

/**
 * What the comparisons of one build share: the kept members' texts by their hash (the older kept
 * builds hold the same text of a chunk changed since, in files of their own: read once), this
 * build's lines, and a buffer to encode them in.
 */
interface Scratch {
  readonly texts: Map<string, Buffer>;
  /** This build's chunks' lines, by type and first line: made once, compared with each kept build that lacks their text. */
  readonly lines: Map<string, string[]>;
  readonly encoded: LineBuffer;
}

/**
 * One type's changes from a kept build's export to this build's, as compareLines over every line
 * gives them, reading only what differs:
 *
 * - a chunk whose text hash both sides hold is the same lines on both, and an id is on one line of
 *   a type only, so none of its records is in the other chunks of either side: it is skipped, and
 *   of the kept file only the members with another text are read, each at its offset;
 * - a chunk whose ids' hash a member of the other side holds has the same records in the same
 *   order (a record changed in place): the two are compared line by line, as bytes;
 * - the other lines go through compareLines' lookup by id.
 */
async function compareType(build: KeptBuild, type: RecordType, current: ExportedType | undefined, scratch: Scratch): Promise<RecordChanges> {
  const after = current ?? { count: 0, chunks: [], lines: () => [] };
  if (!build.index.exports[type]) return compareLines([], after.lines(0, after.count));
  const file = path.join(build.dir, exportFile(type));
  const members = await readMembers(file);
  if (!members)
    throw new Error(
      `${file}, an export of kept build ${build.index.buildId}, is damaged: its gzip members cannot be read. Remove that build's folder to build without its change list.`,
    );
  const laterTexts = new Set(after.chunks.map((chunk) => chunk.textSha256));
  const earlierTexts = new Set(members.map((member) => member.textSha256));
  const earlier = members.filter((member) => !laterTexts.has(member.textSha256));
  const later = after.chunks.filter((chunk) => !earlierTexts.has(chunk.textSha256));
  const laterIds = new Map(later.map((chunk) => [chunk.idsSha256, chunk.end - chunk.start]));
  const unread = earlier.filter((member) => !scratch.texts.has(member.textSha256));
  for (const [number, text] of (await readMemberTexts(file, unread)).entries()) scratch.texts.set(unread[number]?.textSha256 ?? '', text);
  const paired = new Map<string, Buffer>();
  const unpaired: string[] = [];
  for (const member of earlier) {
    const text = scratch.texts.get(member.textSha256) ?? Buffer.alloc(0);
    if (laterIds.get(member.idsSha256) === member.lines) paired.set(member.idsSha256, text);
    else for (const line of linesOf(text)) unpaired.push(line);
  }
  const comparison = new Comparison(unpaired);
  for (const chunk of later) {
    const key = `${type}:${chunk.start}`;
    const lines = scratch.lines.get(key) ?? after.lines(chunk.start, chunk.end);
    scratch.lines.set(key, lines);
    const pair = paired.get(chunk.idsSha256);
    if (!pair) for (const line of lines) comparison.line(line);
    else {
      for (const line of lines) scratch.encoded.add(line);
      comparison.pair(pair, scratch.encoded.take());
    }
  }
  return comparison.result();
}

/** What is written: the change-list files, and the manifest's `changes`. */
export interface BuiltChangeLists {
  readonly files: ReadonlyMap<string, DownloadFile>;
  readonly changes: NonNullable<Manifest['changes']>;
}

const referenceOf = ({ buildId, builtAt, dataVersion }: ExportsIndex): ChangeList['to'] => ({ buildId, builtAt, dataVersion });

/**
 * A change list from each kept build, one that is empty from this build to itself (a mirror that is
 * current asks for that), and `latest`: against `replaced`, the build this one replaces, or the
 * first-build list (from: null) when it has no exports to compare with.
 */
export async function buildChangeLists(
  current: ExportsIndex,
  lines: ReadonlyMap<RecordType, ExportedType>,
  kept: readonly KeptBuild[],
  replaced: string | undefined,
): Promise<BuiltChangeLists> {
  const files = new Map<string, DownloadFile>();
  // Newest first, as the proxy names them when a build asked for is not kept.
  const since: Record<string, string> = { [current.buildId]: changeListFile(current.buildId) };
  const add = (file: string, list: ChangeList): void => {
    files.set(file, { bytes: Buffer.from(JSON.stringify(list)), contentType: jsonType });
  };
  // Kept builds often share a type's file (hard-linked while it did not change): compared once.
  const compared = new Map<string, RecordChanges>();
  const scratch: Scratch = { texts: new Map(), lines: new Map(), encoded: new LineBuffer() };
  for (const build of kept) {
    const records: ChangeList['records'] = {};
    for (const type of recordTypes) {
      const before = build.index.exports[type];
      const after = current.exports[type];
      if (before?.ndjson.sha256 === after?.ndjson.sha256) continue;
      const memo = `${type}:${before?.sha256 ?? 'none'}`;
      let changes = compared.get(memo);
      if (!changes) {
        changes = await compareType(build, type, lines.get(type), scratch);
        compared.set(memo, changes);
      }
      if (changes.added.length + changes.removed.length + changes.changed.length > 0) records[type] = changes;
    }
    const file = changeListFile(build.index.buildId);
    add(file, { from: referenceOf(build.index), to: referenceOf(current), records, sources: movedSources(build.index.sources, current.sources) });
    since[build.index.buildId] = file;
  }
  add(changeListFile(current.buildId), { from: referenceOf(current), to: referenceOf(current), records: {}, sources: [] });
  const replacedBuild = kept.find((build) => build.dir === replaced);
  if (replacedBuild) return { files, changes: { latest: changeListFile(replacedBuild.index.buildId), since } };
  add(firstChangeListFile, { from: null, to: referenceOf(current), records: {}, sources: [] });
  return { files, changes: { latest: firstChangeListFile, since } };
}

/**
 * Exports as runs of gzip members, one per chunk of lines (generator/exports/chunks.ts,
 * generator/exports/gzipMembers.ts), and the change lists worked out chunk by chunk (generator/exports/changes.ts):
 * buildExports and buildChangeLists run on synthetic neighbourhoods, with a chunk size small
 * enough to give dozens of members, each build written to a directory as write.ts would.
 */
import { execFile } from 'node:child_process';
import { createHash } from 'node:crypto';
import { createReadStream } from 'node:fs';
import { link, mkdir, readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { promisify } from 'node:util';
import { createGunzip, gunzipSync, gzipSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { exportFile, type ExportsIndex, type RecordChanges } from '../../contract/downloads.ts';
import type { RecordType } from '../../contract/routes.ts';
import { buildChangeLists, compareLines, type KeptBuild } from '../../generator/exports/changes.ts';
import { buildExports, type BuiltExports, type ExportOptions } from '../../generator/exports/files.ts';
import { readMembers } from '../../generator/exports/gzipMembers.ts';
import { digestNdjson } from '../../generator/exports/ndjsonDigest.ts';
import type { DataRecord } from '../../generator/records/schemas.ts';
import type { Dataset } from '../../generator/validate.ts';
import { tempDir } from '../support/service.ts';

const run = promisify(execFile);
const type: RecordType = 'neighborhood';
/** About 90 lines a chunk. */
const chunkSize = 8192;

/** A small deterministic generator (mulberry32), so that a failure can be run again. */
function random(seed: number): () => number {
  let state = seed;
  return () => {
    state = (state + 0x6d2b79f5) | 0;
    let mixed = Math.imul(state ^ (state >>> 15), 1 | state);
    mixed = (mixed + Math.imul(mixed ^ (mixed >>> 7), 61 | mixed)) ^ mixed;
    return ((mixed ^ (mixed >>> 14)) >>> 0) / 2 ** 32;
  };
}

const neighbourhood = (number: number, name = `Mahalle ${number}`): DataRecord => ({
  id: `00000000-0000-4000-8000-${String(number).padStart(12, '0')}`,
  districtId: 'd1',
  name,
  zipCode: String(10000 + number),
});

const initial = (count: number): DataRecord[] => Array.from({ length: count }, (_, number) => neighbourhood(number));

/** The record as the exports show it: its JSON, id first. */
const shown = (_type: RecordType, record: DataRecord): string => JSON.stringify(record);
const linesOf = (records: readonly DataRecord[]): string[] => records.map((record) => shown(type, record));

const datasetOf = (records: readonly DataRecord[]): Dataset => ({ records: new Map([[type, records]]), where: () => undefined });

let builds = 0;
/** A build's exports of `records`, written into a directory of its own as write.ts writes them (linked where it links). */
async function exportBuild(records: readonly DataRecord[], previous?: KeptBuild, options: ExportOptions = {}): Promise<KeptBuild & { built: BuiltExports }> {
  builds++;
  const build = {
    buildId: `20270101T00${String(Math.floor(builds / 60)).padStart(2, '0')}${String(builds % 60).padStart(2, '0')}Z-abcdef`,
    builtAt: new Date(Date.UTC(2027, 0, 1, 0, 0, builds)).toISOString(),
    dataVersion: `v${builds}`,
    sources: {},
  };
  const built = await buildExports(datasetOf(records), shown, build, previous, { chunkSize, ...options });
  const dir = path.join(await tempDir(), build.buildId);
  for (const [file, { bytes, linkFrom }] of built.files) {
    const target = path.join(dir, file);
    await mkdir(path.dirname(target), { recursive: true });
    const linked =
      linkFrom !== undefined &&
      (await link(linkFrom, target).then(
        () => true,
        () => false,
      ));
    if (!linked) await writeFile(target, bytes);
  }
  return { dir, index: built.index, built };
}

const fileOf = (build: KeptBuild): string => path.join(build.dir, exportFile(type));
const bytesOf = (build: KeptBuild): Promise<Buffer> => readFile(fileOf(build));

/** The type's changes as buildChangeLists works them out from `from` to `to`. */
async function changesBetween(from: KeptBuild, to: KeptBuild & { built: BuiltExports }): Promise<RecordChanges> {
  const lists = await buildChangeLists(to.index, to.built.lines, [from], from.dir);
  const list = JSON.parse(lists.files.get(`changes/${from.index.buildId}.json`)?.bytes.toString() ?? '{}') as { records: Record<string, RecordChanges> };
  return list.records[type] ?? { added: [], removed: [], changed: [] };
}

/** Every line of both builds compared whole: what the change list must say. */
function expectedChanges(before: readonly DataRecord[], after: readonly DataRecord[]): RecordChanges {
  return compareLines(linesOf(before), linesOf(after));
}

describe('an export is a run of gzip members', () => {
  it('zlib (gunzipSync and createGunzip) and gzip -dc read a file of many members whole', async () => {
    const records = initial(3000);
    const build = await exportBuild(records);
    const bytes = await bytesOf(build);
    const ndjson = `${linesOf(records).join('\n')}\n`;
    expect((await readMembers(fileOf(build)))?.length).toBeGreaterThan(20);
    expect(gunzipSync(bytes).toString('utf8')).toBe(ndjson);
    const streamed: Buffer[] = [];
    for await (const piece of createReadStream(fileOf(build)).pipe(createGunzip())) streamed.push(piece as Buffer);
    expect(Buffer.concat(streamed).toString('utf8')).toBe(ndjson);
    const { stdout } = await run('gzip', ['-dc', fileOf(build)], { maxBuffer: 1 << 26, encoding: 'buffer' });
    expect(stdout.toString('utf8')).toBe(ndjson);
    expect(build.index.exports[type]?.ndjson).toEqual({ bytes: Buffer.byteLength(ndjson), sha256: createHash('sha256').update(ndjson).digest('hex') });
  });

  it("each member's header states its place, its lines and its text's hash; the members' lines add up to the records", async () => {
    const records = initial(2000);
    const build = await exportBuild(records);
    const bytes = await bytesOf(build);
    const members = (await readMembers(fileOf(build))) ?? [];
    let line = 0;
    let offset = 0;
    for (const member of members) {
      expect(member.offset).toBe(offset);
      const text = gunzipSync(bytes.subarray(member.offset, member.offset + member.bytes));
      expect(createHash('sha256').update(text).digest('hex')).toBe(member.textSha256);
      expect(text.toString('utf8')).toBe(`${linesOf(records.slice(line, line + member.lines)).join('\n')}\n`);
      expect(member.lastId).toBe(records[line + member.lines - 1]?.id);
      line += member.lines;
      offset += member.bytes;
    }
    expect(line).toBe(records.length);
    expect(offset).toBe(bytes.length);
  });

  it('a type without records is one empty member, which gunzip reads as an empty text', async () => {
    const build = await exportBuild([]);
    expect(gunzipSync(await bytesOf(build)).length).toBe(0);
    expect(build.index.exports[type]).toMatchObject({ records: 0, ndjson: { bytes: 0 } });
  });
});

describe('the same data gives the same bytes', () => {
  it('built twice from scratch, and built again from the previous build', async () => {
    const records = initial(2500);
    const first = await exportBuild(records);
    const second = await exportBuild(records);
    const again = await exportBuild(records, first);
    expect((await bytesOf(second)).equals(await bytesOf(first))).toBe(true);
    expect(again.index.exports[type]).toEqual(first.index.exports[type]);
    // The same text: the previous file itself, hard-linked, nothing compressed.
    expect(again.built.files.get(exportFile(type))?.linkFrom).toBe(fileOf(first));
    expect(again.built.lines.get(type)?.compressed).toBe(0);
  });

  it('one record changed: one member compressed, every other copied byte for byte, the file that of a build from scratch', async () => {
    const records = initial(3000);
    const first = await exportBuild(records);
    const changed = records.map((record, number) => (number === 1234 ? { ...record, name: 'Yeni Mahalle' } : record));
    const second = await exportBuild(changed, first);
    const scratch = await exportBuild(changed);
    expect(second.built.lines.get(type)?.compressed).toBe(1);
    expect((await bytesOf(second)).equals(await bytesOf(scratch))).toBe(true);
    const [before, after] = [(await readMembers(fileOf(first))) ?? [], (await readMembers(fileOf(second))) ?? []];
    expect(after).toHaveLength(before.length);
    const [oldBytes, newBytes] = [await bytesOf(first), await bytesOf(second)];
    const differing = after.filter((member, number) => {
      const old = before[number];
      return !old || !oldBytes.subarray(old.offset, old.offset + old.bytes).equals(newBytes.subarray(member.offset, member.offset + member.bytes));
    });
    expect(differing).toHaveLength(1);
  });

  it('a previous file that is not made of readable members (one plain gzip member, as recorded in its index) is compressed anew, to the bytes of a build from scratch', async () => {
    const records = initial(1500);
    const old = await exportBuild(records);
    const single = gzipSync(`${linesOf(records).join('\n')}\n`, { level: 9 });
    await writeFile(fileOf(old), single);
    const entry = old.index.exports[type];
    if (!entry) throw new Error('no entry');
    const index: ExportsIndex = {
      ...old.index,
      exports: { ...old.index.exports, [type]: { ...entry, bytes: single.length, sha256: createHash('sha256').update(single).digest('hex') } },
    };
    const rebuilt = await exportBuild(records, { dir: old.dir, index });
    const scratch = await exportBuild(records);
    expect((await bytesOf(rebuilt)).equals(await bytesOf(scratch))).toBe(true);
  });
});

/** Edits of a list of records, each as a rebuild would see it: its new records and the ids it changed. */
type Edit = (records: DataRecord[], draw: () => number, next: () => number) => { records: DataRecord[]; ids: string[] };

const pickIndex = (records: readonly DataRecord[], draw: () => number): number => Math.floor(draw() * records.length);

const edits: Record<string, Edit> = {
  'a record changed': (records, draw) => {
    const at = pickIndex(records, draw);
    const record = records[at] as DataRecord;
    return { records: records.map((each, number) => (number === at ? { ...each, name: `${String(each.name)} (yeni)` } : each)), ids: [record.id] };
  },
  'a record added': (records, draw, next) => {
    const at = pickIndex(records, draw);
    const added = neighbourhood(next());
    return { records: [...records.slice(0, at), added, ...records.slice(at)], ids: [added.id] };
  },
  'a record removed': (records, draw) => {
    const at = pickIndex(records, draw);
    return { records: records.filter((_, number) => number !== at), ids: [(records[at] as DataRecord).id] };
  },
  'two records swapped in place': (records, draw) => {
    const at = Math.min(pickIndex(records, draw), records.length - 2);
    const swapped = [...records];
    [swapped[at], swapped[at + 1]] = [swapped[at + 1] as DataRecord, swapped[at] as DataRecord];
    return { records: swapped, ids: [(records[at] as DataRecord).id, (records[at + 1] as DataRecord).id] };
  },
  'a record moved to another chunk': (records, draw) => {
    const from = pickIndex(records, draw);
    const moved = records[from] as DataRecord;
    const rest = records.filter((_, number) => number !== from);
    const to = (from + 500) % rest.length;
    return { records: [...rest.slice(0, to), moved, ...rest.slice(to)], ids: [moved.id] };
  },
  'a record moved and changed, another added, another removed': (records, draw, next) => {
    const from = pickIndex(records, draw);
    const moved = { ...(records[from] as DataRecord), zipCode: '99999' };
    const gone = (from + 700) % records.length;
    const rest = records.filter((_, number) => number !== from && number !== gone);
    const to = pickIndex(rest, draw);
    const added = neighbourhood(next());
    return { records: [added, ...rest.slice(0, to), moved, ...rest.slice(to)], ids: [moved.id, added.id, (records[gone] as DataRecord).id] };
  },
  'the last record changed': (records) => {
    const last = records.at(-1) as DataRecord;
    return { records: [...records.slice(0, -1), { ...last, name: 'Son Mahalle' }], ids: [last.id] };
  },
  'records appended': (records, _draw, next) => {
    const added = [neighbourhood(next()), neighbourhood(next())];
    return { records: [...records, ...added], ids: added.map((record) => record.id) };
  },
};

describe('change lists worked out chunk by chunk', () => {
  it.each(Object.keys(edits))('%s: the same list as every line compared, reading only the chunks that differ', async (name) => {
    const draw = random(name.length * 7919);
    let next = 100_000;
    const edit = edits[name] as Edit;
    const records = initial(3000);
    const first = await exportBuild(records);
    const { records: edited } = edit(records, draw, () => next++);
    const second = await exportBuild(edited, first);
    const changes = await changesBetween(first, second);
    expect(second.index.exports[type]?.ndjson.sha256).not.toBe(first.index.exports[type]?.ndjson.sha256);
    // A record moved with its line unchanged is no change to a client: compareLines says so, and so must the chunks.
    expect(changes).toEqual(expectedChanges(records, edited));
  });

  it('across several kept builds, each compared with the new one, a swapped pair reported as it is, and ten random rounds', async () => {
    const draw = random(42);
    let next = 200_000;
    let records = initial(2500);
    const kept: (KeptBuild & { records: DataRecord[] })[] = [];
    let latest = await exportBuild(records);
    kept.unshift({ ...latest, records });
    const names = Object.keys(edits);
    for (let round = 0; round < 10; round++) {
      const edit = edits[names[Math.floor(draw() * names.length)] as string] as Edit;
      records = edit(records, draw, () => next++).records;
      latest = await exportBuild(records, kept[0]);
      const lists = await buildChangeLists(latest.index, latest.built.lines, kept, kept[0]?.dir);
      for (const build of kept) {
        const list = JSON.parse(lists.files.get(`changes/${build.index.buildId}.json`)?.bytes.toString() ?? '{}') as { records: Record<string, RecordChanges> };
        const expected = expectedChanges(build.records, records);
        const none = expected.added.length + expected.removed.length + expected.changed.length === 0;
        expect(list.records[type], `round ${round} since ${build.index.buildId}`).toEqual(none ? undefined : expected);
      }
      kept.unshift({ ...latest, records });
    }
  });

  it('a kept build whose export is not made of readable members fails the change lists, naming the file and the way out', async () => {
    const records = initial(2000);
    const old = await exportBuild(records);
    const single = gzipSync(`${linesOf(records).join('\n')}\n`, { level: 9 });
    await writeFile(fileOf(old), single);
    const edited = edits['a record moved and changed, another added, another removed']?.(records, random(7), () => 300_000).records ?? [];
    const current = await exportBuild(edited);
    await expect(changesBetween(old, current)).rejects.toThrow(
      new RegExp(
        `${fileOf(old).replaceAll('.', '\\.')}, an export of kept build .+, is damaged: its gzip members cannot be read\\. Remove that build's folder`,
      ),
    );
  });
});

describe('a rebuild that knows which records changed', () => {
  it.each(Object.keys(edits))('%s: the bytes of a build from scratch, without making the unchanged lines', async (name) => {
    const draw = random(name.length * 104_729);
    let next = 400_000;
    const records = initial(3000);
    const first = await exportBuild(records);
    const { records: edited, ids } = (edits[name] as Edit)(records, draw, () => next++);
    const made = new Set<DataRecord>();
    const counting = (shownType: RecordType, record: DataRecord): string => {
      made.add(record);
      return shown(shownType, record);
    };
    const build = {
      buildId: '20270102T000000Z-abcdef',
      builtAt: '2027-01-02T00:00:00.000Z',
      dataVersion: 'hinted',
      sources: {},
    };
    const hinted = await buildExports(datasetOf(edited), counting, build, first, { chunkSize, changed: new Map([[type, new Set(ids)]]) });
    const scratch = await exportBuild(edited);
    expect(hinted.files.get(exportFile(type))?.bytes.equals(await bytesOf(scratch))).toBe(true);
    expect(hinted.index.exports[type]).toEqual(scratch.index.exports[type]);
    // Only the lines of the chunks the edit touched: a few hundred of 3,000.
    expect(made.size).toBeLessThan(edited.length / 3);
    expect(hinted.lines.get(type)?.chunks).toEqual(scratch.built.lines.get(type)?.chunks);
  });

  it('a type it does not name is the previous file, linked, its lines not made', async () => {
    const records = initial(2000);
    const first = await exportBuild(records);
    let made = 0;
    const counting = (shownType: RecordType, record: DataRecord): string => {
      made++;
      return shown(shownType, record);
    };
    const build = { buildId: '20270103T000000Z-abcdef', builtAt: '2027-01-03T00:00:00.000Z', dataVersion: 'kept', sources: {} };
    const kept = await buildExports(datasetOf(records), counting, build, first, { chunkSize, changed: new Map() });
    expect(made).toBe(0);
    expect(kept.files.get(exportFile(type))?.linkFrom).toBe(fileOf(first));
    expect(kept.index.exports[type]).toEqual(first.index.exports[type]);
  });

  it('a line changed without its id named, found cutting a chunk anew where lines are made: written from every line, as from scratch', async () => {
    const records = initial(2000);
    const first = await exportBuild(records);
    const members = (await readMembers(fileOf(first))) ?? [];
    const named = (members[0]?.lines ?? 0) + 2;
    // In the same chunk as the named record: a line as long as a chunk always ends one.
    const unnamed = named + 3;
    const edited = records.map((record, number) =>
      number === named ? { ...record, name: 'Adı Verilen' } : number === unnamed ? { ...record, name: 'x'.repeat(chunkSize) } : record,
    );
    const build = { buildId: '20270104T000000Z-abcdef', builtAt: '2027-01-04T00:00:00.000Z', dataVersion: 'unsaid', sources: {} };
    const changed = new Map([[type, new Set([(records[named] as DataRecord).id])]]);
    const hinted = await buildExports(datasetOf(edited), shown, build, first, { chunkSize, changed });
    const scratch = await exportBuild(edited);
    expect(hinted.files.get(exportFile(type))?.bytes.equals(await bytesOf(scratch))).toBe(true);
  });
});

describe('the NDJSON digest worked out on a worker thread', () => {
  it('is the SHA-256 and size of the members and texts given, in order', async () => {
    const records = initial(1500);
    const build = await exportBuild(records);
    const members = (await readMembers(fileOf(build))) ?? [];
    const bytes = await bytesOf(build);
    const inserted = Buffer.from('{"id":"inserted"}\n');
    const parts = [inserted, ...members.map((member) => ({ offset: member.offset, bytes: member.bytes }))];
    const text = Buffer.concat([inserted, gunzipSync(bytes)]);
    expect(
      await digestNdjson(
        fileOf(build),
        parts.map((part) => (Buffer.isBuffer(part) ? { text: part } : part)),
      ),
    ).toEqual({
      sha256: createHash('sha256').update(text).digest('hex'),
      bytes: text.length,
    });
    await expect(digestNdjson(path.join(build.dir, 'missing.gz'), [{ offset: 0, bytes: 10 }])).rejects.toThrow(/missing\.gz/);
  });
});

/** contract/lookupIndex.ts: bodies in packs, their entries in a head and shards, found by path, never read outside a shard. */
import { describe, expect, it } from 'vitest';
import {
  encodeLookupIndex,
  isLookupIndex,
  LookupHead,
  LookupShard,
  pageBytes,
  readFromBytes,
  shardFileOf,
  type ManifestHead,
  type PackedEntry,
  type ShardEntry,
} from '../../contract/lookupIndex.ts';
import { computeEtag } from '../../contract/manifest.ts';

const head = {
  buildId: 'b',
  counts: { country: 2 },
  ambiguous: [{ file: 'addressmanagement/api/country/getbyname/guiana.json', chosen: 'a', others: ['b'] }],
  aliases: {},
} as unknown as ManifestHead;
const bodies = new Map<string, Buffer>();
for (let number = 0; number < 5000; number++) {
  // Every tenth body the same as another: a pack keeps it once.
  bodies.set(`addressmanagement/api/neighborhood/getbyid/${number.toString(16).padStart(32, '0')}.json`, Buffer.from(`{"n":${number - (number % 10)}}`));
}
bodies.set('addressmanagement/api/country/getall.json', Buffer.from('[{"id":"tr"}]'));
const encoded = encodeLookupIndex(head, bodies, 1_000);
const files = encoded.entries;

/** Opens an encoded index as a proxy would: the head, then each shard named in it. */
function open(index: ReturnType<typeof encodeLookupIndex>): { head: LookupHead; find: (file: string) => PackedEntry | undefined; shards: LookupShard[] } {
  const opened = new LookupHead(index.head);
  const shards = opened.shards.map((entry, number) => {
    const bytes = index.files.get(shardFileOf(entry.etag)) as Buffer;
    expect(computeEtag(bytes)).toBe(entry.etag);
    expect(bytes.length).toBe(entry.size);
    return LookupShard.over(bytes, opened.shardBits, number, entry);
  });
  return { head: opened, shards, find: (file) => shards[opened.shardOf(file)]?.find(file) };
}

describe('the lookup index', () => {
  const index = encoded;
  const { head: opened, shards, find } = open(index);

  it('splits the files into shards of about the size asked for, and finds every file in its shard', () => {
    expect(isLookupIndex(index.head)).toBe(true);
    expect(opened.count).toBe(5001);
    expect(opened.shardBits).toBe(3);
    expect([...index.files.keys()].filter((file) => file.endsWith('.idx'))).toHaveLength(8);
    for (const shard of shards) expect(shard.count).toBeGreaterThan(400);
    for (const [file, entry] of Object.entries(files)) expect(find(file), file).toMatchObject(entry);
    for (const file of ['addressmanagement/api/country/getall.jso', 'addressmanagement/api/country/getall.json/', '', 'İstanbul.json']) {
      expect(find(file), file).toBeUndefined();
    }
    expect(opened.manifestHead()).toEqual(head);
    // manifest.json's order, key for key: the ambiguous lookups after the counts.
    expect(Object.keys(opened.manifestHead() as object)).toEqual(['buildId', 'counts', 'ambiguous', 'aliases']);
    expect(JSON.parse(opened.headBytes().toString('utf8'))).toEqual({ buildId: 'b', counts: { country: 2 }, aliases: {} });
    expect(JSON.parse(opened.ambiguousBytes().toString('utf8'))).toEqual(head.ambiguous);
    expect(Object.fromEntries(shards.flatMap((shard) => [...shard.entries()].map(([file, { size, etag }]) => [file, { size, etag }])))).toEqual(files);
  });

  it("keeps each body in its shard's pack, at its offset, each distinct body once", () => {
    for (const [file, body] of bodies) {
      const entry = find(file) as PackedEntry;
      const pack = index.files.get(entry.pack) as Buffer;
      expect(pack.subarray(entry.offset, entry.offset + entry.size).equals(body), file).toBe(true);
      expect(entry.etag).toBe(computeEtag(body));
    }
    for (const shard of shards) {
      const distinct = new Map([...shard.entries()].map(([file]) => [bodies.get(file)?.toString(), bodies.get(file)?.length ?? 0]));
      expect(index.files.get(shard.pack)?.length).toBe([...distinct.values()].reduce((sum, size) => sum + size, 0));
      expect(distinct.size).toBeLessThan(shard.count);
    }
  });

  it('names shards and packs by their content: unchanged ones keep their names, a changed body changes one shard and its pack', () => {
    const file = 'addressmanagement/api/country/getall.json';
    const changed = encodeLookupIndex(head, new Map([...bodies, [file, Buffer.from('[{"id":"de"}]')]]), 1_000);
    const before = [...index.files.keys()];
    const after = [...changed.files.keys()];
    expect(after.filter((name) => !before.includes(name)).map((name) => name.slice(name.lastIndexOf('.')))).toEqual(['.pack', '.idx']);
    expect(new LookupHead(changed.head).shards[opened.shardOf(file)]?.etag).not.toBe(opened.shards[opened.shardOf(file)]?.etag);
  });

  it('keeps a small build in one shard', () => {
    const small = encodeLookupIndex(head, new Map([['addressmanagement/api/country/getall.json', Buffer.from('[]')]]));
    expect(new LookupHead(small.head).shardBits).toBe(0);
    expect(open(small).find('addressmanagement/api/country/getall.json')).toMatchObject({ size: 2, etag: computeEtag(Buffer.from('[]')), offset: 0 });
  });

  it('answers a miss, never a read outside its page, when its entries are damaged', () => {
    const number = opened.shardOf('addressmanagement/api/country/getall.json');
    const listed = opened.shards[number] as ShardEntry;
    const bytes = Buffer.from(index.files.get(shardFileOf(listed.etag)) as Buffer);
    const shard = LookupShard.over(bytes, opened.shardBits, number, listed);
    expect(shard.find('addressmanagement/api/country/getall.json')).toBeDefined();
    const pages = bytes.readUInt32LE(14 + bytes.readUInt8(13) + 4);
    const offsetsStart = pageBytes + pages * pageBytes;
    for (let page = 0; page < pages; page++) {
      // Every entry's path said to run past its page, and more entries than the page holds.
      const start = pageBytes + page * pageBytes;
      for (let at = start + 4, entry = 0; entry < bytes.readUInt16LE(start); entry++) {
        const next = at + 15 + bytes.readUInt16LE(at + 4) + bytes.readUInt8(at + 14 + bytes.readUInt16LE(at + 4));
        bytes.writeUInt16LE(0xfff0, at + 4);
        at = next;
      }
      bytes.writeUInt16LE(0xffff, start);
    }
    for (let entry = 0; entry < shard.count; entry++) bytes.writeUInt32LE(0xfffffff0, offsetsStart + entry * 4);
    const broken = LookupShard.over(bytes, opened.shardBits, number, listed);
    expect(broken.find('addressmanagement/api/country/getall.json')).toBeUndefined();
    expect(broken.pathAt(0)).toBeUndefined();
    expect([...broken.entries()]).toEqual([]);
  });

  it('finds an entry by reading the one page of its shard its hash names, and now and then the next', () => {
    let reads = 0;
    let readOnce = 0;
    let paths = 0;
    for (const [number, listed] of opened.shards.entries()) {
      const bytes = index.files.get(shardFileOf(listed.etag)) as Buffer;
      const counted = new LookupShard(
        (target, position) => {
          reads++;
          expect(target.length).toBeLessThanOrEqual(pageBytes);
          return readFromBytes(bytes)(target, position);
        },
        opened.shardBits,
        number,
        listed,
      );
      for (const [file] of LookupShard.over(bytes, opened.shardBits, number, listed).entries()) {
        reads = 0;
        expect(counted.find(file), file).toMatchObject(files[file] ?? {});
        expect(reads, file).toBeLessThanOrEqual(3);
        if (reads === 1) readOnce++;
        paths++;
      }
      expect(bytes.length).toBeGreaterThan(30_000);
    }
    expect(paths).toBe(5001);
    expect(readOnce / paths).toBeGreaterThan(0.95);
  });

  it('refuses bytes that are no head or no shard, a shard in the wrong place, and a path that is not printable ASCII', () => {
    expect(() => new LookupHead(Buffer.from('{"buildId":"b"}'))).toThrow(/does not start with RDLI/);
    expect(() => new LookupHead(index.head.subarray(0, 40))).toThrow(/past its end/);
    expect(() => new LookupHead(Buffer.concat([index.head, Buffer.from([0])]))).toThrow(/bytes after its last shard/);
    // A byte of the ambiguous lookups changed: the head's SHA-256 of them no longer matches.
    const damaged = Buffer.from(index.head);
    const at = damaged.indexOf('guiana');
    damaged.write('guyana', at, 'latin1');
    expect(() => new LookupHead(damaged)).toThrow('its list of ambiguous lookups does not match its SHA-256: the file is damaged');
    const older = Buffer.from(index.head);
    older.writeUInt32LE(1, 4);
    expect(() => new LookupHead(older)).toThrow('it is of build format 1, this service reads format 4: build it again with this version (npm run build)');
    const first = index.files.get(shardFileOf(opened.shards[0]?.etag ?? '')) as Buffer;
    expect(() => LookupShard.over(first, opened.shardBits, 1, opened.shards[1] as ShardEntry)).toThrow(/is shard 0 of 2\^3, not shard 1 of 2\^3/);
    expect(() => LookupShard.over(index.head, opened.shardBits, 0, opened.shards[0] as ShardEntry)).toThrow(/does not start with RDLS/);
    expect(() => LookupShard.over(first, opened.shardBits, 0, { ...(opened.shards[0] as ShardEntry), count: 1 })).toThrow(/the head lists 1/);
    expect(() => encodeLookupIndex(head, new Map([['addressmanagement/api/country/getbyname/i̇stanbul.json', Buffer.from('{}')]]))).toThrow(/printable ASCII/);
  });
});

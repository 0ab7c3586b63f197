/** contract/lookupIndex.ts: a manifest's files in a head and shards, found by path, never read outside a shard. */
import { describe, expect, it } from 'vitest';
import { encodeLookupIndex, isLookupIndex, LookupHead, LookupShard, shardFileOf, type ManifestHead } from '../../contract/lookupIndex.ts';
import { computeEtag, type Manifest, type ManifestEntry } from '../../contract/manifest.ts';

const head = { buildId: 'b', counts: { country: 2 } } as unknown as ManifestHead;
const files: Manifest['files'] = {};
for (let number = 0; number < 5000; number++) {
  files[`addressmanagement/api/neighborhood/getbyid/${number.toString(16).padStart(32, '0')}.json`] = { size: number, etag: `"tag-${number}"` };
}
files['addressmanagement/api/country/getall.json'] = { size: 12, etag: '"AbCdEfGhIjKlMnOpQrStUvWxYz0"' };

/** Opens an encoded index as a proxy would: the head, then each shard named in it. */
function open(index: ReturnType<typeof encodeLookupIndex>): { head: LookupHead; find: (file: string) => ManifestEntry | undefined; shards: LookupShard[] } {
  const opened = new LookupHead(index.head);
  const shards = opened.shards.map((entry, number) => {
    const bytes = index.shards.get(shardFileOf(entry.etag)) as Buffer;
    expect(computeEtag(bytes)).toBe(entry.etag);
    expect(bytes.length).toBe(entry.size);
    return new LookupShard(bytes, opened.shardBits, number);
  });
  return { head: opened, shards, find: (file) => shards[opened.shardOf(file)]?.find(file) };
}

describe('the lookup index', () => {
  const index = encodeLookupIndex(head, files, 1_000);
  const { head: opened, shards, find } = open(index);

  it('splits the files into shards of about the size asked for, and finds every file in its shard', () => {
    expect(isLookupIndex(index.head)).toBe(true);
    expect(opened.count).toBe(5001);
    expect(opened.shardBits).toBe(3);
    expect(index.shards.size).toBe(8);
    for (const shard of shards) expect(shard.count).toBeGreaterThan(400);
    for (const [file, entry] of Object.entries(files)) expect(find(file), file).toEqual(entry);
    for (const file of ['addressmanagement/api/country/getall.jso', 'addressmanagement/api/country/getall.json/', '', 'İstanbul.json']) {
      expect(find(file), file).toBeUndefined();
    }
    expect(JSON.parse(opened.headBytes().toString('utf8'))).toEqual(head);
    expect(Object.fromEntries(shards.flatMap((shard) => [...shard.entries()]))).toEqual(files);
  });

  it('names a shard by its content: an unchanged shard keeps its name, a changed one gets another', () => {
    const file = 'addressmanagement/api/country/getall.json';
    const changed = encodeLookupIndex(head, { ...files, [file]: { size: 13, etag: '"another"' } }, 1_000);
    const before = [...index.shards.keys()];
    const after = [...changed.shards.keys()];
    expect(after.filter((name) => !before.includes(name))).toHaveLength(1);
    expect(new LookupHead(changed.head).shards[opened.shardOf(file)]?.etag).not.toBe(opened.shards[opened.shardOf(file)]?.etag);
  });

  it('keeps a small build in one shard', () => {
    const small = encodeLookupIndex(head, { 'addressmanagement/api/country/getall.json': { size: 1, etag: '"x"' } });
    expect(new LookupHead(small.head).shardBits).toBe(0);
    expect(open(small).find('addressmanagement/api/country/getall.json')).toEqual({ size: 1, etag: '"x"' });
  });

  it('answers a miss, never a read outside its bytes, when an entry offset is damaged', () => {
    const number = opened.shardOf('addressmanagement/api/country/getall.json');
    const bytes = Buffer.from(index.shards.get(shardFileOf(opened.shards[number]?.etag ?? '')) as Buffer);
    const shard = new LookupShard(bytes, opened.shardBits, number);
    const offsetsStart = 21 + bytes.readUInt32LE(17) * 4;
    for (let entry = 0; entry < shard.count; entry++) bytes.writeUInt32LE(0xfffffff0, offsetsStart + entry * 4);
    const broken = new LookupShard(bytes, opened.shardBits, number);
    expect(broken.find('addressmanagement/api/country/getall.json')).toBeUndefined();
    expect(broken.pathAt(0)).toBeUndefined();
    expect([...broken.entries()]).toEqual([]);
  });

  it('refuses bytes that are no head or no shard, a shard in the wrong place, and a path that is not printable ASCII', () => {
    expect(() => new LookupHead(Buffer.from('{"buildId":"b"}'))).toThrow(/does not start with RDLI/);
    expect(() => new LookupHead(index.head.subarray(0, 40))).toThrow(/past its end/);
    expect(() => new LookupHead(Buffer.concat([index.head, Buffer.from([0])]))).toThrow(/bytes after its last shard/);
    const first = index.shards.get(shardFileOf(opened.shards[0]?.etag ?? '')) as Buffer;
    expect(() => new LookupShard(first, opened.shardBits, 1)).toThrow(/is shard 0 of 2\^3, not shard 1 of 2\^3/);
    expect(() => new LookupShard(index.head, opened.shardBits, 0)).toThrow(/does not start with RDLS/);
    expect(() => encodeLookupIndex(head, { 'addressmanagement/api/country/getbyname/i̇stanbul.json': { size: 1, etag: '"x"' } })).toThrow(/printable ASCII/);
  });
});

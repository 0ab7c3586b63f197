/** contract/lookupIndex.ts: a manifest's files in one buffer with a hash table, found by path, never read outside it. */
import { describe, expect, it } from 'vitest';
import { encodeLookupIndex, isLookupIndex, LookupTable, type ManifestHead } from '../../contract/lookupIndex.ts';
import type { Manifest } from '../../contract/manifest.ts';

const head = { buildId: 'b', counts: { country: 2 } } as unknown as ManifestHead;
const files: Manifest['files'] = {};
for (let number = 0; number < 5000; number++) {
  files[`addressmanagement/api/neighborhood/getbyid/${number.toString(16).padStart(32, '0')}.json`] = { size: number, etag: `"tag-${number}"` };
}
files['addressmanagement/api/country/getall.json'] = { size: 12, etag: '"AbCdEfGhIjKlMnOpQrStUvWxYz0"' };

describe('the lookup index', () => {
  const bytes = encodeLookupIndex(head, files);
  const table = new LookupTable(bytes);

  it('finds every file with its entry, and nothing else', () => {
    expect(isLookupIndex(bytes)).toBe(true);
    expect(table.count).toBe(5001);
    for (const [file, entry] of Object.entries(files)) expect(table.find(file), file).toEqual(entry);
    for (const file of ['addressmanagement/api/country/getall.jso', 'addressmanagement/api/country/getall.json/', '', 'İstanbul.json']) {
      expect(table.find(file), file).toBeUndefined();
    }
    expect(JSON.parse(table.headBytes().toString('utf8'))).toEqual(head);
    expect(Object.fromEntries(table.entries())).toEqual(files);
  });

  it('answers a miss, never a read outside its bytes, when an entry offset is damaged', () => {
    const damaged = Buffer.from(bytes);
    const offsetsStart =
      damaged.length - Object.keys(files).reduce((sum, file) => sum + 2 + file.length + 4 + 1 + (files[file]?.etag.length ?? 2) - 2, 0) - 5001 * 4;
    for (let number = 0; number < 5001; number++) damaged.writeUInt32LE(0xfffffff0, offsetsStart + number * 4);
    const broken = new LookupTable(damaged);
    expect(broken.find('addressmanagement/api/country/getall.json')).toBeUndefined();
    expect(broken.pathAt(0)).toBeUndefined();
    expect([...broken.entries()]).toEqual([]);
  });

  it('refuses bytes that are no index, and a path that is not printable ASCII', () => {
    expect(() => new LookupTable(Buffer.from('{"buildId":"b"}'))).toThrow(/does not start with RDLI/);
    expect(() => new LookupTable(bytes.subarray(0, 40))).toThrow(/past its end/);
    expect(() => encodeLookupIndex(head, { 'addressmanagement/api/country/getbyname/i̇stanbul.json': { size: 1, etag: '"x"' } })).toThrow(/printable ASCII/);
  });
});

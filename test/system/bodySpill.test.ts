/** generator/packs/spill.ts: bodies kept on the disk while a build makes them come back shard by shard, as the index splits them. */
import { mkdir, mkdtemp, readdir, readFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { LookupHead, encodeHead, planShards, shardFileOf, packFileOf, type ShardEntry } from '../../contract/lookupIndex.ts';
import { SpilledBodies } from '../../generator/packs/spill.ts';
import { packSpill, type PackedShard } from '../../generator/packs/shards.ts';

/** 20,000 bodies, some of them long enough to fill a bucket's write buffer, some with letters outside ASCII. */
function bodies(): Map<string, string> {
  const made = new Map<string, string>();
  for (let number = 0; number < 20_000; number++) {
    const body = number % 997 === 0 ? `"${'ş'.repeat(200_000)}${number}"` : `{"n":${number},"name":"Çağlayan ${number}"}`;
    made.set(`addressmanagement/api/neighborhood/getbyid/${number.toString(16).padStart(32, '0')}.json`, body);
  }
  return made;
}

describe('the body spill', () => {
  it.each([
    ['fewer shards than buckets', 4_000],
    ['more shards than buckets', 16],
  ])('gives back every body in the shard the index puts it in, with %s', async (_what, perShard) => {
    const made = bodies();
    const spill = new SpilledBodies(await mkdtemp(path.join(tmpdir(), 'spill-')));
    for (const [file, body] of made) spill.set(file, body);
    expect(spill.count).toBe(made.size);
    const plan = planShards(made.keys(), perShard);
    expect(spill.shardBits(perShard)).toBe(plan.shardBits);
    const numbers: number[] = [];
    for (const [number, shard] of spill.shards(plan.shardBits)) {
      numbers.push(number);
      expect([...shard.keys()].sort(), `shard ${number}`).toEqual(plan.shards[number]);
      for (const [file, body] of shard) expect(body.toString('utf8'), file).toBe(made.get(file));
    }
    expect(numbers).toEqual(plan.shards.map((_, number) => number));
    spill.remove();
  });

  it('refuses a file made twice, and leaves nothing behind once removed', async () => {
    const dir = path.join(await mkdtemp(path.join(tmpdir(), 'spill-')), 'bodies');
    const spill = new SpilledBodies(dir);
    spill.set('addressmanagement/api/country/getall.json', '[]');
    spill.set('addressmanagement/api/country/getall.json', '[1]');
    expect(() => [...spill.shards(0)]).toThrow('addressmanagement/api/country/getall.json: two bodies were made for this file');
    expect(() => spill.set('addressmanagement/api/country/getbyname/i̇stanbul.json', '{}')).toThrow(/bodies cannot be added/);
    spill.remove();
    expect(await readdir(path.dirname(dir))).toEqual([]);
  });
});

describe('packing a spill', () => {
  /** The spill of bodies() packed into a fresh folder by `threads` threads: each shard as placed, and the folder. */
  async function packed(threads: number, perShard: number): Promise<{ shards: PackedShard[]; buildDir: string; shardBits: number }> {
    const spill = new SpilledBodies(await mkdtemp(path.join(tmpdir(), 'spill-')));
    for (const [file, body] of bodies()) spill.set(file, body);
    const shardBits = spill.shardBits(perShard);
    const buildDir = await mkdtemp(path.join(tmpdir(), 'packed-'));
    await mkdir(path.join(buildDir, 'lookups'));
    const shards: PackedShard[] = [];
    await packSpill(spill.seal(), shardBits, { buildDir, previousDir: undefined }, threads, (shard) => shards.push(shard));
    spill.remove();
    return { shards: shards.sort((a, b) => a.number - b.number), buildDir, shardBits };
  }

  it.each([
    ['more shards than buckets', 16],
    ['fewer shards than buckets', 4_000],
  ])('in worker threads gives the files one thread gives, every shard once, with %s', { timeout: 60_000 }, async (_what, perShard) => {
    const one = await packed(0, perShard);
    const two = await packed(2, perShard);
    expect(two.shards.map((shard) => shard.number)).toEqual(Array.from({ length: 2 ** one.shardBits }, (_, number) => number));
    expect(two.shards).toEqual(one.shards);
    expect(two.shards.reduce((sum, shard) => sum + shard.count, 0)).toBe(bodies().size);
    for (const { entry } of two.shards) {
      for (const file of [shardFileOf(entry.etag), packFileOf(entry.packEtag)]) {
        expect((await readFile(path.join(two.buildDir, file))).equals(await readFile(path.join(one.buildDir, file))), file).toBe(true);
      }
    }
    // The head over them reads back.
    const head = new LookupHead(
      encodeHead(
        { ambiguous: [] } as never,
        two.shardBits,
        two.shards.map((shard) => shard.entry as ShardEntry),
      ),
    );
    expect(head.count).toBe(bodies().size);
  });

  it('fails as a whole when a thread fails, naming what it could not read', async () => {
    const buildDir = await mkdtemp(path.join(tmpdir(), 'packed-'));
    const missing = path.join(buildDir, 'no-spill');
    await expect(packSpill(missing, 9, { buildDir, previousDir: undefined }, 2, () => undefined)).rejects.toThrow(/no-spill/);
  });
});

/** generator/bodySpill.ts: bodies kept on the disk while a build makes them come back shard by shard, as the index splits them. */
import { mkdtemp, readdir } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { planShards } from '../../contract/lookupIndex.ts';
import { SpilledBodies } from '../../generator/bodySpill.ts';

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

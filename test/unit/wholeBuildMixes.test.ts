/**
 * The bench's mixes as `npm run bench` draws them, from a build's lookup index shard by shard
 * (test/bench/mixes.ts sampleBuildMixes), on the fixture build: the same mixes as drawn from its
 * manifest in memory; the random mix every body a query names once (the fixture has fewer than it
 * asks), each of them answered by the query it is asked with, in an order the seed makes; the
 * skewed mix over the same bodies, a few of them asked most.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import type { Manifest } from '../../contract/manifest.ts';
import { benchMixIds, sampleBuildMixes, sampleMixes } from '../bench/mixes.ts';
import { spellingOf } from '../bench/spelling.ts';
import type { UrlMix } from '../bench/urls.ts';
import { zipfRank } from '../bench/wholeBuild.ts';
import { buildFixture } from '../support/service.ts';
import { readBuildManifest } from '../support/store.ts';

let distDir: string;
let manifest: Manifest;

beforeAll(async () => {
  distDir = await buildFixture();
  manifest = await readBuildManifest(distDir);
});

async function wholeBuildMixes(count: number, seed: number): Promise<{ random: UrlMix; skewed: UrlMix }> {
  const mixes = await sampleBuildMixes(distDir, ['random', 'skewed'], { byOperation: 1, wholeBuild: count }, seed);
  return { random: mixes.get('random') as UrlMix, skewed: mixes.get('skewed') as UrlMix };
}

describe("the bench's mixes drawn from a build's index", () => {
  it('are the mixes drawn from its manifest in memory, for every mix', async () => {
    const fromIndex = await sampleBuildMixes(distDir, benchMixIds, { byOperation: 300, wholeBuild: 300 }, 3);
    expect(fromIndex).toEqual(sampleMixes(manifest, benchMixIds, 300, 3));
  });

  it('the random mix asks every body a query names once, in other languages and by postal code among them, in an order the seed makes', async () => {
    const spelled = Object.keys(manifest.files).filter((file) => spellingOf(file)?.proxyPath !== undefined);
    const { random } = await wholeBuildMixes(100_000, 1);
    expect(random.population).toBe(spelled.length);
    expect(random.lookups).toHaveLength(spelled.length);
    expect(new Set(random.lookups.map((lookup) => lookup.file))).toEqual(new Set(spelled));
    expect(random.unreadableKeys).toBe(0);
    expect(random.lookups.some((lookup) => lookup.proxyPath.includes('&language='))).toBe(true);
    expect(random.lookups.some((lookup) => lookup.proxyPath.includes('/getbyzipcode?'))).toBe(true);
    expect((await wholeBuildMixes(100_000, 1)).random).toEqual(random);
    expect((await wholeBuildMixes(100_000, 2)).random.lookups.map((lookup) => lookup.file)).not.toEqual(random.lookups.map((lookup) => lookup.file));
  });

  it('a random mix smaller than the build is as many distinct bodies', async () => {
    const { random } = await wholeBuildMixes(50, 1);
    expect(random.lookups).toHaveLength(50);
    expect(random.distinct).toBe(50);
    expect(random.population).toBeGreaterThan(200);
  });

  it("the skewed mix asks the random mix's bodies, a few of them most and many once", async () => {
    const { random, skewed } = await wholeBuildMixes(2_000, 1);
    const bodies = new Set(random.lookups.map((lookup) => lookup.file));
    expect(skewed.lookups).toHaveLength(2_000);
    expect(skewed.lookups.every((lookup) => bodies.has(lookup.file))).toBe(true);
    const asked = new Map<string, number>();
    for (const lookup of skewed.lookups) asked.set(lookup.file, (asked.get(lookup.file) ?? 0) + 1);
    const counts = [...asked.values()].sort((a, b) => b - a);
    // Rank 1 of the fixture's bodies is asked about ln 2 / ln 267 of the time (12 %).
    expect(counts[0]).toBeGreaterThan(150);
    expect(counts.filter((count) => count === 1).length).toBeGreaterThan(20);
  });

  it('a Zipf rank lies between 1 and the population, rank 1 the likeliest', () => {
    for (const population of [1, 10, 4_500_000]) {
      expect(zipfRank(() => 0, population, 1)).toBe(1);
      expect(zipfRank(() => 0.999_999_999, population, 1)).toBe(population);
      expect(zipfRank(() => 0.999_999_999, population, 1.2)).toBeLessThanOrEqual(population);
    }
    expect(zipfRank(() => 0.5, 4_500_000, 1)).toBeLessThan(3_000);
  });
});

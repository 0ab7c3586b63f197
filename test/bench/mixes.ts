/**
 * The request mixes `npm run bench` loads every server with, each drawn from the build being served
 * (urls.ts), each written as one wrk paths file per server. Drawn by operation, from the lookups by
 * keys (urls.ts sampleUrlMix):
 *
 * - sampled: the mix of earlier runs, mostly single records, some lists, a few of the largest bodies;
 * - small: single records with small bodies only, where a server's cost per request shows most;
 * - flags: single countries, every body carrying its flag as base64 text (588 bytes to 242 KB on
 *   the full data), where the bytes written matter more than the work per request.
 *
 * Drawn over the whole build, every body a query names (wholeBuild.ts), where what a server does
 * with data that fits no cache shows:
 *
 * - random: tens of thousands of distinct bodies, drawn uniformly, each asked once;
 * - skewed: the same population with a Zipf skew, a head of popular bodies and a long tail.
 */
import type { Manifest } from '../../contract/manifest.ts';
import { type BodySampler, ClassShareSampler, type MixSelection, sampleBuild, sampleManifest, type UrlMix } from './urls.ts';
import { skewExponent, WholeBuildSampler } from './wholeBuild.ts';

/** The mixes drawn by operation from the lookups by keys. */
export const mixIds = ['sampled', 'small', 'flags'] as const;
export type MixId = (typeof mixIds)[number];

/** The mixes drawn over every body of the build a query names. */
export const wholeBuildMixIds = ['random', 'skewed'] as const;
export type WholeBuildMixId = (typeof wholeBuildMixIds)[number];

/** Every mix, in the reports' order: the whole build's beside the small mix. */
export const benchMixIds = ['sampled', 'small', 'random', 'skewed', 'flags'] as const;
export type BenchMixId = (typeof benchMixIds)[number];

export function isWholeBuildMix(id: BenchMixId): id is WholeBuildMixId {
  return (wholeBuildMixIds as readonly string[]).includes(id);
}

/** The size bound of the small mix: every single record but a country's (which carries a flag) is under it on the full data. */
export const smallBodyBytes = 512;

export const mixLabels: Record<BenchMixId, string> = {
  sampled: 'sampled: 80 % single records, 15 % lists, 5 % the largest bodies',
  small: `small: single records of at most ${smallBodyBytes} bytes`,
  flags: 'flags: single countries, each body with its base64 flag',
  random: 'random: distinct bodies drawn uniformly over the whole build, every kind of lookup, each asked once',
  skewed: `skewed: the random mix's population with a Zipf skew (s = ${skewExponent}), a head of popular bodies and a long tail`,
};

const selections: Record<MixId, MixSelection | undefined> = {
  sampled: undefined,
  small: (route, entry) => route.shape === 'single' && entry.size <= smallBodyBytes,
  // generator/records/schemas.ts requires a flag on every country; only the operations that omit it (getall) lack one.
  flags: (route) => route.record === 'country' && route.shape === 'single' && !route.document && !route.omit?.includes('flag'),
};

/** How many lookups each kind of mix draws: by operation, and over the whole build. */
export interface MixCounts {
  readonly byOperation: number;
  readonly wholeBuild: number;
}

/** The samplers of the named mixes; the whole build's mixes share one sample. */
function samplersFor(ids: readonly BenchMixId[], counts: MixCounts, seed: number): { all: BodySampler[]; mixes: () => Map<BenchMixId, UrlMix> } {
  const byOperation = new Map(
    ids.flatMap((id) => (isWholeBuildMix(id) ? [] : [[id, new ClassShareSampler(counts.byOperation, seed, selections[id])] as const])),
  );
  const wholeBuild = ids.some(isWholeBuildMix) ? new WholeBuildSampler(counts.wholeBuild, seed) : undefined;
  return {
    all: [...byOperation.values(), ...(wholeBuild ? [wholeBuild] : [])],
    mixes: () =>
      new Map(
        ids.map((id) => {
          if (!isWholeBuildMix(id)) return [id, (byOperation.get(id) as ClassShareSampler).mix()];
          const sample = wholeBuild as WholeBuildSampler;
          return [id, id === 'random' ? sample.random() : sample.skewed()];
        }),
      ),
  };
}

/** The named mixes from a manifest in memory: `count` lookups each, from the same seed. */
export function sampleMixes(manifest: Manifest, ids: readonly BenchMixId[], count: number, seed: number): Map<BenchMixId, UrlMix> {
  const { all, mixes } = samplersFor(ids, { byOperation: count, wholeBuild: count }, seed);
  sampleManifest(manifest, all);
  return mixes();
}

/**
 * The named mixes from the build at `distDir`, read from its lookup index shard by shard: what is
 * held is the mixes, not the build's list of bodies. The same mixes as sampleMixes over its manifest.
 */
export async function sampleBuildMixes(distDir: string, ids: readonly BenchMixId[], counts: MixCounts, seed: number): Promise<Map<BenchMixId, UrlMix>> {
  const { all, mixes } = samplersFor(ids, counts, seed);
  await sampleBuild(distDir, all);
  return mixes();
}

/** --mix's list, checked against the mixes `known` (by default those drawn by operation, which bench:ab takes), in the reports' order. */
export function parseMixes(list: string, known: readonly BenchMixId[] = mixIds): BenchMixId[] | string {
  const named = list
    .split(',')
    .map((id) => id.trim())
    .filter((id) => id !== '');
  const unknown = named.filter((id) => !(known as readonly string[]).includes(id));
  if (unknown.length > 0 || named.length === 0) return `--mix takes one or more of ${known.join(', ')}, comma-separated (got ${JSON.stringify(list)})`;
  return known.filter((id) => named.includes(id));
}

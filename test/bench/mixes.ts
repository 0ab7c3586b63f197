/**
 * The request mixes `npm run bench` loads every server with, each drawn from the manifest of the
 * build being served (urls.ts), each written as one wrk paths file per server:
 *
 * - sampled: the mix of earlier runs, mostly single records, some lists, a few of the largest bodies;
 * - small: single records with small bodies only, where a server's cost per request shows most;
 * - flags: single countries, every body carrying its flag as base64 text (588 bytes to 242 KB on
 *   the full data), where the bytes written matter more than the work per request.
 */
import type { Manifest } from '../../contract/manifest.ts';
import { sampleUrlMix, type MixSelection, type UrlMix } from './urls.ts';

export const mixIds = ['sampled', 'small', 'flags'] as const;
export type MixId = (typeof mixIds)[number];

/** The size bound of the small mix: every single record but a country's (which carries a flag) is under it on the full data. */
export const smallBodyBytes = 512;

export const mixLabels: Record<MixId, string> = {
  sampled: 'sampled: 80 % single records, 15 % lists, 5 % the largest bodies',
  small: `small: single records of at most ${smallBodyBytes} bytes`,
  flags: 'flags: single countries, each body with its base64 flag',
};

const selections: Record<MixId, MixSelection | undefined> = {
  sampled: undefined,
  small: (route, entry) => route.shape === 'single' && entry.size <= smallBodyBytes,
  // generator/schemas.ts requires a flag on every country; only the operations that omit it (getall) lack one.
  flags: (route) => route.record === 'country' && route.shape === 'single' && !route.document && !route.omit?.includes('flag'),
};

/** The named mixes, each `count` lookups from the same seed. */
export function sampleMixes(manifest: Manifest, ids: readonly MixId[], count: number, seed: number): Map<MixId, UrlMix> {
  return new Map(ids.map((id) => [id, sampleUrlMix(manifest, count, seed, selections[id])]));
}

/** --mix's list, checked, in the reports' order. */
export function parseMixes(list: string): MixId[] | string {
  const named = list
    .split(',')
    .map((id) => id.trim())
    .filter((id) => id !== '');
  const unknown = named.filter((id) => !(mixIds as readonly string[]).includes(id));
  if (unknown.length > 0 || named.length === 0) return `--mix takes one or more of ${mixIds.join(', ')}, comma-separated (got ${JSON.stringify(list)})`;
  return mixIds.filter((id) => named.includes(id));
}

/**
 * The bench's request mixes (test/bench/mixes.ts) hold what their names say, on the fixture build:
 * the small mix only single records within its size bound, the flags mix only countries whose
 * bodies carry a flag, the sampled mix all three classes; and --mix refuses what it does not know.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { findRoute } from '../../contract/routes.ts';
import { mixIds, parseMixes, sampleMixes, smallBodyBytes } from '../bench/mixes.ts';
import type { UrlMix } from '../bench/urls.ts';
import { buildFixture } from '../support/service.ts';
import { packedBody, readBuildManifest, type PackedBody } from '../support/store.ts';

let distDir: string;
let mixes: Map<string, UrlMix>;

beforeAll(async () => {
  distDir = await buildFixture();
  mixes = sampleMixes(await readBuildManifest(distDir), mixIds, 300, 1);
});

const mix = (id: string): UrlMix => {
  const found = mixes.get(id);
  if (!found) throw new Error(`no ${id} mix`);
  return found;
};

describe('the bench request mixes', () => {
  it('the small mix is single records of at most its size bound, from more than one operation', () => {
    const { lookups } = mix('small');
    expect(lookups).toHaveLength(300);
    for (const lookup of lookups) {
      expect(findRoute(lookup.operation)?.shape, lookup.file).toBe('single');
      expect(lookup.size, lookup.file).toBeLessThanOrEqual(smallBodyBytes);
    }
    expect(new Set(lookups.map((lookup) => lookup.operation)).size).toBeGreaterThan(5);
  });

  it('the flags mix is single countries, and every body carries a base64 flag', async () => {
    const { lookups } = mix('flags');
    expect(new Set(lookups.map((lookup) => findRoute(lookup.operation)?.record))).toEqual(new Set(['country']));
    for (const lookup of [...new Map(lookups.map((item) => [item.file, item])).values()]) {
      const body = JSON.parse(((await packedBody(distDir, lookup.file)) as PackedBody).bytes.toString('utf8')) as { flag?: unknown };
      expect(body.flag, lookup.file).toMatch(/^[A-Za-z0-9+/]{100,}={0,2}$/);
    }
  });

  it('the sampled mix draws single records, lists and the largest bodies', () => {
    const { byClass } = mix('sampled');
    expect(byClass.single).toBeGreaterThan(byClass.list);
    expect(byClass.list).toBeGreaterThan(0);
    expect(byClass.large).toBeGreaterThan(0);
  });

  it('--mix takes known mixes in the report order and names the ones it does not know', () => {
    expect(parseMixes('flags, sampled')).toEqual(['sampled', 'flags']);
    expect(parseMixes('small,big')).toBe('--mix takes one or more of sampled, small, flags, comma-separated (got "small,big")');
    expect(parseMixes(',')).toMatch(/^--mix takes one or more/);
  });
});

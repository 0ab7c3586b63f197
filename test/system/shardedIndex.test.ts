/**
 * A build whose lookup index is split into many shards (contract/lookupIndex.ts) is served exactly
 * as one in a single shard: every lookup waits for the shards it needs (proxy/http/lookups.ts), a
 * search and a lookup in several languages among them. The fixture build is small enough for one
 * shard; here it is re-indexed in shards of 4 entries, as a build of millions of bodies is.
 */
import { readFile, realpath, rm } from 'node:fs/promises';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { LookupHead, lookupIndexFileName, shardFileOf } from '../../contract/lookupIndex.ts';
import type { RunningService } from '../../proxy/service.ts';
import { sampleUrlMix, type Lookup } from '../bench/urls.ts';
import { buildFixture, startTestService, testKey } from '../support/service.ts';
import { readBuildManifest, reshardBuild } from '../support/store.ts';

const address = '/addressmanagement/api';
const auth = { Authorization: `Bearer ${testKey}` };

async function answer(service: RunningService, target: string): Promise<{ status: number; body: unknown; language: string | null; code: string | null }> {
  const response = await fetch(`${service.running.url}${target}`, { headers: auth });
  const { body } = (await response.json()) as { body: unknown };
  return { status: response.status, body, language: response.headers.get('content-language'), code: response.headers.get('x-error-code') };
}

describe('a build whose lookup index is in many shards', () => {
  let plain: RunningService;
  let sharded: RunningService;
  let shardedDir: string;
  let targets: string[];
  let mix: readonly Lookup[];
  let shards: number;
  beforeAll(async () => {
    const plainDir = await buildFixture();
    shardedDir = await buildFixture();
    shards = await reshardBuild(shardedDir, 4);
    plain = await startTestService(plainDir);
    sharded = await startTestService(shardedDir, { API_KEYS: testKey, INDEX_CACHE_MB: '4' });
    const manifest = await readBuildManifest(plainDir);
    const tr = (await (await fetch(`${plain.running.url}${address}/country/getbyalpha2code?alpha2code=TR`, { headers: auth })).json()) as {
      body: { id: string };
    };
    mix = sampleUrlMix(manifest, 300, 7).lookups;
    targets = [
      ...new Set(mix.map((lookup) => lookup.proxyPath)),
      `${address}/country/searchbyname?name=türki`,
      `${address}/stateprovince/searchbyname?name=İST&countryid=${tr.body.id}`,
      `${address}/country/getbyname?name=nowhere`,
      `${address}/countryholiday/getbycountryid?countryid=${tr.body.id}&year=2026`,
    ];
  });
  afterAll(async () => {
    await Promise.all([plain?.close(), sharded?.close()]);
  });

  it('answers every lookup, search and miss exactly as the build in one shard', async () => {
    expect(shards).toBeGreaterThan(64);
    expect(targets.length).toBeGreaterThan(100);
    for (const target of targets) expect(await answer(sharded, target), target).toEqual(await answer(plain, target));
  });

  it('answers the same lookups asked all at once, each shard read once however many wait for it', async () => {
    const fresh = await startTestService(shardedDir, { API_KEYS: testKey });
    try {
      const replies = await Promise.all(targets.map((target) => answer(fresh, target)));
      for (const [position, target] of targets.entries()) expect(replies[position], target).toEqual(await answer(plain, target));
    } finally {
      await fresh.close();
    }
  });

  it('a shard lost from the disk fails only the lookups it lists, with a 503 envelope, and the rest are answered', async () => {
    const fresh = await startTestService(shardedDir, { API_KEYS: testKey });
    const buildDir = await realpath(shardedDir);
    const head = new LookupHead(await readFile(path.join(buildDir, lookupIndexFileName)));
    const shardOfLookup = (lookup: Lookup): number => head.shardOf(lookup.file);
    const lost = shardOfLookup(mix[0] as Lookup);
    await rm(path.join(buildDir, shardFileOf(head.shards[lost]?.etag ?? '')));
    try {
      const inLost = mix.filter((lookup) => shardOfLookup(lookup) === lost);
      const elsewhere = mix.filter((lookup) => shardOfLookup(lookup) !== lost);
      expect(elsewhere.length).toBeGreaterThan(100);
      const replies = await Promise.all(mix.map((lookup) => answer(fresh, lookup.proxyPath)));
      for (const [position, lookup] of mix.entries()) {
        const reply = replies[position];
        if (inLost.includes(lookup)) expect(reply, lookup.proxyPath).toMatchObject({ status: 503, code: 'ERR_UNAVAILABLE' });
        else expect(reply, lookup.proxyPath).toEqual(await answer(plain, lookup.proxyPath));
      }
    } finally {
      await fresh.close();
    }
  });
});

/**
 * The data's licences where a user sees them: each export's entry of /exports/ states its terms
 * and attribution, and /docs and /openapi.json say the same, on a proxy over the fixture build.
 */
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { exportsIndexSchema } from '../../contract/downloads.ts';
import { countriesStatesCitiesAttribution, geonamesAttribution, worldCountriesAttribution } from '../../contract/recordTypes.ts';
import { buildDist } from '../../generator/build.ts';
import type { RunningServer } from '../../proxy/http/server.ts';
import { copyFixture, startProxy, tempDir, testKey } from '../support/service.ts';

let proxy: RunningServer;

beforeAll(async () => {
  const distDir = path.join(await tempDir(), 'dist');
  await buildDist({ dataDir: await copyFixture(), distDir });
  proxy = await startProxy(distDir);
});
afterAll(() => proxy.close());

const get = (target: string): Promise<Response> => fetch(`${proxy.url}${target}`, { headers: { Authorization: `Bearer ${testKey}` } });

describe("the exports index states each export's terms", () => {
  it('districts under the ODbL as a whole, crediting the Countries States Cities Database and GeoNames', async () => {
    const { body } = (await (await get('/exports/')).json()) as { body: unknown };
    const index = exportsIndexSchema.parse(body);
    expect(index.exports.district?.licence).toMatchObject({ spdx: 'ODbL-1.0', attribution: [countriesStatesCitiesAttribution, geonamesAttribution] });
    expect(index.exports.district?.licence?.terms).toContain('share-alike');
  });

  it('neighbourhoods and postal codes under CC BY 4.0, crediting GeoNames; countries under the ODbL', async () => {
    const index = exportsIndexSchema.parse(((await (await get('/exports/')).json()) as { body: unknown }).body);
    expect(index.exports.neighborhood?.licence).toMatchObject({ spdx: 'CC-BY-4.0', attribution: [geonamesAttribution] });
    expect(index.exports.country?.licence?.attribution).toContain(worldCountriesAttribution);
    expect(index.exports.bank?.licence).toBeUndefined();
  });
});

describe('the docs page and the OpenAPI document name the same terms', () => {
  it('/docs credits GeoNames and the Countries States Cities Database', async () => {
    const page = await (await fetch(`${proxy.url}/docs`)).text();
    expect(page).toContain(geonamesAttribution);
    expect(page).toContain(countriesStatesCitiesAttribution);
    expect(page).toContain('ODbL 1.0 (share-alike)');
  });

  it("/openapi.json's info credits both and keeps the licence expression", async () => {
    const { info } = (await (await fetch(`${proxy.url}/openapi.json`)).json()) as { info: { description: string; license: { identifier: string } } };
    expect(info.description).toContain(geonamesAttribution);
    expect(info.description).toContain(countriesStatesCitiesAttribution);
    expect(info.license.identifier).toContain('ODbL-1.0');
    expect(info.license.identifier).toContain('CC-BY-4.0');
  });
});

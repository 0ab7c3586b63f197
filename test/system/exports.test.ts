/**
 * The change lists and exports over HTTP (docs/api.md, "Change lists" and "Exports"): a proxy on a
 * fixture dist built twice, the second time with one bank replaced by another, as a mirroring
 * client sees it.
 */
import { createHash } from 'node:crypto';
import { readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { gunzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { changeListSchema, exportsIndexSchema, type ChangeList, type ExportsIndex } from '../../contract/downloads.ts';
import { buildFormat, lookupIndexFileName, type ManifestHead } from '../../contract/lookupIndex.ts';
import { manifestHeadSchema } from '../../contract/manifest.ts';
import { buildDist } from '../../generator/build.ts';
import { buildsRootOf } from '../../contract/builds.ts';
import { keptBuildIds, rollback } from '../../generator/rollback.ts';
import type { RunningServer } from '../../proxy/http/server.ts';
import { copyFixture, pick, repoRoot, startProxy, tempDir, testKey, type FixtureRecord } from '../support/service.ts';

const addressKey = 'address-only-key-0123456789';

let proxy: RunningServer;
let manifest: ManifestHead;
let firstBuild: string;
let distDir: string;
let removedBank: FixtureRecord;
let addedBank: FixtureRecord;

beforeAll(async () => {
  const dataDir = await copyFixture();
  distDir = path.join(await tempDir(), 'dist');
  await buildDist({ dataDir, distDir });
  firstBuild = manifestHeadSchema.parse(JSON.parse(await readFile(path.join(distDir, 'manifest.json'), 'utf8'))).buildId;
  // İş Bankası out, Halkbank (a real bank the fixture lacks, data/records/bank.json) in.
  const banksFile = path.join(dataDir, 'records/bank.json');
  const banks = JSON.parse(await readFile(banksFile, 'utf8')) as FixtureRecord[];
  removedBank = pick(banks, 'code', '064');
  const realBanks = JSON.parse(await readFile(path.join(repoRoot, 'data/records/bank.json'), 'utf8')) as FixtureRecord[];
  addedBank = { ...pick(realBanks, 'code', '012'), countryId: removedBank.countryId };
  await writeFile(banksFile, JSON.stringify([...banks.filter((bank) => bank !== removedBank), addedBank]));
  await buildDist({ dataDir, distDir });
  manifest = manifestHeadSchema.parse(JSON.parse(await readFile(path.join(distDir, 'manifest.json'), 'utf8')));
  const keys = path.join(await tempDir(), 'keys');
  await writeFile(keys, `${testKey}\n${addressKey} address.read\n`);
  proxy = await startProxy(distDir, { API_KEYS_FILE: keys, FINANCE_SCOPE: 'finance.read', ADDRESS_SCOPE: 'address.read' });
});
afterAll(() => proxy.close());

function get(target: string, headers: Record<string, string> = {}, method = 'GET'): Promise<Response> {
  return fetch(`${proxy.url}${target}`, { method, headers: { Authorization: `Bearer ${testKey}`, ...headers } });
}

async function envelope<T>(target: string, headers: Record<string, string> = {}): Promise<{ status: number; body: T; message: string | null }> {
  const response = await get(target, headers);
  const { header, body } = (await response.json()) as { header: { message: string | null }; body: T };
  return { status: response.status, body, message: header.message };
}

const bytesOf = async (response: Response): Promise<Buffer> => Buffer.from(await response.arrayBuffer());

describe('a token is required', () => {
  it.each(['/meta/changes', '/exports/', '/exports/country.ndjson.gz'])('401 for %s without one, with the Bearer challenge', async (target) => {
    const response = await fetch(`${proxy.url}${target}`);
    expect(response.status).toBe(401);
    expect(response.headers.get('www-authenticate')).toBe('Bearer realm="reference-data"');
  });

  it("a record type's export needs its area's scope, as its lookups do; the index and the change lists any token", async () => {
    const asAddressKey = { Authorization: `Bearer ${addressKey}` };
    expect((await get('/exports/country.ndjson.gz', asAddressKey)).status).toBe(200);
    const refused = await get('/exports/bank.ndjson.gz', asAddressKey);
    expect(refused.status).toBe(403);
    expect(refused.headers.get('www-authenticate')).toContain('error="insufficient_scope", scope="finance.read"');
    expect((await get('/exports/', asAddressKey)).status).toBe(200);
    expect((await get('/meta/changes', asAddressKey)).status).toBe(200);
  });
});

describe('/meta/changes', () => {
  it('answers the change list against the build this one replaced: the bank added and the one removed', async () => {
    const { status, body } = await envelope<ChangeList>('/meta/changes');
    expect(status).toBe(200);
    expect(changeListSchema.parse(body)).toMatchObject({
      from: { buildId: firstBuild },
      to: { buildId: manifest.buildId, dataVersion: manifest.dataVersion },
      records: { bank: { added: [addedBank.id], removed: [removedBank.id], changed: [] } },
      sources: [],
    });
    expect(Object.keys(body.records)).toEqual(['bank']);
  });

  it('?since= a kept build answers the list since it; since this build, an empty one; in the envelope with an ETag and 304', async () => {
    expect((await envelope<ChangeList>(`/meta/changes?since=${firstBuild}`)).body).toEqual((await envelope<ChangeList>('/meta/changes')).body);
    const current = await envelope<ChangeList>(`/meta/changes?SINCE=${manifest.buildId}`);
    expect(current.body).toMatchObject({ from: { buildId: manifest.buildId }, to: { buildId: manifest.buildId }, records: {}, sources: [] });
    const response = await get('/meta/changes');
    const etag = response.headers.get('etag') ?? '';
    expect(etag).toBe(manifest.downloads[manifest.changes.latest]?.etag);
    expect(response.headers.get('x-data-version')).toBe(manifest.dataVersion);
    expect((await get('/meta/changes', { 'If-None-Match': etag })).status).toBe(304);
  });

  it('404 for a build not kept, naming the builds that are; 400 for a since that is not a build id, or given twice', async () => {
    const notKept = await envelope('/meta/changes?since=20200101T000000Z-abcdef');
    expect(notKept.status).toBe(404);
    expect(notKept.message).toContain('20200101T000000Z-abcdef is not kept');
    expect(notKept.message).toContain(`the kept builds are ${manifest.buildId}, ${firstBuild}`);
    expect(notKept.message).toContain('/exports/');
    for (const since of ['yesterday', '', '../manifest.json']) {
      const malformed = await envelope(`/meta/changes?since=${encodeURIComponent(since)}`);
      expect(malformed.status, since).toBe(400);
      expect(malformed.message, since).toContain('expected a build id such as');
    }
    const twice = await envelope(`/meta/changes?since=${firstBuild}&since=${firstBuild}`);
    expect(twice.status).toBe(400);
    expect(twice.message).toContain('given 2 times');
  });
});

describe('/exports', () => {
  let index: ExportsIndex;
  beforeAll(async () => {
    index = exportsIndexSchema.parse((await envelope<ExportsIndex>('/exports/')).body);
  });

  it('/exports/ is the index: per record type its path, count, size and SHA-256, the counts those of /meta', async () => {
    const meta = (await envelope<{ counts: Record<string, number> }>('/meta')).body;
    expect(index.buildId).toBe(manifest.buildId);
    expect(Object.fromEntries(Object.entries(index.exports).map(([type, entry]) => [type, entry.records]))).toEqual(meta.counts);
    for (const target of ['/exports', '/exports/index', '/EXPORTS/']) expect((await envelope(target)).body, target).toEqual(index);
  });

  it('a download is the gzip file as it is: its SHA-256 that of the index, its NDJSON the records as their lookups answer them', async () => {
    for (const [type, lookup] of [
      ['bank', '/financemanagement/api/bank/getbyid'],
      ['country', '/addressmanagement/api/country/getbyid'],
    ] as const) {
      const entry = index.exports[type];
      const response = await get(entry?.path ?? '', { 'Accept-Encoding': 'gzip, br' });
      expect(response.status).toBe(200);
      expect(response.headers.get('content-type')).toBe('application/gzip');
      expect(response.headers.get('content-encoding')).toBeNull();
      expect(response.headers.get('content-disposition')).toBe(`attachment; filename="${type}.ndjson.gz"`);
      expect(response.headers.get('accept-ranges')).toBe('bytes');
      expect(response.headers.get('etag')).toBe(entry?.etag);
      const bytes = await bytesOf(response);
      expect(bytes.length).toBe(entry?.bytes);
      expect(createHash('sha256').update(bytes).digest('hex')).toBe(entry?.sha256);
      const lines = gunzipSync(bytes).toString('utf8').split('\n');
      expect(lines.pop()).toBe('');
      expect(lines).toHaveLength(entry?.records ?? -1);
      for (const line of lines) {
        const record = JSON.parse(line) as { id: string };
        expect((await envelope(`${lookup}?id=${record.id}`)).body, line).toEqual(record);
      }
    }
    const banks = gunzipSync(await bytesOf(await get('/exports/bank.ndjson.gz'))).toString('utf8');
    expect(banks).toContain(addedBank.id);
    expect(banks).not.toContain(removedBank.id);
  });

  it('304 for its ETag; HEAD gives the headers of GET without the file', async () => {
    const etag = index.exports.country?.etag ?? '';
    const unchanged = await get('/exports/country.ndjson.gz', { 'If-None-Match': etag });
    expect(unchanged.status).toBe(304);
    expect(await unchanged.text()).toBe('');
    const head = await get('/exports/country.ndjson.gz', {}, 'HEAD');
    expect(head.status).toBe(200);
    expect(head.headers.get('content-length')).toBe(String(index.exports.country?.bytes));
    expect(head.headers.get('etag')).toBe(etag);
    expect(await head.text()).toBe('');
  });

  it('one range is 206 with Content-Range; the parts make the file; past the end is 416 naming the size', async () => {
    const whole = await bytesOf(await get('/exports/country.ndjson.gz'));
    const first = await get('/exports/country.ndjson.gz', { Range: 'bytes=0-99' });
    expect(first.status).toBe(206);
    expect(first.headers.get('content-range')).toBe(`bytes 0-99/${whole.length}`);
    const rest = await get('/exports/country.ndjson.gz', { Range: 'bytes=100-' });
    expect(rest.headers.get('content-range')).toBe(`bytes 100-${whole.length - 1}/${whole.length}`);
    expect(Buffer.concat([await bytesOf(first), await bytesOf(rest)]).equals(whole)).toBe(true);
    const beyond = await get('/exports/country.ndjson.gz', { Range: `bytes=${whole.length}-` });
    expect(beyond.status).toBe(416);
    expect(beyond.headers.get('content-range')).toBe(`bytes */${whole.length}`);
    expect(((await beyond.json()) as { header: { message: string } }).header.message).toContain(`outside the file's ${whole.length} bytes`);
  });

  it('If-Range: the range while the ETag matches, the whole file once it does not', async () => {
    const etag = index.exports.country?.etag ?? '';
    expect((await get('/exports/country.ndjson.gz', { Range: 'bytes=0-9', 'If-Range': etag })).status).toBe(206);
    const stale = await get('/exports/country.ndjson.gz', { Range: 'bytes=0-9', 'If-Range': '"an-earlier-build"' });
    expect(stale.status).toBe(200);
    expect((await bytesOf(stale)).length).toBe(index.exports.country?.bytes);
  });

  it('matches the path in any letter case; anything not in the index is 404 pointing at it, never a file of the build', async () => {
    const response = await get('/exports/COUNTRYHOLIDAY.ndjson.gz');
    expect(response.status).toBe(200);
    expect(response.headers.get('content-disposition')).toBe('attachment; filename="countryHoliday.ndjson.gz"');
    for (const target of ['/exports/planet.ndjson.gz', '/exports/index.json', '/exports/%2e%2e%2fmanifest.json', '/exports/country.ndjson']) {
      const missing = await envelope(target);
      expect(missing.status, target).toBe(404);
      expect(missing.message, target).toContain('/exports/ lists them');
    }
  });
});

describe('a kept build of another build format', () => {
  it('gets no change list and is not kept: it can be neither served nor rolled back to', async () => {
    const dataDir = await copyFixture();
    const dist = path.join(await tempDir(), 'dist');
    const banksFile = path.join(dataDir, 'records/bank.json');
    const banks = JSON.parse(await readFile(banksFile, 'utf8')) as FixtureRecord[];
    const buildIds: string[] = [];
    for (const kept of [banks.length, banks.length - 1, banks.length - 2]) {
      await writeFile(banksFile, JSON.stringify(banks.slice(0, kept)));
      await buildDist({ dataDir, distDir: dist });
      buildIds.push(manifestHeadSchema.parse(JSON.parse(await readFile(path.join(dist, 'manifest.json'), 'utf8'))).buildId);
      if (buildIds.length === 1) {
        // The first build, written by a generator of the format before this one.
        const index = path.join(buildsRootOf(dist), buildIds[0] ?? '', lookupIndexFileName);
        const bytes = await readFile(index);
        bytes.writeUInt32LE(buildFormat - 1, 4);
        await writeFile(index, bytes);
      }
    }
    const [older, middle, newest] = buildIds;
    const latest = manifestHeadSchema.parse(JSON.parse(await readFile(path.join(dist, 'manifest.json'), 'utf8')));
    expect(latest.buildId).toBe(newest);
    expect(Object.keys(latest.changes.since)).toEqual([newest, middle]);
    expect(await keptBuildIds(dist)).toEqual([middle, newest]);
    await expect(rollback(dist, older)).rejects.toThrow(`build ${older} is not kept`);
  });
});

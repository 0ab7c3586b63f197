/**
 * The exports and change lists a build writes (generator/exports/files.ts, generator/exports/changes.ts): the
 * generator run on the fixture dataset, then again on a copy with records changed, added and
 * removed, into one dist as `npm run build` does.
 */
import { readdir, readFile, realpath, stat, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { gunzipSync } from 'node:zlib';
import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { changeListSchema, exportsIndexSchema, type ChangeList, type ExportsIndex } from '../../contract/downloads.ts';
import type { ManifestHead } from '../../contract/lookupIndex.ts';
import { manifestHeadSchema } from '../../contract/manifest.ts';
import { recordTypes } from '../../contract/routes.ts';
import { buildDist, parseKeepBuilds } from '../../generator/build.ts';
import { BuildError } from '../../generator/records/errors.ts';
import { shownFields } from '../../generator/records/recordTypes.ts';
import { copyFixture, fixtureRecords, pick, repoRoot, tempDir, type FixtureRecord } from '../support/service.ts';

async function readManifest(distDir: string): Promise<ManifestHead> {
  return manifestHeadSchema.parse(JSON.parse(await readFile(path.join(distDir, 'manifest.json'), 'utf8')));
}

async function readIndex(distDir: string): Promise<ExportsIndex> {
  return exportsIndexSchema.parse(JSON.parse(await readFile(path.join(distDir, 'exports/index.json'), 'utf8')));
}

async function readChangeList(distDir: string, file: string): Promise<ChangeList> {
  return changeListSchema.parse(JSON.parse(await readFile(path.join(distDir, file), 'utf8')));
}

async function latestChanges(distDir: string): Promise<ChangeList> {
  const { changes } = await readManifest(distDir);
  if (!changes) throw new Error('the build lists no change lists');
  return readChangeList(distDir, changes.latest);
}

/** Rewrites one record file of a fixture copy. */
async function changeRecords(dataDir: string, type: string, change: (records: FixtureRecord[]) => FixtureRecord[]): Promise<void> {
  const file = path.join(dataDir, 'records', `${type}.json`);
  await writeFile(file, JSON.stringify(change(JSON.parse(await readFile(file, 'utf8')) as FixtureRecord[])));
}

async function setSourceVersion(dataDir: string, name: string, version: string): Promise<void> {
  const file = path.join(dataDir, 'sources.json');
  const sources = JSON.parse(await readFile(file, 'utf8')) as { sources: Record<string, string> };
  sources.sources[name] = version;
  await writeFile(file, JSON.stringify(sources));
}

const newDist = async (): Promise<string> => path.join(await tempDir(), 'dist');

describe('exports', () => {
  it('one gzipped NDJSON file per record type: its records as the API shows them, in data order; an index with counts, sizes and SHA-256', async () => {
    const distDir = await newDist();
    await buildDist({ dataDir: await copyFixture(), distDir });
    const index = await readIndex(distDir);
    const manifest = await readManifest(distDir);
    expect(Object.keys(index.exports)).toEqual([...recordTypes]);
    expect(index).toMatchObject({ buildId: manifest.buildId, dataVersion: manifest.dataVersion, sources: manifest.sources });
    for (const type of recordTypes) {
      const bytes = await readFile(path.join(distDir, `exports/${type}.ndjson.gz`));
      const entry = index.exports[type];
      expect(entry, type).toMatchObject({ path: `/exports/${type}.ndjson.gz`, bytes: bytes.length, sha256: createHash('sha256').update(bytes).digest('hex') });
      expect(manifest.downloads[`exports/${type}.ndjson.gz`], type).toEqual({ size: bytes.length, etag: entry?.etag, contentType: 'application/gzip' });
      const shown = (await fixtureRecords(type)).map((record) =>
        Object.fromEntries(shownFields(type).flatMap((field) => (field in record ? [[field, record[field]]] : []))),
      );
      const ndjson = gunzipSync(bytes).toString('utf8');
      expect(
        ndjson
          .split('\n')
          .slice(0, -1)
          .map((line) => JSON.parse(line) as unknown),
        type,
      ).toEqual(shown);
      expect(entry?.records, type).toBe(shown.length);
      expect(entry?.ndjson, type).toEqual({ bytes: Buffer.byteLength(ndjson), sha256: createHash('sha256').update(ndjson).digest('hex') });
    }
    expect(index.exports.bank?.area).toBe('financemanagement');
    expect(index.exports.country?.area).toBe('addressmanagement');
  });

  it('the same data gives the same bytes, in another dist too: gzip without a time, at a fixed level', async () => {
    const first = await newDist();
    const second = await newDist();
    await buildDist({ dataDir: await copyFixture(), distDir: first });
    await buildDist({ dataDir: await copyFixture(), distDir: second });
    const [one, two] = await Promise.all([readIndex(first), readIndex(second)]);
    expect(two.exports).toEqual(one.exports);
    expect(two.buildId).not.toBe(one.buildId);
  });
});

describe('change lists', () => {
  it('a first build has an empty change list that says there was none before (from: null)', async () => {
    const distDir = await newDist();
    await buildDist({ dataDir: await copyFixture(), distDir });
    const { buildId, changes } = await readManifest(distDir);
    expect(changes.latest).toBe('changes/first.json');
    expect(await latestChanges(distDir)).toMatchObject({ from: null, to: { buildId }, records: {}, sources: [] });
    // Since itself: an empty list, for a mirror that is already current.
    expect(await readChangeList(distDir, changes.since[buildId] ?? '')).toMatchObject({ from: { buildId }, to: { buildId }, records: {}, sources: [] });
  });

  it('names the record changed (with its changed field), the one added, the one removed, and the source whose version moved', async () => {
    const distDir = await newDist();
    const dataDir = await copyFixture();
    await setSourceVersion(dataDir, 'python-holidays', '0.104');
    await buildDist({ dataDir, distDir });
    const before = await readManifest(distDir);

    const turkey = pick(await fixtureRecords('country'), 'alpha2Code', 'TR');
    const isBankasi = pick(await fixtureRecords('bank'), 'code', '064');
    // A real bank the fixture lacks (data/records/bank.json), linked to the fixture's Türkiye.
    const realBanks = JSON.parse(await readFile(path.join(repoRoot, 'data/records/bank.json'), 'utf8')) as FixtureRecord[];
    const halkbank = { ...pick(realBanks, 'code', '012'), countryId: turkey.id };
    // Türkiye's English short name until 2022, and a hidden field changed: only `name` is a change the API shows.
    await changeRecords(dataDir, 'country', (countries) =>
      countries.map((country) => (country.id === turkey.id ? { ...country, name: 'Turkey', altNames: ['Türkiye', 'Republic of Türkiye'] } : country)),
    );
    await changeRecords(dataDir, 'bank', (banks) => [...banks.filter((bank) => bank.id !== isBankasi.id), halkbank]);
    await setSourceVersion(dataDir, 'python-holidays', '0.105');
    await buildDist({ dataDir, distDir });
    const after = await readManifest(distDir);

    const changes = await latestChanges(distDir);
    expect(after.changes.latest).toBe(`changes/${before.buildId}.json`);
    expect(changes).toEqual({
      from: { buildId: before.buildId, builtAt: before.builtAt, dataVersion: before.dataVersion },
      to: { buildId: after.buildId, builtAt: after.builtAt, dataVersion: after.dataVersion },
      records: {
        bank: { added: [halkbank.id], removed: [isBankasi.id], changed: [] },
        country: { added: [], removed: [], changed: [{ id: turkey.id, fields: ['name'] }] },
      },
      sources: [{ name: 'python-holidays', from: '0.104', to: '0.105' }],
    });
    expect(Object.keys(after.changes.since).sort()).toEqual([before.buildId, after.buildId].sort());
  });

  it('a rebuild of the same data has an empty change list, and links the exports it shares with the previous build', async () => {
    const distDir = await newDist();
    const dataDir = await copyFixture();
    await buildDist({ dataDir, distDir });
    const previousDir = await realpath(distDir);
    await buildDist({ dataDir, distDir, force: true });
    expect(await latestChanges(distDir)).toMatchObject({ records: {}, sources: [] });
    const [linked, original] = await Promise.all([
      stat(path.join(distDir, 'exports/country.ndjson.gz')),
      stat(path.join(previousDir, 'exports/country.ndjson.gz')),
    ]);
    expect(linked.ino).toBe(original.ino);
  });

  it('keeps --keep-builds builds whole, a change list since each, and removes older ones', async () => {
    const distDir = await newDist();
    const dataDir = await copyFixture();
    const builds: string[] = [];
    for (let round = 0; round < 4; round++) {
      await buildDist({ dataDir, distDir, force: true, keepBuilds: 3 });
      builds.push((await readManifest(distDir)).buildId);
    }
    const [gone, older, previous, current] = builds as [string, string, string, string];
    const { changes } = await readManifest(distDir);
    expect(Object.keys(changes.since).sort()).toEqual([older, previous, current].sort());
    const buildsRoot = path.join(path.dirname(distDir), '.dist-builds');
    expect((await readdir(buildsRoot)).sort()).toEqual([older, previous, current, 'current.json', '.inputs'].sort());
    expect(JSON.parse(await readFile(path.join(buildsRoot, 'current.json'), 'utf8'))).toEqual({ buildId: current });
    for (const kept of [older, previous]) expect(await readdir(path.join(buildsRoot, kept))).toContain('manifest.json');
    expect(changes.since[gone]).toBeUndefined();
  });

  it('refuses a number of builds to keep that is not a whole number from 2 to 100, naming the setting', () => {
    expect(parseKeepBuilds(undefined, 'KEEP_BUILDS')).toBe(10);
    expect(parseKeepBuilds('3', '--keep-builds')).toBe(3);
    for (const value of ['1', '101', 'ten', '2.5', '-3']) {
      expect(() => parseKeepBuilds(value, 'KEEP_BUILDS'), value).toThrow(BuildError);
      expect(() => parseKeepBuilds(value, 'KEEP_BUILDS'), value).toThrow(/KEEP_BUILDS .*whole number of builds from 2 to 100/);
    }
  });
});

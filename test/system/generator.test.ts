import { execFile } from 'node:child_process';
import { createHash } from 'node:crypto';
import { cp, symlink } from 'node:fs/promises';
import { promisify } from 'node:util';
import { build as esbuild } from 'esbuild';
import { readdir, readFile, readlink, realpath, stat, writeFile } from 'node:fs/promises';
import path from 'node:path';
import fg from 'fast-glob';
import { beforeAll, describe, expect, it } from 'vitest';
import { buildCodeFiles, buildCodeFingerprint, buildDist } from '../../generator/build.ts';
import { BuildError } from '../../generator/records/errors.ts';
import { readSummary } from '../../generator/builds/summary.ts';
import { entriesPerShard, readLookupHead } from '../../contract/lookupIndex.ts';
import { manifestHeadSchema, type Manifest } from '../../contract/manifest.ts';
import { packedBody, readBuildManifest, type PackedBody } from '../support/store.ts';
import { buildFixture, copyFixture, fixtureData, fixtureRecords, pick, repoRoot, tempDir, without, type FixtureRecord, itemAt } from '../support/service.ts';

const api = 'addressmanagement/api';

const sha256Of = async (file: string): Promise<string> =>
  createHash('sha256')
    .update(await readFile(file))
    .digest('hex');

async function readBody(distDir: string, file: string): Promise<unknown> {
  const body = await packedBody(distDir, file);
  if (body === undefined) throw new Error(`${file}: no such body in the build`);
  return JSON.parse(body.bytes.toString('utf8'));
}

/** Changes one record of a copied fixture and returns the copy's data directory. */
async function fixtureWith(file: string, change: (records: Record<string, unknown>[]) => void): Promise<string> {
  const dataDir = await copyFixture();
  const recordsPath = path.join(dataDir, 'records', file);
  const records = JSON.parse(await readFile(recordsPath, 'utf8')) as Record<string, unknown>[];
  change(records);
  await writeFile(recordsPath, JSON.stringify(records));
  return dataDir;
}

/** A record file of a fixture copy as build messages show it: relative to the working directory. */
function shownPath(dataDir: string, file: string): string {
  return path.relative(process.cwd(), path.join(dataDir, 'records', file));
}

async function buildFailure(dataDir: string, distDir?: string): Promise<string> {
  const error = await buildDist({ dataDir, distDir: distDir ?? path.join(await tempDir(), 'dist') }).catch((caught: unknown) => caught);
  expect(error).toBeInstanceOf(BuildError);
  return (error as BuildError).message;
}

describe('the generator on the fixture dataset', () => {
  let distDir: string;
  let manifest: Manifest;
  beforeAll(async () => {
    distDir = await buildFixture();
    manifest = await readBuildManifest(distDir);
  });

  it('writes every body into a pack, with a manifest entry of its size and strong ETag, and no other files', async () => {
    const listed = [
      'manifest.json',
      'build-summary.json',
      'build-partitions.json',
      'build.json',
      'lookups.idx',
      ...Object.keys(manifest.public),
      ...Object.keys(manifest.downloads),
    ];
    const written = await fg('**/*', { cwd: distDir, dot: true });
    expect(written.filter((file) => !listed.includes(file) && !/^lookups\/[A-Za-z0-9_-]{27}\.(idx|pack)$/.test(file))).toEqual([]);
    const packs = new Set<string>();
    for (const [file, entry] of Object.entries(manifest.files)) {
      const body = await packedBody(distDir, file);
      expect(body, file).toBeDefined();
      if (!body) continue;
      packs.add(body.pack);
      expect(body.size, file).toBe(entry.size);
      expect(body.etag, file).toBe(entry.etag);
      expect(entry.etag, file).toBe(`"${createHash('sha256').update(body.bytes).digest('base64url').slice(0, 27)}"`);
    }
    // Every file under lookups/ is named by its content's hash.
    for (const file of written.filter((name) => name.startsWith('lookups/'))) {
      const bytes = await readFile(path.join(distDir, file));
      expect(file, file).toBe(`lookups/${createHash('sha256').update(bytes).digest('base64url').slice(0, 27)}${path.extname(file)}`);
    }
    expect(written.filter((file) => file.endsWith('.pack')).sort()).toEqual([...packs].sort());
  });

  it("writes manifest.json as the lookup index's head: the manifest without the bodies' entries, which the index lists", async () => {
    const onDisk: unknown = JSON.parse(await readFile(path.join(distDir, 'manifest.json'), 'utf8'));
    expect(onDisk).not.toHaveProperty('files');
    const head = await readLookupHead(await realpath(distDir));
    expect(manifestHeadSchema.parse(onDisk)).toEqual(head.manifestHead());
    expect(head.count).toBe(Object.keys(manifest.files).length);
    expect(head.count).toBeGreaterThan(100);
  });

  it('writes a build summary that agrees with the manifest, for the next rebuild to compare', async () => {
    const summary = await readSummary(distDir);
    expect(summary).toEqual({
      inputsVersion: manifest.inputsVersion,
      buildId: manifest.buildId,
      dataVersion: manifest.dataVersion,
      counts: manifest.counts,
      ambiguous: manifest.ambiguous.length,
      files: Object.keys(manifest.files).length,
      bytes: Object.values(manifest.files).reduce((sum, entry) => sum + entry.size, 0),
      rebuild: {
        codeVersion: await buildCodeFingerprint(),
        settings: await sha256Of(path.join(fixtureData, 'build.json')),
        entriesPerShard,
        records: Object.fromEntries(
          await Promise.all((await fg('records/**/*.json', { cwd: fixtureData })).map(async (file) => [file, await sha256Of(path.join(fixtureData, file))])),
        ),
        signatures: expect.any(Object),
      },
    });
    // A file's signature, where it has one (it had not changed for a while when read), is its stat.
    for (const [file, signature] of Object.entries(summary?.rebuild?.signatures ?? {})) {
      expect(summary?.rebuild?.records).toHaveProperty([file]);
      const stats = await stat(path.join(fixtureData, file), { bigint: true });
      expect(signature).toBe(`${stats.size}:${stats.mtimeNs}:${stats.ctimeNs}:${stats.ino}:${stats.dev}`);
    }
    // The record files are kept by content beside the builds, for the next build to compare.
    const kept = await readdir(path.join(path.dirname(distDir), '.dist-builds', '.inputs'));
    expect(kept.sort()).toEqual(Object.values(summary?.rebuild?.records ?? {}).sort());
  });

  it('counts records per type and names the holiday window', async () => {
    expect(manifest.counts).toMatchObject({ country: 3, region: 2, district: 9, neighborhood: 8, countryHoliday: 6 });
    expect(manifest.holidayYears).toEqual({ first: 2023, last: 2025 });
  });

  it('writes bodies only, with hidden fields left out and country getall without flags', async () => {
    const countryRecords = await fixtureRecords('country');
    const turkey = pick(countryRecords, 'alpha2Code', 'TR');
    expect(await readBody(distDir, `${api}/country/getbyalpha2code/tr.json`)).toEqual(without(turkey, 'altNames', 'localizedNames'));
    expect(await readBody(distDir, `${api}/country/getall.json`)).toEqual(
      countryRecords.map((country) => without(country, 'altNames', 'localizedNames', 'flag')),
    );
    const banks = await fixtureRecords('bank');
    expect(await readBody(distDir, `financemanagement/api/bank/getbycode/010.json`)).toEqual(without(pick(banks, 'code', '010'), 'countryId'));
  });

  it('gives every existing parent a list file, empty where it has no children', async () => {
    // Diyarbakır's Yenişehir: a district without neighbourhoods in the fixture.
    const diyarbakir = pick(await fixtureRecords('stateProvince'), 'name', 'Diyarbakır');
    const yenisehir = pick(await fixtureRecords('district'), 'stateProvinceId', diyarbakir.id);
    expect(await readBody(distDir, `${api}/neighborhood/getbydistrictid/${yenisehir.id}.json`)).toEqual([]);
    const turkey = pick(await fixtureRecords('country'), 'alpha2Code', 'TR');
    for (const year of [2023, 2024, 2025]) {
      expect(manifest.files[`${api}/countryholiday/getbycountryid/${turkey.id}/${year}.json`], String(year)).toBeDefined();
    }
    expect(await readBody(distDir, `${api}/countryholiday/getbycountryid/${turkey.id}/2023.json`)).toEqual([]);
    expect(await readBody(distDir, `${api}/webdomain/getbyistoplevel/false.json`)).toHaveLength(1);
  });

  it('resolves an ambiguous name by the documented rule: first in data order, recorded in the manifest', async () => {
    const turkey = pick(await fixtureRecords('country'), 'alpha2Code', 'TR');
    const districts = (await fixtureRecords('district')).filter((district) => district.name === 'Yenişehir');
    const file = `${api}/district/getbyname/${turkey.id}/yenisehir.json`;
    expect(await readBody(distDir, file)).toEqual(districts[0]);
    expect(manifest.ambiguous).toEqual([{ file, chosen: itemAt(districts, 0).id, others: districts.slice(1).map((district) => district.id) }]);
  });

  it('finds countries by alternative names too', async () => {
    const turkey = pick(await fixtureRecords('country'), 'alpha2Code', 'TR');
    expect(await readBody(distDir, `${api}/country/getbyname/turkey.json`)).toEqual(without(turkey, 'altNames', 'localizedNames'));
    expect(await readBody(distDir, `${api}/country/getbyname/turkiye.json`)).toEqual(without(turkey, 'altNames', 'localizedNames'));
  });

  it('finds countries by their names in other languages, each the body by id, stored once in its pack', async () => {
    const germany = pick(await fixtureRecords('country'), 'alpha2Code', 'DE');
    const byId = (await packedBody(distDir, `${api}/country/getbyid/${germany.id}.json`)) as PackedBody;
    for (const key of ['allemagne', 'almanya', '_30c9__30a4__30c4_']) {
      const file = `${api}/country/getbyname/${key}.json`;
      expect(await readBody(distDir, file)).toEqual(without(germany, 'altNames', 'localizedNames'));
      const byName = (await packedBody(distDir, file)) as PackedBody;
      expect(byName.etag, key).toBe(byId.etag);
      if (byName.pack === byId.pack) expect(byName.offset, key).toBe(byId.offset);
    }
  });

  it('ranks a name several countries share: own name, then alternative name, then the name more CLDR locales use, then data order', async () => {
    const [germany, turkey] = [itemAt(await fixtureRecords('country'), 0), itemAt(await fixtureRecords('country'), 1)];
    const dataDir = await fixtureWith('country.json', (records) => {
      const [first, second] = [itemAt(records, 0), itemAt(records, 1)];
      // Germany (first in data order) is also called Turkey and Türkei here, in one locale each.
      first.localizedNames = [
        { name: 'Turkey', locales: ['xx'] },
        { name: 'Türkiye', locales: ['xx'] },
        { name: 'Kata', locales: ['mi'] },
        { name: 'Guiana', locales: ['gl'] },
      ];
      second.localizedNames = [
        { name: 'Kata', locales: ['ak', 'cgg'] },
        { name: 'Guiana', locales: ['gl'] },
      ];
    });
    const built = await buildFixture(dataDir);
    const chosen = async (key: string): Promise<unknown> => ((await readBody(built, `${api}/country/getbyname/${key}.json`)) as { id: string }).id;
    expect(await chosen('turkiye')).toBe(turkey.id); // Türkiye's own name
    expect(await chosen('turkey')).toBe(turkey.id); // Türkiye's alternative name
    expect(await chosen('kata')).toBe(turkey.id); // two locales against one
    expect(await chosen('guiana')).toBe(germany.id); // a tie: data order
    const ambiguous = (await readBuildManifest(built)).ambiguous.filter((entry) => entry.file.includes('/country/getbyname/'));
    expect(ambiguous.map(({ file, chosen: id, others }) => [path.basename(file), id, others]).sort()).toEqual([
      ['guiana.json', germany.id, [turkey.id]],
      ['kata.json', turkey.id, [germany.id]],
      ['turkey.json', turkey.id, [germany.id]],
      ['turkiye.json', turkey.id, [germany.id]],
    ]);
  });

  it('writes the same bytes for the same data: only the build id and time differ', async () => {
    const again = await buildFixture();
    const second = await readBuildManifest(again);
    expect(second.buildId).not.toBe(manifest.buildId);
    expect(second.dataVersion).toBe(manifest.dataVersion);
    expect(second.files).toEqual(manifest.files);
    expect(second.ambiguous).toEqual(manifest.ambiguous);
  });

  it('lets a province abbreviation repeat across countries: getbyabbreviation answers the first in data order, as documented', async () => {
    const dataDir = await fixtureWith('stateProvince.json', (records) => {
      pick(records as FixtureRecord[], 'name', 'Berlin').abbreviation = '34';
    });
    const shared = await buildFixture(dataDir);
    const istanbul = pick(await fixtureRecords('stateProvince'), 'name', 'İstanbul');
    expect(await readBody(shared, `${api}/stateprovince/getbyabbreviation/34.json`)).toEqual(istanbul);
    expect((await readBuildManifest(shared)).ambiguous).toContainEqual(
      expect.objectContaining({ file: `${api}/stateprovince/getbyabbreviation/34.json`, chosen: istanbul.id }),
    );
  });

  it('points dist at the new build through a relative symbolic link', async () => {
    expect(await readlink(distDir)).toBe(path.join('.dist-builds', manifest.buildId));
  });
});

describe('rebuilding', () => {
  it('does nothing when dist already holds a build of the same data and generator', async () => {
    const dataDir = await copyFixture();
    const distDir = path.join(await tempDir(), 'dist');
    const first = await buildDist({ dataDir, distDir });
    const again = await buildDist({ dataDir, distDir });
    expect(again).toMatchObject({ upToDate: true, buildId: first.buildId, files: first.files, bytes: first.bytes });
    expect(await readlink(distDir)).toBe(path.join('.dist-builds', first.buildId));
    const forced = await buildDist({ dataDir, distDir, force: true });
    expect(forced.upToDate).toBe(false);
    expect(forced.buildId).not.toBe(first.buildId);
  });

  it('rebuilds when a constant of the contract changes: the fingerprint is of the folders the build is made of', async () => {
    // A copy of the code the build is made of, so that changing it touches nothing of the repository.
    const root = await tempDir();
    for (const folder of ['contract', 'generator']) await cp(path.join(repoRoot, folder), path.join(root, folder), { recursive: true });
    await cp(path.join(repoRoot, 'package.json'), path.join(root, 'package.json'));
    await symlink(path.join(repoRoot, 'node_modules'), path.join(root, 'node_modules'));
    const dataDir = await copyFixture();
    const build = async () =>
      (await promisify(execFile)(process.execPath, ['--import', 'tsx', 'generator/build.ts', '--data', dataDir, '--dist', 'dist'], { cwd: root })).stdout;

    expect(await build()).toMatch(/^built /);
    expect(await build()).toMatch(/is up to date/);
    const httpFacts = path.join(root, 'contract/http.ts');
    const before = await readFile(httpFacts, 'utf8');
    expect(before).toContain("'private, max-age=60'");
    await writeFile(httpFacts, before.replace("'private, max-age=60'", "'private, max-age=61'"));
    expect(await build()).toMatch(/^built /);
    expect(await readFile(path.join(root, 'dist/openapi.json'), 'utf8')).toContain('private, max-age=61');
  });

  it('fingerprints every source file the build loads, dynamic imports included', async () => {
    const bundled = await esbuild({
      entryPoints: [path.join(repoRoot, 'generator/build.ts')],
      bundle: true,
      write: false,
      metafile: true,
      platform: 'node',
      format: 'esm',
      packages: 'external',
      logLevel: 'silent',
    });
    const loaded = Object.keys(bundled.metafile.inputs).map((input) => path.relative(repoRoot, path.resolve(input)));
    expect(loaded).toContain('contract/http.ts');
    const fingerprinted = new Set(await buildCodeFiles());
    expect(loaded.filter((file) => !fingerprinted.has(file))).toEqual([]);
  });

  it('links the packs and index shards a new build shares with the previous one and writes only the changed ones', async () => {
    const dataDir = await copyFixture();
    const distDir = path.join(await tempDir(), 'dist');
    const first = await buildDist({ dataDir, distDir, entriesPerShard: 4 });
    const unchanged = 'addressmanagement/api/region/getall.json';
    const changed = 'financemanagement/api/currency/getbycode/try.json';
    const before = { unchanged: (await packedBody(distDir, unchanged)) as PackedBody, changed: (await packedBody(distDir, changed)) as PackedBody };
    const currencyFile = path.join(dataDir, 'records', 'currency.json');
    await writeFile(currencyFile, (await readFile(currencyFile, 'utf8')).replace('"Turkish Lira"', '"Türk Lirası"'));
    const second = await buildDist({ dataDir, distDir, entriesPerShard: 4 });
    const inode = async (buildDir: string, file: string): Promise<number | undefined> => (await stat(path.join(buildDir, file)).catch(() => undefined))?.ino;
    const after = { unchanged: (await packedBody(distDir, unchanged)) as PackedBody, changed: (await packedBody(distDir, changed)) as PackedBody };
    expect(after.unchanged.pack).toBe(before.unchanged.pack);
    expect(await inode(second.buildDir, after.unchanged.pack)).toBe(await inode(first.buildDir, before.unchanged.pack));
    expect(after.changed.pack).not.toBe(before.changed.pack);
    expect(JSON.parse(after.changed.bytes.toString('utf8'))).toMatchObject({ name: 'Türk Lirası' });
    // A currency's name is in a few of its bodies: most packs and shards are links to the first build's.
    const files = (await fg('lookups/*', { cwd: second.buildDir })).sort();
    const linked = [];
    for (const file of files) if ((await inode(second.buildDir, file)) === (await inode(first.buildDir, file))) linked.push(file);
    expect(files.length).toBeGreaterThan(100);
    expect(linked.length / files.length).toBeGreaterThan(0.9);
  });
  it('writes afresh, not links, a pack of the previous build damaged on the disk: a forced build repairs it', async () => {
    const dataDir = await copyFixture();
    const distDir = path.join(await tempDir(), 'dist');
    const first = await buildDist({ dataDir, distDir, entriesPerShard: 4 });
    const file = 'addressmanagement/api/region/getall.json';
    const before = (await packedBody(distDir, file)) as PackedBody;
    // One byte of the body changed in place, the pack's size and name kept: bit rot, a stray write.
    const packPath = path.join(first.buildDir, before.pack);
    const pack = await readFile(packPath);
    pack[before.offset] = (pack[before.offset] as number) ^ 0x20;
    await writeFile(packPath, pack);
    const second = await buildDist({ dataDir, distDir, entriesPerShard: 4, force: true });
    const after = (await packedBody(distDir, file)) as PackedBody;
    expect(after.pack).toBe(before.pack);
    expect(after.bytes).toEqual(before.bytes);
    expect((await stat(path.join(second.buildDir, after.pack))).ino).not.toBe((await stat(packPath)).ino);
  });

  it('makes every body when a pack the rebuild needs is damaged, and says so', async () => {
    const dataDir = await copyFixture();
    const distDir = path.join(await tempDir(), 'dist');
    await buildDist({ dataDir, distDir, entriesPerShard: 4 });
    const changed = 'financemanagement/api/currency/getbycode/try.json';
    const before = (await packedBody(distDir, changed)) as PackedBody;
    await writeFile(path.join(await realpath(distDir), before.pack), 'damaged');
    const currencyFile = path.join(dataDir, 'records', 'currency.json');
    await writeFile(currencyFile, (await readFile(currencyFile, 'utf8')).replace('"Turkish Lira"', '"Türk Lirası"'));
    const second = await buildDist({ dataDir, distDir, entriesPerShard: 4 });
    expect(second.rebuilt).toEqual({ reason: `the previous build's pack ${before.pack} cannot be read (its bytes are not those its name says)` });
    const after = (await packedBody(distDir, changed)) as PackedBody;
    expect(JSON.parse(after.bytes.toString('utf8'))).toMatchObject({ name: 'Türk Lirası' });
  });
});

describe('a build that fails', () => {
  it('names file, record and field for a broken reference, and leaves the previous dist untouched', async () => {
    const distDir = await buildFixture();
    const before = await readBuildManifest(distDir);
    const dataDir = await fixtureWith('district.json', (records) => {
      itemAt(records, 1).stateProvinceId = '00000000-0000-4000-8000-000000000000';
    });
    const message = await buildFailure(dataDir, distDir);
    expect(message).toMatch(
      /district\.json record #2 \(id [0-9a-f-]{36}\): field stateProvinceId: no state or province has id 00000000-0000-4000-8000-000000000000/,
    );
    expect(await readBuildManifest(distDir)).toEqual(before);
    expect(await readlink(distDir)).toBe(path.join('.dist-builds', before.buildId));
  });

  it('names the field a record gets wrong', async () => {
    const dataDir = await fixtureWith('country.json', (records) => {
      itemAt(records, 0).alpha2Code = 'deu';
    });
    expect(await buildFailure(dataDir)).toMatch(/country\.json record #1 \(id [0-9a-f-]{36}\): field alpha2Code: must be two upper-case letters/);
  });

  it('refuses unknown fields, duplicate ids and holidays outside the year window', async () => {
    const unknownField = await fixtureWith('region.json', (records) => {
      itemAt(records, 0).continent = 'Asia';
    });
    expect(await buildFailure(unknownField)).toMatch(/region\.json record #1 .*continent/);
    const duplicate = await fixtureWith('region.json', (records) => {
      itemAt(records, 1).id = itemAt(records, 0).id;
    });
    expect(await buildFailure(duplicate)).toMatch(/region\.json record #2 .*field id: .* is already used by .*region\.json record #1/);
    const outside = await fixtureWith('countryHoliday.json', (records) => {
      itemAt(records, 0).startDate = '2030-01-01 00:00:00 GMT+01:00';
    });
    expect(await buildFailure(outside)).toMatch(
      /data\/records\/countryHoliday\.json record #1 \(id [0-9a-f-]{36}\): .*2030 is outside what .*countryholiday\/getbycountryid serves/,
    );
  });

  it('refuses two countries with one alpha-2 or alpha-3 code, naming file, both records and the field', async () => {
    const countryRecords = await fixtureRecords('country');
    const germany = itemAt(countryRecords, 0);
    const turkey = itemAt(countryRecords, 1);
    const dataDir = await fixtureWith('country.json', (records) => {
      itemAt(records, 0).alpha2Code = 'TR';
      itemAt(records, 0).alpha3Code = 'TUR';
    });
    const message = await buildFailure(dataDir);
    const file = shownPath(dataDir, 'country.json');
    for (const [field, code] of [
      ['alpha2Code', 'TR'],
      ['alpha3Code', 'TUR'],
    ]) {
      expect(message).toContain(`${file} record #2 (id ${turkey.id}): field ${field}: ${code} is already used by ${file} record #1 (id ${germany.id})`);
    }
  });

  it('refuses two banks with one code, naming file, both records and the field', async () => {
    const bankRecords = await fixtureRecords('bank');
    const ziraat = itemAt(bankRecords, 0);
    const isBank = itemAt(bankRecords, 1);
    const dataDir = await fixtureWith('bank.json', (records) => {
      itemAt(records, 1).code = itemAt(records, 0).code;
    });
    const file = shownPath(dataDir, 'bank.json');
    expect(await buildFailure(dataDir)).toContain(
      `${file} record #2 (id ${isBank.id}): field code: 010 is already used by ${file} record #1 (id ${ziraat.id})`,
    );
  });

  it('refuses two provinces of one country with one abbreviation, naming file, both records and the fields', async () => {
    const provinces = await fixtureRecords('stateProvince');
    const ankara = pick(provinces, 'name', 'Ankara');
    const bursa = pick(provinces, 'name', 'Bursa');
    const dataDir = await fixtureWith('stateProvince.json', (records) => {
      pick(records as FixtureRecord[], 'name', 'Bursa').abbreviation = '06';
    });
    const file = shownPath(dataDir, 'stateProvince.json');
    const bursaAt = provinces.indexOf(bursa) + 1;
    const ankaraAt = provinces.indexOf(ankara) + 1;
    expect(await buildFailure(dataDir)).toContain(
      `${file} record #${bursaAt} (id ${bursa.id}): field countryId + abbreviation: ${bursa.countryId} + 06 is already used by ${file} record #${ankaraAt} (id ${ankara.id}) (values of /addressmanagement/api/stateprovince/getbyabbreviation must differ within one countryId)`,
    );
  });

  it('names the data file, record and field of a country name that cannot be a lookup key', async () => {
    const germany = itemAt(await fixtureRecords('country'), 0);
    const dataDir = await fixtureWith('country.json', (records) => {
      itemAt(records, 0).name = '—';
      itemAt(records, 0).altNames = ['Deutschland', '***'];
    });
    const message = await buildFailure(dataDir);
    const record = `${shownPath(dataDir, 'country.json')} record #1 (id ${germany.id})`;
    expect(message).toContain(`${record}: field name: "—" cannot be looked up, expected a name with at least one letter or digit`);
    expect(message).toContain(`${record}: field altNames: "***" cannot be looked up`);
  });

  it('refuses a file that is not JSON or not a record type', async () => {
    const dataDir = await copyFixture();
    await writeFile(path.join(dataDir, 'records', 'region.json'), '[{"id": ');
    expect(await buildFailure(dataDir)).toMatch(/region\.json: not valid JSON/);
    const other = await copyFixture();
    await writeFile(path.join(other, 'records', 'planet.json'), '[]');
    expect(await buildFailure(other)).toMatch(/planet\.json: "planet" is not a record type/);
  });
});

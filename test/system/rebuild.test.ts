/**
 * A rebuild made from the previous build (generator/rebuild.ts) must be the build a full build of
 * the same data makes: the same index, shard for shard, byte for byte, and the same manifest. Each
 * case changes the real data as a maintainer would, rebuilds on top of the previous build, builds
 * the same data whole in a fresh directory, and compares.
 */
import { randomUUID } from 'node:crypto';
import { cp, mkdir, readFile, realpath, rename, rm, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { readLookupHead } from '../../contract/lookupIndex.ts';
import { routes, type Route } from '../../contract/routes.ts';
import { buildDist, type BuildSummary } from '../../generator/build.ts';
import { postalCodeKey } from '../../contract/keys.ts';
import { copyFixture, realBuildTimeoutMs, repoRoot, tempDir } from '../support/service.ts';
import { packedBody } from '../support/store.ts';
import { partitionMapFileName } from '../../generator/plan/partitionMapFile.ts';

type Row = Record<string, unknown>;

/** The served countries: Türkiye (one province's places), Luxembourg, Liechtenstein, Malta. */
const countries = ['TR', 'LU', 'LI', 'MT'];

/** The repository's data cut down to a few countries' addresses and days, copied (not linked): the cases edit it. */
async function dataSubset(addressCountries: readonly string[] | 'all'): Promise<string> {
  const dataDir = path.join(await tempDir('refdata-rebuild-'), 'data');
  await mkdir(path.join(dataDir, 'records'), { recursive: true });
  const source = path.join(repoRoot, 'data');
  await cp(path.join(source, 'sources.json'), path.join(dataDir, 'sources.json'));
  await writeFile(path.join(dataDir, 'build.json'), JSON.stringify({ holidayYears: { first: 2000, last: 2050 }, addressCountries }));
  const files = [
    ...[
      'bank',
      'callingCode',
      'country',
      'countryCurrency',
      'countryLanguage',
      'countryTimeZone',
      'countryTopLevelWebDomain',
      'currency',
      'district',
      'language',
      'region',
      'stateProvince',
      'timeZone',
      'webDomain',
      'weekend',
    ].map((type) => `${type}.json`),
    'neighborhood/34.json',
    ...['LU', 'LI', 'MT'].flatMap((code) => [`district/${code}.json`, `neighborhood/${code}.json`]),
    ...['countryHoliday', 'countrySpecialDay', 'stateProvinceHoliday', 'stateProvinceSpecialDay'].flatMap((type) =>
      ['tr', 'lu', 'li', 'mt'].map((code) => `${type}/${code}.json`),
    ),
  ];
  for (const file of files) {
    const from = path.join(source, 'records', file);
    const exists = await readFile(from).then(
      () => true,
      () => false,
    );
    if (!exists) continue;
    await mkdir(path.dirname(path.join(dataDir, 'records', file)), { recursive: true });
    await cp(from, path.join(dataDir, 'records', file));
  }
  return dataDir;
}

async function readRows(dataDir: string, file: string): Promise<Row[]> {
  return JSON.parse(await readFile(path.join(dataDir, 'records', file), 'utf8')) as Row[];
}

/** Writes a record file as an editor that saves atomically does: a new file renamed over the old. */
async function writeRows(dataDir: string, file: string, rows: readonly Row[]): Promise<void> {
  const target = path.join(dataDir, 'records', file);
  await mkdir(path.dirname(target), { recursive: true });
  await writeFile(`${target}.new`, JSON.stringify(rows, null, 2));
  await rename(`${target}.new`, target);
}

async function edit(dataDir: string, file: string, change: (rows: Row[]) => Row[] | undefined): Promise<void> {
  const rows = await readRows(dataDir, file);
  await writeRows(dataDir, file, change(rows) ?? rows);
}

function row(rows: readonly Row[], index: number): Row {
  const found = rows[index];
  if (!found) throw new Error(`no record #${index + 1}`);
  return found;
}

/** What must be equal between two builds of the same data: the index's shards, the manifest's data parts, the exports. */
async function comparable(distDir: string) {
  const head = await readLookupHead(distDir);
  const manifest = JSON.parse(await readFile(path.join(distDir, 'manifest.json'), 'utf8')) as Row;
  // Each export's bytes, through its hash (the gzip members' too, not only the lines).
  const { exports } = JSON.parse(await readFile(path.join(distDir, 'exports', 'index.json'), 'utf8')) as { exports: Record<string, { sha256: string }> };
  return {
    count: head.count,
    shards: head.shards,
    ambiguous: manifest.ambiguous,
    aliases: manifest.aliases,
    languages: manifest.languages,
    counts: manifest.counts,
    exports: Object.fromEntries(Object.entries(exports).map(([type, { sha256 }]) => [type, sha256])),
  };
}

/**
 * Serving every country, a rebuild reads only the files its changes reach (generator/plan/readPlan.ts);
 * serving some, it reads them all (gating a country's places takes every file).
 */
describe.each([
  { served: 'every country', addressCountries: 'all' as const },
  { served: 'some countries', addressCountries: countries },
])('a rebuild made from the previous build, serving $served', ({ addressCountries }) => {
  let dataDir: string;
  let distDir: string;

  beforeAll(async () => {
    dataDir = await dataSubset(addressCountries);
    distDir = path.join(await tempDir(), 'dist');
    const first = await buildDist({ dataDir, distDir, entriesPerShard: 64 });
    expect(first.rebuilt).toEqual({ reason: 'there is no previous build' });
  }, realBuildTimeoutMs);

  /** Rebuilds after `change`, builds the same data whole, and compares; the rebuild's summary is returned. */
  async function rebuildAfter(change: () => Promise<void>): Promise<BuildSummary> {
    await change();
    const rebuilt = await buildDist({ dataDir, distDir, entriesPerShard: 64 });
    const fullDir = path.join(await tempDir(), 'dist');
    const full = await buildDist({ dataDir, distDir: fullDir, entriesPerShard: 64 });
    expect(full.rebuilt).toEqual({ reason: 'there is no previous build' });
    expect(await comparable(distDir)).toEqual(await comparable(fullDir));
    return rebuilt;
  }

  const patched = (summary: BuildSummary) => {
    const { rebuilt } = summary;
    if (rebuilt === undefined || 'reason' in rebuilt) throw new Error(`made whole: ${JSON.stringify(rebuilt)}`);
    return rebuilt;
  };

  it(
    'renames a place',
    async () => {
      const summary = await rebuildAfter(() =>
        edit(dataDir, 'neighborhood/LU.json', (rows) => {
          row(rows, 3).name = `${String(row(rows, 3).name)} Nord`;
          return undefined;
        }),
      );
      expect(patched(summary).records).toEqual({ neighborhood: 1 });
      expect(patched(summary).changed).toBeGreaterThan(2);
      // Serving every country, Liechtenstein's and Malta's files are not read.
      expect(patched(summary).unread > 0).toBe(addressCountries === 'all');
    },
    realBuildTimeoutMs,
  );

  it(
    "gives a place another country's postal code (a body without a country holds both)",
    async () => {
      // A Maltese place's code as written, the same key in Liechtenstein: one body without a country holds
      // both, made from a file of another country than the one changed.
      const maltese = row(await readRows(dataDir, 'neighborhood/MT.json'), 0);
      const moved = row(await readRows(dataDir, 'neighborhood/LI.json'), 0);
      const summary = await rebuildAfter(() =>
        edit(dataDir, 'neighborhood/LI.json', (rows) => {
          row(rows, 0).zipCode = maltese.zipCode;
          return undefined;
        }),
      );
      const key = postalCodeKey(String(maltese.zipCode));
      const body = key.ok ? await packedBody(distDir, `addressmanagement/api/neighborhood/getbyzipcode/${key.key}.json`) : undefined;
      const ids = (JSON.parse(body?.bytes.toString('utf8') ?? '[]') as Row[]).map((place) => place.id);
      expect(ids).toEqual(expect.arrayContaining([maltese.id, moved.id]));
      expect(patched(summary).records).toEqual({ neighborhood: 1 });
    },
    realBuildTimeoutMs,
  );

  it(
    'reads every record when the previous build saved no partition map, or a damaged one',
    async () => {
      await writeFile(path.join(await realpath(distDir), partitionMapFileName), '{"files":{"records/neighborhood/LU.json":{"sha256":1}}}');
      const summary = await rebuildAfter(() =>
        edit(dataDir, 'neighborhood/LU.json', (rows) => {
          row(rows, 1).name = `${String(row(rows, 1).name)} Gare`;
          return undefined;
        }),
      );
      expect(patched(summary).records).toEqual({ neighborhood: 1 });
      await rm(path.join(await realpath(distDir), partitionMapFileName));
      const again = await rebuildAfter(() =>
        edit(dataDir, 'neighborhood/MT.json', (rows) => {
          row(rows, 1).name = `${String(row(rows, 1).name)} Ta' Fuq`;
          return undefined;
        }),
      );
      expect(patched(again).records).toEqual({ neighborhood: 1 });
    },
    realBuildTimeoutMs,
  );

  it(
    'adds a place and removes another',
    async () => {
      const summary = await rebuildAfter(() =>
        edit(dataDir, 'neighborhood/MT.json', (rows) => [...rows.slice(0, 2), { ...row(rows, 2), id: randomUUID(), name: 'Ħal Test' }, ...rows.slice(3)]),
      );
      expect(patched(summary).records).toEqual({ neighborhood: 2 });
    },
    realBuildTimeoutMs,
  );

  it(
    'renames a district and gives it an exonym',
    async () => {
      const summary = await rebuildAfter(() =>
        edit(dataDir, 'district/LU.json', (rows) => {
          Object.assign(row(rows, 0), { name: 'Käerjeng', aliases: ['Bascharage'] });
          return undefined;
        }),
      );
      expect(patched(summary).records).toEqual({ district: 1 });
    },
    realBuildTimeoutMs,
  );

  it(
    'adds a district and removes another with its places',
    async () => {
      const removed = row(await readRows(dataDir, 'district/LI.json'), 1);
      const summary = await rebuildAfter(async () => {
        await edit(dataDir, 'district/LI.json', (rows) => [
          ...rows.filter((district) => district.id !== removed.id),
          { ...row(rows, 0), id: randomUUID(), name: 'Neudorf' },
        ]);
        await edit(dataDir, 'neighborhood/LI.json', (rows) => rows.filter((place) => place.districtId !== removed.id));
      });
      expect(Object.keys(patched(summary).records).sort()).toEqual(['district', 'neighborhood']);
    },
    realBuildTimeoutMs,
  );

  it(
    'reorders the places of a file',
    async () => {
      const summary = await rebuildAfter(() => edit(dataDir, 'neighborhood/34.json', (rows) => [row(rows, 1), row(rows, 0), ...rows.slice(2)]));
      expect(patched(summary).records.neighborhood).toBeGreaterThan(2);
    },
    realBuildTimeoutMs,
  );

  it(
    'splits a file of places in two',
    async () => {
      const rows = await readRows(dataDir, 'neighborhood/LU.json');
      const summary = await rebuildAfter(async () => {
        await writeRows(dataDir, 'neighborhood/LU.json', rows.slice(0, 2000));
        await writeRows(dataDir, 'neighborhood/LU-2.json', rows.slice(2000));
      });
      expect(patched(summary).records.neighborhood).toBe(rows.length);
    },
    realBuildTimeoutMs,
  );

  it(
    'changes a holiday',
    async () => {
      const summary = await rebuildAfter(() =>
        edit(dataDir, 'countryHoliday/lu.json', (rows) => {
          row(rows, 0).summary = `${String(row(rows, 0).summary)} (observed)`;
          return undefined;
        }),
      );
      expect(patched(summary).records).toEqual({ countryHoliday: 1 });
    },
    realBuildTimeoutMs,
  );

  it(
    'renames a subdivision',
    async () => {
      const summary = await rebuildAfter(() =>
        edit(dataDir, 'stateProvince.json', (rows) => {
          const lu = rows.find((state) => state.id === '595b8519-1773-4b70-8f98-1fde0641b351');
          if (!lu) throw new Error("Luxembourg's canton is not in the data");
          lu.name = `${String(lu.name)} (canton)`;
          return undefined;
        }),
      );
      expect(patched(summary).records).toEqual({ stateProvince: 1 });
    },
    realBuildTimeoutMs,
  );

  it(
    'makes every body when a subdivision moves to another country, and says why',
    async () => {
      const summary = await rebuildAfter(async () => {
        const countries = await readRows(dataDir, 'country.json');
        const liechtenstein = countries.find((country) => country.alpha2Code === 'LI');
        await edit(dataDir, 'stateProvince.json', (rows) => {
          const canton = rows.find((state) => state.id === '595b8519-1773-4b70-8f98-1fde0641b351');
          if (!canton || !liechtenstein) throw new Error('the canton or Liechtenstein is not in the data');
          canton.countryId = liechtenstein.id;
          return undefined;
        });
      });
      expect(summary.rebuilt).toEqual({ reason: 'a stateProvince record changed its id or countryId, or was added or removed' });
    },
    realBuildTimeoutMs,
  );

  /** A rebuild after `change` must fail naming `problem`; the data is then restored and dist/ is as it was. */
  async function refusedAfter(files: readonly string[], change: () => Promise<void>, problem: RegExp): Promise<void> {
    const saved = await Promise.all(files.map((file) => readRows(dataDir, file)));
    const before = await comparable(distDir);
    await change();
    await expect(buildDist({ dataDir, distDir, entriesPerShard: 64 })).rejects.toThrow(problem);
    expect(await comparable(distDir)).toEqual(before);
    for (const [index, file] of files.entries()) await writeRows(dataDir, file, saved[index] ?? []);
  }

  it(
    'refuses a place given the id of a place in a file it did not change',
    async () => {
      const other = row(await readRows(dataDir, 'neighborhood/LU.json'), 5);
      await refusedAfter(
        ['neighborhood/MT.json'],
        () =>
          edit(dataDir, 'neighborhood/MT.json', (rows) => {
            row(rows, 0).id = other.id;
            return undefined;
          }),
        new RegExp(`field id: ${String(other.id)} is already used by`),
      );
    },
    realBuildTimeoutMs,
  );

  it(
    'refuses two places of the file it changed sharing an id, though the other files are as they were',
    async () => {
      const [first] = await readRows(dataDir, 'neighborhood/MT.json');
      await refusedAfter(
        ['neighborhood/MT.json'],
        () =>
          edit(dataDir, 'neighborhood/MT.json', (rows) => {
            row(rows, 3).id = row(rows, 0).id;
            return undefined;
          }),
        new RegExp(
          `neighborhood/MT.json record #4 \\(id ${String(first?.id)}\\): field id: ${String(first?.id)} is already used by .*neighborhood/MT.json record #1`,
        ),
      );
    },
    realBuildTimeoutMs,
  );

  it(
    'refuses a place of the file it changed naming no district, though the districts are as they were',
    async () => {
      const missing = randomUUID();
      await refusedAfter(
        ['neighborhood/MT.json'],
        () =>
          edit(dataDir, 'neighborhood/MT.json', (rows) => {
            row(rows, 2).districtId = missing;
            return undefined;
          }),
        new RegExp(`neighborhood/MT.json record #3 \\(id [0-9a-f-]+\\): field districtId: no district has id ${missing}`),
      );
    },
    realBuildTimeoutMs,
  );

  it(
    'refuses a district removed while places of a file it did not change still name it',
    async () => {
      const district = row(await readRows(dataDir, 'district/LU.json'), 2);
      await refusedAfter(
        ['district/LU.json'],
        () => edit(dataDir, 'district/LU.json', (rows) => rows.filter((each) => each.id !== district.id)),
        new RegExp(`neighborhood/LU.json record #\\d+ \\(id [0-9a-f-]+\\): field districtId: no district has id ${String(district.id)}`),
      );
    },
    realBuildTimeoutMs,
  );

  it(
    'refuses a language removed while the country languages, unchanged, still name it',
    async () => {
      const countryLanguage = row(await readRows(dataDir, 'countryLanguage.json'), 0);
      await refusedAfter(
        ['language.json'],
        () => edit(dataDir, 'language.json', (rows) => rows.filter((each) => each.id !== countryLanguage.languageId)),
        new RegExp(`countryLanguage.json record #1 \\(id [0-9a-f-]+\\): field languageId: no language has id ${String(countryLanguage.languageId)}`),
      );
    },
    realBuildTimeoutMs,
  );

  it(
    'refuses a name with a space at its end, which a build does not trim',
    async () => {
      await refusedAfter(
        ['neighborhood/LI.json'],
        () =>
          edit(dataDir, 'neighborhood/LI.json', (rows) => {
            row(rows, 1).name = `${String(row(rows, 1).name)} `;
            return undefined;
          }),
        /neighborhood\/LI.json record #2 \(id [0-9a-f-]+\): field name: must not start or end with white space/,
      );
    },
    realBuildTimeoutMs,
  );
});

describe('a rebuild of a route table with a route added that reads another type', () => {
  // A route of states or provinces listed by their districts' subdivision (each state under the key
  // of each of its districts): its bodies read the districts, which nothing declares by hand. The
  // rebuild must remake them when a district is added, though districts are planned group by group
  // and states are not. On the fixture, every state has districts, so every state is served.
  const byCountry = routes.find((route) => route.path.endsWith('/stateprovince/getbycountryid'));
  if (byCountry === undefined || byCountry.params[0] === undefined) throw new Error('stateprovince/getbycountryid is not in the route table');
  const byDistrictState: Route = {
    ...byCountry,
    path: '/addressmanagement/api/stateprovince/getbydistrictstate',
    params: [{ ...byCountry.params[0], name: 'stateprovinceid', field: 'id' }],
    parent: { record: 'district', field: 'stateProvinceId' },
  };
  const withRoute = [...routes, byDistrictState];

  it(
    'gives the bodies of a full build when a district is added to a state',
    async () => {
      const dataDir = await copyFixture();
      const distDir = path.join(await tempDir(), 'dist');
      await buildDist({ dataDir, distDir, entriesPerShard: 16, routes: withRoute });
      const before = await comparable(distDir);
      await edit(dataDir, 'district.json', (rows) => [...rows, { ...row(rows, 0), id: randomUUID(), name: `${String(row(rows, 0).name)} Ost` }]);
      const rebuilt = await buildDist({ dataDir, distDir, entriesPerShard: 16, routes: withRoute });
      expect(rebuilt.rebuilt).toMatchObject({ records: { district: 1 } });
      const fullDir = path.join(await tempDir(), 'dist');
      await buildDist({ dataDir, distDir: fullDir, entriesPerShard: 16, routes: withRoute });
      expect(await comparable(distDir)).toEqual(await comparable(fullDir));
      expect(await comparable(distDir)).not.toEqual(before);
    },
    realBuildTimeoutMs * 3,
  );
});

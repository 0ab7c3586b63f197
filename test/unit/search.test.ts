/**
 * The prefix search end to end, without a build: the generator's files for a scope of more records
 * than a candidates file holds, read back by the proxy's search through a store over those files,
 * answer every query as a brute-force ranking over all the records does.
 */
import { describe, expect, it } from 'vitest';
import { foldName } from '../../contract/keys.ts';
import type { ManifestEntry } from '../../contract/manifest.ts';
import { routes, type RecordType, type Route } from '../../contract/routes.ts';
import { keyCharacterAt, keyCharacters, leafSize, searchLimit, wordStarts } from '../../contract/search.ts';
import type { Indexing } from '../../generator/bodies/indexing.ts';
import { Projection } from '../../generator/bodies/projection.ts';
import { RecordKeys } from '../../generator/bodies/recordKeys.ts';
import { indexSearch } from '../../generator/bodies/search.ts';
import type { DataRecord } from '../../generator/records/schemas.ts';
import type { BodyStore } from '../../proxy/store/store.ts';
import { findSearch, makeAnswer } from '../../proxy/http/search.ts';

const route = routes.find((candidate) => candidate.path.endsWith('/stateprovince/searchbyname')) as Route;
const countryA = '11111111-1111-4111-8111-111111111111';
const countryB = '22222222-2222-4222-8222-222222222222';

// Made-up names for the test only, built so that some prefixes match far more than leafSize records.
const firsts = ['Kara', 'Karaca', 'Kar', 'Kavak', 'Kale', 'Kaş', 'Kan', 'Kalkan', 'Kazan', 'Yeni', 'Eski', 'İnce', 'Işık', 'Çay', 'Ak', 'Ala'];
const seconds = ['dağ', 'Köy', 'su', 'Ova', 'Tepe', 'Bel', 'Kaya', 'Pınar', 'Yurt', 'Han', 'Yazı', 'Göl', 'Kent', 'Ören', 'Dere'];
const records: DataRecord[] = firsts.flatMap((first, i) =>
  seconds.map((second, j) => ({
    id: `00000000-0000-4000-8000-${String(i * 100 + j).padStart(12, '0')}`,
    countryId: (i + j) % 3 === 0 ? countryB : countryA,
    name: j % 2 === 0 ? `${first}${second.toLowerCase()}` : `${first} ${second}`,
    abbreviation: `${i}${j}`,
  })),
);

function indexed(): Map<string, string> {
  const dataset = { records: new Map<RecordType, DataRecord[]>([['stateProvince', records]]), where: () => undefined };
  const problems: string[] = [];
  const bodies = new Map<string, string>();
  const indexing = {
    dataset,
    settings: {},
    keys: new RecordKeys(dataset, problems),
    projection: new Projection(),
    bodies,
    ambiguous: [],
    problems,
  } as unknown as Indexing;
  indexSearch(route, records, indexing);
  expect(problems).toEqual([]);
  return bodies;
}

/** A store over the files in memory, as a build's would be. */
function storeOf(bodies: ReadonlyMap<string, string>): BodyStore {
  const byEtag = new Map<string, Buffer>();
  return {
    find(routePath, keys) {
      const file = `${routePath.slice(1)}/${keys.join('/')}.json`;
      const body = bodies.get(file);
      if (body === undefined) return undefined;
      const etag = `"e${foldName(file).replace(/[^a-z0-9]/g, '')}"`;
      byEtag.set(etag, Buffer.from(body));
      return { file, entry: { etag, size: Buffer.byteLength(body) } as ManifestEntry };
    },
    cached: (entry) => byEtag.get(entry.etag),
    read: async (_file, entry) => byEtag.get(entry.etag) as Buffer,
  } as BodyStore;
}

/** The answer by brute force: every record of the scope, tiered, in collation order within a tier. */
function expected(query: string, countryId?: string): string[] {
  const collator = new Intl.Collator('und');
  const tierOf = (record: DataRecord) => {
    const name = foldName(String(record.name));
    if (name === query) return 0;
    if (name.startsWith(query)) return 1;
    return wordStarts(name).some((word) => word.startsWith(query)) ? 2 : undefined;
  };
  return records
    .filter((record) => countryId === undefined || record.countryId === countryId)
    .map((record) => ({ record, tier: tierOf(record) }))
    .filter(({ tier }) => tier !== undefined)
    .sort((a, b) => (a.tier ?? 0) - (b.tier ?? 0) || collator.compare(String(a.record.name), String(b.record.name)))
    .slice(0, searchLimit)
    .map(({ record }) => String(record.id));
}

async function answered(store: BodyStore, name: string, countryId?: string): Promise<string[]> {
  const keys = [foldName(name), ...(countryId ? [countryId] : [])];
  const target = findSearch(
    route,
    { keys, given: [name], params: new Map() },
    { ...store, find: (path, wanted) => (path.endsWith('/getbyid') ? ({} as never) : store.find(path, wanted)) },
  );
  const body = target.search === undefined ? (store.cached(target.found.entry) as Buffer) : (await makeAnswer(store, target)).body;
  return (JSON.parse(body.toString('utf8')) as { id: string }[]).map((record) => record.id);
}

const fnvPrime = 0x01000193;

/** FNV-1a, 32 bits, over a string's char codes: a hash anyone can collide on purpose. */
function fnv1a(text: string): number {
  let hash = 0x811c9dc5;
  for (let index = 0; index < text.length; index++) hash = Math.imul(hash ^ text.charCodeAt(index), fnvPrime);
  return hash >>> 0;
}

/**
 * `text` followed by eight letters, with the FNV-1a hash of `text` itself: found as an attacker
 * would, meeting in the middle (FNV-1a's step is invertible: the prime is odd), in well under a second.
 */
function fnvTwin(text: string): string {
  let inverse = fnvPrime;
  for (let step = 0; step < 5; step++) inverse = Math.imul(inverse, 2 - Math.imul(fnvPrime, inverse));
  const letters = 'abcdefghijklmnopqrstuvwxyz';
  const quads = letters
    .split('')
    .flatMap((a) => letters.split('').flatMap((b) => letters.split('').flatMap((c) => letters.split('').map((d) => a + b + c + d))));
  const forward = new Map<number, string>();
  const start = fnv1a(text);
  for (const quad of quads) {
    let hash = start;
    for (let index = 0; index < 4; index++) hash = Math.imul(hash ^ quad.charCodeAt(index), fnvPrime);
    forward.set(hash >>> 0, quad);
  }
  for (const quad of quads) {
    // Backwards from the target through the last four letters, the last first.
    let hash = start;
    for (let index = 3; index >= 0; index--) hash = Math.imul(hash, inverse) ^ quad.charCodeAt(index);
    const first = forward.get(hash >>> 0);
    if (first !== undefined) return `${text}${first}${quad}`;
  }
  throw new Error(`no FNV-1a twin of ${text} among the eight-letter suffixes`);
}

describe('the characters of a folded key', () => {
  it('start where keyCharacters says, an escaped character whole, at every offset', () => {
    for (const name of ['İstanbul', 'Çaykara', 'Kaş', 'a_b', 'x_', '_', 'Ørsta-Volda', 'Şanlıurfa', '東京', 'München']) {
      const key = name.includes('_') ? name : foldName(name);
      for (let at = 0; at <= key.length; at++) expect(keyCharacterAt(key, at), `${key} at ${at}`).toBe(keyCharacters(key.slice(at))[0] ?? '');
    }
  });
});

describe('prefix search', () => {
  it('answers every query as a ranking over all the records does, from answer files and from candidates', async () => {
    const bodies = indexed();
    const files = [...bodies.keys()].map((file) => file.split('/').pop() ?? '');
    // Both kinds of file are there: answers of the crowded prefixes, candidates of the others.
    expect(files.filter((name) => name.startsWith('~')).length).toBeGreaterThan(1);
    expect(files.filter((name) => !name.startsWith('~')).length).toBeGreaterThan(0);
    expect(records.filter((record) => foldName(String(record.name)).startsWith('ka')).length).toBeGreaterThan(leafSize / 2);
    const store = storeOf(bodies);
    const queries = new Set<string>([
      'Ka',
      'KARA',
      'karac',
      'kara dağ',
      'kö',
      'Köy',
      'ışı',
      'isik',
      'ince',
      'çay',
      'cay',
      'zz',
      'yenisu',
      'Yeni Su',
      'tepe',
      'a',
      `Karacadağ${' ve ötesi'.repeat(20)}`,
      `kara${'a'.repeat(190)}`,
    ]);
    for (const record of records) {
      const name = String(record.name);
      for (let length = 2; length <= name.length; length += 2) queries.add(name.slice(0, length));
    }
    for (const query of queries) {
      if (foldName(query).length < 2) continue;
      expect(await answered(store, query), query).toEqual(expected(foldName(query)));
      expect(await answered(store, query, countryB), `${query} in B`).toEqual(expected(foldName(query), countryB));
    }
  });

  it('tells apart two queries whose 32-bit FNV-1a hashes are equal, made from one candidates file', async () => {
    const store = storeOf(indexed());
    const query = 'kalkan';
    const target = (name: string) =>
      findSearch(route, { keys: [foldName(name)], given: [name], params: new Map() }, { ...store, find: (path, wanted) => store.find(path, wanted) });
    expect(target(query).search).toBe(query);
    expect(await answered(store, query)).not.toEqual([]);
    const twin = fnvTwin(query);
    expect(fnv1a(twin)).toBe(fnv1a(query));
    // Both are made from the same candidates file: only the query tells their answers apart.
    expect(target(twin).found.file).toBe(target(query).found.file);
    expect(await answered(store, twin)).toEqual(expected(twin));
    expect(await answered(store, query)).toEqual(expected(query));
    const etagOf = async (name: string) => (await makeAnswer(store, target(name))).lookup.entry.etag;
    expect(await etagOf(twin)).not.toBe(await etagOf(query));
  });

  it('finds the answer of a query of any length in a few lookups, as many as the logarithm of its length', async () => {
    const store = storeOf(indexed());
    let finds = 0;
    const counting: BodyStore = {
      ...store,
      find: (path, wanted) => {
        finds++;
        return store.find(path, wanted);
      },
    };
    for (const query of ['Karacadağ', `Karacadağ${'x'.repeat(40)}`, `Kara${'a'.repeat(196)}`, `Yenisu${' tepe'.repeat(38)}`]) {
      finds = 0;
      expect(await answered(counting, query), query).toEqual(expected(foldName(query)));
      // The answer file, the candidates below the shortest query (2 characters), the shortest's two, then two a step of the bisection.
      expect(finds, query).toBeLessThanOrEqual(1 + 2 + 2 + 2 * Math.ceil(Math.log2(foldName(query).length - 1)));
    }
  });

  it('refuses a query shorter than the route allows, saying how many more to type', () => {
    const store = storeOf(indexed());
    expect(() => findSearch(route, { keys: ['k'], given: ['k'], params: new Map() }, store)).toThrow(/needs at least 2 letters or digits; type 1 more/);
  });
});

/**
 * Which record files a rebuild reads (generator/plan/readPlan.ts), on a partition map of a few
 * files: the changed ones, those of their countries closed over countries, the examples' own.
 */
import { describe, expect, it } from 'vitest';
import { routes } from '../../contract/routes.ts';
import type { RebuildBasis } from '../../generator/builds/summary.ts';
import type { InputFile, Inputs } from '../../generator/load.ts';
import type { FilePartition, PartitionMap } from '../../generator/plan/partitionMapFile.ts';
import { partialReadBlocked, planReads } from '../../generator/plan/readPlan.ts';

const entry = (sha256: string, countries: string[]): FilePartition => ({ sha256, records: 1, countries, spanning: {} });

/** Germany's places in one file, Austria's and Switzerland's apart, a file holding both Austria and Liechtenstein, Türkiye's examples. */
const map: PartitionMap = {
  files: {
    'records/district/DE.json': entry('d-de', ['de']),
    'records/neighborhood/DE.json': entry('n-de', ['de']),
    'records/neighborhood/AT.json': entry('n-at', ['at', 'li']),
    'records/district/AT.json': entry('d-at', ['at']),
    'records/district/LI.json': entry('d-li', ['li']),
    'records/district/CH.json': entry('d-ch', ['ch']),
    'records/neighborhood/34.json': entry('n-34', ['tr']),
    'records/district.json': entry('d-tr', ['tr']),
    'records/neighborhood/06.json': entry('n-06', ['tr']),
  },
  examples: { neighborhood: { id: 'caferaga', file: 'records/neighborhood/34.json' }, district: { id: 'kadikoy', file: 'records/district.json' } },
};

const file = (relativePath: string, sha256: string): InputFile => ({ relativePath, displayPath: relativePath, bytes: Buffer.alloc(0), sha256 });

function inputsOf(shas: Record<string, string>, settings: unknown = { holidayYears: { first: 2020, last: 2030 }, addressCountries: 'all' }): Inputs {
  return {
    records: [file('records/country.json', 'c'), ...Object.entries(shas).map(([path, sha]) => file(path, sha))],
    settings: { ...file('build.json', 's'), bytes: Buffer.from(JSON.stringify(settings)) },
    sources: undefined,
    dataVersion: 'v',
  };
}

const previous: Record<string, string> = Object.fromEntries(Object.entries(map.files).map(([path, { sha256 }]) => [path, sha256]));
const basis: RebuildBasis = { codeVersion: 'x', settings: 's', entriesPerShard: 64, records: { 'records/country.json': 'c', ...previous } };

const readOf = (plan: ReturnType<typeof planReads>): string[] => (plan.all ? ['all'] : [...plan.partitioned].sort());

describe('the record files a rebuild reads', () => {
  it("reads a changed file, its country's files and the examples' files, not the examples' countries", () => {
    const plan = planReads({ inputs: inputsOf({ ...previous, 'records/neighborhood/DE.json': 'n-de2' }), basis, map, routes });
    expect(readOf(plan)).toEqual(['records/district.json', 'records/district/DE.json', 'records/neighborhood/34.json', 'records/neighborhood/DE.json']);
  });

  it('closes over countries: a file holding two brings both countries’ files', () => {
    const plan = planReads({ inputs: inputsOf({ ...previous, 'records/district/AT.json': 'd-at2' }), basis, map, routes });
    expect(readOf(plan)).toEqual([
      'records/district.json',
      'records/district/AT.json',
      'records/district/LI.json',
      'records/neighborhood/34.json',
      'records/neighborhood/AT.json',
    ]);
  });

  it('reads what a plan asked for, with its countries, and a file the map does not describe as it is', () => {
    const plan = planReads({
      inputs: inputsOf({ ...previous, 'records/neighborhood/06.json': 'n-06-edited-before-the-map' }),
      basis: { ...basis, records: { ...basis.records, 'records/neighborhood/06.json': 'n-06-edited-before-the-map' } },
      map,
      routes,
      more: new Set(['records/district/CH.json']),
    });
    expect(readOf(plan)).toEqual(['records/district.json', 'records/district/CH.json', 'records/neighborhood/06.json', 'records/neighborhood/34.json']);
  });

  it("seeds the countries of a removed file's old version", () => {
    const { 'records/district/LI.json': _removed, ...rest } = previous;
    expect(readOf(planReads({ inputs: inputsOf(rest), basis, map, routes }))).toContain('records/neighborhood/AT.json');
  });

  it('reads every file without a map, for a build serving some countries, or when nothing is left unread', () => {
    const changed = { ...previous, 'records/neighborhood/DE.json': 'n-de2' };
    expect(planReads({ inputs: inputsOf(changed), basis, map: undefined, routes }).all).toBe(true);
    const some = inputsOf(changed, { holidayYears: { first: 2020, last: 2030 }, addressCountries: ['DE'] });
    expect(planReads({ inputs: some, basis, map, routes }).all).toBe(true);
    const everything = new Set(Object.keys(map.files));
    expect(planReads({ inputs: inputsOf(changed), basis, map, routes, more: everything }).all).toBe(true);
  });

  it('holds for the route table: the partitioned types are told apart by id alone and no type made whole refers to them', () => {
    expect(partialReadBlocked(routes)).toBeUndefined();
    const byZip = routes.find((route) => route.path.endsWith('/neighborhood/getbyzipcode'));
    if (!byZip) throw new Error('no getbyzipcode route');
    expect(partialReadBlocked([...routes, { ...byZip, path: '/x/neighborhood/getonebyzipcode', shape: 'single' }])).toMatch(/unique across every neighborhood/);
  });
});

/**
 * What a rebuild takes as checked by the previous build (generator/rebuild.ts checkedBefore): only
 * what the same code, with the same settings, checked of the same bytes, and never the records of a
 * type whose gate (the countries a build serves) may have moved.
 */
import { describe, expect, it } from 'vitest';
import { checkedBefore, type RebuildBasis } from '../../generator/rebuild.ts';

const basis = (records: Record<string, string>, changes: Partial<RebuildBasis> = {}): RebuildBasis => ({
  codeVersion: 'code-1',
  settings: 'settings-1',
  entriesPerShard: 64,
  records,
  ...changes,
});

const files = {
  'records/country.json': 'a',
  'records/stateProvince.json': 'b',
  'records/district/LU.json': 'c',
  'records/neighborhood/LU.json': 'd',
  'records/neighborhood/MT.json': 'e',
  'records/language.json': 'f',
  'records/countryLanguage.json': 'g',
};

describe('checkedBefore', () => {
  it('takes nothing from a build of other code or other settings, or from none', () => {
    expect(checkedBefore(undefined, basis(files))).toEqual({});
    expect(checkedBefore(basis(files, { codeVersion: 'code-0' }), basis(files))).toEqual({});
    expect(checkedBefore(basis(files, { settings: 'settings-0' }), basis(files))).toEqual({});
  });

  it('takes the unchanged files, and the types none of whose files changed', () => {
    const { files: same, types } = checkedBefore(basis(files), basis({ ...files, 'records/neighborhood/MT.json': 'e2' }));
    expect(same?.has('records/neighborhood/LU.json')).toBe(true);
    expect(same?.has('records/neighborhood/MT.json')).toBe(false);
    expect(types?.has('neighborhood')).toBe(false);
    expect(types?.has('district')).toBe(true);
    expect(types?.has('language')).toBe(true);
  });

  it('counts a file added or removed as a change of its type', () => {
    const { types: added } = checkedBefore(basis(files), basis({ ...files, 'records/neighborhood/LI.json': 'h' }));
    expect(added?.has('neighborhood')).toBe(false);
    const { 'records/language.json': _removed, ...fewer } = files;
    const { types: removed } = checkedBefore(basis(files), basis(fewer));
    expect(removed?.has('language')).toBe(false);
    expect(removed?.has('countryLanguage')).toBe(true);
  });

  it('takes no district or place as checked when the records that gate them changed: a moved gate may serve what was left out', () => {
    const { files: same, types } = checkedBefore(basis(files), basis({ ...files, 'records/district/LU.json': 'c2' }));
    expect(same?.has('records/neighborhood/LU.json')).toBe(false);
    expect(types?.has('neighborhood')).toBe(false);
    expect(types?.has('stateProvince')).toBe(true);
    const { files: afterProvinces, types: typesAfterProvinces } = checkedBefore(basis(files), basis({ ...files, 'records/stateProvince.json': 'b2' }));
    expect(afterProvinces?.has('records/district/LU.json')).toBe(false);
    expect(typesAfterProvinces?.has('district')).toBe(false);
    expect(typesAfterProvinces?.has('language')).toBe(true);
  });
});

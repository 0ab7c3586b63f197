/** The ambiguity rule of the single lookups (generator/bodies/ambiguity.ts), record by record. */
import { describe, expect, it } from 'vitest';
import { aliasesOf, Candidates, keyTuples, rank } from '../../generator/bodies/ambiguity.ts';
import type { DataRecord } from '../../generator/records/schemas.ts';

const record = (id: string, fields: Record<string, unknown> = {}): DataRecord => ({ id, ...fields }) as DataRecord;

/** The ids the rule answers for each key: the chosen first, then the others in rank order. */
function choose(added: readonly [string, DataRecord, number, number][]): Record<string, string[]> {
  const candidates = new Candidates();
  for (const [key, candidate, tier, weight] of added) candidates.add(key, { record: candidate, tier, weight });
  return Object.fromEntries([...candidates.choices()].map(([key, { chosen, others }]) => [key, [chosen.id, ...others.map(({ id }) => id)]]));
}

describe('the ambiguity rule', () => {
  const [georgia, usState, other] = [record('1'), record('2'), record('3')];

  it("a record's own name beats another's alternative name, whatever the order in the data", () => {
    expect(
      choose([
        ['georgia', usState, 1, 1],
        ['georgia', georgia, 0, 1],
      ]),
    ).toEqual({ georgia: ['1', '2'] });
    expect(
      choose([
        ['georgia', georgia, 0, 1],
        ['georgia', usState, 1, 1],
      ]),
    ).toEqual({ georgia: ['1', '2'] });
  });

  it('an alternative name beats a name in another language, and within a tier the one more locales use wins', () => {
    expect(
      choose([
        ['x', other, 2, 90],
        ['x', usState, 1, 1],
      ]),
    ).toEqual({ x: ['2', '3'] });
    expect(
      choose([
        ['x', other, 2, 3],
        ['x', usState, 2, 40],
        ['x', georgia, 2, 7],
      ]),
    ).toEqual({ x: ['2', '1', '3'] });
  });

  it('keeps data order among equals', () => {
    expect(
      choose([
        ['x', other, 1, 1],
        ['x', georgia, 1, 1],
        ['x', usState, 1, 1],
      ]),
    ).toEqual({ x: ['3', '1', '2'] });
  });

  it('counts a record found twice under one key once, at its best reach', () => {
    expect(
      choose([
        ['x', usState, 2, 5],
        ['x', georgia, 1, 1],
        ['x', usState, 0, 1],
      ]),
    ).toEqual({ x: ['2', '1'] });
    expect(
      choose([
        ['x', usState, 0, 1],
        ['x', usState, 2, 5],
      ]),
    ).toEqual({ x: ['2'] });
  });

  it('answers each key on its own, in the order keys were first met', () => {
    expect(
      Object.keys(
        choose([
          ['b', georgia, 0, 1],
          ['a', usState, 0, 1],
          ['b', other, 0, 1],
        ]),
      ),
    ).toEqual(['b', 'a']);
  });

  it('ranks by tier first, then by weight', () => {
    expect(rank({ tier: 0, weight: 1 }, { tier: 1, weight: 100 })).toBeLessThan(0);
    expect(rank({ tier: 1, weight: 2 }, { tier: 1, weight: 1 })).toBeLessThan(0);
    expect(rank({ tier: 1, weight: 1 }, { tier: 1, weight: 1 })).toBe(0);
  });
});

describe('key tuples', () => {
  it('reach a record as weakly as their weakest key: the highest tier, the least weight', () => {
    const tuples = keyTuples([
      [
        { key: 'tr', tier: 0, weight: 1 },
        { key: 'turkey', tier: 1, weight: 1 },
      ],
      [
        { key: 'istanbul', tier: 0, weight: 1 },
        { key: 'stambul', tier: 2, weight: 12 },
      ],
    ]);
    expect(tuples).toEqual([
      { keys: ['tr', 'istanbul'], tier: 0, weight: 1 },
      { keys: ['tr', 'stambul'], tier: 2, weight: 1 },
      { keys: ['turkey', 'istanbul'], tier: 1, weight: 1 },
      { keys: ['turkey', 'stambul'], tier: 2, weight: 1 },
    ]);
  });

  it('of one parameter keep its keys as they are; a parameter without keys gives none', () => {
    expect(keyTuples([[{ key: 'a', tier: 2, weight: 7 }]])).toEqual([{ keys: ['a'], tier: 2, weight: 7 }]);
    expect(keyTuples([[{ key: 'a', tier: 0, weight: 1 }], []])).toEqual([]);
  });
});

describe('alias names', () => {
  it('weigh a localized name by its locales and a plain name as 1', () => {
    const country = record('1', { localizedNames: [{ name: 'Türkei', locales: ['de', 'de-AT', 'de-CH'] }, { name: 'Turquie' }], aliases: ['Turkey'] });
    expect(aliasesOf(country, 'localizedNames')).toEqual([
      { value: 'Türkei', weight: 3 },
      { value: 'Turquie', weight: 1 },
    ]);
    expect(aliasesOf(country, 'aliases')).toEqual([{ value: 'Turkey', weight: 1 }]);
    expect(aliasesOf(country, 'missing')).toEqual([]);
  });
});

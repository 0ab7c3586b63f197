/**
 * The ambiguity rule of the single lookups (docs/api.md): when one key names several records, a
 * record's own name beats another's alternative name, which beats another's name in another
 * language, the one more CLDR locales use first; then the first in data order. The others are
 * listed in the manifest's `ambiguous`.
 */
import type { DataRecord } from '../records/schemas.ts';

/**
 * How a key reaches a record: tier 0 by its own field, 1 by its first alias field, 2 by the next…;
 * within a tier, a greater weight wins (how many CLDR locales use a localized name).
 */
export interface Reach {
  readonly tier: number;
  readonly weight: number;
}

export interface Candidate extends Reach {
  readonly record: DataRecord;
}

/** One parameter's key and how it reaches the record. */
export interface KeyReach extends Reach {
  readonly key: string;
}

/** A whole key tuple and how it reaches the record. */
export interface TupleReach extends Reach {
  readonly keys: readonly string[];
}

/** An alias field's names: plain strings (weight 1), or `{name, locales}` weighed by their locales. */
export function aliasesOf(record: DataRecord, field: string): { value: unknown; weight: number }[] {
  const values = (record[field] as unknown[] | undefined) ?? [];
  return values.map((value) =>
    typeof value === 'object' && value !== null && 'name' in value
      ? { value: value.name, weight: 'locales' in value && Array.isArray(value.locales) ? value.locales.length : 1 }
      : { value, weight: 1 },
  );
}

/** The rule's order: lower tier first, then greater weight; sort() keeps data order for ties. */
export const rank = (a: Reach, b: Reach): number => a.tier - b.tier || b.weight - a.weight;

/**
 * Every key tuple of a record, from each parameter's keys: a tuple reaches the record as weakly as
 * its weakest key does (the highest tier, the least weight).
 */
export function keyTuples(perParam: readonly (readonly KeyReach[])[]): TupleReach[] {
  // Most lookups take one key: its keys are the tuples (millions of records go through here).
  if (perParam.length === 1) return (perParam[0] as readonly KeyReach[]).map(({ key, tier, weight }) => ({ keys: [key], tier, weight }));
  return perParam.reduce<TupleReach[]>(
    (partial, options) =>
      partial.flatMap((tuple) =>
        options.map(({ key, tier, weight }) => ({ keys: [...tuple.keys, key], tier: Math.max(tuple.tier, tier), weight: Math.min(tuple.weight, weight) })),
      ),
    [{ keys: [], tier: 0, weight: Number.POSITIVE_INFINITY }],
  );
}

/** What a key answers: the record the rule chooses, and the others it also names. */
export interface Choice {
  readonly chosen: DataRecord;
  readonly others: readonly DataRecord[];
}

/** The records each key names, gathered record by record (in data order), then chosen among. */
export class Candidates {
  readonly #byKey = new Map<string, Candidate[]>();

  /** A record found twice under one key (two spellings that fold alike) counts once, at its best. */
  add(key: string, candidate: Candidate): void {
    const list = this.#byKey.get(key);
    if (list === undefined) {
      this.#byKey.set(key, [candidate]);
      return;
    }
    const known = list.findIndex((other) => other.record === candidate.record);
    if (known === -1) list.push(candidate);
    else if (rank(candidate, list[known] as Candidate) < 0) list[known] = candidate;
  }

  /** Each key with the rule's choice, in the order the keys were first met. */
  *choices(): IterableIterator<[string, Choice]> {
    for (const [key, list] of this.#byKey) {
      const [chosen, ...others] = list.length === 1 ? list : [...list].sort(rank);
      if (chosen) yield [key, { chosen: chosen.record, others: others.map(({ record }) => record) }];
    }
  }
}

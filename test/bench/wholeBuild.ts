/**
 * The mixes drawn over the whole build, as users' traffic reaches it: every body a query names
 * (spelling.ts spellingOf: single records, lists, searches' answers, bodies in another language,
 * calendars, neighbourhoods by district and by postal code …), not a hot set that fits every cache.
 *
 * - random: `count` distinct bodies drawn uniformly, each asked once, in a shuffled order;
 * - skewed: `count` requests over the same population drawn with a Zipf skew: the bodies ranked
 *   in a random order, rank r asked with a probability of about 1 / r^s (s = 1), so a few bodies
 *   are asked often and most once (tens of thousands distinct on the full data).
 *
 * One pass over the build: a reservoir (Algorithm R) of `count` bodies, a uniform sample whatever
 * the build's size, and the count of the population. The skewed mix's ranks are drawn over the
 * whole population; the distinct ranks drawn are as many bodies taken uniformly from it, which
 * are the reservoir's first ones once it is shuffled. Reproducible from the seed for one build.
 */
import { type BodySampler, type Lookup, lookupOf, seededRandom, type SpelledBody, type UrlMix, urlMixOf } from './urls.ts';

/** The Zipf exponent of the skewed mix: 1, the classic skew of web objects' popularity. */
export const skewExponent = 1;

/** Draws the skewed mix's ranks from a stream of their own, so that the random mix does not depend on whether the skewed one is drawn. */
const skewStream = 0x2545f491;

/**
 * A rank from 1 to `population`, drawn by inverting the continuous density x^-s over
 * [1, population + 1): rank r about 1 / r^s as likely as rank 1.
 */
export function zipfRank(random: () => number, population: number, exponent: number): number {
  const u = random();
  const end = population + 1;
  const x = exponent === 1 ? end ** u : (1 + u * (end ** (1 - exponent) - 1)) ** (1 / (1 - exponent));
  return Math.min(population, Math.max(1, Math.floor(x)));
}

export class WholeBuildSampler implements BodySampler {
  readonly passes = 1;
  readonly #count: number;
  readonly #seed: number;
  readonly #random: () => number;
  /** The reservoir: a uniform sample of the bodies seen so far, at most `count`. */
  readonly #reservoir: Lookup[] = [];
  #population = 0;
  #unreadableKeys = 0;

  constructor(count: number, seed: number) {
    this.#count = count;
    this.#seed = seed;
    this.#random = seededRandom(seed);
  }

  visit(_pass: 1 | 2, { file, entry, spelling }: SpelledBody): void {
    if (spelling === undefined) return;
    if (spelling.proxyPath === undefined) {
      this.#unreadableKeys++;
      return;
    }
    const seen = this.#population++;
    if (seen < this.#count) this.#reservoir.push(lookupOf(file, entry, spelling.route, spelling.proxyPath));
    else {
      const replaced = Math.floor(this.#random() * (seen + 1));
      if (replaced < this.#count) this.#reservoir[replaced] = lookupOf(file, entry, spelling.route, spelling.proxyPath);
    }
  }

  /** Shuffles the reservoir (Fisher–Yates): its order was the index's. */
  endPass(): void {
    if (this.#population === 0) throw new Error('no body file of the build has a query that names it');
    for (let index = this.#reservoir.length - 1; index > 0; index--) {
      const other = Math.floor(this.#random() * (index + 1));
      [this.#reservoir[index], this.#reservoir[other]] = [this.#reservoir[other] as Lookup, this.#reservoir[index] as Lookup];
    }
  }

  /** Every body of the sample once, in a random order. */
  random(): UrlMix {
    return urlMixOf(this.#reservoir, this.#unreadableKeys, this.#population);
  }

  /** `count` requests, their ranks drawn with the Zipf skew over the whole population. */
  skewed(): UrlMix {
    const random = seededRandom(this.#seed ^ skewStream);
    const ranks = Array.from({ length: this.#count }, () => zipfRank(random, this.#population, skewExponent));
    // The k-th lowest rank drawn is the k-th body of the shuffled sample: ranks given to bodies at random.
    const bodyOfRank = new Map([...new Set(ranks)].sort((a, b) => a - b).map((rank, index) => [rank, this.#reservoir[index] as Lookup]));
    return urlMixOf(
      ranks.map((rank) => bodyOfRank.get(rank) as Lookup),
      this.#unreadableKeys,
      this.#population,
    );
  }
}

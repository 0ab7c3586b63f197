/**
 * `npm run bench`'s command line, read once and checked: a wrong option stops the bench before it
 * builds anything, naming the option and what it takes.
 */
import path from 'node:path';
import { parseArgs } from 'node:util';
import { benchMixIds, parseMixes, type BenchMixId } from './mixes.ts';
import { configurationIds, isReference, type ConfigurationId } from './report.ts';
import { repoRoot } from './servers.ts';

export class UsageError extends Error {}

export interface Options {
  readonly smoke: boolean;
  readonly rounds: number;
  readonly duration: number;
  readonly concurrency: readonly number[];
  /** Lookups of each mix drawn by operation (sampled, small, flags). */
  readonly samples: number;
  /** Lookups of each mix drawn over the whole build (random, skewed). */
  readonly randomCount: number;
  readonly warmup: number;
  readonly workers: number;
  readonly threads: number;
  readonly seed: number;
  readonly data: string;
  readonly dist: string | undefined;
  readonly out: string;
  readonly keep: boolean;
  /** The configurations to run; the references always run, as every ratio is taken against them. */
  readonly only: readonly ConfigurationId[];
  /** The request mixes each configuration is loaded with. */
  readonly mixes: readonly BenchMixId[];
}

function positive(name: string, text: string): number {
  const value = Number(text);
  if (!Number.isInteger(value) || value < 1) throw new UsageError(`--${name} takes a whole number of at least 1 (got ${JSON.stringify(text)})`);
  return value;
}

/** --only's list, checked: the references added, in the table's order. */
function chosenConfigurations(list: string): ConfigurationId[] {
  const named = new Set(
    list
      .split(',')
      .map((id) => id.trim())
      .filter((id) => id !== ''),
  );
  const unknown = [...named].filter((id) => !(configurationIds as readonly string[]).includes(id));
  if (unknown.length > 0) throw new UsageError(`--only takes configurations among ${configurationIds.join(', ')} (got ${unknown.join(', ')})`);
  return configurationIds.filter((id) => isReference(id) || named.has(id));
}

export function readOptions(): Options {
  const { values } = parseArgs({
    options: {
      smoke: { type: 'boolean', default: false },
      rounds: { type: 'string' },
      duration: { type: 'string' },
      concurrency: { type: 'string' },
      samples: { type: 'string' },
      'random-count': { type: 'string' },
      warmup: { type: 'string' },
      workers: { type: 'string', default: '2' },
      threads: { type: 'string', default: '2' },
      seed: { type: 'string', default: '1' },
      data: { type: 'string', default: 'data' },
      dist: { type: 'string' },
      out: { type: 'string' },
      keep: { type: 'boolean', default: false },
      only: { type: 'string' },
      mix: { type: 'string' },
    },
  });
  // --smoke: a few seconds in all, to show that the bench works (CI); any option given still wins.
  const smoke = values.smoke;
  const concurrency = (values.concurrency ?? (smoke ? '8' : '8,64')).split(',').map((level) => positive('concurrency', level.trim()));
  const warmup = Number(values.warmup ?? (smoke ? '0' : '3'));
  if (!Number.isInteger(warmup) || warmup < 0) throw new UsageError(`--warmup takes whole seconds, 0 or more (got ${JSON.stringify(values.warmup)})`);
  const mixes = parseMixes(values.mix ?? (smoke ? 'sampled' : benchMixIds.join(',')), benchMixIds);
  if (typeof mixes === 'string') throw new UsageError(mixes);
  const stamp = new Date().toISOString().replace(/[-:]|\.\d+/g, '');
  return {
    smoke,
    rounds: positive('rounds', values.rounds ?? (smoke ? '1' : '3')),
    duration: positive('duration', values.duration ?? (smoke ? '1' : '10')),
    concurrency,
    samples: positive('samples', values.samples ?? (smoke ? '200' : '4000')),
    randomCount: positive('random-count', values['random-count'] ?? (smoke ? '2000' : '60000')),
    warmup,
    workers: positive('workers', values.workers),
    threads: positive('threads', values.threads),
    seed: positive('seed', values.seed),
    data: path.resolve(values.data),
    dist: values.dist === undefined ? undefined : path.resolve(values.dist),
    out: path.resolve(values.out ?? path.join(repoRoot, 'bench-results', `${stamp}.json`)),
    keep: values.keep,
    only: values.only === undefined ? configurationIds : chosenConfigurations(values.only),
    mixes,
  };
}

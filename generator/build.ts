/**
 * `npm run build`: data/ → load → validate → index → write → dist/ (bodies, manifest.json, and
 * the public files: openapi.json and the docs page).
 *
 *   tsx generator/build.ts [--data data] [--dist dist] [--if-missing] [--keep-builds 10]
 *
 * --if-missing builds only when dist/ has no manifest (used by `npm start` on a fresh clone).
 * --keep-builds (default $KEEP_BUILDS, then 10) is how many builds' exports are kept, the new one
 * included: a change list is written from each (exports/changes.ts).
 * A build whose data and generator code are those of the current dist/ does nothing (a no-op
 * rebuild), unless --force. The dist directory defaults to $DIST_DIR, then `dist`, as for the proxy.
 */
import { createHash, randomBytes } from 'node:crypto';
import { access, readFile, realpath, rm } from 'node:fs/promises';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { parseArgs } from 'node:util';
import fg from 'fast-glob';
import { ProblemsError } from '../contract/errors.ts';
import { BuildError } from './records/errors.ts';
import { compareCodePoints } from './records/ordering.ts';
import { readInputs, type Inputs, type RecordFile } from './load.ts';
import { readSummary, type BuildSummaryFile, type RebuildBasis } from './builds/summary.ts';
import { buildsRootOf } from '../contract/builds.ts';
import { withBuildLock } from './builds/lock.ts';
import { PatchNotApplicable, type BodyPatch } from './packs/writeIndex.ts';
import { repairPointer, type DownloadFile, type WrittenBuild } from './write.ts';
import type { IndexedBodies } from './bodies.ts';
import { SpilledBodies, spillDirName, type BodySink } from './packs/spill.ts';
import { createProgress, silentProgress, type Progress } from './builds/progress.ts';
import type { RebuildChoice, RebuildPlan } from './rebuild.ts';
import type { DataSources } from './records/sources.ts';
import type { PartitionMap } from './plan/partitionMapFile.ts';
import type { ReadPlan } from './plan/readPlan.ts';
import type { RecordType } from '../contract/recordTypes.ts';
import type { BuildSettings } from './records/schemas.ts';
import type { Dataset, ValidatedDataset } from './validate.ts';
import type { ManifestHead } from '../contract/lookupIndex.ts';
import type { Route } from '../contract/routes.ts';

export interface BuildOptions {
  readonly dataDir: string;
  readonly distDir: string;
  /** Build even when dist/ already holds a build of the same inputs. */
  readonly force?: boolean;
  /** Builds whose exports are kept for change lists, the new one included (at least 2). */
  readonly keepBuilds?: number;
  /** Bodies per shard of the lookup index, on average at most (contract/lookupIndex.ts); smaller in tests, to have many shards. */
  readonly entriesPerShard?: number;
  /** Worker threads that pack a full build's bodies (0: the build's own thread); by default one per core for a large build. */
  readonly packThreads?: number;
  /** Told how far a full build's long stages are (the CLI draws it); silent when absent. */
  readonly progress?: Progress;
  /** The operations to make bodies for: contract/routes.ts's, unless a test adds one. */
  readonly routes?: readonly Route[];
}

export const defaultKeepBuilds = 10;
/** The previous build is always kept whole (proxies may still read it), so fewer than 2 means nothing. */
const keepBuildsRange = { min: 2, max: 100 } as const;

/** A --keep-builds or KEEP_BUILDS value, or the BuildError that says what to give. */
export function parseKeepBuilds(value: string | undefined, name: string): number {
  if (value === undefined || value === '') return defaultKeepBuilds;
  const count = Number(value);
  if (!/^\d+$/.test(value) || count < keepBuildsRange.min || count > keepBuildsRange.max) {
    throw new BuildError([`${name} ${JSON.stringify(value)}: expected a whole number of builds from ${keepBuildsRange.min} to ${keepBuildsRange.max}`]);
  }
  return count;
}

export interface BuildSummary extends WrittenBuild {
  readonly buildId: string;
  readonly dataVersion: string;
  readonly counts: Record<string, number>;
  readonly ambiguous: number;
  /** True when dist/ already held a build of the same inputs and nothing was written. */
  readonly upToDate: boolean;
  /** Seconds each stage took, in order (a real build only): where a slow build spends its time. */
  readonly stages?: Readonly<Record<string, number>>;
  /**
   * A real build's kind: made from the previous build (the bodies it changed, the records that
   * changed per type), or made whole (why).
   */
  readonly rebuilt?:
    | {
        readonly changed: number;
        readonly records: Readonly<Record<string, number>>;
        /** Record files taken as the previous build read them, without reading them (plan/readPlan.ts), of `files`. */
        readonly unread: number;
        readonly files: number;
      }
    | { readonly reason: string };
}

function newBuildId(now: Date): string {
  return `${now.toISOString().replace(/[-:]|\.\d+/g, '')}-${randomBytes(3).toString('hex')}`;
}

const repoRoot = path.resolve(import.meta.dirname, '..');

/**
 * The code whose change can change the output: every file of the folders the build is made of
 * (contract/, generator/), whichever of them a change touches, plus the package versions it runs
 * on (package.json, the docs page's swagger-ui-dist). Folders, not a list of files: a new module
 * counts without anyone remembering to add it. The data is fingerprinted apart (dataVersion).
 */
const buildCodeGlobs = ['contract/**', 'generator/**', 'package.json', 'node_modules/swagger-ui-dist/package.json'];

export async function buildCodeFiles(root = repoRoot): Promise<string[]> {
  return (await fg(buildCodeGlobs, { cwd: root, onlyFiles: true, dot: false })).sort();
}

/** The fingerprint of the build's code: its files' names and contents. */
export async function buildCodeFingerprint(root = repoRoot): Promise<string> {
  const hash = createHash('sha256');
  for (const file of await buildCodeFiles(root))
    hash
      .update(file)
      .update('\0')
      .update(await readFile(path.join(root, file)))
      .update('\0');
  return hash.digest('hex').slice(0, 16);
}

/**
 * Builds dist/ from the data, holding the dist's build lock (builds/lock.ts) throughout: a second
 * build or a rollback started meanwhile is refused.
 */
export async function buildDist(options: BuildOptions): Promise<BuildSummary> {
  const buildsRoot = buildsRootOf(options.distDir);
  return withBuildLock(buildsRoot, 'build', async () => {
    try {
      return await buildLocked(options);
    } finally {
      await rm(path.join(buildsRoot, spillDirName), { recursive: true, force: true });
    }
  });
}

/**
 * A full collection now, where the runtime allows one (`node --expose-gc`, as npm run build runs
 * the build): the records a full build has let go of are freed before its packing threads start,
 * so that their memory and the records' never add up (the world's build stays within 2 GB).
 */
function collectNow(): void {
  (globalThis as { gc?: () => void }).gc?.();
}

/** A value one stage hands to the next and keeps no hold of: the world's inputs and records are gigabytes. */
class Handoff<T> {
  #value: T | undefined;
  constructor(value: T) {
    this.#value = value;
  }
  /** The value, still held (a later stage may take it). */
  peek(): T {
    if (this.#value === undefined) throw new Error('a build stage read what an earlier one had let go of');
    return this.#value;
  }
  /** The value, let go of here: only the taker's own references keep it. */
  take(): T {
    const value = this.peek();
    this.#value = undefined;
    return value;
  }
}

/** Seconds each stage took, in order. */
class StageTimer {
  readonly seconds: Record<string, number> = {};
  #start = performance.now();
  end(name: string): void {
    const now = performance.now();
    this.seconds[name] = Math.round((this.seconds[name] ?? 0) * 1000 + now - this.#start) / 1000;
    this.#start = now;
  }
}

/** The stages' modules, loaded only for a real build, so that a no-op rebuild starts quickly. */
async function loadStages() {
  const [
    load,
    { routes },
    docs,
    bodies,
    document,
    validate,
    write,
    exports,
    sources,
    rebuild,
    savedInputs,
    lookupIndex,
    partitionMap,
    partitionMapFile,
    readPlan,
    reads,
  ] = await Promise.all([
    import('./load.ts'),
    import('../contract/routes.ts'),
    import('./openapi/docs.ts'),
    import('./bodies.ts'),
    import('./openapi/document.ts'),
    import('./validate.ts'),
    import('./write.ts'),
    import('./exports/exports.ts'),
    import('./records/sources.ts'),
    import('./rebuild.ts'),
    import('./plan/savedInputs.ts'),
    import('../contract/lookupIndex.ts'),
    import('./plan/partitionMap.ts'),
    import('./plan/partitionMapFile.ts'),
    import('./plan/readPlan.ts'),
    import('./plan/reads.ts'),
  ]);
  return {
    ...{ ...load, routes, ...docs, ...bodies, ...document, ...validate, ...write, ...exports, ...sources, ...rebuild, ...savedInputs, lookupIndex },
    ...{ ...partitionMap, ...partitionMapFile, ...readPlan, partitionedTypeOf: reads.partitionedTypeOf },
  };
}
type Stages = Awaited<ReturnType<typeof loadStages>>;

/** What every stage of one build reads, and nothing that grows with the data. */
interface BuildRun {
  readonly options: BuildOptions & { readonly keepBuilds: number; readonly progress: Progress };
  readonly stages: Stages;
  readonly routes: readonly Route[];
  readonly timer: StageTimer;
  readonly buildsRoot: string;
  readonly dataVersion: string;
  readonly inputsVersion: string;
  readonly summary: BuildSummaryFile | undefined;
  readonly basis: RebuildBasis;
  /** The build dist points at now, which this one replaces. */
  readonly replaced: string | undefined;
  /** Whether the record files were saved for the next build (a disk that refuses them costs it its shortcut only). */
  readonly inputsKept: boolean;
}

/** The data checked, and how to build from it. */
interface Checked {
  readonly settings: BuildSettings;
  readonly sources: DataSources;
  readonly dataset: Handoff<ValidatedDataset>;
  readonly choice: Exclude<RebuildChoice, { readonly kind: 'more' }>;
  /** The previous build's partition map (plan/partitionMap.ts), when it has one a rebuild can start from. */
  readonly partitions: PartitionMap | undefined;
  /** The record files of partitioned types not read (plan/readPlan.ts): none unless a rebuild read part of them. */
  readonly unread: ReadonlySet<string>;
}

/** What a try at checking and planning on part of the files found: the files to read besides, or every one. */
type ReadMore = { readonly more: ReadonlySet<string> | 'all' };

/** What a build writes besides its bodies: the public files, the downloads, and the head's facts. */
interface Documents {
  readonly buildId: string;
  readonly builtAt: string;
  readonly counts: Record<string, number>;
  readonly addressCountries: ManifestHead['addressCountries'];
  readonly publicFiles: Awaited<ReturnType<Stages['buildPublicFiles']>>;
  readonly downloads: ReadonlyMap<string, DownloadFile>;
  readonly changes: ManifestHead['changes'];
  readonly holidayYears: BuildSettings['holidayYears'];
  readonly sources: DataSources;
  /** The older builds kept whole (their directories). */
  readonly keep: readonly string[];
}

/** What the manifest's head takes of the bodies made: not the bodies, nor the projection of every record (`shown`). */
type BodiesFacts = Pick<IndexedBodies<BodySink>, 'ambiguous' | 'aliases' | 'languages'>;

/** Where the write takes the bodies from: a full build's spill, or a patch of the previous build's index. */
type BodySource = { readonly spill: SpilledBodies } | { readonly patch: BodyPatch };

/** Where the bodies come from, and where the partitioned types' records lie for the next build. */
type WrittenFrom = BodySource & { readonly partitions: PartitionMap };

/** Tries on part of the files before every file is read: each asks for the files it found it needs. */
const partialTries = 3;

async function buildLocked(options: BuildOptions): Promise<BuildSummary> {
  const begun = await begin(options);
  if ('upToDate' in begun) return begun.upToDate;
  const { run, inputs } = begun;
  const { stages, summary, basis, replaced } = run;
  const partitions = options.force ? undefined : await stages.readPartitionMap(replaced);
  const startsFrom = summary?.rebuild && replaced !== undefined && stages.otherBasis(summary.rebuild, basis) === undefined ? summary.rebuild : undefined;
  const readsWith = (more?: ReadonlySet<string>): ReadPlan =>
    startsFrom ? stages.planReads({ inputs: inputs.peek(), basis: startsFrom, map: partitions, routes: run.routes, more }) : stages.readEverything;
  let reads = readsWith();
  // What the tries asked for: the plan of reads closes over their countries, not over the examples' files, which need only their own records.
  const asked = new Set<string>();
  // A later try parses only the files the earlier did not.
  const parsed = new Map<string, RecordFile>();
  for (let tried = 1; ; tried++) {
    const checked = await checkAndPlan(run, inputs, reads, partitions, parsed);
    if ('more' in checked) {
      const wanted = checked.more;
      if (wanted !== 'all') for (const file of wanted) asked.add(file);
      reads = wanted === 'all' || tried >= partialTries || reads.all ? stages.readEverything : readsWith(asked);
      continue;
    }
    let reason = checked.choice.kind === 'full' ? checked.choice.reason : '';
    if (checked.choice.kind === 'patch') {
      const patched = await patchBuild(run, checked, checked.choice.plan);
      if (!('fallback' in patched)) return patched;
      reason = patched.fallback;
    }
    // A build made whole is made from every file.
    if (!reads.all) {
      reads = stages.readEverything;
      continue;
    }
    return fullBuild(run, checked, reason);
  }
}

/** Reads the inputs; a build of the same inputs as dist/'s is up to date, else the run begins. */
async function begin(options: BuildOptions): Promise<{ readonly upToDate: BuildSummary } | { readonly run: BuildRun; readonly inputs: Handoff<Inputs> }> {
  const timer = new StageTimer();
  const { distDir, force = false } = options;
  const summary = await readSummary(distDir);
  // What the previous build read spares hashing the files it read as they are, unless a full build is asked for.
  const known = summary?.rebuild?.signatures && !force ? { records: summary.rebuild.records, signatures: summary.rebuild.signatures } : undefined;
  const inputs = await readInputs(options.dataDir, known);
  const { dataVersion } = inputs;
  const codeVersion = await buildCodeFingerprint();
  const inputsVersion = createHash('sha256').update(dataVersion).update(codeVersion).digest('hex').slice(0, 16);
  if (summary && summary.inputsVersion === inputsVersion && !force) {
    const { buildId, counts, ambiguous, files, bytes } = summary;
    // The pointer made right, should something have left it wrong: a no-op when it is.
    await repairPointer(distDir, buildId);
    return { upToDate: { buildDir: await realpath(distDir), files, bytes, buildId, dataVersion: summary.dataVersion, counts, ambiguous, upToDate: true } };
  }
  const stages = await loadStages();
  const buildsRoot = buildsRootOf(distDir);
  const basis = stages.basisOf(inputs, codeVersion, options.entriesPerShard ?? stages.lookupIndex.entriesPerShard);
  // Kept by content now, so that the bytes need not be held to the end.
  const inputsKept = await stages.saveInputs(buildsRoot, inputs).then(
    () => true,
    (error: unknown) => {
      console.warn(`the record files could not be kept for the next build, which will make every body: ${(error as Error).message}`);
      return false;
    },
  );
  const replaced = await realpath(distDir).catch(() => undefined);
  timer.end('read');
  const run: BuildRun = {
    options: { ...options, keepBuilds: options.keepBuilds ?? defaultKeepBuilds, progress: options.progress ?? silentProgress },
    ...{ stages, routes: options.routes ?? stages.routes, timer, buildsRoot, dataVersion, inputsVersion, summary, basis, replaced, inputsKept },
  };
  return { run, inputs: new Handoff(inputs) };
}

/**
 * Parses and validates the records (those `reads` names) and plans the build: a patch of the
 * previous one, or whole (and why). On part of the files, what the try found it needs besides.
 */
async function checkAndPlan(
  run: BuildRun,
  inputs: Handoff<Inputs>,
  reads: ReadPlan,
  partitions: PartitionMap | undefined,
  parsed: Map<string, RecordFile>,
): Promise<Checked | ReadMore> {
  const { stages, routes, timer, options, summary, basis, replaced, buildsRoot } = run;
  const isRead = (file: string) => reads.all || stages.partitionedTypeOf(file) === undefined || reads.partitioned.has(file);
  const unread = new Map(inputs.peek().records.flatMap((file) => (isRead(file.relativePath) ? [] : [[file.relativePath, file.bytes] as const])));
  // The files as read and as parsed are needed until the rebuild is planned, and then no more (unless a try on part of them asks for more).
  // Every file read: the earlier tries' parses are let go of with the inputs (a full build's heap is gigabytes).
  if (reads.all) parsed.clear();
  const loaded = stages.parseInputs(reads.all ? inputs.take() : inputs.peek(), reads.all ? {} : { only: isRead, parsed });
  timer.end('parse');
  const settings = stages.validateSettings(loaded.settings);
  let dataset: ValidatedDataset;
  try {
    dataset = stages.validateData(loaded.files, options.force ? {} : stages.checkedBefore(summary?.rebuild, basis));
  } catch (error) {
    // A problem found on part of the records is found again, and named as it should be, on all of them.
    if (!reads.all && error instanceof BuildError) return { more: 'all' };
    throw error;
  }
  const sources = stages.validateSources(loaded.sources);
  timer.end('validate');
  const whole = (reason: string) => ({ kind: 'full', reason }) as const;
  const choice = options.force
    ? whole('a full build was asked for (--force)')
    : replaced === undefined
      ? whole('there is no previous build')
      : await stages.planRebuild({ buildsRoot, basis: summary?.rebuild, current: basis, loaded, dataset, routes, partitions, unread });
  timer.end('plan');
  if (choice.kind === 'more') return { more: choice.files };
  return { settings, sources, dataset: new Handoff(dataset), choice, partitions, unread: new Set(unread.keys()) };
}

/**
 * A rebuild from the previous build: each planned route made from the data as it is and as the
 * previous build had it, documents, and the previous build's index patched. A previous build that
 * turns out unusable on the way (its manifest or index unreadable) leaves the reason, for a full build.
 */
async function patchBuild(run: BuildRun, checked: Checked, plan: RebuildPlan): Promise<BuildSummary | { readonly fallback: string }> {
  const { timer, replaced } = run;
  try {
    if (replaced === undefined) throw new PatchNotApplicable('there is no previous build');
    const made = await patchOf(run.routes, plan, replaced, checked.dataset.peek(), checked.settings);
    timer.end('bodies');
    const sha256Of = (file: string) => run.basis.records[file];
    const partitions = run.stages.mapPartitions(checked.dataset.peek(), run.routes, sha256Of, checked.partitions, checked.unread);
    const partial = checked.unread.size > 0 ? partialFacts(run, checked, plan, partitions.examples ?? {}) : undefined;
    const documents = await makeDocuments(run, checked, made.indexed.shown, made.changedRecords, partial);
    const written = await writeBuild(run, documents, made.indexed, { patch: made.patch, partitions });
    const records = Object.fromEntries([...made.changedRecords].map(([type, ids]) => [type, ids.size]));
    const rebuilt = { changed: made.patch.changes.size, records, unread: checked.unread.size, files: Object.keys(run.basis.records).length };
    return finish(run, documents, written, { ambiguous: made.indexed.ambiguous.length, rebuilt });
  } catch (error) {
    if (!(error instanceof PatchNotApplicable)) throw error;
    return { fallback: error.message };
  }
}

/** What a rebuild that read part of the files takes from the previous build for the files it did not read. */
interface PartialFacts {
  /** Records per type: the previous build's, less the records read as they were, plus those read as they are. */
  readonly counts: Record<string, number>;
  /**
   * The files whose lines the exports copy from the previous build's, with their records' count and
   * where their lines began there: those not read, and those read as the previous build read them.
   */
  readonly unread: ReadonlyMap<string, { readonly count: number; readonly previousStart: number }>;
}

/**
 * The counts and exports' facts of a rebuild that read part of the files, or PatchNotApplicable
 * where the files read cannot stand for all: the examples of the OpenAPI document (`examples`, as
 * this build's partition map found them) are not those of the previous build (the record they
 * came from changed), which every file decides.
 */
function partialFacts(
  { stages, summary, basis }: BuildRun,
  { dataset: held, partitions, unread }: Checked,
  plan: RebuildPlan,
  examples: NonNullable<PartitionMap['examples']>,
): PartialFacts {
  const dataset = held.peek();
  const previousExamples = partitions?.examples ?? {};
  const moved = [...new Set([...Object.keys(examples), ...Object.keys(previousExamples)])].find(
    (type) => examples[type]?.id !== previousExamples[type]?.id || !stages.referencesFound(dataset, type as RecordType, examples[type]?.id),
  );
  if (moved !== undefined || partitions === undefined || summary === undefined)
    throw new PatchNotApplicable(`the examples of ${moved ?? 'the partitioned types'} may come from a file this build did not read`);
  const counts = Object.fromEntries(
    Object.entries(summary.counts).map(([type, count]) => [
      type,
      count - (plan.before.records.get(type as RecordType)?.length ?? 0) + (dataset.records.get(type as RecordType)?.length ?? 0),
    ]),
  );
  // Each previous file's first line in its type's export: the type's files in path order, one after another.
  const previousStart = new Map<string, number>();
  const lineOfType = new Map<string, number>();
  for (const [file, entry] of Object.entries(partitions.files).sort(([a], [b]) => compareCodePoints(a, b))) {
    const type = stages.typeNameOf(file);
    const at = lineOfType.get(type) ?? 0;
    previousStart.set(file, at);
    lineOfType.set(type, at + entry.records);
  }
  const previousBasis = summary.rebuild;
  const unchanged = [...dataset.byFile.keys()].filter((file) => stages.partitionedTypeOf(file) && previousBasis?.records[file] === basis.records[file]);
  const counted = [...unread, ...unchanged].map((file) => {
    const start = previousStart.get(file);
    const entry = partitions.files[file];
    if (start === undefined || entry === undefined)
      throw new PatchNotApplicable(`${file} was not read, and the previous build's partition map does not hold it`);
    return [file, { count: entry.records, previousStart: start }] as const;
  });
  return { counts, unread: new Map(counted) };
}

/** A build made whole: every body, to the disk as it is made (packs/spill.ts), then packed. */
async function fullBuild(run: BuildRun, checked: Checked, reason: string): Promise<BuildSummary> {
  const { stages, routes, timer, buildsRoot, options } = run;
  let dataset: ValidatedDataset | undefined = checked.dataset.take();
  const partitions = stages.mapPartitions(dataset, routes, (file) => run.basis.records[file]);
  options.progress.stage('bodies', stages.indexingWork(routes, dataset), 'records of routes');
  const spill = new SpilledBodies(path.join(buildsRoot, spillDirName));
  let made: IndexedBodies<SpilledBodies> | undefined = stages.indexData(dataset, checked.settings, routes, undefined, {
    bodies: spill,
    progress: options.progress,
  });
  timer.end('bodies');
  const documents = await makeDocuments(run, { ...checked, dataset: new Handoff(dataset) }, made.shown);
  // The records are most of the heap, which the write stage would otherwise carry through every collection.
  const { ambiguous, aliases, languages } = made;
  dataset = undefined;
  made = undefined;
  collectNow();
  const written = await writeBuild(run, documents, { ambiguous, aliases, languages }, { spill, partitions });
  return finish(run, documents, written, { ambiguous: ambiguous.length, rebuilt: { reason } });
}

/** The OpenAPI document and the docs page, the exports and the change lists. */
async function makeDocuments(
  { stages, timer, options, buildsRoot, replaced, dataVersion }: BuildRun,
  { dataset: held, settings, sources }: Checked,
  shown: IndexedBodies<BodySink>['shown'],
  changed?: RebuildPlan['changed'],
  partial?: PartialFacts,
): Promise<Documents> {
  const dataset = held.peek();
  const now = new Date();
  const [buildId, builtAt] = [newBuildId(now), now.toISOString()];
  const publicFiles = await stages.buildPublicFiles(
    stages.buildOpenApiDocument({ holidayYears: settings.holidayYears, dataset, currentYear: now.getUTCFullYear() }),
  );
  // The older builds whose exports the change lists start from.
  const kept = await stages.keptBuilds(buildsRoot, replaced, options.keepBuilds);
  const previous = kept.find((build) => build.dir === replaced);
  // What a rebuild knows changed since the build it replaces: the other records' lines are not made again.
  const exported = await stages
    .buildExports(dataset, shown, { buildId, builtAt, dataVersion, sources }, previous, {
      ...(changed ? { changed } : {}),
      ...(partial ? { unread: partial.unread } : {}),
    })
    .catch((error: unknown) => {
      throw error instanceof stages.UnreadNotCopied ? new PatchNotApplicable(error.message) : error;
    });
  timer.end('openapi and exports');
  const changeLists = await stages.buildChangeLists(exported.index, exported.lines, kept, replaced);
  timer.end('change lists');
  return {
    buildId,
    builtAt,
    counts: partial?.counts ?? stages.countRecords(dataset),
    addressCountries: servedAddressCountries(settings, dataset),
    publicFiles,
    downloads: new Map([...exported.files, ...changeLists.files]),
    changes: changeLists.changes,
    holidayYears: settings.holidayYears,
    sources,
    keep: kept.map((build) => build.dir),
  };
}

/** dist/ written atomically: the bodies (or the previous build's patched), the manifest, the pointer switched last. */
async function writeBuild({ stages, options, dataVersion, inputsVersion, basis }: BuildRun, documents: Documents, bodies: BodiesFacts, source: WrittenFrom) {
  const { buildId, builtAt, counts, addressCountries, publicFiles, downloads, changes, holidayYears, sources, keep } = documents;
  const { ambiguous, aliases, languages } = bodies;
  const head = { buildId, builtAt, dataVersion, inputsVersion, holidayYears, addressCountries, counts, ambiguous, aliases, languages, sources, changes };
  const { entriesPerShard, packThreads, progress, force = false } = options;
  const patch = 'patch' in source ? source.patch : undefined;
  const how = { keep, entriesPerShard, packThreads, patch, basis, partitions: source.partitions, progress, verifyLinks: force };
  return stages.writeDist(options.distDir, 'spill' in source ? source.spill : new Map(), head, publicFiles, downloads, how);
}

/** The build is published: the saved record files no build compares with any more go, and its summary is told. */
async function finish(
  { stages, timer, buildsRoot, basis, inputsKept, dataVersion }: BuildRun,
  { buildId, counts }: Documents,
  written: WrittenBuild,
  { ambiguous, rebuilt }: Pick<BuildSummary, 'ambiguous'> & { readonly rebuilt: NonNullable<BuildSummary['rebuilt']> },
): Promise<BuildSummary> {
  if (inputsKept) await stages.pruneInputs(buildsRoot, basis).catch(() => undefined);
  timer.end('write');
  return { ...written, buildId, dataVersion, counts, ambiguous, upToDate: false, stages: timer.seconds, rebuilt };
}

/** The head's `addressCountries`: `all`, or the alpha-2 code of each country whose addresses the build serves, by its id. */
function servedAddressCountries({ addressCountries }: BuildSettings, dataset: Dataset): ManifestHead['addressCountries'] {
  if (addressCountries === undefined || addressCountries === 'all') return 'all';
  const countries = (dataset.records.get('country') ?? []).filter((country) => addressCountries.includes(String(country.alpha2Code)));
  return Object.fromEntries(countries.map((country) => [country.id, String(country.alpha2Code)]));
}

/**
 * A rebuild's bodies: each planned route made from the data as it is and as the previous build had
 * it; the paths whose bodies differ are the patch. The manifest's ambiguous keys are the previous
 * build's, with those of the groups made again replaced.
 */
async function patchOf(
  routes: readonly Route[],
  plan: RebuildPlan,
  previousDir: string,
  dataset: Dataset,
  settings: BuildSettings,
): Promise<{ indexed: IndexedBodies; patch: BodyPatch; changedRecords: RebuildPlan['changed'] }> {
  const [{ indexData }, { manifestFileName, manifestHeadSchema }] = await Promise.all([import('./bodies.ts'), import('../contract/manifest.ts')]);
  let previousHead: ManifestHead;
  try {
    previousHead = manifestHeadSchema.parse(JSON.parse(await readFile(path.join(previousDir, manifestFileName), 'utf8')));
  } catch (error) {
    throw new PatchNotApplicable(`the previous build's manifest.json cannot be read (${(error as Error).message.slice(0, 200)})`);
  }
  const previousSummary = await readSummary(previousDir);
  if (!previousSummary) throw new PatchNotApplicable("the previous build's summary cannot be read");
  const made = indexData(dataset, settings, routes, plan.plans);
  const was = indexData(plan.before, settings, routes, plan.plansBefore);
  const changes = new Map<string, string | undefined>();
  for (const [file, body] of made.bodies) if (was.bodies.get(file) !== body) changes.set(file, body);
  for (const file of was.bodies.keys()) if (!made.bodies.has(file)) changes.set(file, undefined);
  const remade = (file: string) => made.bodies.has(file) || was.bodies.has(file);
  const ambiguous = [...previousHead.ambiguous.filter((entry) => !remade(entry.file)), ...made.ambiguous].sort((a, b) => compareCodePoints(a.file, b.file));
  return {
    indexed: { ...made, ambiguous },
    patch: { previousDir, changes, files: previousSummary.files, bytes: previousSummary.bytes },
    changedRecords: plan.changed,
  };
}

/** What the disk or the system refused, as one line an operator can act on. */
const systemFailures: Readonly<Record<string, string>> = {
  ENOSPC: 'the disk is full: free space (old builds are in .dist-builds/, KEEP_BUILDS keeps fewer) and build again',
  EDQUOT: 'the disk quota is used up: free space and build again',
  EACCES: 'permission denied: run the build as the user that owns the dist directory',
  EPERM: 'operation not permitted: run the build as the user that owns the dist directory',
  EROFS: 'the file system is read-only',
  EMFILE: 'too many open files: raise the limit (ulimit -n) and build again',
  EIO: 'the disk reported an I/O error',
};

/** A failed build's message: a BuildError's problems, a system error in one line, anything else with its stack. */
export function describeBuildFailure(error: unknown): string {
  if (error instanceof ProblemsError) return error.message;
  const { code, path: where } = error as NodeJS.ErrnoException;
  const advice = code === undefined ? undefined : systemFailures[code];
  if (advice) return `build failed, dist/ left as it was: ${advice} (${code}${where ? ` at ${where}` : ''})`;
  return error instanceof Error ? (error.stack ?? error.message) : String(error);
}

async function main(): Promise<void> {
  const { values } = parseArgs({
    options: {
      data: { type: 'string', default: 'data' },
      dist: { type: 'string', default: process.env.DIST_DIR || 'dist' },
      'if-missing': { type: 'boolean', default: false },
      force: { type: 'boolean', default: false },
      'keep-builds': { type: 'string' },
    },
  });
  const keepBuilds =
    values['keep-builds'] === undefined ? parseKeepBuilds(process.env.KEEP_BUILDS, 'KEEP_BUILDS') : parseKeepBuilds(values['keep-builds'], '--keep-builds');
  const distDir = values.dist;
  if (values['if-missing']) {
    const { manifestFileName } = await import('../contract/manifest.ts');
    const present = await access(path.join(distDir, manifestFileName)).then(
      () => true,
      () => false,
    );
    if (present) return;
    console.log(`${distDir}/ has no build yet: building it from ${values.data}/`);
  }
  const started = performance.now();
  const progress = createProgress(process.stderr);
  const summary = await buildDist({ dataDir: values.data, distDir, force: values.force, keepBuilds, progress }).finally(() => progress.end());
  const seconds = ((performance.now() - started) / 1000).toFixed(2);
  if (summary.upToDate) {
    console.log(
      `${distDir}/ is up to date: build ${summary.buildId} has the same data (${summary.dataVersion}) and generator; nothing written in ${seconds} s (--force rebuilds)`,
    );
    return;
  }
  const records = Object.entries(summary.counts)
    .filter(([, count]) => count > 0)
    .map(([type, count]) => `${type} ${count}`)
    .join(', ');
  console.log(`built ${summary.buildId} (data ${summary.dataVersion}) in ${seconds} s`);
  console.log(`  ${summary.files} files, ${(summary.bytes / 1e6).toFixed(1)} MB → ${path.relative(process.cwd(), summary.buildDir)}`);
  console.log(`  records: ${records || 'none'}`);
  const { rebuilt } = summary;
  if (rebuilt && 'reason' in rebuilt) console.log(`  every body made: ${rebuilt.reason}`);
  else if (rebuilt) {
    const changed = Object.entries(rebuilt.records)
      .map(([type, count]) => `${type} ${count}`)
      .join(', ');
    console.log(`  made from the previous build: ${rebuilt.changed} bodies changed (records changed: ${changed || 'none'})`);
    console.log(`  record files read: ${rebuilt.files - rebuilt.unread} of ${rebuilt.files} (the others are as the previous build read them)`);
  }
  if (summary.ambiguous > 0) console.log(`  ${summary.ambiguous} ambiguous names resolved by the documented rule (see manifest.json)`);
  console.log(`  peak memory ${(process.resourceUsage().maxRSS / 1024).toFixed(0)} MB (resident)`);
  if (summary.stages)
    console.log(
      `  stages: ${Object.entries(summary.stages)
        .map(([name, taken]) => `${name} ${taken.toFixed(1)} s`)
        .join(', ')}`,
    );
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  main().catch((error: unknown) => {
    console.error(describeBuildFailure(error));
    process.exitCode = 1;
  });
}

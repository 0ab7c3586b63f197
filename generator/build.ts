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
import { readInputs, type Inputs, type LoadedData } from './load.ts';
import { readSummary } from './builds/summary.ts';
import { buildsRootOf } from '../contract/builds.ts';
import { withBuildLock } from './builds/lock.ts';
import { PatchNotApplicable, repairPointer, type BodyPatch, type WrittenBuild } from './write.ts';
import type { IndexedBodies } from './bodies.ts';
import { SpilledBodies, spillDirName, type BodySink } from './packs/spill.ts';
import { createProgress, silentProgress, type Progress } from './builds/progress.ts';
import type { RebuildPlan } from './rebuild.ts';
import type { BuildSettings } from './records/schemas.ts';
import type { BuiltExports } from './exports/exports.ts';
import type { Dataset, ValidatedDataset } from './validate.ts';
import type { ManifestHead } from '../contract/lookupIndex.ts';

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
  readonly rebuilt?: { readonly changed: number; readonly records: Readonly<Record<string, number>> } | { readonly reason: string };
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

/** What the write stage needs of the bodies made: not the projection of every record (`shown`). */
type WrittenBodies = Omit<IndexedBodies<BodySink>, 'shown'>;

function sansRecords({ bodies, ambiguous, aliases, languages }: IndexedBodies<BodySink>): WrittenBodies {
  return { bodies, ambiguous, aliases, languages };
}

async function buildLocked({
  dataDir,
  distDir,
  force = false,
  keepBuilds = defaultKeepBuilds,
  entriesPerShard,
  packThreads,
  progress = silentProgress,
}: BuildOptions): Promise<BuildSummary> {
  const stages: Record<string, number> = {};
  let stageStart = performance.now();
  const stage = (name: string): void => {
    const now = performance.now();
    stages[name] = Math.round(now - stageStart) / 1000;
    stageStart = now;
  };
  let inputs: Inputs | undefined = await readInputs(dataDir);
  const { dataVersion } = inputs;
  const codeVersion = await buildCodeFingerprint();
  const inputsVersion = createHash('sha256').update(dataVersion).update(codeVersion).digest('hex').slice(0, 16);
  const summary = await readSummary(distDir);
  if (summary && summary.inputsVersion === inputsVersion && !force) {
    const { buildId, counts, ambiguous, files, bytes } = summary;
    // A build made before the pointer was a link through dist gets its id file and the link.
    await repairPointer(distDir, buildId);
    return { buildDir: await realpath(distDir), files, bytes, buildId, dataVersion: summary.dataVersion, counts, ambiguous, upToDate: true };
  }
  // Loaded only for a real build, so that a no-op rebuild starts quickly.
  const [
    { parseInputs },
    { routes },
    { buildPublicFiles },
    { countRecords, indexData, indexingWork },
    { buildOpenApiDocument },
    { validateData, validateSettings },
    { writeDist },
    { buildExports, buildChangeLists, keptBuilds },
    { validateSources },
    { basisOf, checkedBefore, planRebuild, pruneInputs, saveInputs },
    { entriesPerShard: defaultEntriesPerShard },
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
    import('../contract/lookupIndex.ts'),
  ]);
  const buildsRoot = buildsRootOf(distDir);
  const basis = basisOf(inputs, codeVersion, entriesPerShard ?? defaultEntriesPerShard);
  // Kept by content now, so that the bytes need not be held to the end; a disk that refuses the
  // copies costs the next build its shortcut only.
  let inputsKept = true;
  await saveInputs(buildsRoot, inputs).catch((error: unknown) => {
    inputsKept = false;
    console.warn(`the record files could not be kept for the next build, which will make every body: ${(error as Error).message}`);
  });
  stage('read');
  // The files as read and as parsed are needed until the rebuild is planned, and then no more: the
  // world's are gigabytes, which the rest of the build should not carry.
  let loaded: LoadedData | undefined = parseInputs(inputs);
  inputs = undefined;
  stage('parse');
  const settings = validateSettings(loaded.settings);
  // Let go of once a full build's bodies and exports are made: its records are most of the heap,
  // which the write stage would otherwise carry through every collection.
  let dataset: ValidatedDataset | undefined = validateData(loaded.files, force ? {} : checkedBefore(summary?.rebuild, basis));
  const sources = validateSources(loaded.sources);
  stage('validate');
  const replaced = await realpath(distDir).catch(() => undefined);
  const plan = force
    ? 'a full build was asked for (--force)'
    : replaced === undefined
      ? 'there is no previous build'
      : await planRebuild({ buildsRoot, basis: summary?.rebuild, current: basis, loaded, dataset, routes });
  loaded = undefined;
  stage('plan');
  let reason = typeof plan === 'string' ? plan : undefined;
  let made: Awaited<ReturnType<typeof patchOf>> | undefined;
  if (typeof plan !== 'string') {
    try {
      made = await patchOf(plan, replaced as string, dataset, settings);
    } catch (error) {
      if (!(error instanceof PatchNotApplicable)) throw error;
      reason = error.message;
    }
  }
  // A full build's bodies go to the disk as they are made (packs/spill.ts); a rebuild's few stay in memory.
  const makeAll = (): IndexedBodies<SpilledBodies> => {
    if (dataset === undefined) throw new Error('the records were let go of before every body was made');
    progress.stage('bodies', indexingWork(routes, dataset), 'records of routes');
    return indexData(dataset, settings, routes, undefined, { bodies: new SpilledBodies(path.join(buildsRoot, spillDirName)), progress });
  };
  let full: IndexedBodies<SpilledBodies> | undefined = made === undefined ? makeAll() : undefined;
  let shown: IndexedBodies<BodySink>['shown'] | undefined = ((made?.indexed ?? full) as IndexedBodies<BodySink>).shown;
  stage('bodies');
  const now = new Date();
  const buildId = newBuildId(now);
  const counts = countRecords(dataset);
  const publicFiles = await buildPublicFiles(buildOpenApiDocument({ holidayYears: settings.holidayYears, dataset, currentYear: now.getUTCFullYear() }));
  const builtAt = now.toISOString();
  // The older builds whose exports the change lists start from.
  const kept = await keptBuilds(buildsRoot, replaced, keepBuilds);
  let exported: BuiltExports | undefined = await buildExports(
    dataset,
    shown,
    { buildId, builtAt, dataVersion, sources },
    kept.find((build) => build.dir === replaced),
    // What a rebuild knows changed since the build it replaces: the other records' lines are not made again.
    made ? { changed: made.changedRecords } : {},
  );
  const addressCountries = servedAddressCountries(settings, dataset);
  stage('openapi and exports');
  const changeLists = await buildChangeLists(exported.index, exported.lines, kept, replaced);
  const downloads = new Map([...exported.files, ...changeLists.files]);
  // What the write needs of the bodies made; the records, their JSON and the exports' lines only
  // a rebuild's fallback needs.
  let indexed = sansRecords((made?.indexed ?? full) as IndexedBodies<BodySink>);
  exported = undefined;
  shown = undefined;
  full = undefined;
  if (made === undefined) {
    dataset = undefined;
    collectNow();
  }
  stage('change lists');
  const write = (indexed: WrittenBodies, patch?: BodyPatch) =>
    writeDist(
      distDir,
      patch ? new Map() : (indexed.bodies as SpilledBodies),
      {
        buildId,
        builtAt,
        dataVersion,
        inputsVersion,
        holidayYears: settings.holidayYears,
        addressCountries,
        counts,
        ambiguous: indexed.ambiguous,
        aliases: indexed.aliases,
        languages: indexed.languages,
        sources,
        changes: changeLists.changes,
      },
      publicFiles,
      downloads,
      { keep: kept.map((build) => build.dir), entriesPerShard, packThreads, patch, basis, progress, verifyLinks: force },
    );
  let written: WrittenBuild;
  try {
    written = await write(indexed, made?.patch);
  } catch (error) {
    if (!(error instanceof PatchNotApplicable)) throw error;
    reason = error.message;
    indexed = sansRecords(makeAll());
    made = undefined;
    written = await write(indexed);
  }
  // The build is published: the saved files no build compares with any more go.
  if (inputsKept) await pruneInputs(buildsRoot, basis).catch(() => undefined);
  stage('write');
  const rebuilt = made
    ? { changed: made.patch.changes.size, records: Object.fromEntries([...made.changedRecords].map(([type, ids]) => [type, ids.size])) }
    : { reason: reason ?? 'unknown' };
  return { ...written, buildId, dataVersion, counts, ambiguous: indexed.ambiguous.length, upToDate: false, stages, rebuilt };
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
  plan: RebuildPlan,
  previousDir: string,
  dataset: Dataset,
  settings: BuildSettings,
): Promise<{ indexed: IndexedBodies; patch: BodyPatch; changedRecords: RebuildPlan['changed'] }> {
  const [{ indexData }, { routes }, { manifestFileName, manifestHeadSchema }] = await Promise.all([
    import('./bodies.ts'),
    import('../contract/routes.ts'),
    import('../contract/manifest.ts'),
  ]);
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
  const ambiguous = [...previousHead.ambiguous.filter((entry) => !remade(entry.file)), ...made.ambiguous].sort((a, b) =>
    a.file < b.file ? -1 : a.file > b.file ? 1 : 0,
  );
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

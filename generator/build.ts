/**
 * `npm run build`: data/ → load → validate → index → write → dist/ (bodies, manifest.json, and
 * the public files: openapi.json and the docs page).
 *
 *   tsx generator/build.ts [--data data] [--dist dist] [--if-missing] [--keep-builds 10]
 *
 * --if-missing builds only when dist/ has no manifest (used by `npm start` on a fresh clone).
 * --keep-builds (default $KEEP_BUILDS, then 10) is how many builds' exports are kept, the new one
 * included: a change list is written from each (changes.ts).
 * A build whose data and generator code are those of the current dist/ does nothing (a no-op
 * rebuild), unless --force. The dist directory defaults to $DIST_DIR, then `dist`, as for the proxy.
 */
import { createHash, randomBytes } from 'node:crypto';
import { access, readFile, realpath } from 'node:fs/promises';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { parseArgs } from 'node:util';
import fg from 'fast-glob';
import { ProblemsError } from '../contract/errors.ts';
import { BuildError } from './errors.ts';
import { readInputs } from './load.ts';
import { readSummary } from './summary.ts';
import { buildsRootOf } from '../contract/builds.ts';
import { withBuildLock } from './buildLock.ts';
import { repairPointer, type WrittenBuild } from './write.ts';

export interface BuildOptions {
  readonly dataDir: string;
  readonly distDir: string;
  /** Build even when dist/ already holds a build of the same inputs. */
  readonly force?: boolean;
  /** Builds whose exports are kept for change lists, the new one included (at least 2). */
  readonly keepBuilds?: number;
  /** Bodies per shard of the lookup index, on average at most (contract/lookupIndex.ts); smaller in tests, to have many shards. */
  readonly entriesPerShard?: number;
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
 * Builds dist/ from the data, holding the dist's build lock (buildLock.ts) throughout: a second
 * build or a rollback started meanwhile is refused.
 */
export async function buildDist(options: BuildOptions): Promise<BuildSummary> {
  return withBuildLock(buildsRootOf(options.distDir), 'build', () => buildLocked(options));
}

async function buildLocked({ dataDir, distDir, force = false, keepBuilds = defaultKeepBuilds, entriesPerShard }: BuildOptions): Promise<BuildSummary> {
  const stages: Record<string, number> = {};
  let stageStart = performance.now();
  const stage = (name: string): void => {
    const now = performance.now();
    stages[name] = Math.round(now - stageStart) / 1000;
    stageStart = now;
  };
  const inputs = await readInputs(dataDir);
  const inputsVersion = createHash('sha256')
    .update(inputs.dataVersion)
    .update(await buildCodeFingerprint())
    .digest('hex')
    .slice(0, 16);
  const summary = await readSummary(distDir);
  if (summary && summary.inputsVersion === inputsVersion && !force) {
    const { buildId, dataVersion, counts, ambiguous, files, bytes } = summary;
    // A build made before the pointer was a link through dist gets its id file and the link.
    await repairPointer(distDir, buildId);
    return { buildDir: await realpath(distDir), files, bytes, buildId, dataVersion, counts, ambiguous, upToDate: true };
  }
  // Loaded only for a real build, so that a no-op rebuild starts quickly.
  const [
    { parseInputs },
    { routes },
    { buildPublicFiles },
    { countRecords, indexData },
    { buildOpenApiDocument },
    { validateData, validateSettings },
    { writeDist },
    { buildExports },
    { buildChangeLists, keptBuilds },
    { validateSources },
  ] = await Promise.all([
    import('./load.ts'),
    import('../contract/routes.ts'),
    import('./docs.ts'),
    import('./bodies.ts'),
    import('./openapi.ts'),
    import('./validate.ts'),
    import('./write.ts'),
    import('./exports.ts'),
    import('./changes.ts'),
    import('./sources.ts'),
  ]);
  stage('read');
  const loaded = parseInputs(inputs);
  stage('parse');
  const settings = validateSettings(loaded.settings);
  const dataset = validateData(loaded.files);
  const sources = validateSources(loaded.sources);
  stage('validate');
  const { bodies, ambiguous, aliases, languages, shown } = indexData(dataset, settings, routes);
  stage('bodies');
  const now = new Date();
  const buildId = newBuildId(now);
  const counts = countRecords(dataset);
  const publicFiles = await buildPublicFiles(buildOpenApiDocument({ holidayYears: settings.holidayYears, dataset, currentYear: now.getUTCFullYear() }));
  const builtAt = now.toISOString();
  // The build being replaced, and the older ones whose exports the change lists start from.
  const replaced = await realpath(distDir).catch(() => undefined);
  const kept = await keptBuilds(buildsRootOf(distDir), replaced, keepBuilds);
  const exported = await buildExports(
    dataset,
    shown,
    { buildId, builtAt, dataVersion: loaded.dataVersion, sources },
    kept.find((build) => build.dir === replaced),
  );
  stage('openapi and exports');
  const changeLists = await buildChangeLists(exported.index, exported.lines, kept, replaced);
  stage('change lists');
  const written = await writeDist(
    distDir,
    bodies,
    {
      buildId,
      builtAt,
      dataVersion: loaded.dataVersion,
      inputsVersion,
      holidayYears: settings.holidayYears,
      counts,
      ambiguous,
      aliases,
      languages,
      sources,
      changes: changeLists.changes,
    },
    publicFiles,
    new Map([...exported.files, ...changeLists.files]),
    { keep: kept.map((build) => build.dir), entriesPerShard },
  );
  stage('write');
  return { ...written, buildId, dataVersion: loaded.dataVersion, counts, ambiguous: ambiguous.length, upToDate: false, stages };
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
  const summary = await buildDist({ dataDir: values.data, distDir, force: values.force, keepBuilds });
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
  if (summary.ambiguous > 0) console.log(`  ${summary.ambiguous} ambiguous names resolved by the documented rule (see manifest.json)`);
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

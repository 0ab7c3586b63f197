/**
 * `npm run build`: data/ → load → validate → index → write → dist/ (bodies, manifest.json, and
 * the public files: openapi.json and the docs page).
 *
 *   tsx generator/build.ts [--data data] [--dist dist] [--if-missing]
 *
 * --if-missing builds only when dist/ has no manifest (used by `npm start` on a fresh clone).
 * The dist directory defaults to $DIST_DIR, then `dist`, as for the proxy.
 */
import { randomBytes } from 'node:crypto';
import { access } from 'node:fs/promises';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { parseArgs } from 'node:util';
import { manifestFileName } from '../proxy/manifest.ts';
import { routes } from '../proxy/routes.ts';
import { buildPublicFiles } from './docs.ts';
import { BuildError } from './errors.ts';
import { countRecords, indexData } from './index.ts';
import { loadData } from './load.ts';
import { buildOpenApiDocument } from './openapi.ts';
import { validateData, validateSettings } from './validate.ts';
import { writeDist, type WrittenBuild } from './write.ts';

export interface BuildOptions {
  readonly dataDir: string;
  readonly distDir: string;
}

export interface BuildSummary extends WrittenBuild {
  readonly buildId: string;
  readonly dataVersion: string;
  readonly counts: Record<string, number>;
  readonly ambiguous: number;
}

function newBuildId(now: Date): string {
  return `${now.toISOString().replace(/[-:]|\.\d+/g, '')}-${randomBytes(3).toString('hex')}`;
}

export async function buildDist({ dataDir, distDir }: BuildOptions): Promise<BuildSummary> {
  const loaded = await loadData(dataDir);
  const settings = validateSettings(loaded.settings);
  const dataset = validateData(loaded.files);
  const { bodies, ambiguous } = indexData(dataset, settings, routes);
  const now = new Date();
  const buildId = newBuildId(now);
  const counts = countRecords(dataset);
  const publicFiles = await buildPublicFiles(buildOpenApiDocument({ holidayYears: settings.holidayYears }));
  const written = await writeDist(
    distDir,
    bodies,
    { buildId, builtAt: now.toISOString(), dataVersion: loaded.dataVersion, holidayYears: settings.holidayYears, counts, ambiguous },
    publicFiles,
  );
  return { ...written, buildId, dataVersion: loaded.dataVersion, counts, ambiguous: ambiguous.length };
}

async function main(): Promise<void> {
  const { values } = parseArgs({
    options: {
      data: { type: 'string', default: 'data' },
      dist: { type: 'string', default: process.env.DIST_DIR || 'dist' },
      'if-missing': { type: 'boolean', default: false },
    },
  });
  const distDir = values.dist;
  if (values['if-missing']) {
    const present = await access(path.join(distDir, manifestFileName)).then(() => true, () => false);
    if (present) return;
    console.log(`${distDir}/ has no build yet: building it from ${values.data}/`);
  }
  const started = performance.now();
  const summary = await buildDist({ dataDir: values.data, distDir });
  const seconds = ((performance.now() - started) / 1000).toFixed(2);
  const records = Object.entries(summary.counts)
    .filter(([, count]) => count > 0)
    .map(([type, count]) => `${type} ${count}`)
    .join(', ');
  console.log(`built ${summary.buildId} (data ${summary.dataVersion}) in ${seconds} s`);
  console.log(`  ${summary.files} files, ${(summary.bytes / 1e6).toFixed(1)} MB → ${path.relative(process.cwd(), summary.buildDir)}`);
  console.log(`  records: ${records || 'none'}`);
  if (summary.ambiguous > 0) console.log(`  ${summary.ambiguous} ambiguous names resolved by the documented rule (see manifest.json)`);
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  main().catch((error: unknown) => {
    console.error(error instanceof BuildError ? error.message : error);
    process.exitCode = 1;
  });
}

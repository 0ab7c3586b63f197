/**
 * `npm run data:check [-- --only holidays,subdivisions] [--out FILE]`: compares every dataset of
 * data/ with an independent source, prints the agreement figures and every unexplained
 * disagreement, writes the whole result as JSON beside the build (dist/data-check.json, or --out),
 * and exits 1 when a disagreement is unexplained, an exception is stale or a figure misses its target.
 */
import { access, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { parseArgs } from 'node:util';
import { uncheckedTypes } from './checks.ts';
import { runDataChecks, type CheckResult } from './run.ts';

const shownDisagreements = 20;

function formatFigure(value: number): string {
  return Number.isInteger(value) ? String(value) : value.toFixed(4);
}

function print(result: CheckResult): void {
  const verdict = result.passed ? 'PASS' : 'FAIL';
  console.log(`\n${verdict} ${result.name} — against ${result.reference}`);
  for (const [name, value] of Object.entries(result.figures)) {
    const target = result.targets[name];
    console.log(
      `  ${name.padEnd(28)} ${formatFigure(value).padStart(10)}${target === undefined ? '' : `   target ≥ ${formatFigure(target)}${result.missed.includes(name) ? '  MISSED' : ''}`}`,
    );
  }
  console.log(
    `  disagreements: ${result.disagreements.length} (${result.explained.length} explained, ${result.open.length} open in data/checks/open.json, ${result.unexplained.length} new and unexplained)`,
  );
  for (const disagreement of result.unexplained.slice(0, shownDisagreements)) {
    console.log(`    unexplained ${disagreement.key}: ours ${disagreement.ours}; theirs ${disagreement.theirs}`);
  }
  if (result.unexplained.length > shownDisagreements) console.log(`    … and ${result.unexplained.length - shownDisagreements} more (all in the JSON)`);
  for (const exception of result.stale)
    console.log(`    stale exception ${exception.key}: it explains nothing now; remove it from data/checks/exceptions.json`);
  for (const key of result.closed.slice(0, shownDisagreements))
    console.log(`    closed ${key}: listed in data/checks/open.json but no longer open; remove it there`);
}

async function main(): Promise<void> {
  const { values } = parseArgs({
    options: {
      data: { type: 'string', default: 'data' },
      dist: { type: 'string', default: process.env.DIST_DIR || 'dist' },
      out: { type: 'string' },
      only: { type: 'string' },
    },
  });
  const results = await runDataChecks(
    values.data,
    values.only?.split(',').map((name) => name.trim()),
  );
  for (const result of results) print(result);
  const out =
    values.out ??
    ((await access(values.dist).then(
      () => true,
      () => false,
    ))
      ? path.join(values.dist, 'data-check.json')
      : undefined);
  if (out) {
    await writeFile(out, `${JSON.stringify({ checkedAt: new Date().toISOString(), results }, null, 2)}\n`);
    console.log(`\nwritten: ${out}`);
  }
  if (values.only === undefined) console.log(`\nno independent source compared yet for: ${uncheckedTypes().join(', ')}`);
  const failed = results.filter((result) => !result.passed).map((result) => result.name);
  console.log(failed.length === 0 ? `\nall ${results.length} checks pass` : `\n${failed.length} of ${results.length} checks fail: ${failed.join(', ')}`);
  if (failed.length > 0) process.exitCode = 1;
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  main().catch((error: unknown) => {
    console.error(error instanceof Error ? error.message : error);
    process.exitCode = 1;
  });
}

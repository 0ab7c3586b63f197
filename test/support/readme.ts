/** Code blocks the README marks for a test to run as written (`<!-- name:start -->` … `<!-- name:end -->`). */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { expect } from 'vitest';
import { repoRoot } from './service.ts';

const readme = readFileSync(path.join(repoRoot, 'README.md'), 'utf8');

/** The lines between the README's `<!-- <marker>:start -->` and `<!-- <marker>:end -->`, without the code fences. */
export function readmeBlock(marker: string, what: string): string {
  const start = readme.indexOf(`<!-- ${marker}:start -->`);
  const end = readme.indexOf(`<!-- ${marker}:end -->`);
  expect(start, `the README marks ${what}`).toBeGreaterThan(-1);
  return readme
    .slice(start, end)
    .split('\n')
    .slice(1)
    .filter((line) => !line.startsWith('```'))
    .join('\n');
}

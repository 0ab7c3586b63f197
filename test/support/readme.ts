/**
 * Code blocks the documentation marks for a test to run as written (`<!-- name:start -->` …
 * `<!-- name:end -->`), in README.md or any document of docs/, wherever a block lives.
 */
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { expect } from 'vitest';
import { repoRoot } from './service.ts';

const documents = [
  'README.md',
  ...readdirSync(path.join(repoRoot, 'docs'))
    .filter((name) => name.endsWith('.md'))
    .map((name) => path.join('docs', name)),
];
const readme = documents.map((file) => readFileSync(path.join(repoRoot, file), 'utf8')).join('\n');

/** The lines between a document's `<!-- <marker>:start -->` and `<!-- <marker>:end -->`, without the code fences. */
export function readmeBlock(marker: string, what: string): string {
  const start = readme.indexOf(`<!-- ${marker}:start -->`);
  const end = readme.indexOf(`<!-- ${marker}:end -->`);
  expect(start, `README.md or a document of docs/ marks ${what}`).toBeGreaterThan(-1);
  return readme
    .slice(start, end)
    .split('\n')
    .slice(1)
    .filter((line) => !line.startsWith('```'))
    .join('\n');
}

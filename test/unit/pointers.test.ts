/**
 * What the code and the docs point a reader at exists: every repository path named in a comment, a
 * message or a document (`generator/build.ts`, `docs/calendars.md`) is a file of this tree, and every
 * npm script is listed in docs/development.md.
 */
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import fg from 'fast-glob';
import { describe, expect, it } from 'vitest';

const repoRoot = path.resolve(import.meta.dirname, '../..');

/** A path of this repository's own folders, standing alone (not inside a URL or another path), its extension ending the name. */
const pointerPattern = /(?<![\w/.-])((?:contract|generator|proxy|deploy|test|docs)\/[\w./-]*\w\.(?:ts|mjs|cjs|md|json|py|vcl|cfg|conf|service))(?![\w.-])/g;

const readers = fg.sync(
  ['contract/**/*.ts', 'generator/**/*.{ts,mjs,py}', 'proxy/**/*.ts', 'deploy/**/*', 'test/**/*.{ts,cjs,mjs}', 'docs/**/*.md', '*.md', '.ci/run'],
  { cwd: repoRoot, dot: true, ignore: ['**/node_modules/**', 'test/bench/results/**', 'CHANGELOG.md', 'test/fixtures/**'] },
);

describe('pointers to files', () => {
  it('reads the code and the docs (the rule below has something to hold for)', () => {
    expect(readers.length).toBeGreaterThan(300);
  });

  it('every file a comment, a message or a document names exists', () => {
    const missing: string[] = [];
    let pointers = 0;
    for (const reader of readers) {
      for (const match of readFileSync(path.join(repoRoot, reader), 'utf8').matchAll(pointerPattern)) {
        pointers++;
        const target = match[1] ?? '';
        if (!existsSync(path.join(repoRoot, target))) missing.push(`${reader} names ${target}`);
      }
    }
    expect(pointers).toBeGreaterThan(200);
    expect(missing).toEqual([]);
  });

  it('every file the product code names by a shorter path exists: beside the file, above it, or (a bare name) somewhere in the tree', () => {
    const shortPattern = /(?<![\w/.@-])((?:\.{1,2}\/)*[\w-]+(?:\/[\w.-]+)*\.(?:ts|mjs|cjs|py))(?![\w.-])/g;
    const tracked = fg.sync(['**/*.{ts,mjs,cjs,py}'], { cwd: repoRoot, ignore: ['**/node_modules/**'] });
    const baseNames = new Set(tracked.map((file) => path.posix.basename(file)));
    const resolves = (from: string, target: string): boolean => {
      if (!target.includes('/')) return baseNames.has(target);
      for (let folder = path.posix.dirname(from); ; folder = path.posix.dirname(folder)) {
        if (existsSync(path.join(repoRoot, folder, target))) return true;
        if (folder === '.') return false;
      }
    };
    const product = fg.sync(['contract/**/*.ts', 'generator/**/*.{ts,mjs}', 'proxy/**/*.ts', 'deploy/**/*.ts'], { cwd: repoRoot });
    const missing = product.flatMap((file) =>
      [...readFileSync(path.join(repoRoot, file), 'utf8').matchAll(shortPattern)]
        .map((match) => match[1] ?? '')
        .filter((target) => !target.startsWith('.') && !resolves(file, target))
        .map((target) => `${file} names ${target}`),
    );
    expect(missing).toEqual([]);
  });

  it('docs/development.md lists every npm script', () => {
    const scripts = Object.keys(JSON.parse(readFileSync(path.join(repoRoot, 'package.json'), 'utf8')).scripts as Record<string, string>);
    const manual = readFileSync(path.join(repoRoot, 'docs/development.md'), 'utf8');
    const listed = (script: string) =>
      manual.includes(`npm run ${script}`) ||
      manual.includes(`\`${script}\``) ||
      (script === 'test' && manual.includes('`npm test`')) ||
      (script === 'start' && manual.includes('`npm start`'));
    // prestart runs as part of npm start; no one calls it by name.
    expect(scripts.filter((script) => script !== 'prestart' && !listed(script))).toEqual([]);
  });
});

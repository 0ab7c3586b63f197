/**
 * The dependency rule (ARCHITECTURE.md): contract/ imports nothing of either side; the generator
 * and the proxy both import it and never each other; inside the proxy, auth/ never imports http/;
 * deploy/ imports only the contract and the few modules it shares with the proxy; the proxy keeps
 * at most four files at its root, the generator at most eight, and each of the generator's folders
 * imports only the folders its row names; no module imports itself back through others. Read from
 * the sources' import statements, type-only imports included. No product function is longer than
 * 80 lines, and no function of the proxy takes more than five positional parameters: a request
 * travels as one Exchange, not as loose values.
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import fg from 'fast-glob';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';

const repoRoot = path.resolve(import.meta.dirname, '../..');
const importPattern = /(?:^|\n)\s*(?:import|export)\s[^;]*?\sfrom\s+'([^']+)'|(?:^|\n)\s*import\s+'([^']+)'|\bimport\(\s*'([^']+)'\s*\)/g;

/** Each source file of the three folders, with what it imports: repository paths for relative imports, package names otherwise. */
function importGraph(): Map<string, string[]> {
  const graph = new Map<string, string[]>();
  for (const file of fg.sync(['contract/**/*.ts', 'generator/**/*.ts', 'proxy/**/*.ts', 'deploy/**/*.ts'], { cwd: repoRoot }).sort()) {
    const text = readFileSync(path.join(repoRoot, file), 'utf8');
    const imports = [...text.matchAll(importPattern)].map((match) => {
      const specifier = match[1] ?? match[2] ?? match[3] ?? '';
      return specifier.startsWith('.') ? path.posix.normalize(path.posix.join(path.posix.dirname(file), specifier)) : specifier;
    });
    graph.set(file, imports);
  }
  return graph;
}

const graph = importGraph();

/**
 * The generator's folders and what each may import besides itself ('root' is the pipeline's core at
 * generator/'s top). The records are the bottom: every stage reads them; the import and the checks
 * never reach the build's pipeline, except that a check reads the data as a build loads it.
 */
const generatorFolders: Readonly<Record<string, readonly string[]>> = {
  root: ['contract', 'records', 'bodies', 'builds', 'exports', 'openapi', 'packs', 'plan'],
  records: ['contract'],
  builds: ['contract', 'records'],
  packs: ['contract', 'records', 'builds'],
  bodies: ['contract', 'records', 'packs', 'root'],
  plan: ['contract', 'records', 'builds', 'bodies', 'openapi', 'root'],
  openapi: ['contract', 'records', 'root'],
  exports: ['contract', 'records', 'builds', 'root'],
  import: ['contract', 'records'],
  check: ['contract', 'records', 'import', 'root', 'bodies'],
};
const generatorFolderOf = (file: string): string => (/^generator\/[^/]+$/.test(file) ? 'root' : (file.split('/')[1] ?? ''));
const importsOf = (folder: string) => [...graph].filter(([file]) => file.startsWith(`${folder}/`));

describe('the dependency rule', () => {
  it('reads every source file and their imports (the rule below has something to hold for)', () => {
    expect(importsOf('contract').length).toBeGreaterThanOrEqual(5);
    expect(graph.get('proxy/http/lookups.ts')).toContain('contract/routes.ts');
    expect(graph.get('generator/openapi/document.ts')).toContain('contract/routes.ts');
  });

  // ibantools: the ISO 13616 registry (each country's IBAN length and form), which keys.ts checks an IBAN against.
  it('contract/ imports only itself, Node built-ins, zod and ibantools', () => {
    const allowed = new Set(['zod', 'ibantools']);
    const outside = importsOf('contract').flatMap(([file, imports]) =>
      imports.filter((target) => !target.startsWith('contract/') && !target.startsWith('node:') && !allowed.has(target)).map((target) => `${file} → ${target}`),
    );
    expect(outside).toEqual([]);
  });

  it('the generator never imports the proxy, and the proxy never the generator', () => {
    const crossing = [
      ...importsOf('generator').flatMap(([file, imports]) => imports.filter((target) => target.startsWith('proxy/')).map((target) => `${file} → ${target}`)),
      ...importsOf('proxy').flatMap(([file, imports]) => imports.filter((target) => target.startsWith('generator/')).map((target) => `${file} → ${target}`)),
    ];
    expect(crossing).toEqual([]);
  });

  it("the proxy's auth/ never imports its http/: the request path calls auth, never the other way", () => {
    const upward = importsOf('proxy/auth').flatMap(([file, imports]) =>
      imports.filter((target) => target.startsWith('proxy/http/')).map((target) => `${file} → ${target}`),
    );
    expect(upward).toEqual([]);
  });

  it('deploy/ imports only the contract and what it shares with the proxy: the S3 signing and the API key form', () => {
    const shared = ['proxy/store/s3.ts', 'proxy/store/sigv4.ts', 'proxy/config/settingFields.ts'];
    const outside = importsOf('deploy').flatMap(([file, imports]) =>
      imports
        .filter((target) => /^(contract|generator|proxy|test)\//.test(target) && !target.startsWith('contract/') && !shared.includes(target))
        .map((target) => `${file} → ${target}`),
    );
    expect(outside).toEqual([]);
    expect(importsOf('deploy').length).toBeGreaterThanOrEqual(5);
  });

  it('the proxy keeps at most four files at its root: each concern has its folder', () => {
    const atRoot = [...graph.keys()].filter((file) => /^proxy\/[^/]+\.ts$/.test(file));
    expect(atRoot.length, atRoot.join(', ')).toBeLessThanOrEqual(4);
  });

  it("the generator's root holds at most eight files: the entry points and the pipeline's core; every other stage has its folder", () => {
    const atRoot = [...graph.keys()].filter((file) => /^generator\/[^/]+\.ts$/.test(file));
    expect(atRoot.length, atRoot.join(', ')).toBeLessThanOrEqual(8);
    const folders = new Set([...graph.keys()].filter((file) => /^generator\/[^/]+\//.test(file)).map((file) => file.split('/')[1]));
    expect([...folders].sort()).toEqual(
      Object.keys(generatorFolders)
        .filter((folder) => folder !== 'root')
        .sort(),
    );
  });

  it('each folder of the generator imports only what its row of ARCHITECTURE.md names', () => {
    const outside = importsOf('generator').flatMap(([file, imports]) => {
      const own = generatorFolderOf(file);
      const allowed = generatorFolders[own] ?? [];
      return imports
        .filter((target) => /^(contract|generator|proxy|test)\//.test(target))
        .filter((target) => {
          const folder = target.startsWith('generator/') ? generatorFolderOf(target) : target.split('/')[0];
          return folder !== own && !allowed.includes(folder ?? '');
        })
        .map((target) => `${file} → ${target}`);
    });
    expect(outside).toEqual([]);
  });

  it('outside exports/, the generator imports the exports and change lists through their one face, exports/exports.ts', () => {
    const inside = importsOf('generator')
      .filter(([file]) => !file.startsWith('generator/exports/'))
      .flatMap(([file, imports]) =>
        imports.filter((target) => target.startsWith('generator/exports/') && target !== 'generator/exports/exports.ts').map((target) => `${file} → ${target}`),
      );
    expect(inside).toEqual([]);
    expect(importsOf('generator').some(([, imports]) => imports.includes('generator/exports/exports.ts'))).toBe(true);
  });

  it("a record type's facts live in two tables: the contract's (contract/recordTypes.ts) and the generator's (generator/records/recordTypes.ts)", () => {
    const tables = fg
      .sync(['contract/**/*.ts', 'generator/**/*.ts', 'proxy/**/*.ts', 'deploy/**/*.ts'], { cwd: repoRoot })
      .flatMap((file) => [...readFileSync(path.join(repoRoot, file), 'utf8').matchAll(/Record<RecordType,/g)].map(() => file));
    expect(tables.sort()).toEqual(['contract/recordTypes.ts', 'generator/records/recordTypes.ts']);
  });

  it('the proxy loads none of the packages only the build, the import and the bench need', () => {
    const buildOnly = [
      'world-countries',
      'cldr-core',
      'flag-icons',
      'libphonenumber-js',
      'currency-codes',
      'fast-glob',
      'date-holidays',
      'moment-timezone',
      'swagger-ui-dist',
      // npm run bench's Fastify reference (test/bench/fastifyServer.ts), a devDependency.
      'fastify',
    ];
    const loaded = importsOf('proxy').flatMap(([file, imports]) =>
      imports.filter((target) => buildOnly.includes(target)).map((target) => `${file} → ${target}`),
    );
    expect(loaded).toEqual([]);
  });

  it('no module imports itself back through others (no cycles, type-only imports included)', () => {
    const cycles: string[] = [];
    const state = new Map<string, 'visiting' | 'done'>();
    const visit = (file: string, trail: string[]): void => {
      if (state.get(file) === 'done') return;
      if (state.get(file) === 'visiting') return void cycles.push([...trail.slice(trail.indexOf(file)), file].join(' → '));
      state.set(file, 'visiting');
      for (const target of graph.get(file) ?? []) if (graph.has(target)) visit(target, [...trail, file]);
      state.set(file, 'done');
    };
    for (const file of graph.keys()) visit(file, []);
    expect(cycles).toEqual([]);
  });

  it('no function of the product code is longer than 80 lines: a longer one is steps waiting for their names', () => {
    const long: string[] = [];
    for (const file of [...graph.keys()]) {
      const source = ts.createSourceFile(file, readFileSync(path.join(repoRoot, file), 'utf8'), ts.ScriptTarget.Latest, true);
      const visit = (node: ts.Node): void => {
        if (ts.isFunctionLike(node) && 'body' in node && node.body !== undefined) {
          const first = source.getLineAndCharacterOfPosition(node.getStart(source)).line;
          const lines = source.getLineAndCharacterOfPosition(node.getEnd()).line - first + 1;
          if (lines > 80) long.push(`${file}:${first + 1} ${node.name?.getText(source) ?? '(anonymous)'} has ${lines} lines`);
        }
        ts.forEachChild(node, visit);
      };
      visit(source);
    }
    expect(long).toEqual([]);
  });

  it('no function of the proxy takes more than five positional parameters', () => {
    const crowded: string[] = [];
    for (const file of [...graph.keys()].filter((name) => name.startsWith('proxy/'))) {
      const source = ts.createSourceFile(file, readFileSync(path.join(repoRoot, file), 'utf8'), ts.ScriptTarget.Latest, true);
      const visit = (node: ts.Node): void => {
        if (ts.isFunctionLike(node) && node.parameters.length > 5) {
          const line = source.getLineAndCharacterOfPosition(node.getStart(source)).line + 1;
          crowded.push(`${file}:${line} ${node.name?.getText(source) ?? '(anonymous)'} takes ${node.parameters.length}`);
        }
        ts.forEachChild(node, visit);
      };
      visit(source);
    }
    expect(crowded).toEqual([]);
  });
});

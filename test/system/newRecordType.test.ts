/**
 * A new record type is four rows in four product files (its facts in contract/recordTypes.ts, its
 * operations in contract/routes.ts, its schema in generator/records/schemas.ts and its row in
 * generator/records/recordTypes.ts, which names its importer and its check) and two new modules:
 * its importer and its check. On a copy of the code the build is made of, this test adds airports
 * in just those places, imports them with the importer the row names into the fixture's records,
 * runs the check the row names, builds, and finds the new operations' bodies, its export and its
 * place in the OpenAPI document: no other file needed a line.
 */
import { execFile } from 'node:child_process';
import { cp, mkdir, readFile, symlink, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import { copyFixture, realBuildTimeoutMs, repoRoot, tempDir } from '../support/service.ts';

const run = promisify(execFile);

/** routes.ts's own prefix constant, as its rows write it (a template placeholder, written out here as text). */
const addressPrefix = `${String.fromCharCode(36)}{address}`;

/** Two real airports of the fixture's Türkiye (IATA codes IST and SAW); the ids are this test's own. */
const airports = [
  { id: '7d1c2a0e-5b8f-4c3e-9a51-0f6e2b7c4d10', code: 'IST', name: 'İstanbul Havalimanı' },
  { id: '7d1c2a0e-5b8f-4c3e-9a51-0f6e2b7c4d11', code: 'SAW', name: 'İstanbul Sabiha Gökçen Uluslararası Havalimanı' },
];

/** The airports' importer: it reads a source file of the data folder, as a real importer reads its package. */
const importerModule = `import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { airportSchema } from '../../records/schemas.ts';
import type { DatasetImporter } from '../importer.ts';

export const importer: DatasetImporter = async ({ dataDir }) => [
  { recordType: 'airport', schema: airportSchema, records: JSON.parse(await readFile(path.join(dataDir, 'sources', 'airports.json'), 'utf8')) },
];
`;

/** The airports' check: each served IATA code against a reference list of codes. */
const checkModule = `import { readFile } from 'node:fs/promises';
import path from 'node:path';
import type { DataCheck } from './check.ts';

export const check: DataCheck = {
  name: 'airports',
  async run(data, dataDir) {
    const theirs = new Set(JSON.parse(await readFile(path.join(dataDir, 'checks', 'references', 'iata-codes.json'), 'utf8')));
    const ours = (data.get('airport') ?? []).map((airport) => String(airport.code));
    const disagreements = ours.filter((code) => !theirs.has(code)).map((code) => ({ key: code, ours: code, theirs: 'absent' }));
    return { name: 'airports', reference: 'a list of IATA codes', figures: { codesEqual: 1 - disagreements.length / Math.max(1, ours.length) }, targets: { codesEqual: 1 }, disagreements };
  },
};
`;

/** Runs the importer the row names, writes its records where the import writes them, and runs the check the row names. */
const importAndCheck = `import path from 'node:path';
import { runDataChecks } from './generator/check/run.ts';
import { loadImporters, ownOutputs } from './generator/import/importers.ts';
import { writeRecords } from './generator/import/shared/recordsFile.ts';

const dataDir = process.argv[2];
const importer = (await loadImporters()).find((one) => one.writes.has('airport'));
const [output] = ownOutputs(importer, await importer.run({ dataDir }));
await writeRecords(path.join(dataDir, 'records', 'airport.json'), output.records);
const [result] = await runDataChecks(dataDir, ['airports']);
console.log(JSON.stringify({ module: importer.module, records: output.records.length, check: result.name, passed: result.passed, figures: result.figures }));
`;

/** Inserts `text` before the last occurrence of `anchor` in `file`, failing if the anchor is gone (the test would say nothing). */
async function insertBefore(root: string, file: string, anchor: string, text: string): Promise<void> {
  const target = path.join(root, file);
  const source = await readFile(target, 'utf8');
  const at = source.lastIndexOf(anchor);
  if (at === -1) throw new Error(`${file} no longer has ${JSON.stringify(anchor)}: the recipe in ARCHITECTURE.md needs another place`);
  await writeFile(target, `${source.slice(0, at)}${text}${source.slice(at)}`);
}

describe('a new record type', () => {
  it(
    'is built from four rows in four files (its facts, its operations, its schema and its generator row) and its importer and check',
    async () => {
      const root = await tempDir();
      for (const folder of ['contract', 'generator']) await cp(path.join(repoRoot, folder), path.join(root, folder), { recursive: true });
      await cp(path.join(repoRoot, 'package.json'), path.join(root, 'package.json'));
      await symlink(path.join(repoRoot, 'node_modules'), path.join(root, 'node_modules'));

      await insertBefore(root, 'contract/recordTypes.ts', '} as const satisfies', "  airport: { label: 'airport' },\n");
      await insertBefore(
        root,
        'contract/routes.ts',
        '];\n\nconst routesByPath',
        [
          "  getAll(`ADDRESS/airport`, 'airport'),",
          "  byId(`ADDRESS/airport`, 'airport'),",
          "  { path: `ADDRESS/airport/getbycode`, record: 'airport', shape: 'single', params: [{ name: 'code', kind: 'code', field: 'code' }], extension: 'airports by IATA code' },",
          '',
        ]
          .join('\n')
          .replaceAll('ADDRESS', addressPrefix),
      );
      await insertBefore(
        root,
        'generator/records/schemas.ts',
        'export type Bank = ',
        "export const airportSchema = z.strictObject({\n  id: idOf('airport'),\n  code: z.string().regex(/^[A-Z]{3}$/).describe('The IATA code.'),\n  name: text.describe('The airport name.'),\n});\n",
      );
      await insertBefore(
        root,
        'generator/records/recordTypes.ts',
        '};\n\n/**\n * The fields of a record as the API shows them',
        "  airport: { schema: airportSchema, hidden: [], references: [], words: { code: 'An airport\\'s IATA code: three letters, such as IST.' }, importedBy: ['import/addresses/airports.ts'], checkedBy: ['airports'] },\n",
      );
      await insertBefore(root, 'generator/records/recordTypes.ts', '  bankSchema,', '  airportSchema,\n');

      await writeFile(path.join(root, 'generator/import/addresses', 'airports.ts'), importerModule);
      await writeFile(path.join(root, 'generator/check', 'airports.ts'), checkModule);
      await writeFile(path.join(root, 'importAndCheck.ts'), importAndCheck);

      const dataDir = await copyFixture();
      await mkdir(path.join(dataDir, 'sources'), { recursive: true });
      await mkdir(path.join(dataDir, 'checks', 'references'), { recursive: true });
      await writeFile(path.join(dataDir, 'sources', 'airports.json'), JSON.stringify(airports));
      await writeFile(path.join(dataDir, 'checks', 'references', 'iata-codes.json'), JSON.stringify(['IST', 'SAW', 'ESB']));
      const imported = await run(process.execPath, ['--import', 'tsx', 'importAndCheck.ts', dataDir], { cwd: root });
      expect(JSON.parse(imported.stdout)).toEqual({
        module: 'import/addresses/airports.ts',
        records: 2,
        check: 'airports',
        passed: true,
        figures: { codesEqual: 1 },
      });
      expect(JSON.parse(await readFile(path.join(dataDir, 'records', 'airport.json'), 'utf8'))).toEqual(airports);
      const built = await run(process.execPath, ['--import', 'tsx', 'generator/build.ts', '--data', dataDir, '--dist', 'dist'], { cwd: root });
      expect(built.stdout).toMatch(/airport 2/);

      const listed = await run(process.execPath, ['--import', 'tsx', 'generator/lookups.ts', '--dist', 'dist', '--prefix', 'addressmanagement/api/airport'], {
        cwd: root,
      });
      const paths = listed.stdout
        .trim()
        .split('\n')
        .map((line) => (JSON.parse(line) as { path: string }).path)
        .sort();
      expect(paths).toEqual([
        'addressmanagement/api/airport/getall.json',
        `addressmanagement/api/airport/getbycode/ist.json`,
        `addressmanagement/api/airport/getbycode/saw.json`,
        `addressmanagement/api/airport/getbyid/${airports[0]?.id}.json`,
        `addressmanagement/api/airport/getbyid/${airports[1]?.id}.json`,
      ]);
      const openapi = JSON.parse(await readFile(path.join(root, 'dist', 'openapi.json'), 'utf8')) as { paths: Record<string, unknown> };
      expect(Object.keys(openapi.paths)).toContain('/addressmanagement/api/airport/getbycode');
      const exportsIndex = JSON.parse(await readFile(path.join(root, 'dist', 'exports', 'index.json'), 'utf8')) as {
        exports: Record<string, { records: number }>;
      };
      expect(exportsIndex.exports.airport).toMatchObject({ records: 2 });
    },
    realBuildTimeoutMs * 2,
  );
});

/**
 * Each record type's row names where its records come from and what checks them
 * (generator/records/recordTypes.ts, `importedBy` and `checkedBy`); the import and the data checks
 * run from those names, so a name that leads nowhere, or a module no row names, is found here.
 */
import { readdir, readFile } from 'node:fs/promises';
import path from 'node:path';
import fg from 'fast-glob';
import { describe, expect, it } from 'vitest';
import { recordTypes } from '../../contract/recordTypes.ts';
import { checkNames, loadChecks } from '../../generator/check/checks.ts';
import { chosenChecks } from '../../generator/check/run.ts';
import { baseImport, importerPlan, loadImporters, ownOutputs } from '../../generator/import/importers.ts';
import { recordDefinitions } from '../../generator/records/recordTypes.ts';
import { regionSchema } from '../../generator/records/schemas.ts';

const root = path.resolve(import.meta.dirname, '../..');

describe('where each record type comes from', () => {
  it('every row names at least one importer, and every named module exports one', { timeout: 120_000 }, async () => {
    for (const type of recordTypes) expect(recordDefinitions[type].importedBy.length, type).toBeGreaterThan(0);
    const loaded = await loadImporters();
    expect(loaded.map((importer) => importer.module).sort()).toEqual([...importerPlan().keys()].filter((module) => module !== baseImport).sort());
  });

  it('every module of generator/import/ that exports an importer is named by a row', async () => {
    const named = new Set(importerPlan().keys());
    const files = await fg('**/*.ts', { cwd: path.join(root, 'generator/import') });
    const exporting = [];
    for (const file of files) {
      if (/^export const importer\b/m.test(await readFile(path.join(root, 'generator/import', file), 'utf8'))) exporting.push(`import/${file}`);
    }
    expect(exporting.length).toBeGreaterThan(0);
    for (const file of exporting) expect(named.has(file), `${file} exports an importer no row names`).toBe(true);
  });

  it('an importer that reads an earlier import of a type runs after every importer of that type', async () => {
    const order = [...importerPlan().keys()];
    for (const module of order.filter((name) => name !== baseImport)) {
      const folder = path.dirname(path.join(root, 'generator', module));
      // The importer's module and the modules of its folder it calls.
      const sources = await Promise.all(
        (await readdir(folder)).filter((name) => name.endsWith('.ts')).map((name) => readFile(path.join(folder, name), 'utf8')),
      );
      const read = new Set(sources.flatMap((source) => [...source.matchAll(/imported\('(\w+)'\)/g)].map((match) => match[1])));
      for (const type of read) {
        for (const writer of recordDefinitions[type as (typeof recordTypes)[number]].importedBy) {
          if (writer === module || writer === baseImport) continue;
          expect(order.indexOf(writer), `${module} reads ${type}, which ${writer} writes`).toBeLessThan(order.indexOf(module));
        }
      }
    }
  });

  it("refuses an importer's records of a type whose row does not name it, saying which row to change", () => {
    const stray = [{ recordType: 'region' as const, records: [], schema: regionSchema }];
    expect(() => ownOutputs({ module: 'import/finance/banks.ts', writes: new Set(['bank']) }, stray)).toThrow(
      /generator\/import\/finance\/banks\.ts wrote region records, but the region row of generator\/records\/recordTypes\.ts does not name it in importedBy/,
    );
    expect(ownOutputs({ module: baseImport, writes: new Set(['region']) }, stray)).toBe(stray);
  });
});

describe('what checks each record type', () => {
  it('every named check is the module of its name, exporting the check of that name', async () => {
    const checks = await loadChecks();
    expect(checks.map((check) => check.name)).toEqual(checkNames());
    expect(checks.length).toBeGreaterThan(10);
  });

  it('every module of generator/check/ that exports a check is named by a row', async () => {
    const named = new Set(checkNames());
    for (const file of await readdir(path.join(root, 'generator/check'))) {
      if (!file.endsWith('.ts')) continue;
      if (/^export const check\b/m.test(await readFile(path.join(root, 'generator/check', file), 'utf8'))) {
        expect(named.has(file.replace(/\.ts$/, '')), `${file} exports a check no row names`).toBe(true);
      }
    }
  });

  it('--only picks checks in the rows’ order and refuses a name no row gives, listing the names', () => {
    expect(chosenChecks(['weekends', 'banks'])).toEqual(['banks', 'weekends']);
    expect(chosenChecks()).toEqual(checkNames());
    expect(() => chosenChecks(['holiday'])).toThrow(/no data check is named holiday; the checks are banks, /);
  });
});

/**
 * The importer's promise for every dataset at once: re-importing unchanged sources rewrites
 * nothing (data/sources.json included) and keeps every id, whatever order the existing record
 * files are in.
 */
import { cp, mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import fg from 'fast-glob';
import { afterAll, describe, expect, it } from 'vitest';
import { importReferenceData } from '../../generator/import/main.ts';
import { formatRecords } from '../../generator/import/shared/recordsFile.ts';
import { dataDir } from '../support/data.ts';

let copyParent: string | undefined;
afterAll(async () => {
  if (copyParent !== undefined) await rm(copyParent, { recursive: true, force: true });
});

describe('re-importing unchanged sources', () => {
  it('rewrites only the files whose order was disturbed, back to the same bytes, ids kept by natural key', { timeout: 300_000 }, async () => {
    copyParent = await mkdtemp(path.join(tmpdir(), 'data-import-'));
    const copy = path.join(copyParent, 'data');
    await cp(dataDir, copy, { recursive: true });
    const recordFiles = (await fg('records/**/*.json', { cwd: dataDir })).sort();
    // Every other record file reversed: its ids must come back by natural key, not by position.
    const disturbed = recordFiles.filter((_, index) => index % 2 === 0);
    for (const file of disturbed) {
      const records = JSON.parse(await readFile(path.join(dataDir, file), 'utf8')) as object[];
      await writeFile(path.join(copy, file), formatRecords([...records].reverse()));
    }

    const { files, sources } = await importReferenceData(copy);

    const written = files
      .filter((file) => file.outcome === 'written')
      .map((file) => path.relative(copy, file.file))
      .sort();
    const reorderable = [];
    for (const file of disturbed) {
      const records = JSON.parse(await readFile(path.join(dataDir, file), 'utf8')) as unknown[];
      if (records.length > 1) reorderable.push(file);
    }
    expect(written).toEqual(reorderable.sort());
    expect(files.map((file) => path.relative(copy, file.file)).sort()).toEqual(recordFiles);
    for (const file of recordFiles) {
      expect(await readFile(path.join(copy, file), 'utf8'), file).toBe(await readFile(path.join(dataDir, file), 'utf8'));
    }
    expect((await readdir(path.join(copy, 'records'))).sort()).toEqual((await readdir(path.join(dataDir, 'records'))).sort());
    // data/sources.json names the versions of the sources installed and vendored now.
    expect(sources).toBe('unchanged');
  });
});

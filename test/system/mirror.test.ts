/**
 * The documented mirroring client (docs/api.md) ("A mirroring client"), run as a user would save and run it: the
 * script between its mirror markers, with node, against a proxy on a fixture build that then
 * changes, and then moves past the build the copy holds.
 */
import { execFile } from 'node:child_process';
import { readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { promisify } from 'node:util';
import { gunzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { recordTypes } from '../../contract/routes.ts';
import { buildDist } from '../../generator/build.ts';
import type { RunningService } from '../../proxy/service.ts';
import { readmeBlock } from '../support/readme.ts';
import { copyFixture, pick, repoRoot, startTestService, tempDir, testKey, type FixtureRecord } from '../support/service.ts';

let service: RunningService;
let dataDir: string;
let distDir: string;
let script: string;
let mirrorDir: string;

beforeAll(async () => {
  dataDir = await copyFixture();
  distDir = path.join(await tempDir(), 'dist');
  await buildDist({ dataDir, distDir });
  service = await startTestService(distDir);
  const folder = await tempDir('refdata-mirror-');
  script = path.join(folder, 'mirror.mjs');
  await writeFile(script, readmeBlock('mirror', 'its mirroring client'));
  mirrorDir = path.join(folder, 'mirror');
});
afterAll(() => service.close());

/** Runs the client once; its one line of output. */
async function runMirror(): Promise<string> {
  const { stdout } = await promisify(execFile)(process.execPath, [script], {
    env: { PATH: process.env.PATH, API: service.running.url, TOKEN: testKey, MIRROR_DIR: mirrorDir },
    timeout: 60_000,
  });
  return stdout.trim();
}

/** A rebuild of the data directory, and the proxy switched to it. */
async function rebuild(keepBuilds?: number): Promise<string> {
  const { buildId } = await buildDist({ dataDir, distDir, force: true, ...(keepBuilds ? { keepBuilds } : {}) });
  await service.build.reload('test');
  return buildId;
}

/** The copy is exactly the exports of the build served: every record type, every record by id. */
async function expectMirrorOfServedBuild(): Promise<void> {
  for (const type of recordTypes) {
    const response = await fetch(`${service.running.url}/exports/${type}.ndjson.gz`, { headers: { Authorization: `Bearer ${testKey}` } });
    const lines = gunzipSync(Buffer.from(await response.arrayBuffer()))
      .toString('utf8')
      .split('\n')
      .filter(Boolean);
    const expected = Object.fromEntries(lines.map((line) => JSON.parse(line) as { id: string }).map((record) => [record.id, record]));
    expect(JSON.parse(await readFile(path.join(mirrorDir, `${type}.json`), 'utf8')), type).toEqual(expected);
  }
}

describe('the mirroring client of docs/api.md', () => {
  it('copies every export on its first run, then applies a change list, then starts again from the exports when its build is gone', {
    timeout: 120_000,
  }, async () => {
    const first = service.build.current().manifest.buildId;
    expect(await runMirror()).toBe(`${first}: ${recordTypes.length} exports downloaded, 0 unchanged`);
    await expectMirrorOfServedBuild();

    // İş Bankası out, Halkbank (a real bank the fixture lacks) in.
    const banksFile = path.join(dataDir, 'records/bank.json');
    const banks = JSON.parse(await readFile(banksFile, 'utf8')) as FixtureRecord[];
    const realBanks = JSON.parse(await readFile(path.join(repoRoot, 'data/records/bank.json'), 'utf8')) as FixtureRecord[];
    const halkbank = { ...pick(realBanks, 'code', '012'), countryId: pick(banks, 'code', '064').countryId };
    await writeFile(banksFile, JSON.stringify([...banks.filter((bank) => bank.code !== '064'), halkbank]));
    const second = await rebuild();
    expect(await runMirror()).toBe(`${second}: 1 record types changed since ${first}`);
    await expectMirrorOfServedBuild();
    expect(Object.keys(JSON.parse(await readFile(path.join(mirrorDir, 'bank.json'), 'utf8')) as object)).toContain(halkbank.id);

    // Two more builds keeping two: the copy's build is gone, and nothing changed since, so every export is a 304.
    await rebuild(2);
    const fourth = await rebuild(2);
    expect((await fetch(`${service.running.url}/meta/changes?since=${second}`, { headers: { Authorization: `Bearer ${testKey}` } })).status).toBe(404);
    expect(await runMirror()).toBe(`${fourth}: 0 exports downloaded, ${recordTypes.length} unchanged`);
    await expectMirrorOfServedBuild();
    expect(JSON.parse(await readFile(path.join(mirrorDir, 'state.json'), 'utf8'))).toMatchObject({ buildId: fourth });
  });
});

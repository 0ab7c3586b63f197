/**
 * Keeping builds safe: the origin's pointer moves with the dist link in one rename, one build at a
 * time per dist, a failed build says in one line what the disk refused, and no build a proxy reads
 * is pruned.
 */
import { spawnSync } from 'node:child_process';
import { hostname } from 'node:os';
import { mkdir, readdir, readFile, readlink, realpath, rm, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { buildsRootOf, processStartOf, readerLeaseName, readersDirOf } from '../../contract/builds.ts';
import { buildDist, describeBuildFailure } from '../../generator/build.ts';
import { BuildError } from '../../generator/records/errors.ts';
import { rollback } from '../../generator/rollback.ts';
import { swapLink } from '../../generator/write.ts';
import { copyFixture, fixtureData, startTestService, tempDir, testKey } from '../support/service.ts';

const pointerOf = async (distDir: string): Promise<string> =>
  (JSON.parse(await readFile(path.join(buildsRootOf(distDir), 'current.json'), 'utf8')) as { buildId: string }).buildId;
const buildIdOf = async (distDir: string): Promise<string> => path.basename(await realpath(distDir));
const newDist = async (): Promise<string> => path.join(await tempDir(), 'dist');

/** The pid of a process that has exited: no process has it now (until the system reuses it). */
function deadPid(): number {
  const child = spawnSync(process.execPath, ['-e', 'process.stdout.write(String(process.pid))'], { encoding: 'utf8' });
  return Number(child.stdout);
}

describe('the origin pointer', () => {
  it('moves with the dist link in the same rename, whatever moves the link', async () => {
    const distDir = await newDist();
    await buildDist({ dataDir: fixtureData, distDir, keepBuilds: 3 });
    const first = await buildIdOf(distDir);
    await buildDist({ dataDir: fixtureData, distDir, force: true, keepBuilds: 3 });
    const second = await buildIdOf(distDir);
    expect(await pointerOf(distDir)).toBe(second);
    // The link moved by itself (as a crash right after a rename would leave it): the pointer has moved too.
    await swapLink(path.resolve(distDir), path.join(buildsRootOf(distDir), first));
    expect(await pointerOf(distDir)).toBe(first);
    expect(await readlink(path.join(buildsRootOf(distDir), 'current.json'))).toBe(path.join('..', 'dist', 'build.json'));
  });

  it('is repaired by a rebuild that finds nothing to do, where a copy left a file naming another build', async () => {
    const distDir = await newDist();
    await buildDist({ dataDir: fixtureData, distDir });
    const current = await buildIdOf(distDir);
    const buildsRoot = buildsRootOf(distDir);
    // The pointer a copy of the builds folder leaves: a file, naming another build, and no id file.
    await rm(path.join(distDir, 'build.json'));
    await rm(path.join(buildsRoot, 'current.json'));
    await writeFile(path.join(buildsRoot, 'current.json'), '{"buildId":"20200101T000000Z-000000"}\n');
    const summary = await buildDist({ dataDir: fixtureData, distDir });
    expect(summary.upToDate).toBe(true);
    expect(await pointerOf(distDir)).toBe(current);
  });
});

describe('builds of one dist', () => {
  it('run one at a time: a second started meanwhile is refused, naming the first, and the first publishes a whole build', async () => {
    const distDir = await newDist();
    const dataDir = await copyFixture();
    const results = await Promise.allSettled([buildDist({ dataDir, distDir }), buildDist({ dataDir, distDir })]);
    const refused = results.filter((result) => result.status === 'rejected');
    expect(refused).toHaveLength(1);
    const reason = (refused[0] as PromiseRejectedResult).reason as Error;
    expect(reason).toBeInstanceOf(BuildError);
    expect(reason.message).toMatch(new RegExp(`another build \\(pid ${process.pid} on .+, since .+\\) is working on .+: wait for it to finish`));
    expect(await pointerOf(distDir)).toBe(await buildIdOf(distDir));
    expect(JSON.parse(await readFile(path.join(distDir, 'manifest.json'), 'utf8')).buildId).toBe(await buildIdOf(distDir));
    // The lock is gone with the build that held it.
    expect(await readdir(buildsRootOf(distDir))).not.toContain('.lock');
  });

  it('take over the lock of a build that was killed', async () => {
    const distDir = await newDist();
    await mkdir(buildsRootOf(distDir), { recursive: true });
    const lock = { host: hostname(), pid: deadPid(), since: new Date().toISOString(), task: 'build' };
    await writeFile(path.join(buildsRootOf(distDir), '.lock'), JSON.stringify(lock));
    expect((await buildDist({ dataDir: fixtureData, distDir })).upToDate).toBe(false);
  });
});

describe('pruning', () => {
  it('never removes a build a running proxy has named, and forgets the names of proxies gone', async () => {
    const distDir = await newDist();
    await buildDist({ dataDir: fixtureData, distDir, keepBuilds: 2 });
    const pinned = await realpath(distDir);
    await buildDist({ dataDir: fixtureData, distDir, force: true, keepBuilds: 2 });
    const orphan = await realpath(distDir);
    const readers = readersDirOf(buildsRootOf(distDir));
    await mkdir(readers, { recursive: true });
    const lease = (pid: number, buildDir: string) =>
      writeFile(path.join(readers, readerLeaseName(hostname(), pid)), JSON.stringify({ host: hostname(), pid, buildDir }));
    await lease(process.pid, pinned);
    const gone = deadPid();
    await lease(gone, orphan);
    for (let round = 0; round < 3; round++) await buildDist({ dataDir: fixtureData, distDir, force: true, keepBuilds: 2 });
    const left = await readdir(buildsRootOf(distDir));
    expect(left).toContain(path.basename(pinned));
    expect(left).not.toContain(path.basename(orphan));
    expect(await readdir(readers)).toEqual([readerLeaseName(hostname(), process.pid)]);
  });

  it('forgets a lease whose process id now names another process (started at another time), and keeps one whose process it is', async () => {
    const distDir = await newDist();
    await buildDist({ dataDir: fixtureData, distDir, keepBuilds: 2 });
    const reused = await realpath(distDir);
    await buildDist({ dataDir: fixtureData, distDir, force: true, keepBuilds: 2 });
    const held = await realpath(distDir);
    const readers = readersDirOf(buildsRootOf(distDir));
    await mkdir(readers, { recursive: true });
    // This test's own process id, alive, but the lease's process started at another time: the id was reused.
    const started = processStartOf(process.pid);
    expect(started).toBeDefined();
    const stale = { host: hostname(), pid: process.pid, buildDir: reused, started: `${started}0` };
    await writeFile(path.join(readers, readerLeaseName(hostname(), process.pid)), JSON.stringify(stale));
    const parent = { host: hostname(), pid: process.ppid, buildDir: held, started: processStartOf(process.ppid) };
    await writeFile(path.join(readers, readerLeaseName(hostname(), process.ppid)), JSON.stringify(parent));
    for (let round = 0; round < 3; round++) await buildDist({ dataDir: fixtureData, distDir, force: true, keepBuilds: 2 });
    const left = await readdir(buildsRootOf(distDir));
    expect(left).not.toContain(path.basename(reused));
    expect(left).toContain(path.basename(held));
    expect(await readdir(readers)).toEqual([readerLeaseName(hostname(), process.ppid)]);
  });
});

describe('a build the system refuses', () => {
  it('says in one line what the disk refused and what to do, without a stack', () => {
    const full = Object.assign(new Error('ENOSPC: no space left on device, write'), { code: 'ENOSPC', path: '/srv/.dist-builds/x.partial/a.json' });
    const message = describeBuildFailure(full);
    expect(message).toBe(
      'build failed, dist/ left as it was: the disk is full: free space (old builds are in .dist-builds/, KEEP_BUILDS keeps fewer) and build again (ENOSPC at /srv/.dist-builds/x.partial/a.json)',
    );
    expect(message).not.toContain('\n');
    expect(describeBuildFailure(new BuildError(['data/records/bank.json: bad']))).toMatch(/^build failed, dist\/ left as it was/);
  });
});

describe('a proxy pinned to one build', () => {
  it('keeps it from being pruned while it runs, answers from it, and leaves the rotation if it is removed all the same', { timeout: 60_000 }, async () => {
    const distDir = await newDist();
    await buildDist({ dataDir: fixtureData, distDir, keepBuilds: 2 });
    const pinned = await realpath(distDir);
    const service = await startTestService(pinned, { API_KEYS: testKey });
    const url = service.running.url;
    const get = (target: string): Promise<number> =>
      fetch(`${url}${target}`, { headers: { Authorization: `Bearer ${testKey}` } }).then(async (response) => {
        await response.arrayBuffer();
        return response.status;
      });
    try {
      for (let round = 0; round < 3; round++) await buildDist({ dataDir: fixtureData, distDir, force: true, keepBuilds: 2 });
      expect(await readdir(buildsRootOf(distDir))).toContain(path.basename(pinned));
      // A body never read before, so not in memory: read from the pinned build on the disk.
      expect(await get('/financemanagement/api/currency/getbycode?code=TRY')).toBe(200);
      expect(await get('/readyz')).toBe(200);
      await rm(pinned, { recursive: true, force: true });
      // The presence check runs every few seconds: ask until it has seen the build go.
      let status = 200;
      while (status === 200) status = await get('/readyz');
      expect(status).toBe(503);
    } finally {
      await service.close();
    }
    // Closed: its lease is gone, and the next build prunes what no one reads.
    expect(await readdir(readersDirOf(buildsRootOf(distDir)))).toEqual([]);
  });
});

describe('npm run rollback', () => {
  it('activates the build before the current one for the dist link and the pointer at once, under load with no failed request', {
    timeout: 60_000,
  }, async () => {
    const distDir = await newDist();
    await buildDist({ dataDir: fixtureData, distDir, keepBuilds: 3 });
    const first = await buildIdOf(distDir);
    await buildDist({ dataDir: fixtureData, distDir, force: true, keepBuilds: 3 });
    const second = await buildIdOf(distDir);
    const service = await startTestService(distDir, { API_KEYS: testKey });
    const statuses = new Map<number, number>();
    let stop = false;
    const served = new Set<string>();
    // Eight clients asking without pause until the proxy serves the build rolled back to.
    const client = async (): Promise<void> => {
      while (!stop) {
        for (const target of ['/financemanagement/api/currency/getbycode?code=TRY', '/meta']) {
          const response = await fetch(`${service.running.url}${target}`, { headers: { Authorization: `Bearer ${testKey}` } });
          const body = (await response.json()) as { body: { buildId?: string } };
          statuses.set(response.status, (statuses.get(response.status) ?? 0) + 1);
          if (body.body?.buildId) served.add(body.body.buildId);
        }
      }
    };
    const clients = Array.from({ length: 8 }, client);
    try {
      const result = await rollback(distDir);
      expect(result).toEqual({ from: second, to: first });
      expect(await pointerOf(distDir)).toBe(first);
      expect(await buildIdOf(distDir)).toBe(first);
      while (!served.has(first)) await new Promise((resolve) => setImmediate(resolve));
    } finally {
      stop = true;
      await Promise.allSettled(clients);
      await service.close();
    }
    await Promise.all(clients);
    expect([...statuses.keys()]).toEqual([200]);
    expect(statuses.get(200)).toBeGreaterThan(16);
  });

  it('activates a build named, and refuses one not kept or not whole, naming what is wrong', async () => {
    const distDir = await newDist();
    await buildDist({ dataDir: fixtureData, distDir, keepBuilds: 3 });
    const first = await buildIdOf(distDir);
    await buildDist({ dataDir: fixtureData, distDir, force: true, keepBuilds: 3 });
    await buildDist({ dataDir: fixtureData, distDir, force: true, keepBuilds: 3 });
    const third = await buildIdOf(distDir);
    await expect(rollback(distDir, '20200101T000000Z-000000')).rejects.toThrow(/build 20200101T000000Z-000000 is not kept beside .*: kept are /);
    // A pack of its bodies lost (a hard link to the later builds' same pack: theirs stay).
    const [somePack] = (await readdir(path.join(buildsRootOf(distDir), first, 'lookups'))).filter((name) => name.endsWith('.pack'));
    const someBody = `lookups/${somePack}`;
    await rm(path.join(buildsRootOf(distDir), first, someBody));
    await expect(rollback(distDir, first)).rejects.toThrow(
      new RegExp(`build ${first} cannot be served, so it was not activated:[\\s\\S]*${someBody} is missing`),
    );
    expect(await buildIdOf(distDir)).toBe(third);
    expect(await pointerOf(distDir)).toBe(third);
  });
});

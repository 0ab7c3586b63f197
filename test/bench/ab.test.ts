/**
 * `npm run bench:ab` works: two commits' proxies (here the same commit twice, which every clone has)
 * bundled from git, started on the fixture build and loaded alternately, with the medians and
 * their ratio printed; and a wrong commit or a missing build is a usage error naming the fix. The
 * figures themselves are not checked: a one-second run on a shared CI machine measures nothing.
 *
 * Without wrk this file skips loudly, except under CI (process.env.CI), where it fails: .ci/run
 * installs it.
 */
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { findProgram } from '../support/programs.ts';
import { buildFixture, tempDir } from '../support/service.ts';
import { reportMissing, runNpmScript } from '../support/tools.ts';

const wrkMissing = findProgram('wrk') === undefined;

if (wrkMissing) reportMissing('test/bench/ab.test.ts', 'wrk', 'wrk not installed: apt-get install -y wrk', 'npm run bench:ab is');

describe.skipIf(wrkMissing)('npm run bench:ab', () => {
  it('loads two commits alternately on the same build and prints each round, the medians and their ratio', { timeout: 90_000 }, async () => {
    const dist = await buildFixture();
    const { code, output } = await runNpmScript('bench:ab', [
      'HEAD',
      'HEAD',
      ...['--rounds', '2', '--duration', '1', '--dist', dist, '--accept-encoding', 'gzip', '--mix', 'random', '--samples', '500'],
    ]);
    expect(code, output).toBe(0);
    expect(output).toContain('random mix');
    for (const line of ['round 1, before', 'round 1, after', 'round 2, after', 'round 2, before']) expect(output, line).toContain(line);
    const ratio = /after ÷ before: req\/s (\d+\.\d+), CPU per request (\d+\.\d+), p99 (\d+\.\d+)/.exec(output);
    expect(ratio, output).not.toBeNull();
    expect(Number(ratio?.[1])).toBeGreaterThan(0);
    expect(Number(ratio?.[2])).toBeGreaterThan(0);
    expect(Number(ratio?.[3])).toBeGreaterThan(0);
    expect(output).toContain('Accept-Encoding: gzip');
  });

  it('refuses a name that is not a commit, and a --dist without a build, saying what to do', async () => {
    const dist = await buildFixture();
    const wrongCommit = await runNpmScript('bench:ab', ['HEAD', 'no-such-commit-x', '--dist', dist]);
    expect(wrongCommit.code).toBe(2);
    expect(wrongCommit.output).toContain('"no-such-commit-x" is not a commit of this repository');
    const empty = path.join(await tempDir('refdata-ab-test-'), 'nothing');
    const noBuild = await runNpmScript('bench:ab', ['HEAD', 'HEAD', '--dist', empty]);
    expect(noBuild.code).toBe(2);
    expect(noBuild.output).toContain('holds no build: run `npm run build` first, or give --dist');
  });
});

/**
 * The documented "whole chain on one machine" (docs/deploying.md, Deploying at scale), run as written: nginx, Varnish,
 * two proxies in origin mode and HAProxy started by the document's own shell blocks, then its checks
 * and its teardown. Only the first two lines change: a temporary folder, free ports and the fixture
 * build instead of /tmp/refdata-chain, fixed ports and the full data.
 */
import { execFile } from 'node:child_process';
import { readdir, readFile } from 'node:fs/promises';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freePort } from '../support/programs.ts';
import { waitFor } from '../support/cache.ts';
import { readmeBlock } from '../support/readme.ts';
import { buildFixture, repoRoot, startProxy, tempDir, testKey } from '../support/service.ts';

const up = readmeBlock('chain-up', 'its one-machine chain');
const check = readmeBlock('chain-check', 'the checks of its one-machine chain');
const down = readmeBlock('chain-down', 'how to stop its one-machine chain');

let settings: string;
let chain: string;
let output: string;

/** The document's block with its settings lines replaced; fails if the block no longer starts with them. */
function withSettings(block: string, lines: string): string {
  const [first, second, ...rest] = block.split('\n');
  expect(first, 'the chain-up block starts with dist= and chain=').toMatch(/^dist=\S+ chain=\S+$/);
  expect(second, 'its second line sets origin=, cache=, lb= and proxies=').toMatch(/^origin=\S+ cache=\S+ lb=\S+ proxies="[^"]+"$/);
  return [lines, ...rest].join('\n');
}

const shell = (script: string) =>
  promisify(execFile)('bash', ['-e', '-c', script], {
    cwd: repoRoot,
    env: { HOME: process.env.HOME, TMPDIR: process.env.TMPDIR, PATH: `${process.env.PATH}:/usr/sbin:/usr/local/sbin` },
    timeout: 120_000,
  });

async function pidsOf(): Promise<number[]> {
  const proxies = (await readdir(chain)).filter((name) => /^proxy-\d+\.pid$/.test(name));
  const files = ['haproxy.pid', 'varnishd.pid', 'origin/nginx.pid', ...proxies];
  const pids = await Promise.all(files.map((file) => readFile(path.join(chain, file), 'utf8').then(Number, () => 0)));
  return pids.filter((pid) => pid > 0);
}

const alive = (pid: number): boolean => {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
};

beforeAll(async () => {
  const dist = await buildFixture();
  chain = await tempDir('refdata-chain-');
  const [origin, cache, lb, a, b] = [await freePort(), await freePort(), await freePort(), await freePort(), await freePort()];
  settings = [
    `dist=${dist} chain=${chain}`,
    `origin=127.0.0.1:${origin} cache=127.0.0.1:${cache} lb=127.0.0.1:${lb} proxies="127.0.0.1:${a} 127.0.0.1:${b}"`,
  ].join('\n');
  const printed = (await shell(`${withSettings(up, settings)}\n${check}`)).stdout.split('\n');
  // What the checks printed: the lines after the chain-up block's last, "up: <url>"
  output = printed.slice(printed.findIndex((line) => line.startsWith('up: http://')) + 1).join('\n');
}, 180_000);

afterAll(async () => {
  const pids = await pidsOf();
  await shell(`${settings}\n${down}`).catch(() => undefined);
  for (const pid of pids) if (alive(pid)) process.kill(pid, 'SIGKILL'); // a failed block leaves nothing running
});

describe('the whole chain on one machine of docs/deploying.md', () => {
  it('answers a lookup through HAProxy, Varnish and nginx with the body a local proxy gives', async () => {
    const [chained = ''] = output.split('\n');
    const local = await startProxy(await buildFixture(), { API_KEYS: testKey });
    try {
      const direct = await fetch(`${local.url}/addressmanagement/api/country/getbyname?name=Almanya`, { headers: { Authorization: `Bearer ${testKey}` } });
      const expected = (await direct.json()) as { body: unknown };
      const answer = JSON.parse(chained) as { header: { isSuccess: boolean }; body: { alpha2Code: string } };
      expect(answer.header.isSuccess).toBe(true);
      expect(answer.body.alpha2Code).toBe('DE');
      expect(answer.body).toEqual(expected.body);
    } finally {
      await local.close();
    }
  });

  it('refuses a lookup without a token, and the cache and the origin without the secret', () => {
    expect(output.split('\n').slice(1, 4)).toEqual(['401', '403', '403']);
  });

  // "UP 1/2": up, one health check into the two that confirm it
  it("has HAProxy route to both proxies, which log the client's address", async () => {
    const stats = output.split('\n').slice(4).join('\n');
    expect(stats).toMatch(/^proxies,p1,UP( \d\/\d)?$/m);
    expect(stats).toMatch(/^proxies,p2,UP( \d\/\d)?$/m);
    const logNames = (await readdir(chain)).filter((name) => /^proxy-\d+\.log$/.test(name));
    expect(logNames).toHaveLength(2);
    const logs = (await Promise.all(logNames.map((name) => readFile(path.join(chain, name), 'utf8')))).join('');
    expect(logs).toContain('"client":"127.0.0.1"');
  });

  it('stops everything it started with the teardown block', async () => {
    const pids = await pidsOf();
    expect(pids.length, 'pid files of haproxy, varnishd, nginx and both proxies').toBe(5);
    await shell(`${settings}\n${down}`);
    await waitFor('every process of the chain to exit', () => pids.every((pid) => !alive(pid)));
  });
});

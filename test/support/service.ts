/** Shared by the tests: build the fixture dataset into a temporary dist and run the proxy on it. */
import { cp, link, mkdir, mkdtemp, readdir, readFile, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { buildDist } from '../../generator/build.ts';
import { loadConfig } from '../../proxy/config/config.ts';
import type { RecordType } from '../../contract/routes.ts';
import type { RunningServer } from '../../proxy/http/server.ts';
import { silentLogger, type Logger } from '../../proxy/observe/log.ts';
import { startService, type RunningService } from '../../proxy/service.ts';

export const repoRoot = path.resolve(import.meta.dirname, '../..');
export const fixtureData = path.join(repoRoot, 'test/fixtures/data');
export const testKey = 'test-key-0123456789abcdef';

export async function tempDir(prefix = 'refdata-'): Promise<string> {
  return mkdtemp(path.join(tmpdir(), prefix));
}

/** A copy of the fixture dataset that a test may change. */
export async function copyFixture(): Promise<string> {
  const dataDir = path.join(await tempDir(), 'data');
  await cp(fixtureData, dataDir, { recursive: true });
  return dataDir;
}

/**
 * How long a hook may take that builds the real data: a few minutes alone on two cores for the
 * world's addresses (data/ as shipped), several times that while the rest of the suite runs beside
 * it; Türkiye's alone (realDataServing(['TR'])) take under a minute.
 */
export const realBuildTimeoutMs = 900_000;

/**
 * data/ hard-linked into a temporary folder, with build.json's `addressCountries` set: the real
 * records, the setting changed (a build of fewer countries, for tests that need no more).
 */
export async function realDataServing(addressCountries: readonly string[]): Promise<string> {
  const dataDir = path.join(repoRoot, 'data');
  const copy = path.join(await tempDir('refdata-real-'), 'data');
  const linkTree = async (from: string, to: string): Promise<void> => {
    await mkdir(to, { recursive: true });
    for (const entry of await readdir(from, { withFileTypes: true })) {
      const source = path.join(from, entry.name);
      if (entry.isDirectory()) await linkTree(source, path.join(to, entry.name));
      else if (source !== path.join(dataDir, 'build.json')) await link(source, path.join(to, entry.name));
    }
  };
  await linkTree(dataDir, copy);
  const settings = JSON.parse(await readFile(path.join(dataDir, 'build.json'), 'utf8')) as Record<string, unknown>;
  await writeFile(path.join(copy, 'build.json'), JSON.stringify({ ...settings, addressCountries }));
  return copy;
}

export async function buildFixture(dataDir = fixtureData): Promise<string> {
  const distDir = path.join(await tempDir(), 'dist');
  await buildDist({ dataDir, distDir });
  return distDir;
}

/** The proxy on a free loopback port, wired exactly as `npm start` wires it from these settings. */
export async function startProxy(
  distDir: string,
  environment: NodeJS.ProcessEnv = { API_KEYS: testKey },
  now?: () => number,
  log: Logger = silentLogger,
): Promise<RunningServer> {
  return (await startTestService(distDir, environment, now, log)).running;
}

export async function startTestService(
  distDir: string,
  environment: NodeJS.ProcessEnv = { API_KEYS: testKey },
  now?: () => number,
  log: Logger = silentLogger,
): Promise<RunningService> {
  // In origin mode each service gets a copy of its own, so no test sees bodies another one saved.
  const originCopy = environment.ORIGIN_URL && !environment.ORIGIN_CACHE_DIR ? { ORIGIN_CACHE_DIR: await tempDir('refdata-origin-copy-') } : {};
  const config = loadConfig({ PORT: '0', DIST_DIR: distDir, ...originCopy, ...environment });
  return startService(config, { log, ...(now ? { now } : {}) });
}

/** The item at `index`: a test's data must hold what the test uses, and the test says so when it does not. */
export function itemAt<Item>(items: readonly Item[], index: number): Item {
  const item = items[index];
  if (item === undefined) throw new Error(`expected an item at index ${index}, but there are ${items.length}`);
  return item;
}

export type FixtureRecord = Record<string, unknown> & { id: string };

/** The fixture's records of one type, as written in test/fixtures/data. */
export async function fixtureRecords(type: RecordType): Promise<FixtureRecord[]> {
  return JSON.parse(await readFile(path.join(fixtureData, 'records', `${type}.json`), 'utf8')) as FixtureRecord[];
}

/** The record with the given field value; throws so a typo in a test fails loudly. */
export function pick(records: readonly FixtureRecord[], field: string, value: unknown): FixtureRecord {
  const found = records.find((record) => record[field] === value);
  if (!found) throw new Error(`fixture has no record with ${field} ${String(value)}`);
  return found;
}

export function without(record: FixtureRecord, ...fields: string[]): Record<string, unknown> {
  return Object.fromEntries(Object.entries(record).filter(([field]) => !fields.includes(field)));
}

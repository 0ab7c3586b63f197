/**
 * A rebuild takes a record file's SHA-256 from the previous build only while the file's signature
 * (size, times, inode) is the one recorded with it; any write changes the change time, which no
 * one can set back, so a rewritten file is hashed again.
 */
import { createHash } from 'node:crypto';
import { mkdir, mkdtemp, stat, utimes, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { readInputs, type Inputs } from '../../generator/load.ts';

const sha256 = (text: string) => createHash('sha256').update(text).digest('hex');
/** A clock a minute ahead: every file written by the test counts as settled. */
const later = () => ({ startedAtMs: Date.now() + 60_000 });

async function dataDir(files: Record<string, string>): Promise<string> {
  const dir = await mkdtemp(path.join(tmpdir(), 'inputs-'));
  await mkdir(path.join(dir, 'records'), { recursive: true });
  await writeFile(path.join(dir, 'build.json'), '{}');
  for (const [name, text] of Object.entries(files)) await writeFile(path.join(dir, 'records', name), text);
  return dir;
}

const known = (inputs: Inputs) => ({
  records: Object.fromEntries(inputs.records.map((file) => [file.relativePath, file.sha256])),
  signatures: Object.fromEntries(inputs.records.flatMap((file) => (file.signature ? [[file.relativePath, file.signature]] : []))),
});

describe('the record files a build reads', () => {
  it('are hashed, and signed once they have not changed for a while', async () => {
    const dir = await dataDir({ 'bank.json': '[{"id":"a"}]', 'currency.json': '[]' });
    const fresh = await readInputs(dir);
    expect(fresh.records.map((file) => file.sha256)).toEqual([sha256('[{"id":"a"}]'), sha256('[]')]);
    // Written a moment ago: a write later in the same clock tick could leave the times as they are.
    expect(fresh.records.map((file) => file.signature)).toEqual([undefined, undefined]);
    const settled = await readInputs(dir, undefined, later());
    const { size, ino } = await stat(path.join(dir, 'records/bank.json'));
    expect(settled.records[0]?.signature).toMatch(new RegExp(`^${size}:\\d+:\\d+:${ino}:\\d+$`));
  });

  it('take the recorded SHA-256 of a file whose signature is the one recorded, without hashing it', async () => {
    const dir = await dataDir({ 'bank.json': '[{"id":"a"}]' });
    const first = await readInputs(dir, undefined, later());
    const recorded = known(first);
    // A recorded hash the bytes do not have: taken as it is, so the file was not hashed.
    const taken = await readInputs(dir, { ...recorded, records: { 'records/bank.json': 'f'.repeat(64) } }, later());
    expect(taken.records[0]?.sha256).toBe('f'.repeat(64));
    expect(taken.dataVersion).not.toBe(first.dataVersion);
  });

  it('hash a file rewritten to the same size with its modification time put back: its change time moved', async () => {
    const dir = await dataDir({ 'bank.json': '[{"id":"a"}]' });
    const file = path.join(dir, 'records/bank.json');
    const first = await readInputs(dir, undefined, later());
    const { atime, mtime } = await stat(file);
    await writeFile(file, '[{"id":"b"}]');
    await utimes(file, atime, mtime);
    const again = await readInputs(dir, known(first), later());
    expect(again.records[0]?.sha256).toBe(sha256('[{"id":"b"}]'));
    expect(again.records[0]?.signature).not.toBe(first.records[0]?.signature);
  });

  it('hash every file when no earlier build is known, and a file the earlier build did not sign', async () => {
    const dir = await dataDir({ 'bank.json': '[{"id":"a"}]', 'currency.json': '[]' });
    const first = await readInputs(dir, undefined, later());
    const recorded = known(first);
    const unsigned = {
      records: { ...recorded.records, 'records/currency.json': 'f'.repeat(64) },
      signatures: { 'records/bank.json': recorded.signatures['records/bank.json'] ?? '' },
    };
    const again = await readInputs(dir, unsigned, later());
    expect(again.records.map((file) => file.sha256)).toEqual([sha256('[{"id":"a"}]'), sha256('[]')]);
    expect(again.dataVersion).toBe(first.dataVersion);
  });
});

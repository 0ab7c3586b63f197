/**
 * The error codes a client sees are a public contract (contract/errorCodes.ts): a code published in
 * test/fixtures/facts/published-error-codes.json keeps its status unless CHANGELOG.md names it, a
 * new code is published before it ships, and docs/api.md lists each with its status and meaning.
 */
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { clientErrorCodes, errorOutcomes, shownCode } from '../../contract/errorCodes.ts';

const root = path.resolve(import.meta.dirname, '../..');
const read = (file: string) => readFile(path.join(root, file), 'utf8');

async function published(): Promise<Record<string, number>> {
  return (JSON.parse(await read('test/fixtures/facts/published-error-codes.json')) as { codes: Record<string, number> }).codes;
}

describe('the published error codes', () => {
  it('each keeps its status, or CHANGELOG.md names it as renamed, removed or changed', async () => {
    const changelog = await read('CHANGELOG.md');
    const current = new Map(clientErrorCodes().map(({ code, status }) => [code, status]));
    const changedWithoutEntry = Object.entries(await published())
      .filter(([code, status]) => current.get(code as never) !== status)
      .filter(([code]) => !changelog.includes(code));
    expect(changedWithoutEntry).toEqual([]);
  });

  it('lists every code a client can see: a new one is published before it ships', async () => {
    const list = await published();
    expect(clientErrorCodes().filter(({ code }) => !(code in list))).toEqual([]);
  });

  it('docs/api.md lists every code with its status and meaning, and no other', async () => {
    const docs = await read('docs/api.md');
    const rows = [...docs.matchAll(/^\| `(ERR_[A-Z_]+)` \| (\d{3}) \| (.+) \|$/gm)].map(([, code, status, meaning]) => ({
      code,
      status: Number(status),
      meaning,
    }));
    expect(rows).toEqual(clientErrorCodes());
  });
});

describe('what a client is shown', () => {
  it('is the code itself where the message is shown, ERR_UNAVAILABLE where it names the server', () => {
    expect(shownCode('ERR_NOT_FOUND')).toBe('ERR_NOT_FOUND');
    expect(shownCode('ERR_BODY_UNREADABLE')).toBe('ERR_UNAVAILABLE');
    expect(shownCode('ERR_CONFIG')).toBe('ERR_UNAVAILABLE');
    expect(shownCode('ERR_UNAVAILABLE')).toBe('ERR_UNAVAILABLE');
  });

  it('never shows a code that names the server, nor the message of ERR_UNAVAILABLE, the code it shows instead', () => {
    expect(errorOutcomes.ERR_UNAVAILABLE.shown).toBe(false);
    expect(clientErrorCodes().map(({ code }) => code)).toContain('ERR_UNAVAILABLE');
    const hidden = Object.entries(errorOutcomes)
      .filter(([code, outcome]) => !outcome.shown && code !== 'ERR_UNAVAILABLE')
      .map(([code]) => code);
    expect(hidden.length).toBeGreaterThan(0);
    expect(clientErrorCodes().filter(({ code }) => hidden.includes(code))).toEqual([]);
  });
});

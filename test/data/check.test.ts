/**
 * The data agrees with independent sources (npm run data:check): every disagreement is explained
 * in data/checks/exceptions.json with a citation or listed as still open in data/checks/open.json,
 * no exception or open entry is stale, and every target is met unless open.json lists it as missed.
 * A new unexplained disagreement, or a new missed target, fails here.
 */
import { describe, expect, it } from 'vitest';
import type { CheckReport } from '../../generator/check/check.ts';
import { dataChecks } from '../../generator/check/checks.ts';
import { sortDisagreements } from '../../generator/check/exceptions.ts';
import { runDataChecks } from '../../generator/check/run.ts';
import { dataDir } from '../support/data.ts';

describe('npm run data:check', () => {
  it.each(dataChecks.map((check) => [check.name]))(
    '%s: no disagreement or missed target beyond those explained or listed as open',
    { timeout: 120_000 },
    async (name) => {
      const [result] = await runDataChecks(dataDir, [name]);
      expect(result?.unexplained.slice(0, 20)).toEqual([]);
      expect(result?.stale).toEqual([]);
      expect(result?.closed.slice(0, 20)).toEqual([]);
      expect(result?.missed).toEqual(result?.missedAsOpen);
      expect(result?.heldTheLine).toBe(true);
    },
  );
});

describe('sorting disagreements', () => {
  const report = (keys: readonly string[]): CheckReport => ({
    name: 'holidays',
    reference: 'a reference',
    figures: {},
    targets: {},
    disagreements: keys.map((key) => ({ key, ours: 'a day', theirs: 'absent' })),
  });
  const exception = { check: 'holidays', key: 'UA 2025-*', reason: 'martial law suspended them', citation: 'Law of Ukraine 2136-IX' };

  it('explains by exact key or prefix, keeps listed ones open, and calls everything else new', () => {
    const sorted = sortDisagreements(
      report(['UA 2025-01-01', 'CN 2025-01-26', 'IR 2025-07-06']),
      [exception],
      [{ check: 'holidays', note: 'under research', missedTargets: [], keys: ['CN 2025-01-26'] }],
    );
    expect(sorted.explained.map((item) => item.key)).toEqual(['UA 2025-01-01']);
    expect(sorted.open.map((item) => item.key)).toEqual(['CN 2025-01-26']);
    expect(sorted.unexplained.map((item) => item.key)).toEqual(['IR 2025-07-06']);
  });

  it('reports an exception and an open key that no longer match anything', () => {
    const sorted = sortDisagreements(report([]), [exception], [{ check: 'holidays', note: 'under research', missedTargets: [], keys: ['CN 2025-01-26'] }]);
    expect(sorted.stale).toEqual([exception]);
    expect(sorted.closed).toEqual(['CN 2025-01-26']);
  });
});

/**
 * The data agrees with independent sources (npm run data:check): every disagreement is explained
 * in data/checks/exceptions.json with a citation or listed as still open in data/checks/open.json,
 * no exception or open entry is stale, and every target is met unless open.json lists it as missed.
 * A new unexplained disagreement, or a new missed target, fails here.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import type { CheckReport } from '../../generator/check/check.ts';
import { checkNames } from '../../generator/check/checks.ts';
import { sortDisagreements } from '../../generator/check/exceptions.ts';
import { runDataChecks } from '../../generator/check/run.ts';
import { dataDir } from '../support/data.ts';

describe('npm run data:check', () => {
  it.each(checkNames().map((name) => [name]))(
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

describe("the world's postal codes against the independent references", () => {
  const names = ['germanPostalCodes', 'frenchPostalCodes', 'usPostalCodes', 'indianPostalCodes'];
  let figures: Readonly<Record<string, Readonly<Record<string, number>>>> = {};
  beforeAll(async () => {
    figures = Object.fromEntries((await runDataChecks(dataDir, names)).map((result) => [result.name, result.figures]));
  }, 300_000);
  const of = (name: string, figure: string): number => figures[name]?.[figure] ?? Number.NaN;

  it("serve the places of DE, FR, US and IN, GeoNames' postal codes", () => {
    const served = { germanPostalCodes: 16_000, frenchPostalCodes: 37_000, usPostalCodes: 40_000, indianPostalCodes: 155_000 };
    for (const [name, atLeast] of Object.entries(served)) expect(of(name, 'servedPlaces'), name).toBeGreaterThan(atLeast);
  });

  it("DE: 99.5% of OpenStreetMap's codes served, 98% of names and 99.96% of Länder agree", () => {
    expect(of('germanPostalCodes', 'referenceCodesServed')).toBeGreaterThanOrEqual(0.994);
    expect(of('germanPostalCodes', 'namesAgree')).toBeGreaterThanOrEqual(0.98);
    expect(of('germanPostalCodes', 'stateProvincesAgree')).toBeGreaterThanOrEqual(0.9995);
  });

  it("FR: 99.98% of the COG's metropolitan codes served, 99.6% of communes and every département agree, counting the explained", () => {
    expect(of('frenchPostalCodes', 'referenceCodesServed')).toBeGreaterThanOrEqual(0.9995);
    expect(of('frenchPostalCodes', 'namesAgree')).toBeGreaterThanOrEqual(0.996);
    expect(of('frenchPostalCodes', 'namesAgreeCountingExplained')).toBeGreaterThanOrEqual(0.999);
    expect(of('frenchPostalCodes', 'stateProvincesAgreeCountingExplained')).toBe(1);
  });

  it('US: every ZCTA of the states served', () => {
    expect(of('usPostalCodes', 'referenceCodesServed')).toBe(1);
    expect(of('usPostalCodes', 'servedCodesInReference')).toBeGreaterThanOrEqual(0.82);
  });

  it("IN: 99.1% of India Post's PINs served, 99.95% of names and every state agree, counting Telangana", () => {
    expect(of('indianPostalCodes', 'referenceCodesServed')).toBeGreaterThanOrEqual(0.991);
    expect(of('indianPostalCodes', 'namesAgree')).toBeGreaterThanOrEqual(0.9995);
    expect(of('indianPostalCodes', 'stateProvincesAgreeCountingExplained')).toBe(1);
  });
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

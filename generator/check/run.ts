/** Runs every data check over data/ and sorts each disagreement into explained or not. */
import { loadData } from '../load.ts';
import { validateData } from '../validate.ts';
import type { CheckReport } from './check.ts';
import { checkNames, loadChecks } from './checks.ts';
import { readExceptions, readOpen, sortDisagreements, type SortedDisagreements } from './exceptions.ts';

export interface CheckResult extends CheckReport, SortedDisagreements {
  /** The figures below their targets, by name. */
  readonly missed: readonly string[];
  /** The missed targets open.json lists for this check. */
  readonly missedAsOpen: readonly string[];
  /** Every disagreement explained (none open), no stale exception, every target met. */
  readonly passed: boolean;
  /** Nothing new since open.json was written: no unexplained disagreement or missed target it does not list, and none it lists that has gone. */
  readonly heldTheLine: boolean;
}

/** The checks `--only` names, in the rows' order (all when it names none); a name no row gives is refused with the list of names. */
export function chosenChecks(only: readonly string[] = []): string[] {
  const names = checkNames();
  const unknown = only.filter((name) => !names.includes(name));
  if (unknown.length > 0) throw new Error(`no data check is named ${unknown.join(', ')}; the checks are ${names.join(', ')}`);
  return only.length === 0 ? names : names.filter((name) => only.includes(name));
}

export async function runDataChecks(dataDir: string, only?: readonly string[]): Promise<CheckResult[]> {
  const dataset = validateData((await loadData(dataDir)).files);
  const exceptions = await readExceptions(dataDir);
  const open = await readOpen(dataDir);
  const results: CheckResult[] = [];
  for (const check of await loadChecks(chosenChecks(only))) {
    const report = await check.run(dataset.records, dataDir);
    const sorted = sortDisagreements(report, exceptions, open);
    const explainedFigures = check.explainedFigures?.(report, [...sorted.open, ...sorted.unexplained]) ?? {};
    const missed = Object.entries(report.targets)
      .filter(([name, target]) => (report.figures[name] ?? -Infinity) < target)
      .map(([name]) => name);
    const openTargets = new Set(open.filter((entry) => entry.check === report.name).flatMap((entry) => entry.missedTargets));
    const missedAsOpen = missed.filter((name) => openTargets.has(name));
    const clean = sorted.unexplained.length === 0 && sorted.stale.length === 0 && sorted.closed.length === 0;
    results.push({
      ...report,
      figures: { ...report.figures, ...explainedFigures },
      ...sorted,
      missed,
      missedAsOpen,
      passed: clean && sorted.open.length === 0 && missed.length === 0,
      heldTheLine: clean && missedAsOpen.length === missed.length && [...openTargets].every((name) => missed.includes(name)),
    });
  }
  return results;
}

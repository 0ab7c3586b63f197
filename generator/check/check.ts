/**
 * What a data check is: one dataset of data/ compared with an independent source (a reference
 * snapshot committed under data/checks/references/, or a source the runtime carries, such as
 * Node's tzdata), giving agreement figures and the list of every disagreement.
 *
 * A disagreement is either explained in data/checks/exceptions.json (with its reason and a
 * citation) or it fails `npm run data:check` and the data tests.
 */
import type { RecordType } from '../../contract/routes.ts';
import type { DataRecord } from '../records/schemas.ts';

/** The validated records of data/, by type, as the build reads them. */
export type CheckedData = ReadonlyMap<RecordType, readonly DataRecord[]>;

export interface Disagreement {
  /** Stable and readable: what the exceptions file names, e.g. `IR 2025-07-06` or `LV-001`. */
  readonly key: string;
  /** What data/ holds, as text ("absent" when it holds nothing). */
  readonly ours: string;
  /** What the reference holds, as text ("absent" when it holds nothing). */
  readonly theirs: string;
}

export interface CheckReport {
  /** The check's name, as in the exceptions file (`holidays`, `subdivisions`, …). */
  readonly name: string;
  /** The reference: its name, version and date, as data/SOURCES.md records it. */
  readonly reference: string;
  /** The agreement figures, by name (`precision`, `recall`, `countriesEqual`, …): ratios from 0 to 1, or counts. */
  readonly figures: Readonly<Record<string, number>>;
  /** The figures the issue sets, by the same names: a figure below its target fails the check. */
  readonly targets: Readonly<Record<string, number>>;
  readonly disagreements: readonly Disagreement[];
  /** Anything else worth printing (per-country figures), kept in the JSON. */
  readonly detail?: Readonly<Record<string, unknown>>;
}

export interface DataCheck {
  readonly name: string;
  run(data: CheckedData, dataDir: string): Promise<CheckReport>;
  /**
   * Figures once the explained disagreements are counted as agreement, where each explanation
   * shows the reference wrong: what the data's agreement would be with a reference that had no
   * known error. Reported beside the raw figures, never instead of them.
   */
  explainedFigures?(report: CheckReport, notExplained: readonly Disagreement[]): Record<string, number>;
}

/**
 * The explained figures of a check that compares days (`daysServed`, `daysInReference`): its
 * precision and recall with only the disagreements not explained counted against it.
 */
export function dayExplainedFigures(report: CheckReport, notExplained: readonly Disagreement[]): Record<string, number> {
  const served = report.figures.daysServed ?? 0;
  const inReference = report.figures.daysInReference ?? 0;
  const ourDays = notExplained.filter((disagreement) => disagreement.ours !== 'absent').length;
  const theirDays = notExplained.filter((disagreement) => disagreement.theirs !== 'absent').length;
  return {
    precisionCountingExplained: served === 0 ? 0 : 1 - ourDays / served,
    recallCountingExplained: inReference === 0 ? 0 : 1 - theirDays / inReference,
  };
}

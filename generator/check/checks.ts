/**
 * The data checks, as the record types' rows name them (generator/records/recordTypes.ts,
 * `checkedBy`): each the module generator/check/<name>.ts exporting `check`, loaded when the checks
 * run, in the order of the record types. Adding a check is its module, its name in the rows of the
 * types it checks, its reference in data/checks/references/ and data/SOURCES.md, and its targets in
 * its report.
 */
import { recordTypes, type RecordType } from '../../contract/recordTypes.ts';
import { recordDefinitions } from '../records/recordTypes.ts';
import type { DataCheck } from './check.ts';

const moduleUrl = (file: string) => new URL(file, import.meta.url).href;

/** Every check's name, in the order of the first record type that names it. */
export function checkNames(): string[] {
  return [...new Set(recordTypes.flatMap((type) => recordDefinitions[type].checkedBy))];
}

/** The record types whose rows name no check: no independent source compares them yet. */
export function uncheckedTypes(): RecordType[] {
  return recordTypes.filter((type) => recordDefinitions[type].checkedBy.length === 0);
}

/** The named checks (all by default), loaded from their modules; a module that does not export the check its name says is an error. */
export async function loadChecks(names: readonly string[] = checkNames()): Promise<DataCheck[]> {
  const checks: DataCheck[] = [];
  for (const name of names) {
    const loaded = (await import(moduleUrl(`${name}.ts`))) as { check?: DataCheck };
    if (loaded.check?.name !== name) throw new Error(`generator/check/${name}.ts must export \`check\`, the data check named ${name}.`);
    checks.push(loaded.check);
  }
  return checks;
}

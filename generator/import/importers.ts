/**
 * The dataset importers, as the record types' rows name them (generator/records/recordTypes.ts,
 * `importedBy`): each a module of generator/import/ that exports `importer`, loaded when the import
 * runs. They run in the order of the record types, so that an importer finds the records of the
 * types before its own (a subdivision for its holidays) through `context.imported`.
 */
import { recordTypes, type RecordType } from '../../contract/recordTypes.ts';
import { recordDefinitions } from '../records/recordTypes.ts';
import type { DatasetImporter, RecordOutput } from './importer.ts';
import { ImportError } from './shared/importError.ts';

/** What a row names when the base import (main.ts) writes its records. */
export const baseImport = 'base';

export interface NamedImporter {
  /** Its module, by its path under generator/. */
  readonly module: string;
  /** The record types whose rows name it. */
  readonly writes: ReadonlySet<RecordType>;
  readonly run: DatasetImporter;
}

/** The record types whose rows name each importer, in the order the importers run. */
export function importerPlan(): ReadonlyMap<string, ReadonlySet<RecordType>> {
  const plan = new Map<string, Set<RecordType>>();
  for (const type of recordTypes) {
    for (const module of recordDefinitions[type].importedBy) plan.set(module, (plan.get(module) ?? new Set()).add(type));
  }
  return plan;
}

export async function loadImporters(): Promise<NamedImporter[]> {
  const importers: NamedImporter[] = [];
  for (const [module, writes] of importerPlan()) {
    if (module === baseImport) continue;
    const loaded = (await import(new URL(`../${module}`, import.meta.url).href)) as { importer?: DatasetImporter };
    if (typeof loaded.importer !== 'function') {
      throw new ImportError([`generator/${module} exports no \`importer\`, but the rows of ${[...writes].join(', ')} name it as their importer.`]);
    }
    importers.push({ module, writes, run: loaded.importer });
  }
  return importers;
}

/** An importer's outputs, refused when one is of a type whose row does not name it: the rows must say where every record comes from. */
export function ownOutputs(
  importer: { readonly module: string; readonly writes: ReadonlySet<RecordType> },
  outputs: readonly RecordOutput[],
): readonly RecordOutput[] {
  const stray = outputs.find((output) => !importer.writes.has(output.recordType));
  if (stray !== undefined) {
    throw new ImportError([
      `generator/${importer.module} wrote ${stray.recordType} records, but the ${stray.recordType} row of generator/records/recordTypes.ts does not name it in importedBy: add it there.`,
    ]);
  }
  return outputs;
}

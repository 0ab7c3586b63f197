/**
 * The shape every dataset importer shares. The base import (regions, calling codes, countries,
 * currencies) runs first; each dataset importer then receives those records, so its links can
 * point at country and currency ids, and returns its record files. main.ts validates everything
 * and writes nothing until every importer has succeeded.
 */
import type { z } from 'zod';
import type { RecordType } from '../../contract/routes.ts';
import type { Country, Currency } from '../records/schemas.ts';

/** The records of one type: one file `records/<type>.json`, or parts `records/<type>/<part>.json`. */
export type RecordOutput = {
  readonly recordType: RecordType;
  readonly schema: z.ZodType;
} & ({ readonly records: readonly object[] } | { readonly parts: ReadonlyMap<string, readonly object[]> });

export interface ImportContext {
  readonly dataDir: string;
  /** Every record of a type as the previous import wrote it (all parts), to reuse their ids. */
  previous<Schema extends z.ZodType>(recordType: RecordType, schema: Schema): Promise<z.infer<Schema>[]>;
  readonly countries: readonly Country[];
  readonly currencies: readonly Currency[];
  /** The records of a type an earlier importer of this run returned (a subdivision for its holidays), or none. */
  imported(recordType: RecordType): readonly object[];
}

export type DatasetImporter = (context: ImportContext) => Promise<readonly RecordOutput[]>;

/**
 * The build summary beside manifest.json, written last with it: a few hundred bytes and each
 * record file's SHA-256 and signature. A rebuild reads it to see whether dist/ already holds a
 * build of the same inputs, without parsing the manifest or loading zod (a no-op rebuild is mostly
 * reading the record files' stat). Not part
 * of the proxy's contract: the proxy reads only the manifest.
 */
import { readFile } from 'node:fs/promises';
import path from 'node:path';

/** What a build records for the next one to start from. */
export interface RebuildBasis {
  /** The generator's code fingerprint (buildCodeFingerprint in generator/build.ts). */
  readonly codeVersion: string;
  /** SHA-256 of data/build.json. */
  readonly settings: string;
  readonly entriesPerShard: number;
  /** Each record file's SHA-256, by its path in the data directory. */
  readonly records: Readonly<Record<string, string>>;
  /** Each record file's signature when it was read (load.ts, InputFile), by its path: the next build takes the SHA-256 of a file that still has it. */
  readonly signatures?: Readonly<Record<string, string>>;
}

export const summaryFileName = 'build-summary.json';

export interface BuildSummaryFile {
  /** Data and generator together: equal means a rebuild would write the same bodies. */
  readonly inputsVersion: string;
  readonly buildId: string;
  readonly dataVersion: string;
  readonly counts: Record<string, number>;
  /** Ambiguous names resolved by the documented rule (listed in the manifest). */
  readonly ambiguous: number;
  /** Body files and their bytes. */
  readonly files: number;
  readonly bytes: number;
  /** What the next build starts from: the code, settings and record files this one was made of. */
  readonly rebuild?: RebuildBasis;
}

/** The summary of the build `distDir` points at, or undefined (none yet, an older layout, damaged). */
export async function readSummary(distDir: string): Promise<BuildSummaryFile | undefined> {
  const text = await readFile(path.join(distDir, summaryFileName), 'utf8').catch(() => undefined);
  if (text === undefined) return undefined;
  try {
    const summary = JSON.parse(text) as Partial<BuildSummaryFile>;
    return typeof summary.inputsVersion === 'string' && typeof summary.buildId === 'string' ? (summary as BuildSummaryFile) : undefined;
  } catch {
    return undefined; // a full build replaces it
  }
}

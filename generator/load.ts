/**
 * Load: find the data files with fast-glob and parse them. Nothing is validated here beyond
 * "is JSON and is an array"; validate.ts judges the records.
 */
import { createHash } from 'node:crypto';
import { open } from 'node:fs/promises';
import path from 'node:path';
import fg from 'fast-glob';
import { isRecordType, recordTypes, type RecordType } from '../contract/recordTypes.ts';
import { BuildError } from './records/errors.ts';
import { parseJsonArrayByPieces } from './records/jsonArray.ts';
import { addressCountriesSchema } from './records/schemas.ts';

/** Records live in `records/<recordType>.json` or, when large, `records/<recordType>/**\/*.json`. */
const recordGlob = 'records/**/*.json';
const settingsFile = 'build.json';
/** Optional: a dataset without it (the test fixtures' copies) has no source versions to compare. */
const sourcesFile = 'sources.json';

export interface RecordFile {
  /** Path as shown in messages, relative to the working directory. */
  readonly displayPath: string;
  /** Path relative to the data directory (`records/district/DE.json`): what a rebuild compares. */
  readonly relativePath: string;
  readonly recordType: RecordType;
  readonly records: readonly unknown[];
}

export interface LoadedData {
  /** The record files the build serves (build.json `addressCountries` applied). */
  readonly files: readonly RecordFile[];
  /** Every record file, none left out. */
  readonly allFiles: readonly RecordFile[];
  readonly settings: unknown;
  /** data/sources.json parsed, undefined when there is none. */
  readonly sources: unknown;
  /** sha256 over every input's path and bytes, so equal data gives an equal version. */
  readonly dataVersion: string;
}

function parseJson(displayPath: string, text: string): unknown {
  try {
    return JSON.parse(text);
  } catch (error) {
    throw new BuildError([`${displayPath}: not valid JSON (${(error as Error).message})`]);
  }
}

export interface InputFile {
  readonly relativePath: string;
  readonly displayPath: string;
  /** Raw bytes: hashing them is all a no-op rebuild needs; parsing decodes them. */
  readonly bytes: Buffer;
  /** SHA-256 of the bytes (hex): what a rebuild compares with the previous build's inputs. */
  readonly sha256: string;
  /**
   * The file's identity as stat(2) gave it while it was read (size, modification and change
   * times in nanoseconds, inode, device), when it had not changed for a while before: what the
   * next build may take the SHA-256 on trust for (see readInputs). Undefined for a file changed
   * too recently to be told apart from a later change in the same clock tick.
   */
  readonly signature?: string;
}

/** What an earlier build read: each record file's SHA-256 and signature, by its path in the data directory. */
export interface KnownInputs {
  readonly records: Readonly<Record<string, string>>;
  readonly signatures: Readonly<Record<string, string>>;
}

/**
 * A file changed less than this long before it is read is not given a signature: a write in the
 * same tick of a coarse file-system clock could leave its times as they were (git's "racily
 * clean" entries, handled the same way).
 */
const settledNs = 2_000_000_000n;

interface StatTimes {
  readonly size: bigint;
  readonly mtimeNs: bigint;
  readonly ctimeNs: bigint;
  readonly ino: bigint;
  readonly dev: bigint;
}

const signatureOf = (stats: StatTimes): string => `${stats.size}:${stats.mtimeNs}:${stats.ctimeNs}:${stats.ino}:${stats.dev}`;

/**
 * A file's bytes and SHA-256. The SHA-256 an earlier build recorded is taken without hashing when
 * the file's signature, the same before and after the read, is the one recorded with it: the
 * change time moves on every write to the file and cannot be set back, so an equal signature is
 * the same bytes. Any other file is hashed.
 */
async function readInput(dataDir: string, relativePath: string, known: KnownInputs | undefined, startedNs: bigint): Promise<InputFile> {
  const file = path.join(dataDir, relativePath);
  const displayPath = path.relative(process.cwd(), file) || relativePath;
  const handle = await open(file, 'r');
  try {
    const before = signatureOf(await handle.stat({ bigint: true }));
    const bytes = await handle.readFile();
    const after = await handle.stat({ bigint: true });
    const steady = signatureOf(after) === before;
    const trusted = steady && known?.signatures[relativePath] === before ? known.records[relativePath] : undefined;
    const sha256 = trusted ?? createHash('sha256').update(bytes).digest('hex');
    const settled = steady && after.ctimeNs + settledNs < startedNs && after.mtimeNs + settledNs < startedNs;
    return { relativePath, displayPath, bytes, sha256, ...(settled ? { signature: before } : {}) };
  } finally {
    await handle.close();
  }
}

export interface Inputs {
  readonly records: readonly InputFile[];
  readonly settings: InputFile;
  readonly sources: InputFile | undefined;
  /** sha256 over every input's path and bytes (through each file's SHA-256), so equal data gives an equal version. */
  readonly dataVersion: string;
}

/**
 * Every input file's text and the data version, without parsing: enough to see nothing changed.
 * `known`, what the previous build read, spares hashing the record files it read as they are.
 */
export async function readInputs(dataDir: string, known?: KnownInputs, { startedAtMs = Date.now() }: { readonly startedAtMs?: number } = {}): Promise<Inputs> {
  const startedNs = BigInt(startedAtMs) * 1_000_000n;
  const relativePaths = (await fg(recordGlob, { cwd: dataDir, onlyFiles: true })).sort();
  // Read side by side (the disk, not the CPU, is the wait).
  const records = await Promise.all(relativePaths.map((relativePath) => readInput(dataDir, relativePath, known, startedNs)));
  const read = (relativePath: string) => readInput(dataDir, relativePath, undefined, startedNs);
  const settings = await read(settingsFile).catch(() => {
    throw new BuildError([`${path.join(dataDir, settingsFile)}: missing (it holds the build settings, e.g. the holiday year window)`]);
  });
  const sources = await read(sourcesFile).catch((error: NodeJS.ErrnoException) => {
    if (error.code === 'ENOENT') return undefined;
    throw new BuildError([`${path.join(dataDir, sourcesFile)}: cannot be read (${error.message})`]);
  });
  const hash = createHash('sha256');
  for (const { relativePath, sha256 } of [...records, settings, ...(sources ? [sources] : [])])
    hash.update(relativePath).update('\0').update(sha256).update('\0');
  return { records, settings, sources, dataVersion: hash.digest('hex').slice(0, 16) };
}

/** Which countries' districts and neighbourhoods to load: those build.json's `addressCountries` serves, or every one. */
export interface LoadOptions {
  readonly addressCountries?: 'served' | 'all';
  /** The record files to parse (a rebuild that reads part of them, plan/readPlan.ts); every one when absent. */
  readonly only?: (relativePath: string) => boolean;
  /** Files parsed before, by path, taken as they are (a rebuild's later try on more files); those parsed now are added. */
  readonly parsed?: Map<string, RecordFile>;
}

/**
 * The inputs parsed: each record file's records by record type, and the settings. For the build,
 * the districts and neighbourhoods of the countries build.json does not serve are left out.
 */
export function parseInputs(inputs: Inputs, { addressCountries = 'served', only, parsed }: LoadOptions = {}): LoadedData {
  const problems: string[] = [];
  const wanted = only ? inputs.records.filter((file) => only(file.relativePath)) : inputs.records;
  const fresh = parseRecordFiles(
    wanted.filter((file) => !parsed?.has(file.relativePath)),
    problems,
  );
  for (const file of fresh) parsed?.set(file.relativePath, file);
  const files = parsed ? wanted.flatMap((file) => parsed.get(file.relativePath) ?? []) : fresh;
  if (problems.length > 0) throw new BuildError(problems);
  const settings = parseJson(inputs.settings.displayPath, inputs.settings.bytes.toString('utf8'));
  return {
    files: addressCountries === 'all' ? files : gateAddressCountries(files, settings),
    allFiles: files,
    settings,
    sources: inputs.sources && parseJson(inputs.sources.displayPath, inputs.sources.bytes.toString('utf8')),
    dataVersion: inputs.dataVersion,
  };
}

/** The record type a record file holds, by its path in the data directory: `records/<type>.json` or `records/<type>/…`. */
export function typeNameOf(relativePath: string): string {
  return relativePath.split('/')[1]?.replace(/\.json$/, '') ?? '';
}

/** Record files parsed as JSON arrays, each of a known record type; what is wrong goes to `problems`. */
export function parseRecordFiles(inputs: readonly InputFile[], problems: string[]): RecordFile[] {
  const files: RecordFile[] = [];
  for (const { relativePath, displayPath, bytes } of inputs) {
    const typeName = typeNameOf(relativePath);
    if (!isRecordType(typeName)) {
      problems.push(`${displayPath}: "${typeName}" is not a record type (expected one of ${recordTypes.join(', ')})`);
      continue;
    }
    // A file written one record a line parses by pieces (records/jsonArray.ts); any other, whole.
    const records = parseJsonArrayByPieces(bytes) ?? parseJson(displayPath, bytes.toString('utf8'));
    if (!Array.isArray(records)) {
      problems.push(`${displayPath}: expected a JSON array of ${typeName} records`);
      continue;
    }
    files.push({ displayPath, relativePath, recordType: typeName, records });
  }
  return files;
}

/** Every record of data/ (the data checks and tests read them all), or with `addressCountries: 'served'` what a build serves. */
export async function loadData(dataDir: string, { addressCountries = 'all' }: LoadOptions = {}): Promise<LoadedData> {
  return parseInputs(await readInputs(dataDir), { addressCountries });
}

const fieldOf = (record: unknown, field: string): unknown =>
  typeof record === 'object' && record !== null ? (record as Record<string, unknown>)[field] : undefined;

/**
 * The record files a build serves under data/build.json `addressCountries`: the districts of the
 * other countries left out (a district's country is its state or province's), and the
 * neighbourhoods of those districts. A setting naming no country of the data is refused.
 */
export function gateAddressCountries(files: readonly RecordFile[], settings: unknown): readonly RecordFile[] {
  const parsed = addressCountriesSchema.optional().safeParse(fieldOf(settings, 'addressCountries'));
  if (!parsed.success) throw new BuildError(parsed.error.issues.map((issue) => `data/build.json field addressCountries: ${issue.message}`));
  const served = parsed.data;
  if (served === undefined || served === 'all') return files;
  const recordsOf = (type: RecordType) => files.filter((file) => file.recordType === type).flatMap((file) => file.records);
  const alpha2ById = new Map(recordsOf('country').map((country) => [fieldOf(country, 'id'), fieldOf(country, 'alpha2Code')]));
  const unknown = served.filter((code) => ![...alpha2ById.values()].includes(code));
  if (unknown.length > 0) {
    throw new BuildError(
      unknown.map((code) => `data/build.json field addressCountries: ${code} is not the alpha2Code of any country in data/records/country.json`),
    );
  }
  const wanted = new Set<unknown>(served);
  const alpha2ByProvince = new Map(recordsOf('stateProvince').map((province) => [fieldOf(province, 'id'), alpha2ById.get(fieldOf(province, 'countryId'))]));
  // A district whose province is unknown is kept, for validateData to report.
  const isServedDistrict = (district: unknown) => {
    const alpha2 = alpha2ByProvince.get(fieldOf(district, 'stateProvinceId'));
    return alpha2 === undefined || wanted.has(alpha2);
  };
  const leftOutDistricts = new Set(
    recordsOf('district')
      .filter((district) => !isServedDistrict(district))
      .map((district) => fieldOf(district, 'id')),
  );
  return files.map((file) =>
    file.recordType === 'district'
      ? { ...file, records: file.records.filter(isServedDistrict) }
      : file.recordType === 'neighborhood'
        ? { ...file, records: file.records.filter((record) => !leftOutDistricts.has(fieldOf(record, 'districtId'))) }
        : file,
  );
}

/**
 * A build's manifest, read without holding up requests, and the index a request finds its body in.
 *
 * The real manifest is about 24 MB with 174,000 body files (10 MB and 66,000 when this was written). Parsed, checked and indexed in one go it
 * held each worker's event loop for 200 to 300 ms on every build switch (the slowest request of a
 * steady client: 320 ms, `npm run bench:switch`). Now JSON.parse runs on a worker thread, which
 * hands back the body files as flat lists, and the main thread checks and indexes them a slice at a
 * time, yielding between slices: requests on the current build are answered meanwhile.
 */
import { Worker } from 'node:worker_threads';
import { manifestEntrySchema, manifestSchema, type Manifest, type ManifestEntry } from '../contract/manifest.ts';
import { ServiceError } from '../contract/errors.ts';

/** A body file and its manifest entry. */
export interface Lookup {
  readonly file: string;
  readonly entry: ManifestEntry;
}

/**
 * The manifest's body files by route path, then by their keys joined with `/` (routes.ts bodyPath,
 * read backwards). Only the entries are kept: a file's path is its route and key, put back together
 * when it is found. With 170,000 files every byte per file counts in each worker: the index holds
 * each key once, as a string of its own (not a slice that would keep the whole list of paths
 * alive), and no second table of files by path.
 */
export type LookupIndex = ReadonlyMap<string, ReadonlyMap<string, ManifestEntry>>;

/** The manifest as a proxy keeps it: everything but the list of body files, which the index holds. */
export type ServedManifest = Omit<Manifest, 'files'>;

/** A manifest and the index of its lookups, ready to serve from. */
export interface OpenedManifest {
  readonly manifest: ServedManifest;
  readonly index: LookupIndex;
}

/** A manifest that cannot be served from: not JSON, or not what the generator writes. */
export class ManifestError extends ServiceError {
  constructor(message: string) {
    super('ERR_MANIFEST_INVALID', message);
  }
}

/**
 * A body file's path as the generator writes it: `<area>/api/<record>/<operation>[/<key>…].json`,
 * with no `.` or `..` segment. The manifest is the only list of files the proxy reads, so no
 * manifest, not even one tampered with, can make it read outside the build.
 */
const bodyFilePattern = /^[a-z]+\/api\/[a-z]+\/[a-z0-9]+(?:\/(?!\.\.?\/)[^/]+)*\.json$/;

/** Entries checked and indexed in one turn of the event loop: a few milliseconds of work. */
const entriesPerTurn = 2_000;

/** The manifest without its list of body files, which is checked entry by entry. */
const manifestHeadSchema = manifestSchema.omit({ files: true });

/** What the parser thread hands back: the manifest without `files`, and the files as parallel lists. */
interface ParsedManifest {
  readonly head?: Record<string, unknown>;
  /** File paths, newline-separated: one string crosses threads much faster than 66,000. */
  readonly paths?: string;
  readonly etags?: string;
  readonly sizes?: Float64Array;
  readonly error?: string;
}

/**
 * The parser thread, as plain JavaScript: it only parses and takes the files apart; every check
 * happens on the main thread with the manifest's own schemas. A file whose entry is not exactly
 * `{size, etag}` is reported by name.
 */
const parserSource = `
const { parentPort, workerData } = require('node:worker_threads');
try {
  const manifest = JSON.parse(Buffer.from(workerData).toString('utf8'));
  if (typeof manifest !== 'object' || manifest === null || Array.isArray(manifest)) throw new Error('it is not a JSON object');
  const files = manifest.files;
  delete manifest.files;
  if (typeof files !== 'object' || files === null || Array.isArray(files)) throw new Error('files: must be an object');
  const paths = Object.keys(files);
  const sizes = new Float64Array(paths.length);
  const etags = new Array(paths.length);
  paths.forEach((path, index) => {
    const entry = files[path];
    const keys = typeof entry === 'object' && entry !== null ? Object.keys(entry) : [];
    if (keys.length !== 2 || typeof entry.size !== 'number' || typeof entry.etag !== 'string' || entry.etag.includes('\\n') || path.includes('\\n')) {
      throw new Error('files.' + path.slice(0, 200) + ': must be {"size": <bytes>, "etag": "<tag>"}');
    }
    sizes[index] = entry.size;
    etags[index] = entry.etag;
  });
  parentPort.postMessage({ head: manifest, paths: paths.join('\\n'), etags: etags.join('\\n'), sizes }, [sizes.buffer]);
} catch (error) {
  parentPort.postMessage({ error: error instanceof SyntaxError ? 'it is not JSON' : error.message });
}
`;

function parseOffThread(bytes: Uint8Array): Promise<ParsedManifest> {
  return new Promise((resolve, reject) => {
    const worker = new Worker(parserSource, { eval: true, workerData: bytes, transferList: [bytes.buffer as ArrayBuffer] });
    worker.once('message', (message: ParsedManifest) => {
      resolve(message);
      void worker.terminate();
    });
    worker.once('error', reject);
    worker.once('exit', (code) => reject(new Error(`the manifest parser thread exited with ${code}`)));
  });
}

/** Lets the event loop run what is waiting (requests, timers) before the next slice. */
const yieldToRequests = (): Promise<void> => new Promise((resolve) => setImmediate(resolve));

function describeIssue(issue: { readonly path: readonly PropertyKey[]; readonly message: string } | undefined): string {
  return issue ? `${issue.path.map(String).join('.') || 'the manifest'}: ${issue.message}` : 'an unknown problem';
}

/**
 * Parses, checks and indexes a manifest's bytes (`where` names it in errors). The bytes are handed
 * to the parser thread, not copied: the caller must not use them afterwards.
 */
export async function readManifest(bytes: Uint8Array, where: string): Promise<OpenedManifest> {
  const invalid = (problem: string): ManifestError => new ManifestError(`${where} is not a manifest written by npm run build: ${problem}`);
  // A buffer sharing its memory (a pooled Buffer) cannot be handed over; the copy is a few milliseconds.
  const own = bytes.byteOffset === 0 && bytes.byteLength === bytes.buffer.byteLength ? bytes : new Uint8Array(bytes);
  const parsed = await parseOffThread(own);
  if (parsed.error !== undefined || !parsed.head || parsed.paths === undefined || parsed.etags === undefined || !parsed.sizes) {
    throw invalid(parsed.error ?? 'the parser returned nothing');
  }
  const head = manifestHeadSchema.safeParse(parsed.head);
  if (!head.success) throw invalid(describeIssue(head.error.issues[0]));

  // The paths as bytes, one per character (keys are ASCII; anything else fails bodyFilePattern or is
  // checked as decoded): each key is decoded from them into a string of its own (see LookupIndex).
  const paths = Buffer.from(parsed.paths, 'latin1');
  const etags = parsed.etags.split('\n');
  const { sizes } = parsed;
  const index = new Map<string, Map<string, ManifestEntry>>();
  let position = 0;
  let start = 0;
  while (start < paths.length) {
    if (position > 0 && position % entriesPerTurn === 0) await yieldToRequests();
    const newline = paths.indexOf(0x0a, start);
    const end = newline === -1 ? paths.length : newline;
    const file = paths.toString('latin1', start, end);
    const entry = manifestEntrySchema.safeParse({ size: sizes[position], etag: etags[position] });
    if (!entry.success) throw invalid(`files.${file}.${describeIssue(entry.error.issues[0])}`);
    if (!bodyFilePattern.test(file)) throw invalid(`${JSON.stringify(file.slice(0, 200))} is not a body file's path`);
    addLookup(index, file, entry.data, paths, start);
    position++;
    start = end + 1;
  }
  return { manifest: head.data, index };
}

/**
 * Files a body under its route (the path's first four segments) and its key (the rest, joined by
 * `/`), the key decoded afresh from `bytes` (the path's bytes start at `offset`) where they are given.
 */
function addLookup(index: Map<string, Map<string, ManifestEntry>>, file: string, entry: ManifestEntry, bytes?: Buffer, offset = 0): void {
  let fourthSlash = file.indexOf('/');
  for (let slash = 1; slash < 4 && fourthSlash !== -1; slash++) fourthSlash = file.indexOf('/', fourthSlash + 1);
  // A list of everything (`…/getall.json`) has no key: its route runs to `.json`.
  const routeEnd = fourthSlash === -1 ? file.length - '.json'.length : fourthSlash;
  const routePath = `/${file.slice(0, routeEnd)}`;
  const keyEnd = file.length - '.json'.length;
  const key = fourthSlash === -1 ? '' : bytes ? bytes.toString('latin1', offset + fourthSlash + 1, offset + keyEnd) : file.slice(fourthSlash + 1, keyEnd);
  let byKey = index.get(routePath);
  if (!byKey) {
    byKey = new Map();
    index.set(routePath, byKey);
  }
  byKey.set(key, entry);
}

/** Indexes a manifest already in memory, at once (tests and tools; a serving process uses readManifest). */
export function indexLookups(manifest: Manifest): LookupIndex {
  const index = new Map<string, Map<string, ManifestEntry>>();
  for (const [file, entry] of Object.entries(manifest.files)) addLookup(index, file, entry);
  return index;
}

/** A body file's path from its route path and key: the generator's bodyPath, for a key already joined. */
function fileOf(routePath: string, key: string): string {
  return key === '' ? `${routePath.slice(1)}.json` : `${routePath.slice(1)}/${key}.json`;
}

/** Finds a lookup in an index: one key as it is, several joined as in the body's path. */
export function findLookup(index: LookupIndex, routePath: string, keys: readonly string[]): Lookup | undefined {
  const key = keys.length === 1 ? (keys[0] as string) : keys.join('/');
  const entry = index.get(routePath)?.get(key);
  return entry && { file: fileOf(routePath, key), entry };
}

/** Every body file of an index with its entry. */
export function* lookupsOf(index: LookupIndex): Generator<Lookup> {
  for (const [routePath, byKey] of index) for (const [key, entry] of byKey) yield { file: fileOf(routePath, key), entry };
}

/**
 * A build's manifest, read without holding up requests, and the index a request finds its body in.
 *
 * The real manifest is about 10 MB with 66,000 body files. Parsed, checked and indexed in one go it
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

/** The manifest's body files by route path, then by their keys joined with `/` (routes.ts bodyPath, read backwards). */
export type LookupIndex = ReadonlyMap<string, ReadonlyMap<string, Lookup>>;

/** A manifest and the index of its lookups, ready to serve from. */
export interface OpenedManifest {
  readonly manifest: Manifest;
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

  const paths = parsed.paths === '' ? [] : parsed.paths.split('\n');
  const etags = parsed.etags.split('\n');
  const { sizes } = parsed;
  const files: Record<string, ManifestEntry> = {};
  const index = new Map<string, Map<string, Lookup>>();
  for (let start = 0; start < paths.length; start += entriesPerTurn) {
    if (start > 0) await yieldToRequests();
    const end = Math.min(paths.length, start + entriesPerTurn);
    for (let position = start; position < end; position++) {
      const file = paths[position] as string;
      const entry = manifestEntrySchema.safeParse({ size: sizes[position], etag: etags[position] });
      if (!entry.success) throw invalid(`files.${file}.${describeIssue(entry.error.issues[0])}`);
      if (!bodyFilePattern.test(file)) throw invalid(`${JSON.stringify(file.slice(0, 200))} is not a body file's path`);
      files[file] = entry.data;
      addLookup(index, file, entry.data);
    }
  }
  return { manifest: { ...head.data, files }, index };
}

/** Files a body under its route (the path's first four segments) and its key (the rest, joined by `/`). */
function addLookup(index: Map<string, Map<string, Lookup>>, file: string, entry: ManifestEntry): void {
  let fourthSlash = file.indexOf('/');
  for (let slash = 1; slash < 4 && fourthSlash !== -1; slash++) fourthSlash = file.indexOf('/', fourthSlash + 1);
  // A list of everything (`…/getall.json`) has no key: its route runs to `.json`.
  const routeEnd = fourthSlash === -1 ? file.length - '.json'.length : fourthSlash;
  const routePath = `/${file.slice(0, routeEnd)}`;
  const key = fourthSlash === -1 ? '' : file.slice(fourthSlash + 1, -'.json'.length);
  let byKey = index.get(routePath);
  if (!byKey) {
    byKey = new Map();
    index.set(routePath, byKey);
  }
  byKey.set(key, { file, entry });
}

/** Indexes a manifest already in memory, at once (tests and tools; a serving process uses readManifest). */
export function indexLookups(manifest: Manifest): LookupIndex {
  const index = new Map<string, Map<string, Lookup>>();
  for (const [file, entry] of Object.entries(manifest.files)) addLookup(index, file, entry);
  return index;
}

/** Finds a lookup in an index: one key as it is, several joined as in the body's path. */
export function findLookup(index: LookupIndex, routePath: string, keys: readonly string[]): Lookup | undefined {
  return index.get(routePath)?.get(keys.length === 1 ? (keys[0] as string) : keys.join('/'));
}

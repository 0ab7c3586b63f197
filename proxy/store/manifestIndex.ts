/**
 * A build's manifest, read without holding up requests, and the index a request finds its body in.
 *
 * A build's lookup index (contract/lookupIndex.ts, `lookups.idx`) is served from as it is: one
 * buffer outside the JavaScript heap, its entries checked a slice at a time, yielding between
 * slices, so requests on the current build are answered meanwhile. A build made before builds
 * carried one is read from manifest.json: JSON.parse on a worker thread (parsing the 24 MB of the
 * real manifest on the main thread would hold every request for a quarter of a second), its files
 * handed back as flat lists and written into the same kind of index.
 */
import { Worker } from 'node:worker_threads';
import { encodeLookupIndex, isLookupIndex, LookupTable } from '../../contract/lookupIndex.ts';
import { manifestEntrySchema, manifestSchema, type Manifest, type ManifestEntry } from '../../contract/manifest.ts';
import { ServiceError } from '../../contract/errors.ts';

/** A body file and its manifest entry. */
export interface Lookup {
  readonly file: string;
  readonly entry: ManifestEntry;
}

/** The body files of a build, found by their path (contract/lookupIndex.ts). */
export type LookupIndex = LookupTable;

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
 * Checks and indexes a build's lookup index or manifest.json (`where` names it in errors). The bytes
 * of a manifest.json are handed to the parser thread, not copied: the caller must not use them
 * afterwards.
 */
export async function readManifest(bytes: Uint8Array, where: string): Promise<OpenedManifest> {
  const invalid = (problem: string): ManifestError => new ManifestError(`${where} is not a manifest written by npm run build: ${problem}`);
  const index = isLookupIndex(bytes) ? openIndex(bytes, invalid) : await indexManifest(bytes, invalid);
  let head: unknown;
  try {
    head = JSON.parse(index.headBytes().toString('utf8'));
  } catch {
    throw invalid('its head is not JSON');
  }
  const parsed = manifestHeadSchema.safeParse(head);
  if (!parsed.success) throw invalid(describeIssue(parsed.error.issues[0]));
  // Every path a body may be read from, checked before any is served: no index, not even one
  // tampered with, can make the proxy read outside the build.
  for (let number = 0; number < index.count; number++) {
    if (number > 0 && number % entriesPerTurn === 0) await yieldToRequests();
    const file = index.pathAt(number);
    const entry = index.entryAt(number);
    if (file === undefined || entry === undefined) throw invalid(`entry ${number} lies outside the index`);
    if (!bodyFilePattern.test(file)) throw invalid(`${JSON.stringify(file.slice(0, 200))} is not a body file's path`);
    if (!etagPattern.test(entry.etag)) throw invalid(`files.${file}.etag: ${JSON.stringify(entry.etag)} is not a strong ETag`);
  }
  return { manifest: parsed.data, index };
}

const etagPattern = /^"[A-Za-z0-9_-]+"$/;

function openIndex(bytes: Uint8Array, invalid: (problem: string) => ManifestError): LookupTable {
  try {
    return new LookupTable(Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength));
  } catch (error) {
    throw invalid((error as Error).message);
  }
}

/** A manifest.json parsed off the main thread, its files checked and written into a lookup index a slice at a time. */
async function indexManifest(bytes: Uint8Array, invalid: (problem: string) => ManifestError): Promise<LookupTable> {
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
  const files: Record<string, ManifestEntry> = {};
  for (let position = 0; position < paths.length; position++) {
    if (position > 0 && position % entriesPerTurn === 0) await yieldToRequests();
    const file = paths[position] as string;
    const entry = manifestEntrySchema.safeParse({ size: parsed.sizes[position], etag: etags[position] });
    if (!entry.success) throw invalid(`files.${file}.${describeIssue(entry.error.issues[0])}`);
    if (!bodyFilePattern.test(file)) throw invalid(`${JSON.stringify(file.slice(0, 200))} is not a body file's path`);
    files[file] = entry.data;
  }
  try {
    return new LookupTable(encodeLookupIndex(head.data, files));
  } catch (error) {
    throw invalid((error as Error).message);
  }
}

/** Indexes a manifest already in memory, at once (tests and tools; a serving process uses readManifest). */
export function indexLookups(manifest: Manifest): LookupIndex {
  const { files, ...head } = manifest;
  return new LookupTable(encodeLookupIndex(head, files));
}

/** A body file's path from its route path and key: the generator's bodyPath, for a key already joined. */
function fileOf(routePath: string, key: string): string {
  return key === '' ? `${routePath.slice(1)}.json` : `${routePath.slice(1)}/${key}.json`;
}

/** Finds a lookup in an index: one key as it is, several joined as in the body's path. */
export function findLookup(index: LookupIndex, routePath: string, keys: readonly string[]): Lookup | undefined {
  const file = fileOf(routePath, keys.length === 1 ? (keys[0] as string) : keys.join('/'));
  const entry = index.find(file);
  return entry && { file, entry };
}

/** Every body file of an index with its entry. */
export function* lookupsOf(index: LookupIndex): Generator<Lookup> {
  for (const [file, entry] of index.entries()) yield { file, entry };
}

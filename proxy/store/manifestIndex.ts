/**
 * A build's manifest, read without holding up requests, and the index a request finds its body in.
 *
 * A build's lookup index (contract/lookupIndex.ts, `lookups.idx`) is served from as it is: one
 * buffer outside the JavaScript heap, its head (the manifest without its files) parsed, its entries
 * checked a slice at a time, yielding between slices, so that requests on the current build are
 * answered meanwhile. manifest.json, the same facts as JSON, is for people and tools: the proxy
 * never parses its 24 MB.
 */
import { encodeLookupIndex, isLookupIndex, LookupTable } from '../../contract/lookupIndex.ts';
import { manifestSchema, type Manifest, type ManifestEntry } from '../../contract/manifest.ts';
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

/** Lets the event loop run what is waiting (requests, timers) before the next slice. */
const yieldToRequests = (): Promise<void> => new Promise((resolve) => setImmediate(resolve));

function describeIssue(issue: { readonly path: readonly PropertyKey[]; readonly message: string } | undefined): string {
  return issue ? `${issue.path.map(String).join('.') || 'the manifest'}: ${issue.message}` : 'an unknown problem';
}

/** The first bytes of a JSON object: a manifest.json given where a lookup index belongs. */
const jsonStart = /^\s*\{/;

/** Checks a build's lookup index and opens it (`where` names it in errors). */
export async function readManifest(bytes: Uint8Array, where: string): Promise<OpenedManifest> {
  const invalid = (problem: string): ManifestError => new ManifestError(`${where} is not a lookup index written by npm run build: ${problem}`);
  if (!isLookupIndex(bytes) && jsonStart.test(Buffer.from(bytes.buffer, bytes.byteOffset, Math.min(bytes.byteLength, 64)).toString('latin1'))) {
    throw invalid('it is JSON, as manifest.json is; a proxy serves a build from its lookups.idx');
  }
  const index = openIndex(bytes, invalid);
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

/**
 * A build's manifest, written once by the generator: its head (`manifestHeadSchema`) and every
 * body file's entry. The head is dist/manifest.json, for people and tools, and the head of the
 * lookup index (contract/lookupIndex.ts), which the proxy reads at start. The bodies' entries live
 * only in the index's shards (`npm run lookups` lists them): the index is the only list of what
 * exists, and the proxy never asks the file system whether a key exists.
 */
import { hash } from 'node:crypto';
import { z } from 'zod';
import { buildIdPattern, downloadFilePattern, exportsIndexFile } from './downloads.ts';

export const manifestFileName = 'manifest.json';

/**
 * Build-scoped paths, for an origin behind a cache: every build's files under
 * `builds/<buildId>/`, whose meaning never changes (a cache may keep them forever), and
 * `builds/current.json` naming the build being served, the one small file revalidated. The
 * generator writes the pointer after it switches `dist`; nginx.conf serves both.
 */
export const buildsPath = 'builds/';
export const currentBuildFile = `${buildsPath}current.json`;
export const currentBuildSchema = z.object({ buildId: z.string().regex(buildIdPattern, 'must be a build id such as 20261123T172132Z-56f99d') });
export type CurrentBuild = z.infer<typeof currentBuildSchema>;

/** Where a build's file lives on a build-scoped origin. */
export function buildScopedPath(buildId: string, file: string): string {
  return `${buildsPath}${buildId}/${file}`;
}

/**
 * A strong ETag from the body's bytes (27 base64url characters of SHA-256): the same body always has the same
 * tag, so a tag names its content, in any build, on any host.
 */
export function computeEtag(body: Buffer): string {
  return `"${hash('sha256', body, 'base64url').slice(0, 27)}"`;
}

export const manifestEntrySchema = z.strictObject({
  size: z.number().int().nonnegative(),
  /** A strong validator (RFC 9110 §8.8.3), quoted, computed from the body at build time. */
  etag: z.string().regex(/^"[A-Za-z0-9_-]+"$/),
});

/** A single lookup whose key more than one record folds to: its body file, the record chosen and the others. */
export interface AmbiguousLookup {
  readonly file: string;
  readonly chosen: string;
  readonly others: readonly string[];
}

function isAmbiguousLookup(value: unknown): value is AmbiguousLookup {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return false;
  const { file, chosen, others, ...rest } = value as Record<string, unknown>;
  return (
    typeof file === 'string' &&
    typeof chosen === 'string' &&
    Array.isArray(others) &&
    others.every((other) => typeof other === 'string') &&
    Object.keys(rest).length === 0
  );
}

/**
 * The ambiguous lookups, checked as zod's strict objects would be but by one loop: a world build
 * lists tens of thousands, and every worker checks them at start, where zod's parse of each
 * object costs a tenth of the start.
 */
const ambiguousList = z.custom<AmbiguousLookup[]>(
  (value) => Array.isArray(value) && value.every(isAmbiguousLookup),
  'must be a list of { file, chosen, others } with strings for the file and chosen, a list of strings for others, and no other field',
);

/** What manifest.json holds: the manifest without its bodies' entries, as the lookup index's head holds it too. */
export const manifestHeadSchema = z.strictObject({
  /** Differs for every build, even of the same data. */
  buildId: z.string().min(1),
  builtAt: z.iso.datetime(),
  /** A hash of everything the build read: the same data gives the same version and the same files. */
  dataVersion: z.string().min(1),
  /**
   * The data version and the generator's own code together: a build whose inputs version equals
   * the current one would write the same files, so it is skipped.
   */
  inputsVersion: z.string().min(1),
  holidayYears: z.strictObject({ first: z.number().int(), last: z.number().int() }),
  /** Records per record type. */
  counts: z.record(z.string(), z.number().int().nonnegative()),
  /**
   * Single lookups whose key more than one record folds to, with the record chosen and the others
   * (see docs/api.md, "Ambiguous names").
   */
  ambiguous: ambiguousList,
  /**
   * For the lookups whose names come in several languages (routes.ts `languages`): by the lookup's
   * first key (a country's id, or its alpha-2 code for the lookups by code and the work calendar), the languages of its names as BCP 47 tags, its own first (the body
   * without a language key), then each that has bodies of its own (`…/<key>/<language key>.json`
   * where its names differ from the own). Absent for a country without such records.
   */
  languages: z.record(z.string(), z.array(z.string().min(1)).min(1)),
  /**
   * For each lookup that answers with another's bodies (routes.ts `aliasOf`), by its path: each
   * first key it answers (a country's alpha-2 code) with the key of the parent's id it stands for.
   */
  aliases: z.record(z.string(), z.record(z.string(), z.string())),
  /**
   * Whose districts and neighbourhoods the build serves (data/build.json `addressCountries`):
   * `all`, or the served countries' alpha-2 codes by their ids. A lookup of another country's
   * answers 404 naming the setting.
   */
  addressCountries: z.union([z.literal('all'), z.record(z.string(), z.string().regex(/^[A-Z]{2}$/))]),
  /**
   * Files served as they are, without a token: the OpenAPI document and the docs page's assets
   * (e.g. `openapi.json`, `docs/index.html`). Nothing outside this list is reachable that way.
   */
  public: z.record(z.string(), manifestEntrySchema.extend({ contentType: z.string().min(1) })),
  /** The data sources and their versions (data/sources.json): a change list names those that moved. */
  sources: z.record(z.string(), z.string()),
  /**
   * Files served with a token that are not lookups: the exports, their index and the change lists
   * (contract/downloads.ts). Nothing outside this list is reachable that way.
   */
  downloads: z.record(z.string().regex(downloadFilePattern), manifestEntrySchema.extend({ contentType: z.string().min(1) })),
  /**
   * The change lists: `latest` against the build this one replaced, `since` by each build kept,
   * newest first (this one included, an empty list). Each is a file of `downloads`.
   */
  changes: z.strictObject({
    latest: z.string().regex(downloadFilePattern),
    since: z.record(z.string().regex(buildIdPattern), z.string().regex(downloadFilePattern)),
  }),
});

/**
 * The manifest whole: the head and every body file's entry, by its path relative to dist/. No file
 * holds it as JSON (a build of the world's addresses has millions of bodies); a tool reads the
 * entries from the lookup index, one shard at a time.
 */
/**
 * The files a manifest names that its `downloads` must hold (the exports' index, every change list):
 * those it lacks. A build of this format writes them all, so a manifest that lacks one is not a whole build.
 */
export function missingDownloads(head: Pick<z.infer<typeof manifestHeadSchema>, 'downloads' | 'changes'>): string[] {
  const named = [exportsIndexFile, head.changes.latest, ...Object.values(head.changes.since)];
  return [...new Set(named)].filter((file) => !Object.hasOwn(head.downloads, file));
}

export const manifestSchema = manifestHeadSchema.extend({ files: z.record(z.string(), manifestEntrySchema) });

export type Manifest = z.infer<typeof manifestSchema>;
export type ManifestEntry = z.infer<typeof manifestEntrySchema>;
export type PublicEntry = Manifest['public'][string];
export type DownloadEntry = Manifest['downloads'][string];

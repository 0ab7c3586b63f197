/**
 * What a client mirroring the data downloads (docs/api.md, "Change lists" and "Exports"): one gzipped
 * NDJSON file per record type with an index, and the change lists between builds. The generator
 * writes these files into each build and lists them in the manifest (`downloads`, `changes`); the
 * proxy serves only what the manifest lists, with a token, so their names and shapes are stated
 * here once for both.
 */
import { z } from 'zod';
import { recordTypes, type RecordType } from './recordTypes.ts';
import { routeParts, routes } from './routes.ts';

/** `20261123T172132Z-56f99d`: the build's UTC time to the second, then six random hex digits (generator/build.ts). */
export const buildIdPattern = /^\d{8}T\d{6}Z-[0-9a-f]{6}$/;
export const buildIdForm = 'a build id such as 20261123T172132Z-56f99d (the buildId of /meta)';

export const exportsIndexFile = 'exports/index.json';
export const exportFile = (type: RecordType): string => `exports/${type}.ndjson.gz`;
/** The change list from `since` to the build that holds it. */
export const changeListFile = (since: string): string => `changes/${since}.json`;
/** The change list of a build that replaced none it could compare with (a first build). */
export const firstChangeListFile = 'changes/first.json';

/** A file in a build's `downloads`: nothing else, so no manifest can point the proxy outside the build. */
export const downloadFilePattern = /^(?:exports\/[A-Za-z]+\.ndjson\.gz|exports\/index\.json|changes\/(?:first|\d{8}T\d{6}Z-[0-9a-f]{6})\.json)$/;

export const gzipType = 'application/gzip';

/** The area (`financemanagement`, `addressmanagement`) of each record type: its export needs that area's scope, as its lookups do. */
const recordAreas: ReadonlyMap<RecordType, string> = new Map(
  recordTypes.map((type) => {
    const route = routes.find((candidate) => candidate.record === type);
    if (!route) throw new Error(`contract/routes.ts: record type ${type} has no operation, so its export has no area`);
    return [type, routeParts(route).area];
  }),
);

/** The area of a record type's lookups, which its export needs the scope of. */
export const recordAreaOf = (type: RecordType): string => recordAreas.get(type) ?? '';

const sha256Hex = z.string().regex(/^[0-9a-f]{64}$/);
const buildId = z.string().regex(buildIdPattern);

/** The body of /exports/: what each file holds and how to check it. */
export const exportsIndexSchema = z.strictObject({
  buildId,
  builtAt: z.iso.datetime(),
  dataVersion: z.string().min(1),
  /** The data sources and their versions (data/sources.json), as in the manifest. */
  sources: z.record(z.string(), z.string()),
  /** Every record type, in contract/routes.ts's order, with its records in data order. */
  exports: z.record(
    z.string(),
    z.strictObject({
      /** Where to download it: `/exports/<recordType>.ndjson.gz`. */
      path: z.string().regex(/^\/exports\/[A-Za-z]+\.ndjson\.gz$/),
      /** The scope area the download needs, as the type's lookups do. */
      area: z.string().min(1),
      records: z.number().int().nonnegative(),
      /** The gzip file: its size, its SHA-256 (what `sha256sum` prints) and the ETag it is served with. */
      bytes: z.number().int().nonnegative(),
      sha256: sha256Hex,
      etag: z.string().regex(/^"[A-Za-z0-9_-]+"$/),
      /** The NDJSON inside: one record per line as the API shows it, `\n` after each. */
      ndjson: z.strictObject({ bytes: z.number().int().nonnegative(), sha256: sha256Hex }),
      /** The terms the type's data comes with, where its sources ask for attribution or share-alike (recordLicences). */
      licence: z
        .strictObject({
          spdx: z.string().min(1).describe('The licences the data is offered under, as an SPDX expression (ODbL-1.0, CC-BY-4.0).'),
          attribution: z.array(z.string().min(1)).min(1).describe('The notices to show with the data, as their sources word them.'),
          terms: z.string().min(1).describe('What the terms mean for this export.'),
        })
        .optional()
        .describe("The terms this record type's data comes with, where its sources ask for attribution or share-alike; absent where they ask none."),
    }),
  ),
});
export type ExportsIndex = z.infer<typeof exportsIndexSchema>;

const buildReference = z.strictObject({ buildId, builtAt: z.iso.datetime(), dataVersion: z.string().min(1) });

/** A record type's changes: ids added and removed, and for each changed record the shown fields whose values differ. */
export const recordChangesSchema = z.strictObject({
  added: z.array(z.string()),
  removed: z.array(z.string()),
  changed: z.array(z.strictObject({ id: z.string(), fields: z.array(z.string()).min(1) })),
});
export type RecordChanges = z.infer<typeof recordChangesSchema>;

/** The body of /meta/changes. */
export const changeListSchema = z.strictObject({
  /** The build compared with; null when there was none (a first build): mirror from the exports. */
  from: buildReference.nullable(),
  to: buildReference,
  /** Only the record types with a change, each with at least one entry. */
  records: z.record(z.string(), recordChangesSchema),
  /** The data sources whose versions moved (data/sources.json): null where a source was not listed. */
  sources: z.array(z.strictObject({ name: z.string(), from: z.string().nullable(), to: z.string().nullable() })),
});
export type ChangeList = z.infer<typeof changeListSchema>;

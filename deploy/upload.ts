/**
 * Uploads the current build to a private bucket in the build-scoped layout a proxy reads
 * (contract/manifest.ts): every file the build's lookup index and manifest name at
 * `builds/<buildId>/<file>`, cached for a year (its URL never changes meaning), then its
 * manifest.json and index head, then the pointer `builds/current.json` (no-cache) last of all, so
 * that a proxy never sees a pointer to a build not yet whole. An object already there is not sent
 * again: a build id is never reused, so a rerun after a failure sends only what is missing, and a
 * rerun of a finished upload sends the pointer alone.
 *
 *   AWS_ACCESS_KEY_ID=… AWS_SECRET_ACCESS_KEY=… AWS_REGION=eu-central-1 \
 *     npm run upload -- --bucket refdata-origin [--prefix refdata] [--dist dist] [--keep-builds 3]
 */
import { readFile, realpath } from 'node:fs/promises';
import path from 'node:path';
import { buildIdPattern } from '../contract/downloads.ts';
import { LookupHead, lookupIndexFileName, readLookupShard, shardFileOf, type ManifestHead } from '../contract/lookupIndex.ts';
import { buildScopedPath, buildsPath, currentBuildFile, manifestFileName, manifestHeadSchema } from '../contract/manifest.ts';
import { jsonType } from '../contract/http.ts';
import { resolveS3Bucket, s3Settings, type S3Bucket } from '../proxy/store/s3.ts';
import { createBucketClient, type BucketClient } from './bucket.ts';
import { parseOptions, RenderError, runAsCommand, UsageError } from './commandLine.ts';
import { z } from 'zod';

export const immutable = 'public, max-age=31536000, immutable';

export interface UploadOptions {
  /** The dist link (or a build directory) whose build is uploaded. */
  readonly dist: string;
  readonly bucket: S3Bucket;
  /** Requests under way at once. */
  readonly concurrency: number;
  /** Builds kept in the bucket, this one included; undefined keeps all. */
  readonly keepBuilds?: number | undefined;
}

export interface UploadReport {
  readonly buildId: string;
  readonly uploaded: number;
  readonly uploadedBytes: number;
  /** Files already in the bucket (an earlier run of the same build). */
  readonly skipped: number;
  /** Older builds removed (--keep-builds). */
  readonly pruned: readonly string[];
}

/**
 * Every file of the build a proxy may ask for, with its Content-Type: the packs and index shards
 * the lookup index's head names (the head and the manifest go last, separately), the public files
 * and the downloads.
 */
async function filesOf(buildDir: string, head: LookupHead, manifest: ManifestHead): Promise<[file: string, contentType: string][]> {
  const files = new Map<string, string>();
  for (const [number, shard] of head.shards.entries()) {
    files.set((await readLookupShard(buildDir, head, number)).pack, 'application/octet-stream');
    files.set(shardFileOf(shard.etag), 'application/octet-stream');
  }
  for (const [file, entry] of [...Object.entries(manifest.public), ...Object.entries(manifest.downloads)]) files.set(file, entry.contentType);
  return [...files];
}

/** Runs `work` on each item, `concurrency` at a time; the first failure stops the rest and is thrown. */
async function eachLimited<Item>(items: readonly Item[], concurrency: number, work: (item: Item) => Promise<void>): Promise<void> {
  let next = 0;
  let failed = false;
  const worker = async (): Promise<void> => {
    while (!failed && next < items.length) {
      const item = items[next++] as Item;
      try {
        await work(item);
      } catch (error) {
        failed = true;
        throw error;
      }
    }
  };
  await Promise.all(Array.from({ length: Math.min(concurrency, items.length) }, worker));
}

/** Removes every build but the newest `keep` (by id, which begins with its time) and the current one. */
async function pruneBuilds(client: BucketClient, current: string, keep: number): Promise<string[]> {
  const { folders } = await client.list(buildsPath, '/');
  const builds = folders.map((folder) => folder.slice(buildsPath.length, -1)).filter((id) => buildIdPattern.test(id));
  const kept = new Set([current, ...[...builds].sort().reverse().slice(0, keep)]);
  const removed = builds.filter((id) => !kept.has(id));
  for (const buildId of removed) {
    const { objects } = await client.list(buildScopedPath(buildId, ''));
    await client.deleteKeys([...objects.keys()]);
  }
  return removed;
}

export async function uploadBuild(options: UploadOptions, progress: (line: string) => void = () => {}): Promise<UploadReport> {
  const buildDir = await realpath(options.dist).catch(() => {
    throw new RenderError(`--dist ${options.dist}: no build there; run npm run build first`);
  });
  const manifestBytes = await readFile(path.join(buildDir, manifestFileName));
  // What proxies read the build by: the head of its lookup index, and the shards and packs it names.
  const indexBytes = await readFile(path.join(buildDir, lookupIndexFileName)).catch(() => {
    throw new RenderError(`${buildDir} has no ${lookupIndexFileName}: build it again with this version (npm run build -- --force)`);
  });
  const head = new LookupHead(indexBytes);
  const manifest = manifestHeadSchema.parse(head.manifestHead());
  const { buildId } = manifest;
  if (!buildIdPattern.test(buildId)) throw new RenderError(`${buildDir}: its build id ${buildId} is not one npm run build makes`);
  const client = createBucketClient(options.bucket, options.concurrency);
  try {
    const { objects: present } = await client.list(buildScopedPath(buildId, ''));
    const files = await filesOf(buildDir, head, manifest);
    const missing = files.filter(([file]) => !present.has(buildScopedPath(buildId, file)));
    progress(`build ${buildId}: ${files.length} files, ${files.length - missing.length} already in the bucket`);
    let uploadedBytes = 0;
    let uploaded = 0;
    await eachLimited(missing, options.concurrency, async ([file, contentType]) => {
      const body = await readFile(path.join(buildDir, file));
      await client.put(buildScopedPath(buildId, file), body, { 'content-type': contentType, 'cache-control': immutable });
      uploadedBytes += body.length;
      if (++uploaded % 10_000 === 0) progress(`${uploaded} of ${missing.length} files sent`);
    });
    for (const [name, bytes, contentType] of [
      [manifestFileName, manifestBytes, jsonType],
      [lookupIndexFileName, indexBytes, 'application/octet-stream'],
    ] as const) {
      const key = buildScopedPath(buildId, name);
      if (present.has(key)) continue;
      await client.put(key, bytes, { 'content-type': contentType, 'cache-control': immutable });
      uploaded++;
      uploadedBytes += bytes.length;
    }
    // Last: from now on proxies switch to this build, every file of which is in place.
    const pointer = Buffer.from(`${JSON.stringify({ buildId })}\n`);
    await client.put(currentBuildFile, pointer, { 'content-type': jsonType, 'cache-control': 'no-cache' });
    const pruned = options.keepBuilds === undefined ? [] : await pruneBuilds(client, buildId, options.keepBuilds);
    return { buildId, uploaded, uploadedBytes, skipped: files.length + 2 - uploaded, pruned };
  } finally {
    await client.close();
  }
}

const usage = `usage: npm run upload -- --bucket NAME [--prefix PATH] [--dist DIR] [--concurrency N] [--keep-builds N]

Uploads the build DIR points at to s3://NAME/PATH/builds/<buildId>/, then PATH/builds/current.json
naming it. Credentials, region and endpoint come from the environment, as for the AWS command line:
AWS_ACCESS_KEY_ID, AWS_SECRET_ACCESS_KEY, AWS_SESSION_TOKEN (temporary credentials), AWS_REGION,
AWS_ENDPOINT_URL_S3 (an S3-compatible store, addressed path-style).

  --bucket NAME       the bucket (required)
  --prefix PATH       where in the bucket the builds go (default: its root); ORIGIN_URL=s3://NAME/PATH
  --dist DIR          the build to upload (default: $DIST_DIR, then dist)
  --concurrency N     requests at once, 1 to 256 (default 16)
  --keep-builds N     then delete all but the newest N builds, at least 2 (default: delete none)
  -h, --help          print this and exit
`;

function whole(name: string, text: string | undefined, least: number, most: number): number | undefined {
  if (text === undefined) return undefined;
  const value = Number(text);
  if (!/^\d+$/.test(text) || value < least || value > most) throw new UsageError(`${name} ${text}: give a whole number from ${least} to ${most}`);
  return value;
}

async function main(args: readonly string[]): Promise<void> {
  const values = parseOptions(args, {
    bucket: { type: 'string' },
    prefix: { type: 'string', default: '' },
    dist: { type: 'string', default: process.env.DIST_DIR || 'dist' },
    concurrency: { type: 'string', default: '16' },
    'keep-builds': { type: 'string' },
    help: { type: 'boolean', short: 'h', default: false },
  });
  if (values.help) return void process.stdout.write(usage);
  if (!values.bucket) throw new UsageError('missing --bucket NAME');
  const environment = z.object(s3Settings).safeParse(Object.fromEntries(Object.entries(process.env).filter(([, value]) => value !== '')));
  if (!environment.success) throw new RenderError(environment.error.issues.map((issue) => `${String(issue.path[0])} ${issue.message}`).join('; '));
  const problems: string[] = [];
  const bucket = resolveS3Bucket(`s3://${values.bucket}/${values.prefix}`, environment.data, problems, `--bucket ${JSON.stringify(values.bucket)}`);
  if (!bucket) throw new RenderError(problems.join('; '));
  const started = performance.now();
  const report = await uploadBuild(
    {
      dist: values.dist,
      bucket,
      concurrency: whole('--concurrency', values.concurrency, 1, 256) ?? 16,
      keepBuilds: whole('--keep-builds', values['keep-builds'], 2, 1000),
    },
    (line) => console.log(line),
  );
  const seconds = ((performance.now() - started) / 1000).toFixed(1);
  const where = `s3://${bucket.bucket}/${bucket.prefix}`;
  console.log(`uploaded ${report.uploaded} files (${(report.uploadedBytes / 1e6).toFixed(1)} MB) in ${seconds} s, ${report.skipped} already there`);
  console.log(`${where}${currentBuildFile} now names ${report.buildId}`);
  if (report.pruned.length > 0) console.log(`deleted ${report.pruned.length} older builds: ${report.pruned.join(', ')}`);
  console.log(`proxies: ORIGIN_URL=${where}`);
}

runAsCommand(import.meta.url, 'deploy/upload.ts', usage, main, 'cannot upload');

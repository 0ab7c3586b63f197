/**
 * The mirroring files (contract/downloads.ts), each with a token: /exports/ (the index) and
 * /meta/changes (a change list), answered in the envelope as lookups are; and /exports/<type>.ndjson.gz,
 * the file itself, with ranges. A path or a `since` is only ever a key into the manifest's lists:
 * nothing a client sends reaches the file system.
 */
import type http from 'node:http';
import { buildIdForm, buildIdPattern, exportFile, exportsIndexFile, gzipType, recordAreaOf } from '../../contract/downloads.ts';
import { ServiceError } from '../../contract/errors.ts';
import { cacheControl } from '../../contract/http.ts';
import type { DownloadEntry } from '../../contract/manifest.ts';
import { recordTypes, type RecordType } from '../../contract/recordTypes.ts';
import type { ManifestHead as Manifest } from '../../contract/lookupIndex.ts';
import type { Lookup } from '../store/indexReader.ts';
import type { Exchange, Handler } from './exchange.ts';
import { sendBody } from './lookups.ts';
import { matchesIfNoneMatch } from './negotiation.ts';
import type { BodyStore } from '../store/store.ts';
import { collectParams, echo, noOperation } from './query.ts';
import { whenReady } from './respond.ts';
import { requestedRange } from './ranges.ts';

/** A JSON file answered in the envelope (the index, a change list), or an export file answered as it is. */
export type Download = { readonly kind: 'envelope'; readonly lookup: Lookup } | { readonly kind: 'file'; readonly lookup: Lookup; readonly name: string };

/** An export's file by its lower-cased request path, `/exports/countryholiday.ndjson.gz`: worked out once per build. */
const exportsByPath = new WeakMap<Manifest, ReadonlyMap<string, { readonly file: string; readonly type: RecordType }>>();

function exportsOf(manifest: Manifest): ReadonlyMap<string, { readonly file: string; readonly type: RecordType }> {
  let byPath = exportsByPath.get(manifest);
  if (!byPath) {
    byPath = new Map(
      recordTypes
        .map((type) => ({ type, file: exportFile(type) }))
        .filter(({ file }) => Object.hasOwn(manifest.downloads, file))
        .map((entry) => [`/${entry.file.toLowerCase()}`, entry]),
    );
    exportsByPath.set(manifest, byPath);
  }
  return byPath;
}

/** A file the manifest names (the exports' index, a change list, an export): the store refuses a build whose downloads lack one. */
function listed(manifest: Manifest, file: string): Lookup {
  const entry: DownloadEntry | undefined = manifest.downloads[file];
  if (!entry) throw new Error(`the build's downloads lack ${file}, which its manifest names`);
  return { file, entry };
}

/** The change list a /meta/changes query asks for: the latest, or the one since a kept build. */
function changeList(query: string, manifest: Manifest): Lookup {
  const { changes } = manifest;
  const values = collectParams(query).get('since');
  if (values === undefined) return listed(manifest, changes.latest);
  if (values.length > 1)
    throw new ServiceError('ERR_PARAM_REPEATED', `Query parameter since is given ${values.length} times: give it once, as ${buildIdForm}.`);
  const since = values[0] ?? '';
  if (!buildIdPattern.test(since)) throw new ServiceError('ERR_PARAM_INVALID', `Query parameter since is ${echo(since)}: expected ${buildIdForm}.`);
  const file = changes.since[since];
  if (file === undefined) {
    const kept = Object.keys(changes.since).join(', ');
    throw new ServiceError(
      'ERR_NOT_FOUND',
      `Build ${since} is not kept, so there is no change list since it: the kept builds are ${kept}. Start again from the exports at /exports/.`,
    );
  }
  return listed(manifest, file);
}

/** Whether a path names a download (any letter case, one trailing slash ignored): the lookups' paths never do. */
export function isDownload(pathname: string): boolean {
  return downloadPathPattern.test(pathname);
}
const downloadPathPattern = /^\/(?:exports(?:\/|$)|meta\/changes\/?$)/i;

/** The download a path names, after the scope its record type needs. */
function resolveDownload(exchange: Exchange, manifest: Manifest): Download {
  const { pathname } = exchange;
  const path = (pathname.length > 1 && pathname.endsWith('/') ? pathname.slice(0, -1) : pathname).toLowerCase();
  if (path === '/meta/changes') return { kind: 'envelope', lookup: changeList(exchange.query, manifest) };
  if (path === '/exports' || path === '/exports/index') return { kind: 'envelope', lookup: listed(manifest, exportsIndexFile) };
  if (!path.startsWith('/exports/')) throw noOperation(pathname);
  const found = exportsOf(manifest).get(path);
  if (!found) {
    throw new ServiceError('ERR_NO_FILE', `No export at ${echo(pathname)}: /exports/ lists them, one per record type, such as /exports/country.ndjson.gz.`);
  }
  exchange.authorize(recordAreaOf(found.type));
  return { kind: 'file', lookup: listed(manifest, found.file), name: found.file.slice('exports/'.length) };
}

/** A download, once the token's budget lets it in: the index and change lists in the envelope, an export as it is. */
export const answerDownload: Handler = (exchange) => {
  const store = exchange.context.store();
  const download = resolveDownload(exchange, store.manifest);
  exchange.admit();
  return download.kind === 'file' ? answerExport(exchange, store, download) : sendBody(exchange, store, download.lookup);
};

/**
 * An export file as it is (application/gzip, for a client to save: not a Content-Encoding), with
 * its strong ETag: 304 for If-None-Match, one range (206) or 416, If-Range, HEAD.
 */
function answerExport(exchange: Exchange, store: BodyStore, { lookup: { file, entry }, name }: Extract<Download, { kind: 'file' }>): void | Promise<void> {
  const { request, response, method } = exchange;
  const headers: http.OutgoingHttpHeaders = {
    ETag: entry.etag,
    'Cache-Control': cacheControl,
    'X-Data-Version': store.manifest.dataVersion,
    Vary: exchange.context.downloadVary,
    'X-Request-Id': exchange.ids.requestId,
    'Accept-Ranges': 'bytes',
    ...exchange.limits,
    ...exchange.cors,
  };
  if (matchesIfNoneMatch(request.headers['if-none-match'], entry.etag)) return exchange.sendNotModified(headers);
  headers['Content-Type'] = gzipType;
  headers['Content-Disposition'] = `attachment; filename="${name}"`;
  // Range is defined for GET only (§14.2): a HEAD gets the whole file's headers.
  const range = method === 'GET' ? requestedRange(request.headers.range, headerOf(request, 'if-range'), entry.etag, entry.size) : { kind: 'whole' as const };
  if (range.kind === 'unsatisfiable') {
    throw new ServiceError('ERR_RANGE_NOT_SATISFIABLE', `The range ${echo(request.headers.range ?? '')} is outside the file's ${entry.size} bytes.`, {
      'Content-Range': `bytes */${entry.size}`,
    });
  }
  if (method === 'HEAD') {
    response.writeHead(200, { ...headers, 'Content-Length': entry.size });
    return void response.end();
  }
  return whenReady(store.cached(entry) ?? store.read(file, entry), (bytes) => {
    if (range.kind === 'whole') {
      response.writeHead(200, { ...headers, 'Content-Length': bytes.length });
      return void response.end(bytes);
    }
    response.writeHead(206, {
      ...headers,
      'Content-Range': `bytes ${range.start}-${range.end}/${bytes.length}`,
      'Content-Length': range.end - range.start + 1,
    });
    response.end(bytes.subarray(range.start, range.end + 1));
  });
}

/** A request header given once; repeated, it is read as its first value. */
function headerOf(request: http.IncomingMessage, name: string): string | undefined {
  const value = request.headers[name];
  return Array.isArray(value) ? value[0] : value;
}

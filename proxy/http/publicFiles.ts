/**
 * The OpenAPI document and the docs page: as they are, no token, cacheable by anyone. Read through
 * the store in both modes, so origin mode answers only a whole file whose hash matches the manifest.
 */
import type http from 'node:http';
import { ServiceError } from '../../contract/errors.ts';
import { docsPageSecurityHeaders, publicCacheControl, publicFileSecurityHeaders } from '../../contract/http.ts';
import { codingOf, encodeResponse } from './compression.ts';
import { chooseEncoding, codedEtag, matchesIfNoneMatch } from './negotiation.ts';
import type { Handler } from './exchange.ts';
import { echo } from './query.ts';

/** The public file a path names (`/docs` is `docs/index.html`); undefined for every other path. */
export function publicFileOf(pathname: string): string | undefined {
  if (pathname === '/openapi.json') return 'openapi.json';
  if (pathname === '/docs' || pathname === '/docs/') return 'docs/index.html';
  return pathname.startsWith('/docs/') ? pathname.slice(1) : undefined;
}

/** A public file, in the coding the client takes best, or 304; 404 for a path under /docs the build does not have. */
export const answerPublicFile: Handler = async (exchange) => {
  const { method, pathname, context } = exchange;
  const store = context.store();
  const file = publicFileOf(pathname) ?? '';
  const entry = store.manifest.public[file];
  if (!entry) throw new ServiceError('ERR_NO_FILE', `No file at ${echo(`/${file}`)}: the documentation is at /docs and /openapi.json.`);
  const security = entry.contentType.startsWith('text/html') ? docsPageSecurityHeaders : publicFileSecurityHeaders;
  const headers: http.OutgoingHttpHeaders = {
    ETag: entry.etag,
    'Cache-Control': publicCacheControl,
    ...security,
    ...exchange.commonHeaders(),
    Vary: context.publicVary,
  };
  const wanted = method === 'GET' ? chooseEncoding(exchange.request.headers['accept-encoding']) : 'identity';
  if (matchesIfNoneMatch(exchange.request.headers['if-none-match'], entry.etag)) {
    headers.ETag = codedEtag(entry.etag, codingOf(wanted, entry.size));
    return exchange.sendNotModified(headers);
  }
  exchange.sendEncoded(entry.contentType, headers, await encodeResponse('', await store.read(file, entry), '', entry.etag, wanted));
};

/**
 * The OpenAPI document and the docs page: as they are, no token, cacheable by anyone. Read through
 * the store in both modes, so origin mode answers only a whole file whose hash matches the manifest.
 */
import type http from 'node:http';
import { ServiceError } from '../../contract/errors.ts';
import { docsPageSecurityHeaders, publicCacheControl, publicFileSecurityHeaders } from '../../contract/http.ts';
import { codingOf, encodeResponse } from './compression.ts';
import { chooseEncoding, codedEtag, matchesIfNoneMatch } from './negotiation.ts';
import type { BodyStore } from '../store/store.ts';
import { echo } from './query.ts';
import { sendEncoded, sendNotModified } from './respond.ts';

/** The public file a path names (`/docs` is `docs/index.html`); undefined for every other path. */
export function publicFileOf(pathname: string): string | undefined {
  if (pathname === '/openapi.json') return 'openapi.json';
  if (pathname === '/docs' || pathname === '/docs/') return 'docs/index.html';
  return pathname.startsWith('/docs/') ? pathname.slice(1) : undefined;
}

export async function answerPublicFile(
  request: http.IncomingMessage,
  response: http.ServerResponse,
  file: string,
  common: Record<string, string>,
  store: BodyStore,
): Promise<void> {
  const method = request.method ?? 'GET';
  const entry = store.manifest.public[file];
  if (!entry) throw new ServiceError('ERR_NO_FILE', `No file at ${echo(`/${file}`)}: the documentation is at /docs and /openapi.json.`);
  const security = entry.contentType.startsWith('text/html') ? docsPageSecurityHeaders : publicFileSecurityHeaders;
  const headers: http.OutgoingHttpHeaders = { ETag: entry.etag, 'Cache-Control': publicCacheControl, ...security, ...common };
  const wanted = method === 'GET' ? chooseEncoding(request.headers['accept-encoding']) : 'identity';
  if (matchesIfNoneMatch(request.headers['if-none-match'], entry.etag)) {
    headers.ETag = codedEtag(entry.etag, codingOf(wanted, entry.size));
    return sendNotModified(response, headers);
  }
  sendEncoded(response, method, entry.contentType, headers, await encodeResponse('', await store.read(file, entry), '', entry.etag, wanted));
}

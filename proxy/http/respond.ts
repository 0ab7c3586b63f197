/**
 * Writing a response: a whole envelope (`send`), or a 200 in pieces as compression.ts encoded it
 * (`sendEncoded`), with what every response carries.
 */
import type http from 'node:http';
import { jsonType } from '../../contract/http.ts';
import type { EncodedBody } from './compression.ts';
import { codedEtag } from './negotiation.ts';

export function send(response: http.ServerResponse, method: string, status: number, headers: http.OutgoingHttpHeaders, body: Buffer): void {
  response.writeHead(status, { 'Content-Type': jsonType, 'Content-Length': body.length, ...headers });
  response.end(method === 'HEAD' ? undefined : body);
}

/**
 * A 200 in pieces, never copied into one buffer: Node corks the socket for the tick, so the
 * headers and every piece leave in one writev (and a string first piece joins the header block).
 */
export function sendEncoded(
  response: http.ServerResponse,
  method: string,
  contentType: string,
  headers: http.OutgoingHttpHeaders,
  { chunks, length, coding }: EncodedBody,
): void {
  // The request's own headers object, completed here rather than copied.
  headers['Content-Type'] = contentType;
  headers['Content-Length'] = length;
  if (coding !== 'identity') {
    headers['Content-Encoding'] = coding;
    // A coded representation has a tag of its own (RFC 9110 §8.8.3).
    if (typeof headers.ETag === 'string') headers.ETag = codedEtag(headers.ETag, coding);
  }
  response.writeHead(200, headers);
  if (method === 'HEAD') return void response.end();
  const last = chunks.length - 1;
  for (let index = 0; index < last; index++) response.write(chunks[index]);
  response.end(chunks[last]);
}

/** A bodiless 304: the client's copy (If-None-Match) is current. */
export function sendNotModified(response: http.ServerResponse, headers: http.OutgoingHttpHeaders): void {
  response.writeHead(304, headers);
  response.end();
}

/** What every response carries besides its own headers: its request id, and CORS where allowed. */
export function commonHeaders(requestId: string, cors: Readonly<Record<string, string>>): Record<string, string> {
  return { 'X-Request-Id': requestId, ...cors };
}

/**
 * Runs `next` on a value now, or when its promise settles. The request path awaits nothing that is
 * already there: an API key, a cached JWT, a cached body and an identity or stitched-gzip response
 * are all answered synchronously, without a microtask in between.
 */
export function whenReady<T, R>(value: T | Promise<T>, next: (value: T) => R | Promise<R>): R | Promise<R> {
  return value instanceof Promise ? value.then(next) : next(value);
}

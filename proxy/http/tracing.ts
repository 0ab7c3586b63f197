/**
 * Request ids and trace context. A client's `X-Request-Id` (a UUID, nginx's 32 hex digits, or any
 * other short token) is echoed as the response's X-Request-Id and logged; a UUID also becomes the
 * envelope's globalId, so one id follows the request end to end. Otherwise the globalId is a fresh
 * UUID v4, and X-Request-Id carries it. A W3C `traceparent` is read and its trace and parent ids
 * logged with the request line.
 */
import { newGlobalId } from '../../contract/envelope.ts';

/** What a client's request id may be: printable, no spaces or quotes, at most 128 characters. */
const requestIdPattern = /^[A-Za-z0-9._:/+=@-]{1,128}$/;
const uuidPattern = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
/** W3C Trace Context §3.2: version-traceId-parentId-flags; a later version may append fields. */
const traceparentPattern = /^([0-9a-f]{2})-([0-9a-f]{32})-([0-9a-f]{16})-([0-9a-f]{2})(-.*)?$/;

export interface RequestIds {
  /** The envelope's header.globalId: a UUID. */
  readonly globalId: string;
  /** The response's X-Request-Id: the client's, when it sent a usable one, else the globalId. */
  readonly requestId: string;
}

export function requestIdsOf(header: string | string[] | undefined): RequestIds {
  if (typeof header !== 'string' || !requestIdPattern.test(header)) {
    const globalId = newGlobalId();
    return { globalId, requestId: globalId };
  }
  return { globalId: uuidPattern.test(header) ? header.toLowerCase() : newGlobalId(), requestId: header };
}

export interface TraceContext {
  readonly traceId: string;
  readonly parentId: string;
}

/** The trace a `traceparent` header places the request in; undefined when absent or invalid. */
export function traceOf(header: string | string[] | undefined): TraceContext | undefined {
  if (typeof header !== 'string') return undefined;
  const match = traceparentPattern.exec(header.trim());
  if (!match) return undefined;
  const [, version, traceId = '', parentId = '', , rest] = match;
  // Version ff is invalid, version 00 has no further fields, and all-zero ids are invalid.
  if (version === 'ff' || (version === '00' && rest !== undefined) || /^0+$/.test(traceId) || /^0+$/.test(parentId)) return undefined;
  return { traceId, parentId };
}

/**
 * The envelope every response carries, and the one error type the proxy raises.
 *
 *   {"header":{"globalId":"…","isSuccess":true,"message":null},"body":…}
 *
 * Bodies arrive as prebuilt JSON bytes, so a success is three buffer writes, never a JSON.stringify.
 */
import { randomUUID } from 'node:crypto';

/** A failure a client is told about: its status, the message in the envelope, extra headers. */
export class ApiError extends Error {
  constructor(
    readonly status: number,
    message: string,
    readonly headers: Readonly<Record<string, string>> = {},
  ) {
    super(message);
    this.name = 'ApiError';
  }
}

const successMiddle = Buffer.from('","isSuccess":true,"message":null},"body":');
const headerStart = Buffer.from('{"header":{"globalId":"');
const closing = Buffer.from('}');

/** A fresh identifier for each response (UUID v4). */
export const newGlobalId: () => string = randomUUID;

/** The bytes before the body: all that differs between two responses with the same body. */
export function successHead(globalId: string): Buffer {
  return Buffer.concat([headerStart, Buffer.from(globalId), successMiddle]);
}

/** The bytes after the body. */
export const successTail = closing;

export function wrapSuccess(globalId: string, body: Buffer): Buffer {
  return Buffer.concat([successHead(globalId), body, closing]);
}

export function wrapFailure(globalId: string, message: string): Buffer {
  return Buffer.from(JSON.stringify({ header: { globalId, isSuccess: false, message }, body: null }));
}

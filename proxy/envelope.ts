/**
 * The envelope every response carries, and the one error type the proxy raises.
 *
 *   {"header":{"globalId":"…","isSuccess":true,"message":null},"body":…}
 *
 * Bodies arrive as prebuilt JSON bytes, so a success is the head, the body and the tail written in
 * one go (never a JSON.stringify, never a copy of the body).
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

/** A fresh identifier for each response (UUID v4). */
export const newGlobalId: () => string = randomUUID;

/**
 * The text before the body: all that differs between two responses with the same body. ASCII (a
 * UUID), so its length is its length in bytes; a string, so that Node sends it in one piece with
 * the HTTP headers.
 */
export function successHead(globalId: string): string {
  return `{"header":{"globalId":"${globalId}","isSuccess":true,"message":null},"body":`;
}

/** The text after the body. */
export const successTail = '}';

export function wrapSuccess(globalId: string, body: Buffer): Buffer {
  return Buffer.concat([Buffer.from(successHead(globalId)), body, Buffer.from(successTail)]);
}

export function wrapFailure(globalId: string, message: string): Buffer {
  return Buffer.from(JSON.stringify({ header: { globalId, isSuccess: false, message }, body: null }));
}

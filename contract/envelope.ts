/**
 * The envelope every response carries.
 *
 *   {"header":{"globalId":"…","isSuccess":true,"message":null},"body":…}
 *
 * Bodies arrive as prebuilt JSON bytes, so a success is the head, the body and the tail written in
 * one go (never a JSON.stringify, never a copy of the body).
 */
import { randomUUID } from 'node:crypto';

/** Client-sent values a message repeats are cut to this many characters, so a huge input cannot inflate an answer. */
export const maxEchoLength = 80;

/**
 * Characters that are invisible or reorder the text around them: C1 controls, bidirectional
 * controls (U+202E turns `gpj.exe` into what reads as `exe.jpg`), zero-width characters, line and
 * paragraph separators, the byte order mark. JSON escapes C0 controls itself, none of these.
 */
const invisible = /[\u0080-\u009f\u061c\u200b-\u200f\u2028-\u202e\u2060-\u2069\ufeff]/g;

/**
 * A client-sent value as a message may repeat it: at most maxEchoLength characters, then `…`, with
 * every invisible or reordering character written out as `\uXXXX`, so that a message always reads
 * as what the client sent.
 */
export function cutEcho(value: string): string {
  return escapeInvisible(cut(value));
}

/** cutEcho's value in double quotes, as a JSON string: how a message quotes a value the client sent. */
export function quoteEcho(value: string): string {
  return escapeInvisible(JSON.stringify(cut(value)));
}

function escapeInvisible(text: string): string {
  return text.replace(invisible, (character) => `\\u${character.charCodeAt(0).toString(16).padStart(4, '0')}`);
}

/** At most maxEchoLength characters, then `…`. */
function cut(value: string): string {
  if (value.length <= maxEchoLength) return value;
  // Never end on the first half of a surrogate pair: half a character is not text.
  const last = value.charCodeAt(maxEchoLength - 1);
  return `${value.slice(0, last >= 0xd800 && last <= 0xdbff ? maxEchoLength - 1 : maxEchoLength)}…`;
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

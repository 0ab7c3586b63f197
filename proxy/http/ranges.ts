/**
 * Range requests (RFC 9110 §14) for the export files, so that a client can resume a download or
 * fetch a file in parts. One range is answered 206; several, like a Range this service cannot read
 * (another unit, a malformed set), are ignored and the whole file is sent (200), as §14.2 allows.
 */

export type RangeAnswer =
  | { readonly kind: 'whole' }
  | { readonly kind: 'part'; readonly start: number; readonly end: number }
  /** No byte of the range exists: 416, with a Content-Range giving the file's size. */
  | { readonly kind: 'unsatisfiable' };

const whole: RangeAnswer = { kind: 'whole' };

/**
 * If-Range (§13.1.5): the range applies only while the file is the one named. This service's files
 * carry no Last-Modified, so a date never matches; an entity tag must match strongly.
 */
function ifRangeHolds(ifRange: string | undefined, etag: string): boolean {
  return ifRange === undefined || ifRange.trim() === etag;
}

/** The part of a `size`-byte file with the strong validator `etag` that a GET with these headers asks for. */
export function requestedRange(range: string | undefined, ifRange: string | undefined, etag: string, size: number): RangeAnswer {
  if (range === undefined || !ifRangeHolds(ifRange, etag)) return whole;
  const match = /^\s*bytes\s*=\s*(\d*)\s*-\s*(\d*)\s*$/i.exec(range);
  if (!match) return whole;
  const [, first = '', last = ''] = match;
  if (first === '') {
    // A suffix: the last N bytes.
    if (last === '') return whole;
    const length = Number(last);
    return length === 0 || size === 0 ? { kind: 'unsatisfiable' } : { kind: 'part', start: Math.max(0, size - length), end: size - 1 };
  }
  const start = Number(first);
  if (last !== '' && Number(last) < start) return whole; // an invalid range-spec: ignored
  if (start >= size) return { kind: 'unsatisfiable' };
  return { kind: 'part', start, end: last === '' ? size - 1 : Math.min(Number(last), size - 1) };
}

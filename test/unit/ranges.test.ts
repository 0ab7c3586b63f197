/** Which part of an export a Range asks for (RFC 9110 §14), and when If-Range lets it apply (§13.1.5). */
import { describe, expect, it } from 'vitest';
import { requestedRange } from '../../proxy/http/ranges.ts';

const etag = '"u4H1_MGpIUbP0HY6Z14YTo7zAsk"';
const size = 1000;
const range = (header: string | undefined, ifRange?: string) => requestedRange(header, ifRange, etag, size);

describe('a Range header', () => {
  it('bytes=first-last, first- and the suffix -length each name one part, clipped to the file', () => {
    expect(range('bytes=0-99')).toEqual({ kind: 'part', start: 0, end: 99 });
    expect(range('bytes=900-')).toEqual({ kind: 'part', start: 900, end: 999 });
    expect(range('bytes=900-5000')).toEqual({ kind: 'part', start: 900, end: 999 });
    expect(range('bytes=-100')).toEqual({ kind: 'part', start: 900, end: 999 });
    expect(range('bytes=-5000')).toEqual({ kind: 'part', start: 0, end: 999 });
    expect(range('Bytes = 10 - 19')).toEqual({ kind: 'part', start: 10, end: 19 });
  });

  it('a range that starts past the end, or an empty suffix, cannot be satisfied', () => {
    expect(range('bytes=1000-')).toEqual({ kind: 'unsatisfiable' });
    expect(range('bytes=5000-6000')).toEqual({ kind: 'unsatisfiable' });
    expect(range('bytes=-0')).toEqual({ kind: 'unsatisfiable' });
  });

  it('is ignored (the whole file) when absent, malformed, of another unit, or several ranges', () => {
    for (const header of [undefined, 'bytes=20-10', 'bytes=-', 'items=0-1', 'bytes=0-1,5-6', 'bytes=a-b', 'bytes 0-1']) {
      expect(range(header), String(header)).toEqual({ kind: 'whole' });
    }
  });

  it('applies under If-Range only while the ETag matches strongly; a date or another tag gets the whole file', () => {
    expect(range('bytes=0-9', etag)).toEqual({ kind: 'part', start: 0, end: 9 });
    expect(range('bytes=0-9', '"another"')).toEqual({ kind: 'whole' });
    expect(range('bytes=0-9', `W/${etag}`)).toEqual({ kind: 'whole' });
    expect(range('bytes=0-9', 'Mon, 23 Nov 2026 17:28:35 GMT')).toEqual({ kind: 'whole' });
  });
});

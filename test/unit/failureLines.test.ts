/**
 * One failure line per kind and interval (proxy/observe/failureLines.ts), saying how many of its
 * kind were left out since the last: a client repeating a failure grows the log by a line per
 * interval, not per request.
 */
import { describe, expect, it } from 'vitest';
import { FailureLines } from '../../proxy/observe/failureLines.ts';

describe('FailureLines', () => {
  it('lets the first line of a kind through, holds the rest until the interval ends, then says how many it held', () => {
    let now = 0;
    const lines = new FailureLines(10_000, () => now);
    expect(lines.take('ERR_BODY_UNREADABLE')).toBe(0);
    for (let count = 0; count < 50; count++) expect(lines.take('ERR_BODY_UNREADABLE')).toBeUndefined();
    // Another kind has its own interval.
    expect(lines.take('ERR_ORIGIN_TIMEOUT')).toBe(0);
    now = 9_999;
    expect(lines.take('ERR_BODY_UNREADABLE')).toBeUndefined();
    now = 10_000;
    expect(lines.take('ERR_BODY_UNREADABLE')).toBe(51);
    expect(lines.take('ERR_BODY_UNREADABLE')).toBeUndefined();
  });

  it('tracks a bounded number of kinds: a stream of new ones is let through without growing it for ever', () => {
    let now = 0;
    const lines = new FailureLines(10_000, () => now);
    for (let kind = 0; kind < 5_000; kind++) expect(lines.take(`kind ${kind}`)).toBe(0);
    // The earliest kinds were forgotten to make room: their next line is let through.
    expect(lines.take('kind 0')).toBe(0);
    // A recent one is still held.
    expect(lines.take('kind 4999')).toBeUndefined();
    now = 20_000;
    expect(lines.take('kind 4999')).toBe(1);
  });
});

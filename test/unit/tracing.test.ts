import { describe, expect, it } from 'vitest';
import { requestIdsOf, traceOf } from '../../proxy/http/tracing.ts';

const uuidV4 = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;

describe('request ids', () => {
  it('adopts a client UUID as the globalId and echoes it', () => {
    expect(requestIdsOf('0AF7651E-916C-4D5C-8A4B-3F2E1D0C9B8A')).toEqual({
      globalId: '0af7651e-916c-4d5c-8a4b-3f2e1d0c9b8a',
      requestId: '0AF7651E-916C-4D5C-8A4B-3F2E1D0C9B8A',
    });
  });

  it("echoes any other short token (nginx's $request_id) beside a fresh globalId", () => {
    const ids = requestIdsOf('3f2e1d0c9b8a7f6e5d4c3b2a19081726');
    expect(ids.requestId).toBe('3f2e1d0c9b8a7f6e5d4c3b2a19081726');
    expect(ids.globalId).toMatch(uuidV4);
  });

  it('ignores a missing, repeated, too long or unsafe id: the globalId is the request id', () => {
    for (const header of [undefined, ['a', 'b'], 'x'.repeat(129), 'two words', 'a"b', 'a\r\nSet-Cookie: x=1']) {
      const ids = requestIdsOf(header);
      expect(ids.globalId, String(header)).toMatch(uuidV4);
      expect(ids.requestId, String(header)).toBe(ids.globalId);
    }
  });
});

describe('traceparent (W3C Trace Context)', () => {
  it('reads the trace and parent ids of a version 00 header, and of a later version with more fields', () => {
    expect(traceOf('00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01')).toEqual({
      traceId: '4bf92f3577b34da6a3ce929d0e0e4736',
      parentId: '00f067aa0ba902b7',
    });
    expect(traceOf('cc-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01-what-the-future-will-be-like')).toEqual({
      traceId: '4bf92f3577b34da6a3ce929d0e0e4736',
      parentId: '00f067aa0ba902b7',
    });
  });

  it('refuses version ff, zero ids, extra fields on version 00, upper case and other shapes', () => {
    for (const header of [
      undefined,
      'ff-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01',
      '00-00000000000000000000000000000000-00f067aa0ba902b7-01',
      '00-4bf92f3577b34da6a3ce929d0e0e4736-0000000000000000-01',
      '00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01-extra',
      '00-4BF92F3577B34DA6A3CE929D0E0E4736-00f067aa0ba902b7-01',
      'not a traceparent',
    ]) {
      expect(traceOf(header), String(header)).toBeUndefined();
    }
  });
});

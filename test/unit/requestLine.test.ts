import { Writable } from 'node:stream';
import pino from 'pino';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { requestLineWriter, type RequestLine } from '../../proxy/log.ts';

/** A pino logger writing into `lines`, with a frozen clock so that two calls give the same time. */
function capturingLogger(lines: string[], options: pino.LoggerOptions = {}): pino.Logger {
  const sink = new Writable({
    write(chunk: Buffer, _encoding, done) {
      lines.push(chunk.toString());
      done();
    },
  });
  return pino({ level: 'info', timestamp: () => ',"time":"2026-11-23T12:00:00.000Z"', ...options }, sink);
}

const plainLine: RequestLine = {
  method: 'GET',
  path: '/addressmanagement/api/country/getbyname?name=%C4%B0stanbul',
  client: '127.0.0.1',
  status: 200,
  ms: 0.42,
  globalId: '0f8c1a1e-51a4-4c8f-9f0e-2f6f3f8a9b10',
  requestId: undefined,
  traceId: undefined,
  parentId: undefined,
};

/** The writer's lines reach the stream at the end of the event loop's turn. */
const turnEnded = (): Promise<void> => new Promise((resolve) => setImmediate(resolve));

/** What log.info writes for the same fields: the undefined ones left out, as pino leaves them out. */
function viaPino(log: pino.Logger, line: RequestLine): void {
  log.info(Object.fromEntries(Object.entries(line).filter(([, value]) => value !== undefined)));
}

describe('request log lines', () => {
  afterEach(() => {
    vi.useRealTimers();
  });

  it("carry pino's ISO time of the millisecond they are written in", async () => {
    vi.useFakeTimers({ toFake: ['Date'] });
    const written: string[] = [];
    const expected: string[] = [];
    const options = { timestamp: pino.stdTimeFunctions.isoTime };
    const write = requestLineWriter(capturingLogger(written, options));
    const reference = capturingLogger(expected, options);
    for (const time of ['2026-11-24T05:59:59.998Z', '2026-11-24T05:59:59.998Z', '2026-11-24T05:59:59.999Z', '2026-11-24T06:00:00.000Z']) {
      vi.setSystemTime(new Date(time));
      write(plainLine);
      await turnEnded();
      viaPino(reference, plainLine);
    }
    expect(written).toEqual(expected);
    expect(written.map((line) => JSON.parse(line).time)).toEqual([
      '2026-11-24T05:59:59.998Z',
      '2026-11-24T05:59:59.998Z',
      '2026-11-24T05:59:59.999Z',
      '2026-11-24T06:00:00.000Z',
    ]);
  });

  it.each([
    ['a plain request', plainLine],
    ['a client request id and a trace', { ...plainLine, requestId: 'abc-1', traceId: '0af7651916cd43dd8448eb211c80319c', parentId: 'b7ad6b7169203331' }],
    ['a path JSON must escape (quote, backslash, control and non-ASCII characters)', { ...plainLine, path: '/x?"a"\\b\u0001İ\u2028', status: 404 }],
    ['an error with a whole duration', { ...plainLine, status: 500, ms: 12 }],
  ])('are written byte for byte as log.info writes them: %s', async (_name, line) => {
    const written: string[] = [];
    const expected: string[] = [];
    requestLineWriter(capturingLogger(written))(line);
    await turnEnded();
    viaPino(capturingLogger(expected), line);
    expect(written).toEqual(expected);
    expect(JSON.parse(written[0] ?? '')).toMatchObject({ path: line.path, status: line.status });
  });

  it('carry the logger’s bindings (a child’s fields)', async () => {
    const written: string[] = [];
    const expected: string[] = [];
    requestLineWriter(capturingLogger(written).child({ worker: 2 }))(plainLine);
    await turnEnded();
    viaPino(capturingLogger(expected).child({ worker: 2 }), plainLine);
    expect(written).toEqual(expected);
    expect(written[0]).toContain('"worker":2');
  });

  it('go through log.info when the logger reshapes its lines (a mixin, formatters, redaction, a serializer)', () => {
    for (const options of [
      { mixin: () => ({ zone: 'eu' }) },
      { formatters: { log: (fields: Record<string, unknown>) => ({ ...fields, shaped: true }) } },
      { redact: ['client'] },
      { serializers: { path: (path: string) => path.split('?')[0] } },
    ] satisfies pino.LoggerOptions[]) {
      const written: string[] = [];
      const expected: string[] = [];
      requestLineWriter(capturingLogger(written, options))(plainLine);
      viaPino(capturingLogger(expected, options), plainLine);
      expect(written).toEqual(expected);
    }
  });

  it('are not written below the info level', async () => {
    const written: string[] = [];
    requestLineWriter(capturingLogger(written, { level: 'warn' }))(plainLine);
    await turnEnded();
    expect(written).toEqual([]);
  });

  it('of one turn of the event loop reach the stream in one write, in order', async () => {
    const written: string[] = [];
    const write = requestLineWriter(capturingLogger(written));
    for (const status of [200, 304, 404]) write({ ...plainLine, status });
    expect(written).toEqual([]);
    await turnEnded();
    expect(written).toHaveLength(1);
    expect(
      (written[0] ?? '')
        .split('\n')
        .filter(Boolean)
        .map((text) => (JSON.parse(text) as { status: number }).status),
    ).toEqual([200, 304, 404]);
    write({ ...plainLine, status: 500 });
    await turnEnded();
    expect(written).toHaveLength(2);
  });
});

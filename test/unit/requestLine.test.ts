import { spawnSync } from 'node:child_process';
import pino from 'pino';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { requestLineWriter, type RequestLine } from '../../proxy/observe/log.ts';
import { capturingLogger } from '../support/pino.ts';
import { repoRoot } from '../support/service.ts';

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

/** The writer gathers lines for up to 10 ms: with the timers faked, that time passes at once. */
function linesDue(): void {
  vi.advanceTimersByTime(10);
}

/** What log.info writes for the same fields: the undefined ones left out, as pino leaves them out. */
function viaPino(log: pino.Logger, line: RequestLine): void {
  log.info(Object.fromEntries(Object.entries(line).filter(([, value]) => value !== undefined)));
}

describe('request log lines', () => {
  beforeEach(() => {
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] });
  });
  afterEach(() => {
    vi.useRealTimers();
  });

  it("carry pino's ISO time of the millisecond they are written in", () => {
    vi.useFakeTimers({ toFake: ['Date', 'setTimeout', 'clearTimeout'] });
    const written: string[] = [];
    const expected: string[] = [];
    const options = { timestamp: pino.stdTimeFunctions.isoTime };
    const write = requestLineWriter(capturingLogger(written, options));
    const reference = capturingLogger(expected, options);
    for (const time of ['2026-11-24T05:59:59.998Z', '2026-11-24T05:59:59.998Z', '2026-11-24T05:59:59.999Z', '2026-11-24T06:00:00.000Z']) {
      vi.setSystemTime(new Date(time));
      write(plainLine);
      viaPino(reference, plainLine);
      linesDue();
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
  ])('are written byte for byte as log.info writes them: %s', (_name, line) => {
    const written: string[] = [];
    const expected: string[] = [];
    requestLineWriter(capturingLogger(written))(line);
    linesDue();
    viaPino(capturingLogger(expected), line);
    expect(written).toEqual(expected);
    expect(JSON.parse(written[0] ?? '')).toMatchObject({ path: line.path, status: line.status });
  });

  it('carry the logger’s bindings (a child’s fields)', () => {
    const written: string[] = [];
    const expected: string[] = [];
    requestLineWriter(capturingLogger(written).child({ worker: 2 }))(plainLine);
    linesDue();
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

  it('are not written below the info level', () => {
    const written: string[] = [];
    requestLineWriter(capturingLogger(written, { level: 'warn' }))(plainLine);
    linesDue();
    expect(written).toEqual([]);
  });

  it('gathered for 10 ms reach the stream in one write, in order', () => {
    const written: string[] = [];
    const write = requestLineWriter(capturingLogger(written));
    write({ ...plainLine, status: 200 });
    vi.advanceTimersByTime(5);
    for (const status of [304, 404]) write({ ...plainLine, status });
    vi.advanceTimersByTime(4);
    expect(written).toEqual([]);
    vi.advanceTimersByTime(1);
    expect(written).toHaveLength(1);
    expect(statuses(written[0])).toEqual([200, 304, 404]);
    write({ ...plainLine, status: 500 });
    linesDue();
    expect(written).toHaveLength(2);
    expect(statuses(written[1])).toEqual([500]);
  });

  it('reach the stream at once when 64 KB are gathered', () => {
    const written: string[] = [];
    const write = requestLineWriter(capturingLogger(written));
    const long = { ...plainLine, path: `/addressmanagement/api/country/getbyname?name=${'a'.repeat(1000)}` };
    let lines = 0;
    while (written.length === 0) {
      write(long);
      lines += 1;
      expect(lines).toBeLessThanOrEqual(66);
    }
    expect(written[0]?.length).toBeGreaterThanOrEqual(65536);
    expect(statuses(written[0])).toHaveLength(lines);
    write(long);
    expect(written).toHaveLength(1);
    linesDue();
    expect(written).toHaveLength(2);
  });

  it.each([
    ['process.exit', 'process.exit(0);'],
    ['an uncaught exception', "throw new Error('worker fault');"],
  ])('gathered when the process ends (%s) are written before it exits', (_name, ending) => {
    // A real process on pino's own destination (stdout, asynchronous writes), as the proxy logs.
    const script = `
      import { createLogger, requestLineWriter } from './proxy/observe/log.ts';
      const write = requestLineWriter(createLogger('info'));
      const line = ${JSON.stringify(plainLine)};
      for (const status of [200, 304, 404]) write({ ...line, status });
      ${ending}`;
    const child = spawnSync(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', script], { cwd: repoRoot, encoding: 'utf8' });
    expect(statuses(child.stdout)).toEqual([200, 304, 404]);
  });
});

function statuses(text: string | undefined): number[] {
  return (text ?? '')
    .split('\n')
    .filter(Boolean)
    .map((line) => (JSON.parse(line) as { status: number }).status);
}

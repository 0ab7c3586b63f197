/**
 * One JSON line per request (pino): method, path, status, duration, globalId. Headers are never
 * logged, so no token can reach a log line.
 */
import pino from 'pino';
import { plainInfoLineParts } from './pinoLines.ts';

export type Logger = pino.Logger;

/** Asynchronous writes by default (the request path must not wait for stdout); `sync` for the rare lines that must not be lost. */
export function createLogger(level: string, { sync = false } = {}): Logger {
  return pino({ level, timestamp: pino.stdTimeFunctions.isoTime }, pino.destination({ sync }));
}

/** For tests and tools: a logger that writes nothing. */
export const silentLogger: Logger = pino({ level: 'silent' });

/** What a request's log line says. */
export interface RequestLine {
  readonly method: string;
  /** The request target as sent. */
  readonly path: string;
  /** An IP address (clientAddress.ts checks forwarded ones), or `unknown`. */
  readonly client: string;
  readonly status: number;
  readonly ms: number;
  /** A UUID. */
  readonly globalId: string;
  /** The client's X-Request-Id, when it is not the globalId (tracing.ts allows no quote or backslash in it). */
  readonly requestId: string | undefined;
  /** From a valid traceparent: hexadecimal digits. */
  readonly traceId: string | undefined;
  readonly parentId: string | undefined;
}

/**
 * Writes request lines byte for byte as `log.info(line)` would, but in one template: pino's own
 * level prefix, timestamp, bindings and stream, without its walk over the fields, which was a
 * quarter of what a logged request cost beyond an unlogged one (`npm run bench:profile`). Only
 * `path` can hold characters JSON must escape; the other text fields are checked where they are
 * made. A logger that reshapes its lines (mixin, formatters.log, a streamWrite hook, a nested key,
 * redaction, a serializer of one of these fields) is called as usual.
 */
export function requestLineWriter(log: Logger): (line: RequestLine) => void {
  const parts = plainInfoLineParts(log, requestLineFields);
  if (!parts) return (line) => log.info(withoutUndefined(line));
  const { level, bindings, stream, end } = parts;
  // pino's ISO timestamp, made once per millisecond instead of once per line (Date#toISOString).
  const time = parts.isoTime ? isoTimePerMillisecond() : parts.time;
  const info = log.levels.values.info as number;
  // Lines are gathered for up to 10 ms or 64 KB and reach the stream in one write, as nginx's
  // access_log buffer= flush= does: a write per line, or per turn of the event loop, cost more in
  // system calls than the line itself under load. What is gathered is written when the process exits.
  let pending = '';
  let timer: NodeJS.Timeout | undefined;
  const flush = (): void => {
    clearTimeout(timer);
    timer = undefined;
    unwrittenAtExit.delete(flushAtExit);
    const lines = pending;
    pending = '';
    stream.write(lines);
  };
  const flushAtExit = (): void => {
    flush();
    (stream as { flushSync?: () => void }).flushSync?.();
  };
  return (line) => {
    if (log.levelVal > info) return;
    const requestId = line.requestId === undefined ? '' : `,"requestId":"${line.requestId}"`;
    const trace = line.traceId === undefined ? '' : `,"traceId":"${line.traceId}","parentId":"${line.parentId}"`;
    pending += `${level}${time()}${bindings},"method":"${line.method}","path":${JSON.stringify(line.path)},"client":"${line.client}","status":${line.status},"ms":${line.ms},"globalId":"${line.globalId}"${requestId}${trace}${end}`;
    if (pending.length >= gatheredAtMost) flush();
    else if (timer === undefined) {
      timer = setTimeout(flush, gatheredForMs).unref();
      unwrittenAtExit.add(flushAtExit);
    }
  };
}

/** How long request lines wait to be written together, and how many characters of them at most. */
const gatheredForMs = 10;
const gatheredAtMost = 65536;

/** The flushes of the writers holding lines not yet written: each is in the set only while it holds some. */
const unwrittenAtExit = new Set<() => void>();
process.on('exit', () => {
  for (const write of unwrittenAtExit) {
    try {
      write();
    } catch {
      // A stream that cannot be written at exit loses its lines; the others are still written.
    }
  }
});

/** pino.stdTimeFunctions.isoTime, byte for byte, remembered for the millisecond it was made in. */
function isoTimePerMillisecond(): () => string {
  let made = Number.NaN;
  let text = '';
  return () => {
    const now = Date.now();
    if (now !== made) {
      made = now;
      text = `,"time":"${new Date(now).toISOString()}"`;
    }
    return text;
  };
}

const requestLineFields: readonly (keyof RequestLine)[] = ['method', 'path', 'client', 'status', 'ms', 'globalId', 'requestId', 'traceId', 'parentId'];

function withoutUndefined(line: RequestLine): Record<string, unknown> {
  return Object.fromEntries(Object.entries(line).filter(([, value]) => value !== undefined));
}

/**
 * One JSON line per request (pino): method, path, status, duration, globalId. Headers are never
 * logged, so no token can reach a log line.
 */
import pino from 'pino';

export type Logger = pino.Logger;

/** Asynchronous writes by default (the request path must not wait for stdout); `sync` for the rare lines that must not be lost. */
export function createLogger(level: string, { sync = false } = {}): Logger {
  return pino({ level, timestamp: pino.stdTimeFunctions.isoTime }, pino.destination({ sync }));
}

/** For tests and tools: a logger that writes nothing. */
export const silentLogger: Logger = pino({ level: 'silent' });

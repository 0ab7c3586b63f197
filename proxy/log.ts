/**
 * One JSON line per request (pino): method, path, status, duration, globalId. Headers are never
 * logged, so no token can reach a log line.
 */
import pino from 'pino';

export type Logger = pino.Logger;

export function createLogger(level: string): Logger {
  return pino({ level, timestamp: pino.stdTimeFunctions.isoTime }, pino.destination({ sync: false }));
}

/** For tests and tools: a logger that writes nothing. */
export const silentLogger: Logger = pino({ level: 'silent' });

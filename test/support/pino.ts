/** A pino logger for tests: what it writes is kept in `lines`, with a frozen clock so that two calls give the same time. */
import { Writable } from 'node:stream';
import pino from 'pino';

export function capturingLogger(lines: string[], options: pino.LoggerOptions = {}): pino.Logger {
  const sink = new Writable({
    write(chunk: Buffer, _encoding, done) {
      lines.push(chunk.toString());
      done();
    },
  });
  return pino({ level: 'info', timestamp: () => ',"time":"2026-11-23T12:00:00.000Z"', ...options }, sink);
}

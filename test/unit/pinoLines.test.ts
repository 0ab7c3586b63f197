/**
 * pino's private state as proxy/observe/pinoLines.ts reads it: these fail when a pino upgrade
 * moves or reshapes what is read, before request lines silently fall back to log.info.
 */
import pino from 'pino';
import { describe, expect, it } from 'vitest';
import { plainInfoLineParts, readSymbols } from '../../proxy/observe/pinoLines.ts';
import { capturingLogger } from '../support/pino.ts';

describe("pino's private state", () => {
  it('still names every field read in pino.symbols', () => {
    const symbols = pino.symbols as unknown as Record<string, unknown>;
    expect(readSymbols.filter((name) => typeof symbols[name] !== 'symbol')).toEqual([]);
  });

  it("gives a plain logger's parts, which make the line log.info writes", () => {
    for (const log of [capturingLogger([]), capturingLogger([]).child({ worker: 2 })]) {
      const written: string[] = [];
      const parts = plainInfoLineParts(log, ['status']);
      expect(parts).toBeDefined();
      if (!parts) return;
      const expected: string[] = [];
      const reference = capturingLogger(expected);
      (log.bindings().worker === undefined ? reference : reference.child({ worker: 2 })).info({ status: 200 });
      written.push(`${parts.level}${parts.time()}${parts.bindings},"status":200${parts.end}`);
      expect(written).toEqual(expected);
      expect(parts.isoTime).toBe(false);
    }
  });

  it("knows pino's ISO time, and writes to the logger's own stream", () => {
    const lines: string[] = [];
    const parts = plainInfoLineParts(capturingLogger(lines, { timestamp: pino.stdTimeFunctions.isoTime }), []);
    expect(parts?.isoTime).toBe(true);
    parts?.stream.write('a line\n');
    expect(lines).toEqual(['a line\n']);
  });

  it.each([
    ['a mixin', { mixin: () => ({ zone: 'eu' }) }],
    ['formatters.log', { formatters: { log: (fields: Record<string, unknown>) => fields } }],
    ['a streamWrite hook', { hooks: { streamWrite: (text: string) => text } }],
    ['a nested key', { nestedKey: 'payload' }],
    ['redaction', { redact: ['client'] }],
    ['a serializer of a field written', { serializers: { status: (status: number) => status } }],
  ] satisfies [string, pino.LoggerOptions][])('gives none for a logger with %s', (_what, options) => {
    expect(plainInfoLineParts(capturingLogger([], options), ['status'])).toBeUndefined();
  });

  it('gives parts for a logger with a serializer of another field only', () => {
    expect(plainInfoLineParts(capturingLogger([], { serializers: { other: (value: unknown) => value } }), ['status'])).toBeDefined();
  });
});

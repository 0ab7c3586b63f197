/**
 * The one place that reads pino's private state (its symbol-keyed fields, pino.symbols): how a
 * logger writes an info line (its level prefix, time, bindings, line end and stream), so that
 * log.ts can write request lines in one template, byte for byte as `log.info` would. Anything
 * not as expected (a pino that keeps its state otherwise, or a logger that reshapes its lines)
 * yields undefined, and the caller goes through `log.info`. test/unit/pinoLines.test.ts fails
 * when a pino upgrade changes what is read here.
 */
import pino from 'pino';

/** What `log.info(fields)` writes around the fields, read from the logger once. */
export interface InfoLineParts {
  /** `{"level":30`: the level's prefix. */
  readonly level: string;
  /** The time field (`,"time":…`), as the logger makes it. */
  readonly time: () => string;
  /** True when `time` is pino's ISO time (pino.stdTimeFunctions.isoTime). */
  readonly isoTime: boolean;
  /** The bindings (pid, hostname, a child's fields) as JSON text, each with its leading comma. */
  readonly bindings: string;
  /** What closes a line: `}` and the newline. */
  readonly end: string;
  readonly stream: { write(text: string): unknown };
}

/**
 * The parts of `log`'s info lines, or undefined when its lines are not plain: a mixin,
 * formatters.log, a streamWrite hook, a nested key, redaction, or a serializer of one of `fields`.
 */
export function plainInfoLineParts(log: pino.Logger, fields: readonly string[]): InfoLineParts | undefined {
  const symbols = pino.symbols as Partial<Record<(typeof readSymbols)[number], symbol>>;
  if (readSymbols.some((name) => typeof symbols[name] !== 'symbol')) return undefined;
  const state = log as unknown as Record<symbol, unknown>;
  const read = (name: (typeof readSymbols)[number]): unknown => state[symbols[name] as symbol];
  const formatters = read('formattersSym') as { log?: unknown } | undefined;
  const hooks = read('hooksSym') as { streamWrite?: unknown } | undefined;
  // Redaction is kept as stringifiers; serializers are keyed by field (pino's own is for `err`).
  const stringifiers = (read('stringifiersSym') ?? {}) as Record<string | symbol, unknown>;
  const serializers = (read('serializersSym') ?? {}) as Record<string, unknown>;
  const reshaped =
    Boolean(read('mixinSym')) ||
    Boolean(formatters?.log) ||
    Boolean(hooks?.streamWrite) ||
    Boolean(read('nestedKeySym')) ||
    Object.keys(stringifiers).length > 0 ||
    stringifiers[symbols.wildcardFirstSym as symbol] !== undefined ||
    fields.some((field) => serializers[field] !== undefined);
  if (reshaped) return undefined;
  const level = (read('lsCacheSym') as Record<number, unknown> | undefined)?.[log.levels.values.info as number];
  const time = read('timeSym');
  const bindings = read('chindingsSym');
  const stream = read('streamSym') as { write?: unknown } | undefined;
  const end = read('endSym');
  if (typeof level !== 'string' || typeof time !== 'function' || typeof bindings !== 'string' || typeof end !== 'string') return undefined;
  if (typeof stream?.write !== 'function') return undefined;
  return {
    level,
    time: time as () => string,
    isoTime: time === pino.stdTimeFunctions.isoTime,
    bindings,
    end,
    stream: stream as InfoLineParts['stream'],
  };
}

/** The private fields read, by their names in pino.symbols. */
export const readSymbols = [
  'lsCacheSym',
  'timeSym',
  'chindingsSym',
  'streamSym',
  'endSym',
  'mixinSym',
  'formattersSym',
  'hooksSym',
  'nestedKeySym',
  'stringifiersSym',
  'serializersSym',
  'wildcardFirstSym',
] as const;

/**
 * Which failure lines are written: the first of each kind (a failure's code; for a fault of the
 * service's own, its error's name and where it was thrown) in each interval, with how many of that
 * kind were left out since the last one written. A client that repeats a failing request at will
 * then grows the log by a line per kind and interval, whatever its rate; every failure is still
 * counted in /metrics (refdata_failures_total).
 */

/** One line per kind at most this often. */
export const failureLineIntervalMs = 10_000;
/** Kinds tracked at once: the codes are few, the places a fault is thrown are bounded by the code. */
const maxKinds = 1_000;

export class FailureLines {
  readonly #kinds = new Map<string, { until: number; suppressed: number }>();

  constructor(
    private readonly intervalMs = failureLineIntervalMs,
    private readonly now: () => number = Date.now,
  ) {}

  /** Whether to write a line of `kind` now: undefined if not, else how many of it were left out before it. */
  take(kind: string): number | undefined {
    const now = this.now();
    const known = this.#kinds.get(kind);
    if (known !== undefined && now < known.until) {
      known.suppressed++;
      return undefined;
    }
    if (known === undefined && this.#kinds.size >= maxKinds) this.#forgetExpired(now);
    this.#kinds.set(kind, { until: now + this.intervalMs, suppressed: 0 });
    return known?.suppressed ?? 0;
  }

  #forgetExpired(now: number): void {
    for (const [kind, { until }] of this.#kinds) if (until <= now) this.#kinds.delete(kind);
    // Still full: the oldest goes (a Map iterates in insertion order).
    if (this.#kinds.size >= maxKinds) this.#kinds.delete(this.#kinds.keys().next().value as string);
  }
}

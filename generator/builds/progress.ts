/**
 * A long build's progress: the stage, how much of it is done, and the time it has left. On a
 * terminal one line is rewritten in place a few times a second; elsewhere (a log, CI) a plain line
 * is written when a stage starts and at every tenth of it, so a log stays short and still shows a
 * build that has stopped moving.
 */

export interface Progress {
  /** A stage starts, of `total` units (routes, shards …; `unit` names them). */
  stage(name: string, total: number, unit: string): void;
  /** `done` more units of the stage are done. */
  advance(done?: number): void;
  /** The build is over: a terminal's line is ended. */
  end(): void;
}

export const silentProgress: Progress = { stage: () => undefined, advance: () => undefined, end: () => undefined };

/** The part of a stream progress writes to: a terminal's has `isTTY`. */
export interface ProgressOutput {
  readonly isTTY?: boolean;
  write(text: string): unknown;
}

const redrawMs = 200;

/** `12 s`, `3 min 4 s`: a duration as a person reads it. */
export function describeDuration(ms: number): string {
  const seconds = Math.max(0, Math.round(ms / 1000));
  return seconds < 60 ? `${seconds} s` : `${Math.floor(seconds / 60)} min ${seconds % 60} s`;
}

export function createProgress(output: ProgressOutput, now: () => number = () => performance.now()): Progress {
  const terminal = output.isTTY === true;
  let name = '';
  let unit = '';
  let total = 0;
  let done = 0;
  let started = 0;
  let drawn = Number.NEGATIVE_INFINITY;
  let tenth = 0;
  let onLine = false;

  const line = (): string => {
    const elapsed = now() - started;
    const left = done === 0 || done >= total ? '' : `, about ${describeDuration((elapsed / done) * (total - done))} left`;
    return `${name}: ${done}/${total} ${unit} (${Math.floor((done / Math.max(total, 1)) * 100)} %)${left}`;
  };
  const draw = (): void => {
    if (terminal) {
      output.write(`\r\x1b[K${line()}`);
      onLine = true;
    } else output.write(`${line()}\n`);
  };

  return {
    stage(stageName, stageTotal, stageUnit) {
      name = stageName;
      unit = stageUnit;
      total = stageTotal;
      done = 0;
      started = now();
      tenth = 0;
      drawn = now();
      draw();
    },
    advance(count = 1) {
      done = Math.min(total, done + count);
      if (terminal) {
        if (now() - drawn >= redrawMs || done === total) {
          drawn = now();
          draw();
        }
        return;
      }
      const reached = Math.floor((done / Math.max(total, 1)) * 10);
      if (reached > tenth) {
        tenth = reached;
        draw();
      }
    },
    end() {
      if (terminal && onLine) output.write('\n');
      onLine = false;
    },
  };
}

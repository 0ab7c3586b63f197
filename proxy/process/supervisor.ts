/**
 * The cluster's primary: forks the workers, replaces one that dies, relays SIGHUP, SIGTERM and SIGINT.
 *
 * The primary stays up as long as it can serve: a dead worker is replaced after a back-off that
 * doubles with every exit in the last minute (100 ms, 200 ms, … at most 10 s), on a timer that
 * keeps the primary's event loop alive, so even when every worker dies at once the primary is
 * still there to start new ones. It gives up only when no worker is serving and replacements keep
 * dying (five exits within the minute): then it exits with status 1, so that systemd
 * (`Restart=on-failure`), a container runtime or any other supervisor restarts the whole service.
 */
import cluster, { type Worker } from 'node:cluster';
import { answerGateRequests, isGateRequest, isKnownTokenMessage, type KnownTokenMessage } from '../auth/checkGate.ts';
import type { Budget } from '../config/config.ts';
import type { Logger } from '../observe/log.ts';
import { isShareMessage, type ShareMessage } from '../auth/rateLimits.ts';

export interface RestartPolicy {
  /** The delay before the first replacement; it doubles with each further exit in the window. */
  readonly firstDelayMs: number;
  readonly maxDelayMs: number;
  /** Exits older than this are forgotten. */
  readonly windowMs: number;
  /** With no worker serving, this many exits within the window mean the service cannot recover. */
  readonly giveUpAfter: number;
}

export const restartPolicy: RestartPolicy = { firstDelayMs: 100, maxDelayMs: 10_000, windowMs: 60_000, giveUpAfter: 5 };

/** What to do after a worker exits: start a replacement after a delay, or give up. */
export type RestartDecision = { readonly restartInMs: number } | 'give-up';

/** Remembers recent worker exits and decides, at each one, what the primary does next. */
export class RestartBudget {
  #exits: number[] = [];

  constructor(
    private readonly policy: RestartPolicy = restartPolicy,
    private readonly now: () => number = Date.now,
  ) {}

  /** Records an exit; `serving` is how many workers are still answering requests. */
  afterExit(serving: number): RestartDecision {
    const time = this.now();
    this.#exits = this.#exits.filter((exit) => exit > time - this.policy.windowMs);
    this.#exits.push(time);
    const recent = this.#exits.length;
    if (serving === 0 && recent >= this.policy.giveUpAfter) return 'give-up';
    return { restartInMs: Math.min(this.policy.maxDelayMs, this.policy.firstDelayMs * 2 ** (recent - 1)) };
  }
}

/** What a worker tells the primary once it listens (main.ts `serve`). */
export interface ListeningMessage {
  readonly listening: string;
  readonly buildId: string;
  readonly dataVersion: string;
}

function isListeningMessage(message: unknown): message is ListeningMessage {
  return typeof message === 'object' && message !== null && typeof (message as ListeningMessage).listening === 'string';
}

export interface SupervisorOptions {
  readonly workers: number;
  readonly log: Logger;
  /** Called once, when the first worker listens. */
  readonly onFirstListening: (message: ListeningMessage) => void;
  readonly policy?: RestartPolicy;
  /** The budget of invalid tokens per address, which the primary counts for all its workers (auth/checkGate.ts). */
  readonly authFailures?: Budget | undefined;
}

/** What the primary can ask of its cluster once it runs. */
export interface Supervision {
  /** The workers that listen now: started, announced, not exited. */
  serving(): readonly Worker[];
  /** The same, each with its slot: 1 to WORKERS, taken over by the worker that replaces one. */
  servingSlots(): readonly { readonly worker: Worker; readonly slot: number }[];
}

/** What one worker tells the others through the primary: rate-limit counts and tokens it accepted. */
const isRelayed = (message: unknown): message is ShareMessage | KnownTokenMessage => isShareMessage(message) || isKnownTokenMessage(message);

/** The workers alive now, listening or not. */
const living = (): Worker[] => Object.values(cluster.workers ?? {}).filter((worker): worker is Worker => worker !== undefined);

/**
 * Signals for the service go to every worker as they came, every time: a worker drains on the first
 * SIGTERM, and stops at once on a second one or on SIGINT; SIGHUP has each reload the build (main.ts).
 */
function relaySignals(stopAll: (signal: NodeJS.Signals) => void): void {
  process.on('SIGHUP', () => {
    for (const worker of living()) worker.process.kill('SIGHUP');
  });
  process.on('SIGTERM', () => stopAll('SIGTERM'));
  process.on('SIGINT', () => stopAll('SIGINT'));
}

/** Relays what a worker shares to the others, and answers its token-gate requests; false for any other message. */
function relay(worker: Worker, message: unknown, answerGate: ReturnType<typeof answerGateRequests> | undefined): boolean {
  if (isRelayed(message)) {
    // For every other worker, those still starting included: each listens for these before it
    // listens for requests.
    for (const other of living()) if (other !== worker && other.isConnected()) other.send(message);
    return true;
  }
  if (isGateRequest(message)) {
    answerGate?.(message, (reply) => worker.isConnected() && worker.send(reply));
    return true;
  }
  return false;
}

const giveUpMessage = (policy: RestartPolicy): string =>
  `no worker is serving and ${policy.giveUpAfter} workers exited within ${policy.windowMs / 1000} s: exiting so that the service's own supervisor restarts it`;

const exitMessage = (signal: string | null): string =>
  signal === 'SIGKILL'
    ? 'worker killed (SIGKILL: by an operator, or by the kernel out of memory: see docs/operations.md on memory); starting another'
    : 'worker exited; starting another';

export function supervise({ workers, log, onFirstListening, policy = restartPolicy, authFailures }: SupervisorOptions): Supervision {
  const budget = new RestartBudget(policy);
  const answerGate = authFailures && answerGateRequests(authFailures);
  const serving = new Set<Worker>();
  const pendingStarts = new Set<NodeJS.Timeout>();
  let stopping = false;
  let announced = false;

  const stopAll = (signal: NodeJS.Signals): void => {
    stopping = true;
    for (const timer of pendingStarts) clearTimeout(timer);
    pendingStarts.clear();
    for (const worker of living()) worker.process.kill(signal);
    if (living().length === 0) process.exit();
  };

  const slots = new Map<Worker, number>();
  const fork = (slot: number): void => {
    const worker = cluster.fork();
    slots.set(worker, slot);
    log.info({ event: 'worker-started', pid: worker.process.pid });
    // A message sent to a worker that has just died (by cluster's own round-robin handle, or a
    // relay) fails with EPIPE as an 'error' event: unheard, it would end the primary. The worker's
    // exit is handled below; the failed send needs nothing more than a line.
    worker.on('error', (error: Error) =>
      log.warn({ event: 'worker-send-failed', pid: worker.process.pid, error: error.message }, 'a message to a worker that has gone failed'),
    );
    worker.on('message', (message: unknown) => {
      if (relay(worker, message, answerGate)) return;
      if (!isListeningMessage(message)) return;
      serving.add(worker);
      if (announced) return;
      announced = true;
      onFirstListening(message);
    });
  };

  cluster.on('exit', (worker, code, signal) => {
    const wasServing = serving.delete(worker);
    const slot = slots.get(worker) ?? slots.size + 1;
    slots.delete(worker);
    if (stopping) {
      if (living().length === 0) process.exit();
      return;
    }
    if (!announced && signal === null) {
      // A worker that exits before any worker ever listened has printed why (a bad key file, no
      // build): restarting it would only repeat that, so the whole service stops. One killed by a
      // signal (the kernel's OOM killer sends SIGKILL) has said nothing, and is restarted as below.
      log.fatal(
        { event: 'worker-failed-to-start', pid: worker.process.pid, code },
        'a worker exited before any worker listened (its reason is above): stopping the service',
      );
      process.exitCode = 1;
      stopAll('SIGTERM');
      return;
    }
    const decision = budget.afterExit(serving.size);
    const exit = { pid: worker.process.pid, code, signal };
    if (decision === 'give-up') {
      log.fatal({ event: 'supervisor-gave-up', ...exit, withinMs: policy.windowMs }, giveUpMessage(policy));
      process.exitCode = 1;
      stopAll('SIGTERM');
      return;
    }
    log.error({ event: 'worker-exited', ...exit, wasServing, serving: serving.size, restartInMs: decision.restartInMs }, exitMessage(signal));
    // Not unref'd: this timer is what keeps the primary alive when no worker is left.
    const timer = setTimeout(() => {
      pendingStarts.delete(timer);
      fork(slot);
    }, decision.restartInMs);
    pendingStarts.add(timer);
  });

  for (let slot = 1; slot <= workers; slot++) fork(slot);
  relaySignals(stopAll);
  return { serving: () => [...serving], servingSlots: () => [...serving].map((worker) => ({ worker, slot: slots.get(worker) ?? 0 })) };
}

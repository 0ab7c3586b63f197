/**
 * Work on a worker thread, written as an ordinary TypeScript function: `run(input, post)` exported by
 * a module of the generator, loaded on the thread through tsx (thread.mjs). A thread has a heap of
 * its own, so what it decompresses or packs neither counts against the build's heap nor starts its
 * collections, and two threads keep both cores busy.
 */
import { Worker } from 'node:worker_threads';

/** The function a thread runs: its input (structured-cloneable), and `post` for each message it sends on the way. */
export type ThreadTask<Input, Result, Message = never> = (input: Input, post: (message: Message) => void) => Promise<Result>;

/** Where a task lives: the module's URL (`new URL('./x.ts', import.meta.url)`) and its export's name. */
export interface ThreadTaskName {
  readonly module: URL;
  readonly name: string;
}

/** Things a thread says: a message on the way, its result, or its error (the whole stack, as text). */
type ThreadWord<Result, Message> = { readonly message: Message } | { readonly result: Result } | { readonly error: string };

export interface RunningThread<Result> {
  readonly result: Promise<Result>;
  /** Stops the thread; `result` then rejects unless it had settled. */
  terminate(): Promise<void>;
}

/** Runs `task` on a new thread with `input`; each message it posts goes to `onMessage`. */
export function startThread<Input, Result, Message = never>(
  task: ThreadTaskName,
  input: Input,
  onMessage: (message: Message) => void = () => undefined,
): RunningThread<Result> {
  const worker = new Worker(new URL('./thread.mjs', import.meta.url), { workerData: { module: task.module.href, name: task.name, input } });
  const result = new Promise<Result>((resolve, reject) => {
    let settled = false;
    worker.on('message', (word: ThreadWord<Result, Message>) => {
      if ('message' in word) onMessage(word.message);
      else if ('result' in word) {
        settled = true;
        resolve(word.result);
      } else {
        settled = true;
        reject(new Error(`${task.name} failed on its thread: ${word.error}`));
      }
    });
    worker.on('error', reject);
    worker.on('exit', (code) => {
      if (!settled) reject(new Error(`${task.name}'s thread stopped with exit code ${code} before it answered`));
    });
  });
  return { result, terminate: async () => void (await worker.terminate()) };
}

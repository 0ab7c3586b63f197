/**
 * Client load for the scale-out tests: GETs on keep-alive agents, every answer compared with the one
 * expected and every failure kept, while something happens to the chain behind the address.
 */
import http from 'node:http';

export interface Answer {
  readonly status: number;
  readonly etag: string | undefined;
  readonly body: Buffer;
}

/** A lookup and the answer it must get (from a local proxy, asked directly). */
export interface ExpectedLookup {
  readonly path: string;
  readonly answer: Answer;
}

/** A keep-alive agent whose connections come from `localAddress` (127.0.0.2 …: a client HAProxy tells apart). */
export const agentFrom = (localAddress: string): http.Agent => new http.Agent({ keepAlive: true, localAddress });

/** One GET; a failure to connect or a cut answer rejects. */
export function get(url: string, agent: http.Agent, headers: Record<string, string>): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const request = http.get(url, { agent, headers }, (response) => {
      const chunks: Buffer[] = [];
      response.on('data', (chunk: Buffer) => chunks.push(chunk));
      response.on('end', () => resolve({ status: response.statusCode ?? 0, etag: response.headers.etag, body: Buffer.concat(chunks) }));
      response.on('error', reject);
    });
    request.setTimeout(20_000, () => request.destroy(new Error(`no answer from ${url} within 20 s`)));
    request.on('error', reject);
  });
}

export interface LoadOptions {
  readonly concurrency: number;
  /** Answers counted before `during` starts, so that it happens under load. */
  readonly warmUp: number;
  /**
   * The bound: no more requests than this, whether or not `during` has finished. A guard against a
   * `during` that never ends, not a budget: set it far above what `during` needs on a fast machine
   * (a bound of 100,000 was reached before a build had switched in a CI run on an idle machine).
   */
  readonly maximum: number;
  readonly headers: Record<string, string>;
}

export interface LoadResult {
  readonly answered: number;
  /** Each request that did not get a 200 with the expected ETag and bytes: what it got instead. */
  readonly failures: string[];
  /** Whether `during` finished before the bound was reached, i.e. wholly under load. */
  readonly underLoad: boolean;
}

/**
 * Requests through `url`, `concurrency` at a time, walking `lookups`, until `during` (started once
 * `warmUp` requests are answered) has finished, or `maximum` requests have been made. Rejects with
 * `during`'s error if it failed.
 */
export async function loadDuring(url: string, lookups: readonly ExpectedLookup[], options: LoadOptions, during: () => Promise<void>): Promise<LoadResult> {
  const agent = agentFrom('127.0.0.2');
  const failures: string[] = [];
  let next = 0;
  let answered = 0;
  let finished = false;
  let event: Promise<unknown> | undefined;
  const client = async (): Promise<void> => {
    while (!finished && next < options.maximum) {
      const { path, answer } = lookups[next++ % lookups.length] as ExpectedLookup;
      const got = await get(`${url}${path}`, agent, options.headers).catch((error: Error) => error);
      if (got instanceof Error) failures.push(`${path}: ${got.message}`);
      else if (got.status !== 200 || got.etag !== answer.etag || !got.body.equals(answer.body))
        failures.push(`${path}: ${got.status} ${got.etag} ${got.body.toString().slice(0, 200)}`);
      if (++answered === options.warmUp) {
        // Kept as a value, not a rejection, so that a failure is reported once the clients have stopped.
        event = during().then(
          () => undefined,
          (error: unknown) => error,
        );
        void event.finally(() => (finished = true));
      }
    }
  };
  await Promise.all(Array.from({ length: options.concurrency }, client));
  const underLoad = finished;
  const error = await event;
  agent.destroy();
  if (error) throw error;
  if (event === undefined) throw new Error(`only ${answered} answers, fewer than the warm-up of ${options.warmUp}`);
  return { answered, failures, underLoad };
}

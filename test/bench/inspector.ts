/**
 * A CPU profile of a running Node server, taken over its inspector while something runs (a wrk
 * load). The server must have been started with `inspectOption` in NODE_OPTIONS: node then prints
 * the inspector's address on stderr, which RunningServer keeps.
 *
 * Not `node --cpu-prof`: Node 20 refuses it in NODE_OPTIONS ("--cpu-prof is not allowed in
 * NODE_OPTIONS"), and startProxy and startFloor choose their own arguments. The profiler is the
 * same (V8's sampling profiler), the profile is the object --cpu-prof writes as a .cpuprofile, and
 * it covers the measured load alone: not the start-up, not the warm-up.
 */
import { WebSocket } from 'undici';
import type { CpuProfile } from './cpuProfile.ts';
import type { RunningServer } from './servers.ts';

/** An inspector on a loopback port of the kernel's choosing. */
export const inspectOption = '--inspect=127.0.0.1:0';

interface Reply {
  readonly id?: number;
  readonly result?: unknown;
  readonly error?: { readonly message: string };
}

interface Session {
  post(method: string, params?: Record<string, unknown>): Promise<unknown>;
  close(): void;
}

/** A DevTools protocol session on the inspector at `url` (ws://…). */
async function connect(url: string): Promise<Session> {
  const socket = new WebSocket(url);
  const pending = new Map<number, { readonly method: string; resolve(result: unknown): void; reject(error: Error): void }>();
  let lastId = 0;
  socket.addEventListener('message', (event) => {
    const reply = JSON.parse(String(event.data)) as Reply;
    const waiting = reply.id === undefined ? undefined : pending.get(reply.id);
    // Events (no id) are not asked for, but the inspector may send some.
    if (!waiting || reply.id === undefined) return;
    pending.delete(reply.id);
    if (reply.error) waiting.reject(new Error(`${waiting.method}: ${reply.error.message}`));
    else waiting.resolve(reply.result);
  });
  socket.addEventListener('close', () => {
    for (const waiting of pending.values()) waiting.reject(new Error(`${waiting.method}: the inspector at ${url} closed the connection`));
    pending.clear();
  });
  await new Promise<void>((resolve, reject) => {
    socket.addEventListener('open', () => resolve(), { once: true });
    socket.addEventListener('error', () => reject(new Error(`cannot connect to the inspector at ${url}`)), { once: true });
  });
  return {
    post: (method, params = {}) =>
      new Promise((resolve, reject) => {
        const id = ++lastId;
        pending.set(id, { method, resolve, reject });
        socket.send(JSON.stringify({ id, method, params }));
      }),
    close: () => socket.close(),
  };
}

/** Profiles the server's main thread, sampling every `intervalMicros`, while `during` runs. */
export async function profileDuring<Result>(
  server: RunningServer,
  intervalMicros: number,
  during: () => Promise<Result>,
): Promise<{ readonly profile: CpuProfile; readonly result: Result }> {
  const url = /Debugger listening on (ws:\/\/\S+)/.exec(server.stderr())?.[1];
  if (!url) throw new Error(`${server.name} opened no inspector (started without ${inspectOption} in NODE_OPTIONS?):\n${server.stderr()}`);
  const session = await connect(url);
  try {
    await session.post('Profiler.enable');
    await session.post('Profiler.setSamplingInterval', { interval: intervalMicros });
    await session.post('Profiler.start');
    const result = await during();
    const { profile } = (await session.post('Profiler.stop')) as { profile: CpuProfile };
    return { profile, result };
  } finally {
    session.close();
  }
}

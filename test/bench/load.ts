/**
 * Loading one server: every lookup checked through it first (preflight), then wrk runs with its CPU
 * time and memory read from /proc while they go.
 */
import { successHead, successTail } from '../../contract/envelope.ts';
import { computeEtag } from '../../contract/manifest.ts';
import type { Configuration } from './configurations.ts';
import type { BenchMixId } from './mixes.ts';
import type { Options } from './options.ts';
import { cpuSeconds, residentKb } from '../support/proc.ts';
import { treePids, type RunningServer } from './servers.ts';
import type { Lookup } from './urls.ts';
import { runWrk, type WrkResult } from './wrk.ts';

/** Runs `task` for every item, `parallel` at a time. */
async function eachLimited<T>(items: readonly T[], parallel: number, task: (item: T) => Promise<void>): Promise<void> {
  let next = 0;
  const worker = async (): Promise<void> => {
    while (next < items.length) await task(items[next++] as T);
  };
  await Promise.all(Array.from({ length: parallel }, worker));
}

/** Bytes an envelope adds around a body: the head with a UUID (36 characters) and the tail. */
const headBytes = Buffer.byteLength(successHead('0'.repeat(36)));
const envelopeBytes = headBytes + Buffer.byteLength(successTail);

/**
 * Every distinct lookup through one server, before any load: nginx and the floor must send the
 * manifest's size (the fixed floor its one body's), the proxies and Fastify answer 200 with the
 * manifest's ETag and the body in the envelope, which proves the query URL finds the same body as
 * the file path. The pread floor's bodies, read from the packs at offsets of its own finding, must
 * also hash to that ETag. Also warms caches and the JIT.
 */
export async function preflight(
  configuration: Configuration,
  lookups: readonly Lookup[],
  headers: Record<string, string>,
  fixedBodyBytes: number,
): Promise<void> {
  const { id, label, server } = configuration;
  const failures: string[] = [];
  const files = id === 'nginx' || id === 'nginx-tuned';
  const enveloped = !files && id !== 'node-floor' && id !== 'node-floor-fixed';
  // fetch asks for gzip and br unless told otherwise, and a compressed answer has another ETag;
  // wrk asks for no coding, so neither does the preflight: it checks what the load is answered.
  const identity = { 'Accept-Encoding': 'identity', ...headers };
  await eachLimited(lookups, 8, async (lookup) => {
    const target = files ? lookup.nginxPath : lookup.proxyPath;
    const response = await fetch(`${server.url}${target}`, { headers: identity }).catch((error: unknown) => error as Error);
    if (response instanceof Error) {
      failures.push(`${target}: ${response.message}`);
      return;
    }
    const body = Buffer.from(await response.arrayBuffer());
    const expected = id === 'node-floor-fixed' ? fixedBodyBytes : lookup.size + (enveloped ? envelopeBytes : 0);
    if (response.status !== 200) failures.push(`${target}: ${response.status} ${body.toString().slice(0, 200)}`);
    else if (enveloped && response.headers.get('etag') !== lookup.etag)
      failures.push(`${target}: ETag ${response.headers.get('etag')}, the manifest says ${lookup.etag} for ${lookup.file}`);
    else if (body.length !== expected) failures.push(`${target}: ${body.length} bytes, expected ${expected} (${lookup.file})`);
    else if (id === 'node-floor-pread' && computeEtag(body.subarray(headBytes, headBytes + lookup.size)) !== lookup.etag)
      failures.push(`${target}: the body read is not ${lookup.file}'s, whose ETag is ${lookup.etag}`);
  });
  if (failures.length > 0) {
    throw new Error(`preflight: ${failures.length} of ${lookups.length} lookups failed on ${label}:\n  ${failures.slice(0, 10).join('\n  ')}`);
  }
}

export type Measured = WrkResult & { cpu: { user: number; system: number }; peak: Record<string, number> };

/** One load run of one mix, with the server's CPU time and memory read from /proc while it goes. */
export async function measure(
  configuration: Configuration,
  mix: BenchMixId,
  options: Options,
  connections: number,
  seconds: number,
  wrk: string,
): Promise<Measured> {
  const pids = treePids(configuration.server);
  const script = configuration.scripts.get(mix);
  if (script === undefined) throw new Error(`${configuration.id} has no wrk script for the ${mix} mix`);
  const cpuTotal = (): { user: number; system: number } =>
    pids.map(cpuSeconds).reduce((sum, times) => ({ user: sum.user + times.user, system: sum.system + times.system }), { user: 0, system: 0 });
  const before = cpuTotal();
  const peak: Record<string, number> = {};
  const sample = (): void => {
    for (const pid of pids) peak[pid] = Math.max(peak[pid] ?? 0, residentKb(pid) ?? 0);
  };
  const sampler = setInterval(sample, 250);
  try {
    const result = await runWrk({ wrk, script, url: configuration.server.url, threads: Math.min(options.threads, connections), connections, seconds });
    sample();
    const after = cpuTotal();
    return { ...result, cpu: { user: after.user - before.user, system: after.system - before.system }, peak };
  } finally {
    clearInterval(sampler);
  }
}

export function rssMb(server: RunningServer): number[] {
  return treePids(server).map((pid) => (residentKb(pid) ?? 0) / 1024);
}

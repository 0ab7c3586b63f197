/**
 * Load with wrk (Debian's 4.1.0): one Lua script per server that walks the sampled request paths
 * round-robin with the server's headers, and prints wrk's own figures as one JSON line at the end.
 *
 * Errors are wrk's counts: socket errors (connect, read, write, timeout) and responses with a status
 * of 400 or more (`summary.errors.status`). A Lua `response` hook would count the same statuses but
 * make wrk hand every body to Lua, slowing the load generator that shares the cores with the servers.
 */
import { spawn } from 'node:child_process';
import { writeFile } from 'node:fs/promises';
import path from 'node:path';

const resultMarker = 'BENCH_RESULT ';

export interface WrkResult {
  readonly requests: number;
  readonly seconds: number;
  readonly requestsPerSecond: number;
  readonly bytes: number;
  readonly p50Ms: number;
  readonly p90Ms: number;
  readonly p99Ms: number;
  readonly maxMs: number;
  readonly errors: { readonly connect: number; readonly read: number; readonly write: number; readonly timeout: number; readonly status: number };
  readonly errorCount: number;
}

/** Paths, tokens and secrets here are printable ASCII (paths are percent-encoded); anything else is a bug. */
function checkPrintable(value: string): string {
  if (!/^[\x20-\x7e]*$/.test(value)) throw new Error(`not printable ASCII, cannot go into the wrk script: ${JSON.stringify(value)}`);
  return value;
}

/** A Lua string literal: for printable ASCII, JSON's quoting is Lua's. */
function luaString(value: string): string {
  return JSON.stringify(checkPrintable(value));
}

/**
 * Writes the paths (one per line) and the Lua script that requests them; returns the script's path.
 * Each wrk thread starts at its own offset in the list, so threads do not request the same body
 * at the same moment.
 */
export async function writeWrkScript(
  dir: string,
  name: string,
  paths: readonly string[],
  headers: Readonly<Record<string, string>>,
  threads: number,
): Promise<string> {
  const pathsFile = path.join(dir, `${name}.paths`);
  await writeFile(pathsFile, `${paths.map(checkPrintable).join('\n')}\n`);
  const headerLines = Object.entries(headers).map(([header, value]) => `  wrk.headers[${luaString(header)}] = ${luaString(value)}`);
  const script = `-- Written by test/bench/wrk.ts for one run of npm run bench.
local paths_file = ${luaString(pathsFile)}
local thread_count = ${threads}
local threads = {}

function setup(thread)
  thread:set("thread_index", #threads)
  table.insert(threads, thread)
end

function init(args)
${headerLines.join('\n')}
  request_list = {}
  for line in io.lines(paths_file) do
    if #line > 0 then request_list[#request_list + 1] = wrk.format("GET", line) end
  end
  position = math.floor(#request_list * thread_index / thread_count)
end

function request()
  position = position + 1
  if position > #request_list then position = 1 end
  return request_list[position]
end

function done(summary, latency, requests)
  local e = summary.errors
  io.write(string.format('${resultMarker}{"requests":%.0f,"durationUs":%.0f,"bytes":%.0f,"p50Us":%.0f,"p90Us":%.0f,"p99Us":%.0f,"maxUs":%.0f,' ..
    '"connect":%.0f,"read":%.0f,"write":%.0f,"status":%.0f,"timeout":%.0f}\\n',
    summary.requests, summary.duration, summary.bytes, latency:percentile(50), latency:percentile(90), latency:percentile(99), latency.max,
    e.connect, e.read, e.write, e.status, e.timeout))
end
`;
  const scriptFile = path.join(dir, `${name}.lua`);
  await writeFile(scriptFile, script, { mode: 0o600 });
  return scriptFile;
}

export interface WrkRun {
  readonly wrk: string;
  readonly script: string;
  readonly url: string;
  readonly threads: number;
  readonly connections: number;
  readonly seconds: number;
}

interface RawResult {
  requests: number;
  durationUs: number;
  bytes: number;
  p50Us: number;
  p90Us: number;
  p99Us: number;
  maxUs: number;
  connect: number;
  read: number;
  write: number;
  status: number;
  timeout: number;
}

/** One bounded run: wrk stops itself after `seconds`, and is killed if it has not 30 s later. */
export function runWrk(run: WrkRun): Promise<WrkResult> {
  const args = ['-t', String(run.threads), '-c', String(run.connections), '-d', `${run.seconds}s`, '--timeout', '10s', '-s', run.script, run.url];
  return new Promise((resolve, reject) => {
    const child = spawn(run.wrk, args, { stdio: ['ignore', 'pipe', 'pipe'] });
    let output = '';
    child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
    const guard = setTimeout(() => child.kill('SIGKILL'), (run.seconds + 30) * 1000);
    child.once('error', reject);
    child.once('exit', (code, signal) => {
      clearTimeout(guard);
      const line = output.split('\n').find((text) => text.startsWith(resultMarker));
      if (code !== 0 || !line) {
        reject(new Error(`wrk ${args.join(' ')} ended with ${code ?? signal} and no result:\n${output.slice(-2000)}`));
        return;
      }
      const raw = JSON.parse(line.slice(resultMarker.length)) as RawResult;
      const seconds = raw.durationUs / 1e6;
      const errors = { connect: raw.connect, read: raw.read, write: raw.write, timeout: raw.timeout, status: raw.status };
      resolve({
        requests: raw.requests,
        seconds,
        requestsPerSecond: raw.requests / seconds,
        bytes: raw.bytes,
        p50Ms: raw.p50Us / 1000,
        p90Ms: raw.p90Us / 1000,
        p99Ms: raw.p99Us / 1000,
        maxMs: raw.maxUs / 1000,
        errors,
        errorCount: Object.values(errors).reduce((sum, count) => sum + count, 0),
      });
    });
  });
}

/** The service as `npm start` runs it with WORKERS > 1: a primary and its workers, in a child process. */
import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import path from 'node:path';
import { freePort } from './programs.ts';
import { repoRoot } from './service.ts';

export interface RunningCluster {
  readonly url: string;
  /** Everything the processes wrote so far, stdout and stderr. */
  output(): string;
  /** Resolves once what the processes wrote satisfies `condition` (checked as output arrives). */
  waitFor(condition: (output: string) => boolean): Promise<void>;
  stop(): Promise<void>;
  /** Sends `signal` (SIGKILL: a crash) and resolves with the exit status once the process has exited (null if a signal ended it). */
  kill(signal: NodeJS.Signals): Promise<number | null>;
}

/** Starts proxy/main.ts with these settings on `port` (a free one if not given); resolves once it says it listens. */
export async function startCluster(settings: NodeJS.ProcessEnv, wantedPort?: number): Promise<RunningCluster> {
  const port = wantedPort ?? (await freePort());
  const child: ChildProcessWithoutNullStreams = spawn(process.execPath, ['--import', 'tsx', path.join(repoRoot, 'proxy/main.ts')], {
    cwd: repoRoot,
    env: { ...process.env, LOG_LEVEL: 'warn', ...settings, PORT: String(port), HOST: '127.0.0.1' },
    stdio: 'pipe',
  });
  let output = '';
  child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
  child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  const kill = (signal: NodeJS.Signals): Promise<number | null> => {
    if (child.exitCode === null && child.signalCode === null) child.kill(signal);
    return exited;
  };
  // SIGINT: a graceful stop without SIGTERM's drain (SHUTDOWN_DELAY_MS), which a test's teardown need not wait for.
  const stop = async (): Promise<void> => void (await kill('SIGINT'));
  await new Promise<void>((resolve, reject) => {
    child.stdout.on('data', () => output.includes('listening on') && resolve());
    child.once('exit', (code) => reject(new Error(`exited with ${code}:\n${output}`)));
  }).catch(async (error: unknown) => {
    await stop();
    throw error;
  });
  const waitFor = (condition: (text: string) => boolean): Promise<void> =>
    new Promise((resolve, reject) => {
      if (condition(output)) return resolve();
      const check = (): void => {
        if (!condition(output)) return;
        child.stdout.off('data', check);
        child.stderr.off('data', check);
        resolve();
      };
      child.stdout.on('data', check);
      child.stderr.on('data', check);
      child.once('exit', (code) => reject(new Error(`exited with ${code} while waiting:\n${output}`)));
    });
  return { url: `http://127.0.0.1:${port}`, output: () => output, waitFor, stop, kill };
}

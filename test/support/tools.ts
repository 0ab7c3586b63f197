/**
 * Tests that need a program the machine may lack (nginx, wrk, Chromium): on a developer's machine
 * they skip loudly; under CI (process.env.CI) a missing program is a failing test, because .ci/run
 * installs it.
 */
import { spawn } from 'node:child_process';
import { it } from 'vitest';
import { repoRoot } from './service.ts';

/** CI=true, CI=1 …, as CI services set it; CI=false or CI=0 is a developer's machine. */
export const inCi = process.env.CI !== undefined && !['', '0', 'false'].includes(process.env.CI.toLowerCase());

/**
 * Called at a test file's top level when `program` is missing: a failing test under CI, else a
 * warning that says what goes untested. `why` says how to install it.
 */
export function reportMissing(file: string, program: string, why: string, untested: string): void {
  if (inCi) {
    it(`${program} is installed: CI must run ${file} with it (.ci/run installs it)`, () => {
      throw new Error(why);
    });
  } else {
    console.warn(`\n**********\n* SKIPPING ${file}: ${why}.\n* ${untested} NOT tested on this machine.\n**********\n`);
  }
}

/** `npm run --silent <script> -- <args>` in the repository, its exit code and its stdout and stderr as one text. */
export function runNpmScript(script: string, args: readonly string[]): Promise<{ code: number | null; output: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn('npm', ['run', '--silent', script, '--', ...args], { cwd: repoRoot, stdio: ['ignore', 'pipe', 'pipe'] });
    let output = '';
    child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
    child.once('error', reject);
    child.once('exit', (code) => resolve({ code, output }));
  });
}

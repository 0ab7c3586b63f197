/**
 * Tests that need a program the machine may lack (nginx, wrk, Chromium): on a developer's machine
 * they skip loudly; under CI (process.env.CI) a missing program is a failing test, because .ci/run
 * installs it.
 */
import { it } from 'vitest';

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

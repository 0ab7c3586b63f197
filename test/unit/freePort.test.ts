import { describe, expect, it } from 'vitest';
import { freePort } from '../support/programs.ts';

describe('freePort (the bench and the system tests pick their loopback ports with it)', () => {
  it('never hands out a port twice in one process, although each probe releases its port at once', async () => {
    // The kernel may give a released port again: two servers of one run then got one port (EADDRINUSE).
    const ports: number[] = [];
    for (let draw = 0; draw < 2_000; draw++) ports.push(await freePort());
    expect(new Set(ports).size).toBe(ports.length);
  });
});

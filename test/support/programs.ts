/**
 * What the tests and the bench share to run real programs: finding a program, and a loopback port
 * nothing listens on.
 */
import { execFileSync } from 'node:child_process';
import { accessSync, constants } from 'node:fs';
import { createServer, type AddressInfo } from 'node:net';

/** A program on PATH, or at one of the usual places (/usr/sbin is not on every user's PATH). */
export function findProgram(name: string, candidates: readonly string[] = []): string | undefined {
  try {
    const found = execFileSync('sh', ['-c', `command -v ${name}`], { encoding: 'utf8' }).trim();
    if (found) return found;
  } catch {
    // not on PATH
  }
  for (const candidate of candidates) {
    try {
      accessSync(candidate, constants.X_OK);
      return candidate;
    } catch {
      // next
    }
  }
  return undefined;
}

/** Ports this process has handed out: a port is free again once its probe closes, long before its server binds it. */
const handedOut = new Set<number>();

function probePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as AddressInfo;
      server.close(() => resolve(port));
    });
  });
}

/**
 * A loopback port nothing listens on, and never one handed out before in this process: the bench
 * takes the metrics port before the proxy's own, and the kernel had given both the same port once
 * (EADDRINUSE at the second start, seen in CI).
 */
export async function freePort(): Promise<number> {
  for (;;) {
    const port = await probePort();
    if (handedOut.has(port)) continue;
    handedOut.add(port);
    return port;
  }
}

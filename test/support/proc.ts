/**
 * What the bench reads from /proc about the servers it runs: their workers, resident memory and CPU
 * time (Linux only, as is the bench).
 */
import { readdirSync, readFileSync } from 'node:fs';

/**
 * The living direct children of a process, from /proc (a worker's parent is its nginx master or
 * cluster primary); with `command`, only those running that program (tsx's esbuild service is a
 * child of a primary run through tsx, and not a worker).
 */
export function childPids(parent: number, command?: string): number[] {
  const children: number[] = [];
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
      // pid (command) state ppid …: the command may hold spaces, so the fields are read after it.
      const name = stat.slice(stat.indexOf('(') + 1, stat.lastIndexOf(')'));
      const [state, ppid] = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      if (Number(ppid) === parent && state !== 'Z' && (command === undefined || name === command)) children.push(Number(entry));
    } catch {
      // exited while listing
    }
  }
  return children.sort((a, b) => a - b);
}

/** Resident memory in KB (VmRSS), or undefined for a process that has gone. */
export function residentKb(pid: number): number | undefined {
  try {
    const match = /^VmRSS:\s+(\d+) kB/m.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
    return match ? Number(match[1]) : undefined;
  } catch {
    return undefined;
  }
}

const clockTicks = 100; // USER_HZ: 100 on every Linux architecture Node supports
/** CPU time in seconds, in user space and in the kernel (system calls: the socket writes), or 0 for a process that has gone. */
export function cpuSeconds(pid: number): { user: number; system: number } {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    // utime and stime are fields 14 and 15 of stat(5), 12 and 13 after the command name.
    return { user: Number(fields[11]) / clockTicks, system: Number(fields[12]) / clockTicks };
  } catch {
    return { user: 0, system: 0 };
  }
}

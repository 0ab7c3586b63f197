/**
 * data/checks/exceptions.json, and any data/checks/exceptions/*.json beside it (one per topic, so a
 * long list stays reviewable): every disagreement with a reference that is known and explained,
 * with the reason and a citation ("Iran: Tasua 2025, the official calendar says …"). A key may end
 * in `*` to cover every disagreement whose key starts with the rest (`UA 2025-*`), for a rule that
 * explains a whole class at once.
 */
import { readdir, readFile } from 'node:fs/promises';
import path from 'node:path';
import { z } from 'zod';
import type { CheckReport, Disagreement } from './check.ts';

export const exceptionSchema = z.strictObject({
  check: z.string().min(1),
  key: z.string().min(1),
  reason: z.string().min(10),
  /** Where the reason can be verified: an official gazette, a statute, a standard's newsletter. */
  citation: z.string().min(5),
});
export type Exception = z.infer<typeof exceptionSchema>;

export const exceptionsFile = (dataDir: string): string => path.join(dataDir, 'checks', 'exceptions.json');

/**
 * data/checks/open.json: the disagreements of a check that are known but not yet explained, and
 * the targets it does not yet meet, written down so that the data tests can hold the line: a
 * disagreement that is neither explained nor listed here fails them, and so does an entry here
 * that no longer disagrees (remove it). `npm run data:check` still reports a check with open
 * entries as failing: open is not explained.
 */
export const openSchema = z.strictObject({
  check: z.string().min(1),
  /** Why these are open, and what explaining them takes. */
  note: z.string().min(10),
  missedTargets: z.array(z.string()),
  keys: z.array(z.string()),
});
export type Open = z.infer<typeof openSchema>;

export const openFile = (dataDir: string): string => path.join(dataDir, 'checks', 'open.json');

export async function readOpen(dataDir: string): Promise<Open[]> {
  const text = await readFile(openFile(dataDir), 'utf8').catch(() => '[]');
  return z.array(openSchema).parse(JSON.parse(text));
}

export async function readExceptions(dataDir: string): Promise<Exception[]> {
  const folder = path.join(dataDir, 'checks', 'exceptions');
  const extra = ((await readdir(folder).catch(() => [])) as string[]).filter((name) => name.endsWith('.json')).sort();
  const files = [exceptionsFile(dataDir), ...extra.map((name) => path.join(folder, name))];
  const exceptions: Exception[] = [];
  for (const file of files) {
    const text = await readFile(file, 'utf8').catch(() => '[]');
    const parsed = z.array(exceptionSchema).safeParse(JSON.parse(text));
    if (!parsed.success) throw new Error(`${file}: ${z.prettifyError(parsed.error)}`);
    exceptions.push(...parsed.data);
  }
  return exceptions;
}

function covers(exception: Exception, disagreement: Disagreement): boolean {
  return exception.key.endsWith('*') ? disagreement.key.startsWith(exception.key.slice(0, -1)) : disagreement.key === exception.key;
}

export interface SortedDisagreements {
  readonly explained: readonly (Disagreement & { readonly reason: string })[];
  /** Not explained, but listed in open.json. */
  readonly open: readonly Disagreement[];
  /** Neither explained nor listed as open: new. */
  readonly unexplained: readonly Disagreement[];
  /** Exceptions of this check that no longer explain anything: the data or the reference changed. */
  readonly stale: readonly Exception[];
  /** Keys open.json lists for this check that no longer disagree, or that an exception now explains. */
  readonly closed: readonly string[];
}

export function sortDisagreements(report: CheckReport, exceptions: readonly Exception[], open: readonly Open[] = []): SortedDisagreements {
  const own = exceptions.filter((exception) => exception.check === report.name);
  const openKeys = new Set(open.filter((entry) => entry.check === report.name).flatMap((entry) => entry.keys));
  const used = new Set<Exception>();
  const stillOpen = new Set<string>();
  const explained: (Disagreement & { reason: string })[] = [];
  const openDisagreements: Disagreement[] = [];
  const unexplained: Disagreement[] = [];
  for (const disagreement of report.disagreements) {
    const exception = own.find((candidate) => covers(candidate, disagreement));
    if (exception) {
      used.add(exception);
      explained.push({ ...disagreement, reason: exception.reason });
    } else if (openKeys.has(disagreement.key)) {
      stillOpen.add(disagreement.key);
      openDisagreements.push(disagreement);
    } else unexplained.push(disagreement);
  }
  return {
    explained,
    open: openDisagreements,
    unexplained,
    stale: own.filter((exception) => !used.has(exception)),
    closed: [...openKeys].filter((key) => !stillOpen.has(key)),
  };
}

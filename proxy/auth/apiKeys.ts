/**
 * API keys: from API_KEYS (comma-separated) and API_KEYS_FILE, one per line:
 *
 *   # comment
 *   <key> [scope …] [origin=<origin> …] [rate=<requests>/<window>]
 *   sha256:<64 hex digits of the key's SHA-256> [scope …] [origin=<origin> …] [rate=<requests>/<window>]
 *
 * A key without scopes may read every area. A key with `origin=` is one a web page may carry: it is
 * accepted only on a request whose Origin is one of those listed (authenticate.ts checkOrigin).
 * `rate=` gives a key a request budget of its own instead of RATE_LIMIT's. Keys are kept only as
 * SHA-256 digests, and a presented token is compared with every one of them through
 * timingSafeEqual, with no early exit, so the time taken says nothing about how close a guess was
 * or which key matched.
 */
import { hash, timingSafeEqual } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import type { Principal } from './principal.ts';
import { apiKeyPattern, type Budget, ConfigError } from '../config/config.ts';
import { budget as budgetSetting } from '../config/settingFields.ts';

interface ApiKeyEntry {
  readonly digest: Buffer;
  readonly principal: Principal;
}

export interface ApiKeyTable {
  readonly size: number;
  /** The key's principal, or undefined; constant time in the token and the table. */
  match(tokenDigest: Buffer): Principal | undefined;
  /** The keys that have a budget of their own (`rate=`), by their principal's budgetKey. */
  readonly ownBudgets: ReadonlyMap<string, Budget>;
  /** Whether any key is bound to web origins (`origin=`): then an answer to a token varies by Origin. */
  readonly originBound: boolean;
}

/** One-shot hashing: half the cost of createHash() for a short token. */
export function sha256(token: string): Buffer {
  return hash('sha256', token, 'buffer');
}

/** A web origin as browsers send it in Origin (`https://app.example.com`, a port only when not the default), or undefined. */
export function originOf(text: string): string | undefined {
  if (!/^https?:\/\/[^/?#\s]+\/?$/i.test(text)) return undefined;
  try {
    const url = new URL(text);
    return url.username === '' && url.password === '' ? url.origin : undefined;
  } catch {
    return undefined;
  }
}

function parseLine(line: string, where: string): ApiKeyEntry | string {
  const [key = '', ...words] = line.split(/\s+/);
  const scopes: string[] = [];
  const origins: string[] = [];
  let budget: Budget | undefined;
  for (const word of words) {
    if (word.startsWith('origin=')) {
      const origin = originOf(word.slice('origin='.length));
      if (origin === undefined)
        return `${where}: ${word} is not a web origin: write origin=https://app.example.com (scheme and host, a port if not the default, no path)`;
      origins.push(origin);
    } else if (word.startsWith('rate=')) {
      const parsed = budgetSetting.safeParse(word.slice('rate='.length));
      if (!parsed.success || parsed.data === undefined) return `${where}: ${word} is not a budget: write rate=<requests>/<window>, such as rate=300/1m`;
      budget = parsed.data;
    } else scopes.push(word);
  }
  const principal = (label: string): Principal => ({
    budgetKey: `key:${label}`,
    scopes: scopes.length > 0 ? new Set(scopes) : 'any',
    expiresAt: undefined,
    origins: origins.length > 0 ? new Set(origins) : undefined,
    budget,
  });
  const hashed = /^sha256:([0-9a-f]{64})$/i.exec(key);
  if (hashed?.[1]) return { digest: Buffer.from(hashed[1], 'hex'), principal: principal(where) };
  if (key.startsWith('sha256:')) return `${where}: expected sha256: followed by 64 hexadecimal digits`;
  if (!apiKeyPattern.test(key)) return `${where}: a key must be at least 16 characters of letters, digits and - . _ ~ + /`;
  return { digest: sha256(key), principal: principal(where) };
}

export async function loadApiKeys(apiKeys: readonly string[], file: string | undefined): Promise<ApiKeyTable> {
  const entries: ApiKeyEntry[] = [];
  const problems: string[] = [];
  apiKeys.forEach((key, index) => {
    const entry = parseLine(key, `API_KEYS #${index + 1}`);
    if (typeof entry === 'string') problems.push(entry);
    else entries.push(entry);
  });
  if (file !== undefined) {
    const text = await readFile(file, 'utf8').catch((error: NodeJS.ErrnoException) => {
      throw new ConfigError([`API_KEYS_FILE ${file} cannot be read (${error.code ?? error.message})`]);
    });
    text.split('\n').forEach((raw, index) => {
      const line = raw.trim();
      if (line === '' || line.startsWith('#')) return;
      const entry = parseLine(line, `API_KEYS_FILE line ${index + 1}`);
      if (typeof entry === 'string') problems.push(entry);
      else entries.push(entry);
    });
  }
  if (problems.length > 0) throw new ConfigError(problems);
  const ownBudgets = new Map<string, Budget>();
  for (const { principal } of entries) if (principal.budget) ownBudgets.set(principal.budgetKey, principal.budget);
  return {
    size: entries.length,
    ownBudgets,
    originBound: entries.some(({ principal }) => principal.origins !== undefined),
    match: (tokenDigest) => {
      let found: Principal | undefined;
      for (const entry of entries) if (timingSafeEqual(tokenDigest, entry.digest) && !found) found = entry.principal;
      return found;
    },
  };
}

/**
 * API keys: from API_KEYS (comma-separated) and API_KEYS_FILE, one per line:
 *
 *   # comment
 *   <key> [scope …]
 *   sha256:<64 hex digits of the key's SHA-256> [scope …]
 *
 * A key without scopes may read every area. Keys are kept only as SHA-256 digests, and a presented
 * token is compared with every one of them through timingSafeEqual, with no early exit, so the
 * time taken says nothing about how close a guess was or which key matched.
 */
import { hash, timingSafeEqual } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import type { Principal } from './principal.ts';
import { apiKeyPattern, ConfigError } from '../config/config.ts';

interface ApiKeyEntry {
  readonly digest: Buffer;
  readonly principal: Principal;
}

export interface ApiKeyTable {
  readonly size: number;
  /** The key's principal, or undefined; constant time in the token and the table. */
  match(tokenDigest: Buffer): Principal | undefined;
}

/** One-shot hashing: half the cost of createHash() for a short token. */
export function sha256(token: string): Buffer {
  return hash('sha256', token, 'buffer');
}

function parseLine(line: string, where: string): ApiKeyEntry | string {
  const [key = '', ...scopes] = line.split(/\s+/);
  const principal = (label: string): Principal => ({ budgetKey: `key:${label}`, scopes: scopes.length > 0 ? new Set(scopes) : 'any', expiresAt: undefined });
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
  return {
    size: entries.length,
    match: (tokenDigest) => {
      let found: Principal | undefined;
      for (const entry of entries) if (timingSafeEqual(tokenDigest, entry.digest) && !found) found = entry.principal;
      return found;
    },
  };
}

/**
 * `npm run bench:auth`: what a token check costs per request, measured side by side in one
 * process, each as a ratio to hashing the token (the floor for any lookup by digest).
 *
 *   API key, first   SHA-256 + constant-time comparison with every configured key (a header not seen before)
 *   API key, again   a remembered header: one LRU lookup
 *   JWT, cold        jose's signature and claims check (a distinct token each call)
 *   JWT, cached      a remembered header: one LRU lookup and a clock read
 */
import { generateKeyPairSync } from 'node:crypto';
import { rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { SignJWT } from 'jose';
import { sha256 } from '../../proxy/auth/apiKeys.ts';
import { createAuthenticator } from '../../proxy/auth/authenticate.ts';
import { loadConfig } from '../../proxy/config/config.ts';

const rounds = Number(process.env.BENCH_ROUNDS ?? 20_000);
const secret = 'benchmark-secret-of-at-least-32-characters';
const rsa = generateKeyPairSync('rsa', { modulusLength: 2048 });

async function time(label: string, calls: number, run: (index: number) => unknown): Promise<{ label: string; microseconds: number }> {
  // A synchronous answer is timed in a plain loop: awaiting it would add a microtask's cost.
  // Indices 0..499 warm up; the timed calls use the next ones, so a cold token is never seen twice.
  const warmUp = 500;
  const synchronous = !(run(0) instanceof Promise);
  const loop = async (from: number, count: number): Promise<void> => {
    if (synchronous) for (let index = from; index < from + count; index++) run(index);
    else for (let index = from; index < from + count; index++) await run(index);
  };
  await loop(1, warmUp - 1);
  const started = process.hrtime.bigint();
  await loop(warmUp, calls);
  const microseconds = Number(process.hrtime.bigint() - started) / 1000 / calls;
  return { label, microseconds };
}

const apiKeys = Array.from({ length: 10 }, (_, index) => `benchmark-api-key-${index}-0123456789`);
const keyFile = path.join(os.tmpdir(), `bench-rsa-${process.pid}.pem`);
await writeFile(keyFile, rsa.publicKey.export({ type: 'spki', format: 'pem' }));
const hsAuth = await createAuthenticator({ auth: loadConfig({ API_KEYS: apiKeys.join(','), JWT_SECRET: secret }).auth });
const rsAuth = await createAuthenticator({ auth: loadConfig({ JWT_PUBLIC_KEY: keyFile }).auth });
await rm(keyFile); // read once at configuration

const coldCalls = Math.max(500, Math.floor(rounds / 10));
const sign = (index: number, key: Uint8Array | import('node:crypto').KeyObject, alg: string): Promise<string> =>
  new SignJWT({ sub: `client-${index}`, scope: 'address.read' }).setProtectedHeader({ alg }).setExpirationTime('1h').sign(key);
const hsTokens = await Promise.all(Array.from({ length: coldCalls + 1000 }, (_, index) => sign(index, new TextEncoder().encode(secret), 'HS256')));
const rsTokens = await Promise.all(Array.from({ length: coldCalls + 1000 }, (_, index) => sign(index, rsa.privateKey, 'RS256')));
const repeated = `Bearer ${hsTokens.at(-1)}`;
await hsAuth(repeated);

// A header is remembered once accepted; each spelling of "Bearer" (any case, RFC 6750) is a header
// of its own, so these are all first sights of the key.
const spellings = Array.from(
  { length: rounds + 500 },
  (_, index) =>
    `${[...'bearer'].map((letter, bit) => ((index >> bit) & 1 ? letter.toUpperCase() : letter)).join('')}${' '.repeat(1 + (index >> 6))}${apiKeys[9]}`,
);
const firstSights = new Set(spellings).size;
const results = [
  await time('sha256 of the token (reference)', rounds, () => sha256(apiKeys[9] as string)),
  await time('API key (10 configured), first sight', Math.min(rounds, firstSights - 500), (index) => hsAuth(spellings[index] as string)),
  await time('API key (10 configured), again', rounds, () => hsAuth(`Bearer ${apiKeys[9]}`)),
  await time('JWT HS256, cached', rounds, () => hsAuth(repeated)),
  await time('JWT HS256, cold (jose)', coldCalls, (index) => hsAuth(`Bearer ${hsTokens[index]}`)),
  await time('JWT RS256, cold (jose)', coldCalls, (index) => rsAuth(`Bearer ${rsTokens[index]}`)),
];
const reference = results[0]?.microseconds ?? 1;
console.log(`auth cost per call, ${rounds} rounds (cold JWT: ${coldCalls}), node ${process.version}, ${os.cpus().length} × ${os.cpus()[0]?.model}`);
for (const { label, microseconds } of results) {
  console.log(`  ${label.padEnd(38)} ${microseconds.toFixed(2).padStart(8)} µs   ${(microseconds / reference).toFixed(1).padStart(6)} × reference`);
}
const cached = results[3]?.microseconds ?? 0;
const cold = results[4]?.microseconds ?? 0;
console.log(`  the cache makes a repeated HS256 token ${(cold / cached).toFixed(0)} × cheaper`);

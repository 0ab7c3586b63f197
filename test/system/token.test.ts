import { execFile } from 'node:child_process';
import { generateKeyPairSync } from 'node:crypto';
import { writeFile } from 'node:fs/promises';
import path from 'node:path';
import { promisify } from 'node:util';
import { decodeJwt, decodeProtectedHeader } from 'jose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunningServer } from '../../proxy/http/server.ts';
import { buildFixture, repoRoot, startProxy, tempDir } from '../support/service.ts';

const run = promisify(execFile);
const tsx = path.join(repoRoot, 'node_modules/.bin/tsx');
const secret = 'an-operator-secret-of-at-least-32-chars';

async function mint(args: string[], environment: Record<string, string>): Promise<string> {
  const { stdout } = await run(tsx, [path.join(repoRoot, 'proxy/mintToken.ts'), ...args], { env: { ...process.env, ...environment } });
  return stdout.trim();
}

describe('npm run token', () => {
  let distDir: string;
  const proxies: RunningServer[] = [];
  beforeAll(async () => {
    distDir = await buildFixture();
  });
  afterAll(() => Promise.all(proxies.map((proxy) => proxy.close())));

  const status = async (proxy: RunningServer, token: string, target: string): Promise<number> =>
    (await fetch(`${proxy.url}${target}`, { headers: { Authorization: `Bearer ${token}` } })).status;

  it('mints an HS256 token from JWT_SECRET that the proxy with the same settings accepts, scopes included', async () => {
    const environment = { JWT_SECRET: secret, JWT_ISSUER: 'https://ops.test', JWT_AUDIENCE: 'refdata', FINANCE_SCOPE: 'finance.read' };
    const token = await mint(['--sub', 'billing-service', '--scope', 'finance.read', '--ttl', '15m'], environment);
    expect(decodeProtectedHeader(token)).toEqual({ alg: 'HS256', typ: 'JWT' });
    const claims = decodeJwt(token);
    expect(claims).toMatchObject({ sub: 'billing-service', scope: 'finance.read', iss: 'https://ops.test', aud: 'refdata' });
    expect((claims.exp ?? 0) - (claims.iat ?? 0)).toBe(900);
    const proxy = await startProxy(distDir, environment);
    proxies.push(proxy);
    expect(await status(proxy, token, '/financemanagement/api/currency/getall')).toBe(200);
    const unscoped = await mint(['--sub', 'billing-service'], environment);
    expect(await status(proxy, unscoped, '/financemanagement/api/currency/getall')).toBe(403);
  });

  it('signs with a private key file, choosing the algorithm from the key', async () => {
    const keys = generateKeyPairSync('ec', { namedCurve: 'P-384' });
    const directory = await tempDir('mint-');
    const privateFile = path.join(directory, 'private.pem');
    const publicFile = path.join(directory, 'public.pem');
    await writeFile(privateFile, keys.privateKey.export({ type: 'pkcs8', format: 'pem' }));
    await writeFile(publicFile, keys.publicKey.export({ type: 'spki', format: 'pem' }));
    const token = await mint(['--sub', 'address-form', '--key', privateFile, '--kid', 'ops-2026'], {});
    expect(decodeProtectedHeader(token)).toEqual({ alg: 'ES384', typ: 'JWT', kid: 'ops-2026' });
    const proxy = await startProxy(distDir, { JWT_PUBLIC_KEY: publicFile });
    proxies.push(proxy);
    expect(await status(proxy, token, '/addressmanagement/api/region/getall')).toBe(200);
  });

  it('says what is missing instead of minting an unusable token', async () => {
    const failure = await mint(['--sub', 'x'], { JWT_SECRET: '' }).catch((error: { stderr: string; code: number }) => error);
    expect(failure).toMatchObject({ code: 2, stderr: expect.stringContaining('set JWT_SECRET, or give a private key with --key FILE or JWT_PRIVATE_KEY') });
    const noSubject = await mint([], { JWT_SECRET: secret }).catch((error: { stderr: string }) => error);
    expect(noSubject).toMatchObject({ stderr: expect.stringContaining('--sub NAME is required') });
    const tooLong = await mint(['--sub', 'x', '--ttl', '7d'], { JWT_SECRET: secret, JWT_MAX_LIFETIME: '' }).catch(
      (error: { stderr: string; code: number }) => error,
    );
    expect(tooLong).toMatchObject({
      code: 2,
      stderr: expect.stringContaining('--ttl 7d is longer than JWT_MAX_LIFETIME (86400 s): the proxy would refuse the token'),
    });
    const allowed = await mint(['--sub', 'x', '--ttl', '7d'], { JWT_SECRET: secret, JWT_MAX_LIFETIME: '604800' });
    expect((decodeJwt(allowed).exp ?? 0) - (decodeJwt(allowed).iat ?? 0)).toBe(604_800);
  });
});

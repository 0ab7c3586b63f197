/**
 * The documented token walkthrough (docs/authentication.md) ("Minting tokens yourself"), run as a user pastes it: the lines
 * between its walkthrough markers, in bash from the repository's folder. Only the port differs
 * (a free one instead of 8080), and the build served is the fixture's (DIST_DIR), so that
 * `npm start` does not build the real data first.
 */
import { execFile } from 'node:child_process';
import net from 'node:net';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import { freePort } from '../support/programs.ts';
import { readmeBlock } from '../support/readme.ts';
import { buildFixture, repoRoot } from '../support/service.ts';

describe('the token walkthrough of docs/authentication.md', () => {
  it('works pasted in order: the proxy starts with the secret, the minted token reads the lira, and kill stops the proxy', { timeout: 120_000 }, async () => {
    const port = await freePort();
    const script = readmeBlock('walkthrough', 'its walkthrough');
    expect(script).toContain('8080');
    const environment: NodeJS.ProcessEnv = { ...process.env, PORT: String(port), DIST_DIR: await buildFixture(), WORKERS: '2', LOG_LEVEL: 'warn' };
    for (const name of ['JWT_SECRET', 'API_KEYS', 'API_KEYS_FILE', 'JWT_PUBLIC_KEY', 'JWKS_URL', 'FINANCE_SCOPE', 'ADDRESS_SCOPE']) delete environment[name];
    const { stdout } = await promisify(execFile)('bash', ['-e', '-c', script.replaceAll('8080', String(port))], {
      cwd: repoRoot,
      env: environment,
      timeout: 100_000,
    });
    const envelope = JSON.parse(stdout.slice(stdout.indexOf('{"header"'), stdout.lastIndexOf('}') + 1)) as {
      header: { isSuccess: boolean };
      body: { code: string; name: string };
    };
    expect(envelope.header.isSuccess).toBe(true);
    expect(envelope.body).toMatchObject({ code: 'TRY', name: 'Turkish Lira' });
    // `kill %1` stopped the proxy (npm start execs node, so the signal reaches it): the port is free again.
    const probe = net.createServer();
    await new Promise<void>((resolve, reject) => {
      const tryListen = (attempt: number): void => {
        probe.once('error', (error) => (attempt < 50 ? setTimeout(() => tryListen(attempt + 1), 100) : reject(error)));
        probe.listen(port, '127.0.0.1', () => resolve());
      };
      tryListen(0);
    });
    await new Promise((resolve) => probe.close(resolve));
  });
});

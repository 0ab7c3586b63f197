import http from 'node:http';
import { BlockList, type AddressInfo } from 'node:net';
import { spawn, type ChildProcess } from 'node:child_process';
import { readFile, stat } from 'node:fs/promises';
import { availableParallelism } from 'node:os';
import path from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from '../../proxy/config/config.ts';
import { buildFixture, fixtureData, repoRoot, tempDir } from '../support/service.ts';

const tsx = path.join(repoRoot, 'node_modules/.bin/tsx');

interface Started {
  child: ChildProcess;
  output: () => string;
}

/** Runs a TypeScript script with tsx, in `cwd`, with only the given settings of ours in the environment. */
function run(script: string, args: string[], cwd: string, settings: Record<string, string>): Started {
  return runCommand(tsx, [path.join(repoRoot, script), ...args], cwd, settings);
}

function runCommand(command: string, args: string[], cwd: string, settings: Record<string, string>): Started {
  const environment = { ...process.env };
  for (const name of ['PORT', 'HOST', 'DIST_DIR', 'API_KEYS', 'NODE_ENV', 'WORKERS']) delete environment[name];
  const child = spawn(command, args, { cwd, env: { ...environment, ...settings }, stdio: 'pipe' });
  let output = '';
  child.stdout?.on('data', (chunk) => (output += chunk.toString()));
  child.stderr?.on('data', (chunk) => (output += chunk.toString()));
  return { child, output: () => output };
}

function waitFor(started: Started, pattern: RegExp): Promise<RegExpMatchArray> {
  return new Promise((resolve, reject) => {
    const check = (): void => {
      const match = started.output().match(pattern);
      if (match) resolve(match);
    };
    started.child.stdout?.on('data', check);
    started.child.once('exit', (code) => reject(new Error(`exited with ${code} before printing ${pattern}:\n${started.output()}`)));
    check();
  });
}

function exitOf(started: Started): Promise<number | null> {
  return new Promise((resolve) => started.child.once('exit', (code) => resolve(code)));
}

describe('npm start', () => {
  let distDir: string;
  beforeAll(async () => {
    distDir = await buildFixture();
  });

  it('with no auth setting makes a development key, keeps it in .dev-token and prints a working curl line', async () => {
    const cwd = await tempDir();
    const first = run('proxy/main.ts', [], cwd, { PORT: '0', DIST_DIR: distDir });
    const [, token, url] = await waitFor(
      first,
      /curl -H "Authorization: Bearer (\S+)" "(http:\/\/127\.0\.0\.1:\d+)\/addressmanagement\/api\/country\/getbyalpha2code\?alpha2code=TR"/,
    );
    expect((await readFile(path.join(cwd, '.dev-token'), 'utf8')).trim()).toBe(token);
    expect((await stat(path.join(cwd, '.dev-token'))).mode & 0o777).toBe(0o600);
    const reply = await fetch(`${url}/addressmanagement/api/country/getbyalpha2code?alpha2code=TR`, { headers: { Authorization: `Bearer ${token}` } });
    expect(reply.status).toBe(200);
    expect(((await reply.json()) as { body: { name: string } }).body.name).toBe('Türkiye');
    first.child.kill('SIGTERM');
    expect(await exitOf(first)).toBe(0);

    const second = run('proxy/main.ts', [], cwd, { PORT: '0', DIST_DIR: distDir });
    const [, reused] = await waitFor(second, /Bearer (\S+)"/);
    expect(reused).toBe(token);
    second.child.kill('SIGTERM');
    await exitOf(second);
  });

  it('runs as npm start runs it: the bundle npm run build:proxy writes, two workers under cluster', { timeout: 60_000 }, async () => {
    await new Promise<void>((resolve, reject) =>
      spawn('npm', ['run', '--silent', 'build:proxy'], { cwd: repoRoot, stdio: 'inherit' }).once('exit', (code) =>
        code === 0 ? resolve() : reject(new Error(`build:proxy exited ${code}`)),
      ),
    );
    const bundle = path.join(repoRoot, '.proxy-build', 'main.mjs');
    const started = runCommand(process.execPath, [bundle], await tempDir(), { PORT: '0', DIST_DIR: distDir, API_KEYS: 'bundle-key-0123456789', WORKERS: '2' });
    const [, url] = await waitFor(started, /listening on (http:\/\/\S+) /);
    const reply = await fetch(`${url}/addressmanagement/api/country/getbyalpha2code?alpha2code=tr`, {
      headers: { Authorization: 'Bearer bundle-key-0123456789' },
    });
    expect(reply.status).toBe(200);
    expect(((await reply.json()) as { body: { name: string } }).body.name).toBe('Türkiye');
    started.child.kill('SIGTERM');
    expect(await exitOf(started)).toBe(0);
  });

  it('a port another process holds is one line and exit status 1, with one worker or two', async () => {
    const holder = http.createServer();
    await new Promise<void>((resolve) => holder.listen(0, '127.0.0.1', resolve));
    const { port } = holder.address() as AddressInfo;
    try {
      for (const workers of ['1', '2']) {
        const started = run('proxy/main.ts', [], await tempDir(), {
          PORT: String(port),
          HOST: '127.0.0.1',
          DIST_DIR: distDir,
          API_KEYS: 'test-key-0123456789abcdef',
          WORKERS: workers,
          LOG_LEVEL: 'warn',
        });
        expect(await exitOf(started), workers).toBe(1);
        expect(started.output(), workers).toBe(
          `cannot start: 127.0.0.1:${port} is already in use by another process: stop it, or set PORT (and HOST) to a free address\n`,
        );
      }
    } finally {
      await new Promise<void>((resolve) => holder.close(() => resolve()));
    }
  });

  it('with API_KEYS accepts those keys and makes no development key', async () => {
    const cwd = await tempDir();
    const started = run('proxy/main.ts', [], cwd, { PORT: '0', DIST_DIR: distDir, API_KEYS: 'first-key-0123456789, second-key-0123456789' });
    const [, url] = await waitFor(started, /listening on (http:\/\/\S+) /);
    const status = async (token: string): Promise<number> =>
      (await fetch(`${url}/addressmanagement/api/region/getall`, { headers: { Authorization: `Bearer ${token}` } })).status;
    expect(await status('second-key-0123456789')).toBe(200);
    expect(await status('first-key-0123456789')).toBe(200);
    expect(await status('third-key-0123456789')).toBe(401);
    await expect(stat(path.join(cwd, '.dev-token'))).rejects.toThrow();
    started.child.kill('SIGTERM');
    await exitOf(started);
  });

  it.each([
    [{ PORT: 'abc' }, 'cannot start: invalid configuration:\n- PORT must be a whole number from 0 to 65535 (got "abc")'],
    [{ PORT: '70000' }, '- PORT must be a whole number from 0 to 65535 (got "70000")'],
    [{ API_KEYS: 'short' }, '- API_KEYS must hold keys of at least 16 characters each, separated by commas\n'],
    [{ NODE_ENV: 'production' }, '- no way to accept tokens is configured: set API_KEYS, API_KEYS_FILE, JWT_SECRET, JWT_PUBLIC_KEY or JWKS_URL'],
    [{ DIST_DIR: '/nonexistent/dist' }, 'cannot start: /nonexistent/dist does not exist: run "npm run build" first, or set DIST_DIR'],
  ])('refuses to start with %o, saying exactly why', async (settings, message) => {
    const started = run('proxy/main.ts', [], await tempDir(), { PORT: '0', DIST_DIR: distDir, ...settings });
    expect(await exitOf(started)).toBe(1);
    expect(started.output()).toContain(message);
  });

  it('builds dist/ first when it is missing, and only then (npm prestart)', async () => {
    const target = path.join(await tempDir(), 'dist');
    const build = (): Started => run('generator/build.ts', ['--if-missing', '--data', fixtureData, '--dist', target], repoRoot, {});
    const first = build();
    expect(await exitOf(first)).toBe(0);
    expect(first.output()).toContain('has no build yet: building it');
    const manifest = await readFile(path.join(target, 'manifest.json'), 'utf8');
    const second = build();
    expect(await exitOf(second)).toBe(0);
    expect(second.output()).toBe('');
    expect(await readFile(path.join(target, 'manifest.json'), 'utf8')).toBe(manifest);
  });
});

describe('configuration', () => {
  it('has the documented defaults', () => {
    expect(loadConfig({})).toEqual({
      port: 8080,
      host: '127.0.0.1',
      distDir: 'dist',
      auth: { apiKeys: [], apiKeysFile: undefined, jwt: undefined, scopes: { financemanagement: undefined, addressmanagement: undefined } },
      corsOrigins: '*',
      origin: undefined,
      workers: availableParallelism(),
      bodyCacheBytes: 64 * 1024 * 1024,
      indexCacheBytes: 32 * 1024 * 1024,
      shutdownDelayMs: 3000,
      limits: { perToken: undefined, authFailures: { points: 100, seconds: 60 }, anonymous: { points: 600, seconds: 60 }, trustedProxies: undefined },
      logLevel: 'info',
      production: false,
    });
  });

  it('reads every setting, treating empty variables as unset', () => {
    expect(
      loadConfig({
        PORT: '9000',
        HOST: '0.0.0.0',
        DIST_DIR: '/srv/dist',
        API_KEYS: ' a-key-of-sixteen-chars ,, another-key-0123456 ',
        API_KEYS_FILE: '/etc/refdata/keys',
        JWKS_URL: 'https://id.example.com/.well-known/jwks',
        JWT_ISSUER: 'https://id.example.com',
        JWT_AUDIENCE: 'refdata, refdata-admin',
        JWT_CLOCK_TOLERANCE: '30',
        JWT_MAX_LIFETIME: '7200',
        FINANCE_SCOPE: 'finance.read',
        ADDRESS_SCOPE: 'address.read',
        CORS_ORIGINS: 'https://app.example.com, https://admin.example.com',
        ORIGIN_URL: 'http://10.0.0.5:8081/dist/',
        ORIGIN_HEADER: 'X-Origin-Secret: s3cr3t value',
        ORIGIN_CACHE_DIR: '/var/cache/refdata',
        WORKERS: '4',
        BODY_CACHE_MB: '128',
        INDEX_CACHE_MB: '32',
        SHUTDOWN_DELAY_MS: '10000',
        RATE_LIMIT: '600/1m',
        AUTH_FAILURE_LIMIT: '50/30',
        ANONYMOUS_LIMIT: '120/1m',
        TRUSTED_PROXIES: '10.0.0.0/8, 2001:db8::1',
        LOG_LEVEL: 'warn',
        NODE_ENV: 'production',
      }),
    ).toEqual({
      port: 9000,
      host: '0.0.0.0',
      distDir: '/srv/dist',
      auth: {
        apiKeys: ['a-key-of-sixteen-chars', 'another-key-0123456'],
        apiKeysFile: '/etc/refdata/keys',
        jwt: {
          secret: undefined,
          publicKeyFile: undefined,
          jwksUrl: new URL('https://id.example.com/.well-known/jwks'),
          issuer: 'https://id.example.com',
          audience: ['refdata', 'refdata-admin'],
          clockToleranceSeconds: 30,
          maxLifetimeSeconds: 7200,
        },
        scopes: { financemanagement: 'finance.read', addressmanagement: 'address.read' },
      },
      corsOrigins: new Set(['https://app.example.com', 'https://admin.example.com']),
      origin: { url: new URL('http://10.0.0.5:8081/dist/'), header: ['X-Origin-Secret', 's3cr3t value'], cacheDir: '/var/cache/refdata' },
      workers: 4,
      bodyCacheBytes: 128 * 1024 * 1024,
      indexCacheBytes: 32 * 1024 * 1024,
      shutdownDelayMs: 10_000,
      limits: {
        perToken: { points: 600, seconds: 60 },
        authFailures: { points: 50, seconds: 30 },
        anonymous: { points: 120, seconds: 60 },
        trustedProxies: expect.any(BlockList),
      },
      logLevel: 'warn',
      production: true,
    });
    expect(loadConfig({ TRUSTED_PROXIES: '10.0.0.0/8, 2001:db8::1' }).limits.trustedProxies?.rules).toEqual([
      'Subnet: IPv6 2001:db8::1/128',
      'Subnet: IPv4 10.0.0.0/8',
    ]);
    expect(loadConfig({ PORT: '', API_KEYS: '' }).port).toBe(8080);
  });

  it('reports every bad setting at once', () => {
    const error = (() => {
      try {
        loadConfig({
          PORT: '-1',
          HOST: ' ',
          API_KEYS: 'has space inside the key',
          WORKERS: '0',
          ORIGIN_HEADER: 'no colon',
          BODY_CACHE_MB: '0',
          INDEX_CACHE_MB: '2',
          SHUTDOWN_DELAY_MS: '3s',
        });
      } catch (caught) {
        return caught;
      }
    })();
    expect(error).toBeInstanceOf(ConfigError);
    expect((error as ConfigError).problems).toEqual([
      'PORT must be a whole number from 0 to 65535 (got "-1")',
      'HOST must not be empty (got " ")',
      'API_KEYS must hold keys of letters, digits and - . _ ~ + / only',
      'ORIGIN_HEADER must look like "Name: value", e.g. "X-Origin-Secret: 4f1c…"',
      'WORKERS must be a whole number of processes from 1 to 999 (got "0")',
      'BODY_CACHE_MB must be a whole number of megabytes from 1 to 99999 (got "0")',
      'INDEX_CACHE_MB must be a whole number of megabytes from 4 to 99999 (got "2")',
      'SHUTDOWN_DELAY_MS must be a whole number of milliseconds from 0 to 600000 (10 minutes), e.g. 3000 (got "3s")',
    ]);
  });

  it('SHUTDOWN_DELAY_MS: 0 stops without draining; more than 10 minutes is refused', () => {
    expect(loadConfig({ SHUTDOWN_DELAY_MS: '0' }).shutdownDelayMs).toBe(0);
    expect(() => loadConfig({ SHUTDOWN_DELAY_MS: '600001' })).toThrow(/SHUTDOWN_DELAY_MS must be a whole number of milliseconds from 0 to 600000/);
  });
});

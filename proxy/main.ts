/**
 * `npm start`: configuration, the development key when no auth is configured, the body store,
 * then the server, with a graceful stop on SIGTERM and SIGINT.
 */
import { randomBytes } from 'node:crypto';
import { readFile, writeFile } from 'node:fs/promises';
import { createAuthenticator } from './auth.ts';
import { ConfigError, hasAuthSetting, loadConfig, type Config } from './config.ts';
import { startServer } from './server.ts';
import { openStore, StoreError } from './store.ts';

const devTokenFile = '.dev-token';

/**
 * With no auth setting at all, outside production, a random key is made once, kept in .dev-token
 * (git-ignored) and reused on later starts, so a fresh clone runs with `npm start` alone.
 */
async function developmentKey(): Promise<string> {
  const existing = (await readFile(devTokenFile, 'utf8').catch(() => '')).trim();
  if (existing.length >= 16) return existing;
  const key = `dev-${randomBytes(24).toString('base64url')}`;
  await writeFile(devTokenFile, `${key}\n`, { mode: 0o600 });
  return key;
}

/** The development key when no auth setting is given at all; production refuses to run that way. */
async function developmentKeyFor(config: Config): Promise<string | undefined> {
  if (hasAuthSetting(config)) return undefined;
  if (config.production) {
    throw new ConfigError([
      'no way to accept tokens is configured: set API_KEYS, API_KEYS_FILE, JWT_SECRET, JWT_PUBLIC_KEY or JWKS_URL (NODE_ENV=production makes no development key)',
    ]);
  }
  return developmentKey();
}

async function main(): Promise<void> {
  const config = loadConfig();
  const devKey = await developmentKeyFor(config);
  const authenticate = await createAuthenticator({ auth: config.auth, extraKeys: devKey ? [devKey] : [] });
  const store = await openStore(config.distDir);
  const running = await startServer({ store, authenticate, scopes: config.auth.scopes }, config.port, config.host);
  const { buildId, dataVersion } = store.manifest;
  console.log(`reference data service listening on ${running.url} (build ${buildId}, data ${dataVersion})`);
  if (devKey) {
    console.log(`no auth setting given: using the development key in ${devTokenFile}. Try:`);
    console.log(`  curl -H "Authorization: Bearer ${devKey}" "${running.url}/addressmanagement/api/country/getbyalpha2code?alpha2code=TR"`);
  }
  const stop = (signal: string): void => {
    console.log(`${signal}: finishing open requests, then stopping`);
    void running.close().then(() => process.exit(0));
  };
  process.once('SIGTERM', stop);
  process.once('SIGINT', stop);
}

main().catch((error: unknown) => {
  const known = error instanceof ConfigError || error instanceof StoreError;
  console.error(known ? `cannot start: ${error.message}` : error);
  process.exit(1);
});

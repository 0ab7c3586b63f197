/**
 * Configuration enters here, once, from the environment, and is validated at start: a bad value
 * stops the process with a message naming the variable and the expected form, never a 500 later.
 */
import { z } from 'zod';

const port = z
  .string()
  .regex(/^\d{1,5}$/, 'must be a whole number from 0 to 65535')
  .transform(Number)
  .refine((value) => value <= 65535, 'must be a whole number from 0 to 65535');

const apiKeys = z
  .string()
  .transform((text) => text.split(',').map((key) => key.trim()).filter((key) => key.length > 0))
  .refine((keys) => keys.every((key) => key.length >= 16), 'must hold keys of at least 16 characters each, separated by commas')
  .refine((keys) => keys.every((key) => /^[\x21-\x7e]+$/.test(key)), 'must hold keys of printable ASCII characters without spaces');

const environmentSchema = z.object({
  PORT: port.default(8080),
  HOST: z.string().trim().min(1, 'must not be empty').default('127.0.0.1'),
  DIST_DIR: z.string().trim().min(1, 'must not be empty').default('dist'),
  API_KEYS: apiKeys.optional(),
  NODE_ENV: z.string().optional(),
});

const secretSettings = new Set(['API_KEYS']);

export interface Config {
  readonly port: number;
  readonly host: string;
  readonly distDir: string;
  /** Accepted bearer tokens; empty when none is configured (see main.ts for the development key). */
  readonly apiKeys: readonly string[];
  readonly production: boolean;
}

export class ConfigError extends Error {
  constructor(readonly problems: readonly string[]) {
    super(`invalid configuration:\n- ${problems.join('\n- ')}`);
    this.name = 'ConfigError';
  }
}

export function loadConfig(environment: NodeJS.ProcessEnv = process.env): Config {
  // An empty variable means "not set", as in most shells' `VAR= command`.
  const present = Object.fromEntries(Object.entries(environment).filter(([, value]) => value !== ''));
  const result = environmentSchema.safeParse(present);
  if (!result.success) {
    throw new ConfigError(
      result.error.issues.map((issue) => {
        const name = String(issue.path[0]);
        // A secret is never echoed, not even a wrong one: it may be a real key with a typo.
        const got = secretSettings.has(name) ? '' : ` (got ${JSON.stringify(environment[name])})`;
        return `${name} ${issue.message}${got}`;
      }),
    );
  }
  const settings = result.data;
  return {
    port: settings.PORT,
    host: settings.HOST,
    distDir: settings.DIST_DIR,
    apiKeys: settings.API_KEYS ?? [],
    production: settings.NODE_ENV === 'production',
  };
}

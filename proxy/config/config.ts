/**
 * Configuration enters here, once, from the environment, and is validated at start: a bad value
 * stops the process with a message naming the variable and the expected form, never a 500 later.
 * Files named by the settings (API_KEYS_FILE, JWT_PUBLIC_KEY) are read by the modules that use
 * them, also at start.
 */
import type { BlockList } from 'node:net';
import { availableParallelism } from 'node:os';
import { z } from 'zod';
import { ProblemsError } from '../../contract/errors.ts';
import { bucketBaseUrl, parseS3Url, resolveS3Bucket, s3Settings, type S3Bucket } from '../store/s3.ts';
import { addressList, apiKeys, type Budget, budget, commaList, nonEmpty, port, trustedProxyList } from './settingFields.ts';

export { apiKeyPattern, type Budget } from './settingFields.ts';

/** Failed token checks allowed per client address by default: far more than a client with a stale token makes, far too few to guess one. */
export const defaultAuthFailureLimit = '100/60';

/**
 * Requests without a token (the calendars) per client address: far more than any calendar app
 * refreshes, far less than a flood.
 */
export const defaultAnonymousLimit = '600/60';

/** 24 hours: the longest default access-token lifetime among common identity providers (Auth0). */
export const defaultJwtMaxLifetimeSeconds = 86_400;

/** Bodies kept in memory per worker (BODY_CACHE_MB): every small body and the popular large ones, far below a worker's memory budget. */
export const defaultBodyCacheMb = 64;

/**
 * Lookup index shards kept in memory per worker in origin mode (INDEX_CACHE_MB): those fetched
 * from the origin and not yet saved in ORIGIN_CACHE_DIR, or every one fetched where the copy is
 * off. A local build's index is read in place and never held.
 */
export const defaultIndexCacheMb = 32;

/**
 * How long a stopping process keeps serving while /readyz answers 503 (SHUTDOWN_DELAY_MS): long
 * enough for deploy/haproxy.cfg's checks (`inter 1s fall 2`) to fail twice and take it out, plus
 * one interval for a check already under way.
 */
export const defaultShutdownDelayMs = 3_000;

const environmentSchema = z.object({
  PORT: port.default(8080),
  HOST: nonEmpty.default('127.0.0.1'),
  METRICS_PORT: port.optional(),
  METRICS_HOST: nonEmpty.default('127.0.0.1'),
  DIST_DIR: nonEmpty.default('dist'),
  API_KEYS: apiKeys.optional(),
  API_KEYS_FILE: nonEmpty.optional(),
  JWT_SECRET: z.string().min(32, 'must be at least 32 characters (256 bits) for HS256, per RFC 7518 §3.2').optional(),
  JWT_PUBLIC_KEY: nonEmpty.optional(),
  JWKS_URL: z.url({ protocol: /^https?$/, message: 'must be an http(s) URL of a JSON Web Key Set' }).optional(),
  JWT_ISSUER: nonEmpty.optional(),
  JWT_AUDIENCE: commaList.optional(),
  JWT_CLOCK_TOLERANCE: z
    .string()
    .regex(/^\d{1,4}$/, 'must be a whole number of seconds from 0 to 9999')
    .transform(Number)
    .default(60),
  JWT_MAX_LIFETIME: z
    .string()
    .regex(/^\d{1,9}$/, 'must be a whole number of seconds from 0 (no limit) to 999999999')
    .transform(Number)
    .default(defaultJwtMaxLifetimeSeconds),
  FINANCE_SCOPE: nonEmpty.optional(),
  ADDRESS_SCOPE: nonEmpty.optional(),
  CORS_ORIGINS: commaList.default(['*']),
  ORIGIN_URL: z
    .string()
    .trim()
    .refine(
      (text) => parseS3Url(text) !== undefined || (URL.canParse(text) && /^https?:$/.test(new URL(text).protocol)),
      'must be the http(s) URL of the static host serving dist/, or s3://<bucket>/<prefix> for a private bucket',
    )
    .optional(),
  ORIGIN_HEADER: z
    .string()
    .regex(/^[A-Za-z0-9-]+: *\S.*$/, 'must look like "Name: value", e.g. "X-Origin-Secret: 4f1c…"')
    .optional(),
  ORIGIN_CACHE_DIR: nonEmpty.default('.origin-cache'),
  ...s3Settings,
  WORKERS: z
    .string()
    .regex(/^\d{1,3}$/, 'must be a whole number of processes from 1 to 999')
    .transform(Number)
    .refine((value) => value >= 1, 'must be a whole number of processes from 1 to 999')
    .optional(),
  BODY_CACHE_MB: z
    .string()
    .regex(/^\d{1,5}$/, 'must be a whole number of megabytes from 1 to 99999')
    .transform(Number)
    .refine((value) => value >= 1, 'must be a whole number of megabytes from 1 to 99999')
    .default(defaultBodyCacheMb),
  INDEX_CACHE_MB: z
    .string()
    .regex(/^\d{1,5}$/, 'must be a whole number of megabytes from 4 to 99999')
    .transform(Number)
    .refine((value) => value >= 4, 'must be a whole number of megabytes from 4 to 99999')
    .default(defaultIndexCacheMb),
  SHUTDOWN_DELAY_MS: z
    .string()
    .regex(/^\d{1,6}$/, 'must be a whole number of milliseconds from 0 to 600000 (10 minutes), e.g. 3000')
    .transform(Number)
    .refine((value) => value <= 600_000, 'must be a whole number of milliseconds from 0 to 600000 (10 minutes), e.g. 3000')
    .default(defaultShutdownDelayMs),
  RATE_LIMIT: budget.optional(),
  AUTH_FAILURE_LIMIT: budget.prefault(defaultAuthFailureLimit),
  ANONYMOUS_LIMIT: budget.prefault(defaultAnonymousLimit),
  TRUSTED_PROXIES: addressList.optional(),
  LOG_LEVEL: z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('info'),
  NODE_ENV: z.string().optional(),
});

/** Every environment variable the service reads (docs/configuration.md's table lists each). */
export const settingNames: readonly string[] = Object.keys(environmentSchema.shape);

/** Values never echoed in a message, not even wrong ones: a typo'd secret is still mostly a secret. */
const secretSettings = new Set(['API_KEYS', 'JWT_SECRET', 'ORIGIN_HEADER', 'AWS_SECRET_ACCESS_KEY', 'AWS_SESSION_TOKEN']);

export interface JwtConfig {
  /** HS256/384/512 shared secret. */
  readonly secret: string | undefined;
  /** Path of a PEM (public key or certificate) or JWK / JWK Set file. */
  readonly publicKeyFile: string | undefined;
  /** Remote JWK Set of an identity provider. */
  readonly jwksUrl: URL | undefined;
  readonly issuer: string | undefined;
  readonly audience: readonly string[] | undefined;
  readonly clockToleranceSeconds: number;
  /** The longest a token may live, from now and from its `iat`; 0 for no limit. */
  readonly maxLifetimeSeconds: number;
}

export interface Config {
  readonly port: number;
  readonly host: string;
  readonly distDir: string;
  readonly auth: {
    /** Accepted API keys from API_KEYS; empty when none is configured. */
    readonly apiKeys: readonly string[];
    readonly apiKeysFile: string | undefined;
    /** Undefined when no JWT setting is given. */
    readonly jwt: JwtConfig | undefined;
    /** The scope each area requires, by the path's first segment; undefined means none. */
    readonly scopes: Readonly<Record<'financemanagement' | 'addressmanagement', string | undefined>>;
  };
  /** `*`, or the browser origins allowed to read responses. */
  readonly corsOrigins: '*' | ReadonlySet<string>;
  /** Origin mode: bodies from this static host instead of distDir. */
  readonly origin:
    | {
        /** Where the origin's files are: the static host, or the bucket's objects under its prefix. */
        readonly url: URL;
        readonly header: readonly [string, string] | undefined;
        /** A private bucket: every request signed (SigV4) with these credentials; undefined for a plain static host. */
        readonly s3: S3Bucket | undefined;
        /** The local copy of the origin's manifest and bodies (originCopy.ts); undefined with `off`. */
        readonly cacheDir: string | undefined;
      }
    | undefined;
  /** Prometheus metrics on their own listener (loopback by default); undefined when METRICS_PORT is unset. */
  readonly metrics: { readonly port: number; readonly host: string } | undefined;
  /** Processes serving requests (node:cluster); 1 runs without a cluster. */
  readonly workers: number;
  readonly bodyCacheBytes: number;
  /** Lookup index shards kept in memory (INDEX_CACHE_MB). */
  readonly indexCacheBytes: number;
  /** On SIGTERM, how long /readyz answers 503 while everything else is still served, before the listener closes. */
  readonly shutdownDelayMs: number;
  readonly limits: {
    /** Requests per token (RATE_LIMIT); undefined when off. */
    readonly perToken: Budget | undefined;
    /** Invalid tokens per client address (AUTH_FAILURE_LIMIT); undefined when off. */
    readonly authFailures: Budget | undefined;
    /** Requests without a token per client address (ANONYMOUS_LIMIT); undefined when off. */
    readonly anonymous: Budget | undefined;
    /** Proxies whose X-Forwarded-For names the client (TRUSTED_PROXIES); undefined when none. */
    readonly trustedProxies: BlockList | undefined;
  };
  readonly logLevel: string;
  readonly production: boolean;
}

/** A configuration the service cannot start with: every problem found, each naming its variable. */
export class ConfigError extends ProblemsError {
  constructor(problems: readonly string[]) {
    super('ERR_CONFIG', problems, 'invalid configuration');
  }
}

function splitHeader(header: string): [string, string] {
  const colon = header.indexOf(':');
  return [header.slice(0, colon).trim(), header.slice(colon + 1).trim()];
}

/** True when some way of accepting tokens is configured; otherwise main.ts makes a development key. */
export function hasAuthSetting(config: Config): boolean {
  return config.auth.apiKeys.length > 0 || config.auth.apiKeysFile !== undefined || config.auth.jwt !== undefined;
}

export function loadConfig(environment: NodeJS.ProcessEnv = process.env): Config {
  // An empty variable means "not set", as in most shells' `VAR= command`.
  const present = Object.fromEntries(Object.entries(environment).filter(([, value]) => value !== ''));
  const result = environmentSchema.safeParse(present);
  if (!result.success) {
    throw new ConfigError(
      result.error.issues.map((issue) => {
        const name = String(issue.path[0]);
        const got = secretSettings.has(name) ? '' : ` (got ${JSON.stringify(environment[name])})`;
        return `${name} ${issue.message}${got}`;
      }),
    );
  }
  const settings = result.data;
  const jwtSource = settings.JWT_SECRET ?? settings.JWT_PUBLIC_KEY ?? settings.JWKS_URL;
  const problems: string[] = [];
  if (settings.JWT_PUBLIC_KEY && settings.JWKS_URL) {
    problems.push("JWT_PUBLIC_KEY and JWKS_URL are both set: set one (a key file, or the identity provider's key set)");
  }
  for (const name of ['JWT_ISSUER', 'JWT_AUDIENCE'] as const) {
    if (settings[name] !== undefined && jwtSource === undefined) {
      problems.push(`${name} is set but no JWT key is: set JWT_SECRET, JWT_PUBLIC_KEY or JWKS_URL too`);
    }
  }
  if (settings.ORIGIN_HEADER !== undefined && settings.ORIGIN_URL === undefined) {
    problems.push('ORIGIN_HEADER is set but ORIGIN_URL is not: the header is only sent to an origin');
  }
  const bucket = settings.ORIGIN_URL?.startsWith('s3://') ? resolveS3Bucket(settings.ORIGIN_URL, settings, problems) : undefined;
  if (problems.length > 0) throw new ConfigError(problems);
  return {
    port: settings.PORT,
    host: settings.HOST,
    distDir: settings.DIST_DIR,
    auth: {
      apiKeys: settings.API_KEYS ?? [],
      apiKeysFile: settings.API_KEYS_FILE,
      jwt:
        jwtSource === undefined
          ? undefined
          : {
              secret: settings.JWT_SECRET,
              publicKeyFile: settings.JWT_PUBLIC_KEY,
              jwksUrl: settings.JWKS_URL === undefined ? undefined : new URL(settings.JWKS_URL),
              issuer: settings.JWT_ISSUER,
              audience: settings.JWT_AUDIENCE,
              clockToleranceSeconds: settings.JWT_CLOCK_TOLERANCE,
              maxLifetimeSeconds: settings.JWT_MAX_LIFETIME,
            },
      scopes: { financemanagement: settings.FINANCE_SCOPE, addressmanagement: settings.ADDRESS_SCOPE },
    },
    corsOrigins: settings.CORS_ORIGINS.includes('*') ? '*' : new Set(settings.CORS_ORIGINS),
    origin:
      settings.ORIGIN_URL === undefined
        ? undefined
        : {
            url: bucket ? bucketBaseUrl(bucket) : new URL(settings.ORIGIN_URL),
            s3: bucket,
            header: settings.ORIGIN_HEADER === undefined ? undefined : splitHeader(settings.ORIGIN_HEADER),
            cacheDir: settings.ORIGIN_CACHE_DIR === 'off' ? undefined : settings.ORIGIN_CACHE_DIR,
          },
    metrics: settings.METRICS_PORT === undefined ? undefined : { port: settings.METRICS_PORT, host: settings.METRICS_HOST },
    workers: settings.WORKERS ?? availableParallelism(),
    bodyCacheBytes: settings.BODY_CACHE_MB * 1024 * 1024,
    indexCacheBytes: settings.INDEX_CACHE_MB * 1024 * 1024,
    shutdownDelayMs: settings.SHUTDOWN_DELAY_MS,
    limits: {
      perToken: settings.RATE_LIMIT,
      authFailures: settings.AUTH_FAILURE_LIMIT,
      anonymous: settings.ANONYMOUS_LIMIT,
      trustedProxies: settings.TRUSTED_PROXIES === undefined || settings.TRUSTED_PROXIES.length === 0 ? undefined : trustedProxyList(settings.TRUSTED_PROXIES),
    },
    logLevel: settings.LOG_LEVEL,
    production: settings.NODE_ENV === 'production',
  };
}

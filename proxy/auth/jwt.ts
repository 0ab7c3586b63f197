/**
 * JWT verification with jose: a shared secret (HS*), a public key or JWK file (RS*, PS*, ES*,
 * EdDSA), or an identity provider's remote key set (JWKS_URL). Each key accepts only the
 * algorithms of its own type, so `alg: none` and HS/RS key confusion cannot pass; `exp` is
 * required, and no later than the longest lifetime accepted; issuer and audience are required when
 * configured. Whatever a message repeats from the token is cut (cutEcho), as every echo is.
 */
import { X509Certificate, createPublicKey, type KeyObject } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import type { JWTPayload, JWTVerifyGetKey, ProtectedHeaderParameters } from 'jose';
import { sha256 } from './apiKeys.ts';
import { challenge, type Principal } from './principal.ts';
import { ConfigError, type JwtConfig } from '../config/config.ts';
import { cutEcho, quoteEcho } from '../../contract/envelope.ts';
import { ServiceError } from '../../contract/errors.ts';

const hmacAlgorithms = ['HS256', 'HS384', 'HS512'];
const rsaAlgorithms = ['RS256', 'RS384', 'RS512', 'PS256', 'PS384', 'PS512'];
/** The JWS algorithm of each EC curve (RFC 7518 §3.4), for verifying here and signing in mintToken.ts. */
export const ecAlgorithms: Record<string, string> = { prime256v1: 'ES256', secp384r1: 'ES384', secp521r1: 'ES512' };
const asymmetricAlgorithms = [...rsaAlgorithms, ...Object.values(ecAlgorithms), 'EdDSA'];

/** A remote key set: fetched with a timeout, cached, re-fetched on an unknown `kid` at most every 30 s. */
export const remoteKeySetOptions = { timeoutDuration: 3000, cooldownDuration: 30_000, cacheMaxAge: 10 * 60_000 } as const;

type VerificationKey = Uint8Array | KeyObject | JWTVerifyGetKey;

interface KeySource {
  readonly key: VerificationKey;
  readonly algorithms: readonly string[];
}

export interface JwtVerifier {
  /** The token's principal; throws a ServiceError (ERR_TOKEN_INVALID, or ERR_TOKEN_UNVERIFIABLE when the key set is unreachable). */
  verify(token: string, now: Date): Promise<Principal>;
}

/** The algorithms a public key can verify, from its own type: an RSA key never verifies HS256. */
function algorithmsOf(key: KeyObject): string[] {
  switch (key.asymmetricKeyType) {
    case 'rsa':
      return rsaAlgorithms;
    case 'rsa-pss':
      return rsaAlgorithms.filter((algorithm) => algorithm.startsWith('PS'));
    case 'ec': {
      const algorithm = ecAlgorithms[key.asymmetricKeyDetails?.namedCurve ?? ''];
      return algorithm ? [algorithm] : [];
    }
    case 'ed25519':
    case 'ed448':
      return ['EdDSA'];
    default:
      return [];
  }
}

/** jose, loaded when a JWT setting is given: a proxy that takes API keys only never evaluates it, and starts that much sooner. */
type Jose = typeof import('jose');

async function loadPublicKey({ createLocalJWKSet }: Jose, file: string): Promise<KeySource> {
  const text = await readFile(file, 'utf8').catch((error: NodeJS.ErrnoException) => {
    throw new ConfigError([`JWT_PUBLIC_KEY ${file} cannot be read (${error.code ?? error.message})`]);
  });
  if (/PRIVATE KEY/.test(text)) {
    throw new ConfigError([`JWT_PUBLIC_KEY ${file} holds a private key: give the proxy the public key only`]);
  }
  try {
    if (text.trimStart().startsWith('{')) {
      const json = JSON.parse(text) as { keys?: unknown[]; kty?: string };
      if (Array.isArray(json.keys)) return { key: createLocalJWKSet(json as Parameters<typeof createLocalJWKSet>[0]), algorithms: asymmetricAlgorithms };
      if (json.kty === 'oct') throw new Error('a symmetric (oct) key belongs in JWT_SECRET');
      const key = createPublicKey({ key: json as import('node:crypto').JsonWebKey, format: 'jwk' });
      return { key, algorithms: algorithmsOf(key) };
    }
    const key = text.includes('BEGIN CERTIFICATE') ? new X509Certificate(text).publicKey : createPublicKey(text);
    const algorithms = algorithmsOf(key);
    if (algorithms.length === 0) throw new Error(`unsupported key type ${key.asymmetricKeyType}`);
    return { key, algorithms };
  } catch (error) {
    if (error instanceof ConfigError) throw error;
    throw new ConfigError([`JWT_PUBLIC_KEY ${file} is not a usable PEM public key, certificate, JWK or JWK Set (${(error as Error).message})`]);
  }
}

/** RFC 6750 §3: the error_description may hold only printable ASCII without `"` and `\`. */
function invalidToken(message: string): ServiceError {
  const description = message.replaceAll('…', '...').replace(/[^\x20-\x7e]|["\\]/g, "'");
  return new ServiceError('ERR_TOKEN_INVALID', `The bearer token is not valid: ${message}.`, challenge('invalid_token', description));
}

/** A value from the token as a message repeats it: a string quoted, anything else as JSON; cut either way. */
const echoClaim = (value: unknown): string => (typeof value === 'string' ? quoteEcho(value) : cutEcho(JSON.stringify(value) ?? String(value)));

/**
 * The largest NumericDate a Date can hold (±8.64e15 ms, ECMA-262 §21.4.1.1), in seconds. JSON has
 * no NaN, but it has 1e300, and JSON.parse reads 1e999 as Infinity: a signed token can carry them.
 */
const maxNumericDate = 8.64e12;

const isDate = (seconds: number): boolean => Math.abs(seconds) <= maxNumericDate;

/** Never throws: it runs while a failure is being described, where a RangeError would become a 5xx. */
const isoTime = (seconds: unknown): string =>
  typeof seconds !== 'number' ? 'an unknown time' : isDate(seconds) ? new Date(seconds * 1000).toISOString() : `${seconds} (no date)`;

/** The first time claim that is a number but no date; checked before any other use of the times. */
function outOfRangeTime(payload: JWTPayload): string | undefined {
  for (const claim of ['exp', 'nbf', 'iat'] as const) {
    const seconds = payload[claim];
    if (typeof seconds === 'number' && !isDate(seconds)) {
      return `the ${claim} claim ${seconds} is out of range: time claims are seconds since 1970, at most ${maxNumericDate} either way`;
    }
  }
  return undefined;
}

const secondsText = (seconds: number): string =>
  seconds % 3600 === 0 ? `${seconds} seconds (${seconds / 3600} hour${seconds === 3600 ? '' : 's'})` : `${seconds} seconds`;

/**
 * A token valid for longer than the service accepts (JWT_MAX_LIFETIME): a leaked one would be good
 * for years. Measured from now (with the clock tolerance, as the issuer's clock may run ahead) and,
 * when the token says when it was issued, over its whole life.
 */
function tooLongLived(payload: JWTPayload, now: Date, config: JwtConfig): string | undefined {
  const limit = config.maxLifetimeSeconds;
  const { exp, iat } = payload;
  if (limit === 0 || typeof exp !== 'number') return undefined;
  if (exp - now.getTime() / 1000 > limit + config.clockToleranceSeconds) {
    return `the token lives longer than this service accepts: it expires at ${isoTime(exp)}, more than ${secondsText(limit)} from now`;
  }
  if (typeof iat === 'number' && exp - iat > limit) {
    return `the token lives longer than this service accepts: issued at ${isoTime(iat)} to expire at ${isoTime(exp)}, ${exp - iat} seconds later; the limit is ${secondsText(limit)}`;
  }
  return undefined;
}

/** jose's stable error codes, turned into messages that say what was wrong, never a secret. */
function describeFailure({ errors }: Jose, error: unknown, config: JwtConfig, header: ProtectedHeaderParameters | undefined): ServiceError {
  if (error instanceof errors.JWTExpired || error instanceof errors.JWTClaimValidationFailed) {
    const outOfRange = outOfRangeTime(error.payload);
    if (outOfRange) return invalidToken(outOfRange);
  }
  if (error instanceof errors.JWTExpired) return invalidToken(`token expired at ${isoTime(error.payload.exp)}`);
  if (error instanceof errors.JWTClaimValidationFailed) {
    const { claim, reason, payload } = error;
    if (reason === 'missing')
      return invalidToken(claim === 'exp' ? 'the token has no expiry (exp claim); tokens must expire' : `the token has no ${claim} claim`);
    if (claim === 'nbf') return invalidToken(`token not valid before ${isoTime(payload.nbf)}`);
    if (claim === 'iss') return invalidToken(`issuer ${echoClaim(payload.iss)} not accepted (expected ${JSON.stringify(config.issuer)})`);
    if (claim === 'aud') return invalidToken(`audience ${echoClaim(payload.aud)} not accepted (expected one of ${JSON.stringify(config.audience)})`);
    return invalidToken(`claim ${claim} is not valid (${reason})`);
  }
  if (error instanceof errors.JWKSNoMatchingKey) return invalidToken('no key of the identity provider matches the token (unknown kid?)');
  if (error instanceof errors.JWSSignatureVerificationFailed) return invalidToken('the signature does not verify');
  if (error instanceof errors.JOSEAlgNotAllowed) return invalidToken("the token's algorithm is not accepted");
  // RFC 7515 §4.1.11: a verifier must refuse a token whose `crit` names an extension it does not
  // implement; jose implements none for JWTs (`b64` is for JWS payloads) and throws JOSENotSupported.
  if (error instanceof errors.JOSENotSupported && Array.isArray(header?.crit)) {
    const critical = header.crit.filter((parameter) => parameter !== 'b64').join(', ');
    return invalidToken(`the token marks the header parameter(s) ${cutEcho(critical)} as critical (crit), which this service does not understand`);
  }
  if (error instanceof errors.JOSENotSupported) return invalidToken(`it uses something this service does not support (${cutEcho(error.message)})`);
  if (error instanceof errors.JWTInvalid || error instanceof errors.JWSInvalid) return invalidToken('it is not a well-formed JWT');
  if (error instanceof errors.JWKSTimeout || error instanceof errors.JWKSInvalid || !(error instanceof errors.JOSEError) || error.code === 'ERR_JOSE_GENERIC') {
    // Fail closed: without the key set nothing is verified. Not the client's fault: 503, and the
    // cause goes to the log with the failure (proxy/http/failure.ts).
    return new ServiceError(
      'ERR_TOKEN_UNVERIFIABLE',
      "Tokens cannot be verified right now: the identity provider's key set is unreachable. Retry shortly.",
      { 'Retry-After': '5' },
      { cause: error },
    );
  }
  return invalidToken(`verification failed (${error.code})`);
}

/** The budget a token counts against (Principal.budgetKey): its issuer's subject, or the token alone. */
function budgetKeyOf(payload: JWTPayload, token: string): string {
  const subject = typeof payload.sub === 'string' ? payload.sub : typeof payload.client_id === 'string' ? `client_id ${payload.client_id}` : undefined;
  if (subject === undefined) return `jwt-token:${sha256(token).toString('base64url')}`;
  return `jwt:${JSON.stringify([payload.iss ?? null, subject])}`;
}

function scopesOf(payload: JWTPayload): ReadonlySet<string> {
  const scopes = new Set<string>();
  if (typeof payload.scope === 'string') for (const scope of payload.scope.split(' ')) if (scope) scopes.add(scope);
  const scp = payload.scp;
  if (Array.isArray(scp)) for (const scope of scp) if (typeof scope === 'string') scopes.add(scope);
  if (typeof scp === 'string') for (const scope of scp.split(' ')) if (scope) scopes.add(scope);
  return scopes;
}

export async function createJwtVerifier(config: JwtConfig): Promise<JwtVerifier> {
  const jose = await import('jose');
  const { createRemoteJWKSet, decodeProtectedHeader, jwtVerify } = jose;
  const hmac: KeySource | undefined = config.secret ? { key: new TextEncoder().encode(config.secret), algorithms: hmacAlgorithms } : undefined;
  const asymmetric: KeySource | undefined = config.publicKeyFile
    ? await loadPublicKey(jose, config.publicKeyFile)
    : config.jwksUrl
      ? { key: createRemoteJWKSet(config.jwksUrl, remoteKeySetOptions), algorithms: asymmetricAlgorithms }
      : undefined;

  return {
    verify: async (token, now) => {
      let source: KeySource | undefined;
      let header: ProtectedHeaderParameters | undefined;
      try {
        header = decodeProtectedHeader(token);
        const { alg = 'none' } = header;
        source = hmacAlgorithms.includes(alg) ? hmac : asymmetricAlgorithms.includes(alg) ? asymmetric : undefined;
        if (!source?.algorithms.includes(alg)) {
          throw invalidToken(`algorithm ${typeof alg === 'string' ? cutEcho(alg) : echoClaim(alg)} is not accepted`);
        }
        const options = {
          algorithms: [...source.algorithms],
          requiredClaims: ['exp'],
          clockTolerance: config.clockToleranceSeconds,
          currentDate: now,
          ...(config.issuer ? { issuer: config.issuer } : {}),
          ...(config.audience ? { audience: [...config.audience] } : {}),
        };
        const { key } = source;
        const { payload } = typeof key === 'function' ? await jwtVerify(token, key, options) : await jwtVerify(token, key, options);
        const refusal = outOfRangeTime(payload) ?? tooLongLived(payload, now, config);
        if (refusal) throw invalidToken(refusal);
        return {
          budgetKey: budgetKeyOf(payload, token),
          scopes: scopesOf(payload),
          expiresAt: typeof payload.exp === 'number' ? payload.exp * 1000 : undefined,
          origins: undefined,
          budget: undefined,
        };
      } catch (error) {
        if (error instanceof ServiceError) throw error;
        if (error instanceof TypeError && !source) throw invalidToken('it is not a well-formed JWT');
        throw describeFailure(jose, error, config, header);
      }
    },
  };
}

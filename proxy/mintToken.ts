/**
 * `npm run token -- --sub NAME [--scope "finance.read address.read"] [--ttl 1h] [--aud X] [--iss Y]
 *  [--key private.pem] [--alg ALG] [--kid ID]`
 *
 * Prints a JWT for operators and tests, signed with JWT_SECRET (HS256), or with a private key
 * (--key or JWT_PRIVATE_KEY: PEM or JWK; RS256, ES256/384/512 or EdDSA by the key's type).
 * Issuer and audience default to JWT_ISSUER and JWT_AUDIENCE, so the token fits the proxy
 * started with the same environment.
 */
import { createPrivateKey, type KeyObject } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { SignJWT } from 'jose';
import { defaultJwtMaxLifetimeSeconds } from './config/config.ts';
import { ecAlgorithms } from './auth/jwt.ts';

const defaultAlgorithm: Record<string, string> = { rsa: 'RS256', 'rsa-pss': 'PS256', ed25519: 'EdDSA', ed448: 'EdDSA' };

function exitWithError(message: string): never {
  console.error(`npm run token: ${message}`);
  process.exit(2);
}

function readPrivateKey(file: string): KeyObject {
  const text = readFileSync(file, 'utf8');
  return text.trimStart().startsWith('{') ? createPrivateKey({ key: JSON.parse(text), format: 'jwk' }) : createPrivateKey(text);
}

function algorithmFor(key: KeyObject): string {
  const type = key.asymmetricKeyType ?? '';
  const algorithm = type === 'ec' ? ecAlgorithms[key.asymmetricKeyDetails?.namedCurve ?? ''] : defaultAlgorithm[type];
  return algorithm ?? exitWithError(`cannot sign with a ${type} key`);
}

const { values } = parseArgs({
  options: {
    sub: { type: 'string' },
    scope: { type: 'string' },
    ttl: { type: 'string', default: '1h' },
    aud: { type: 'string', default: process.env.JWT_AUDIENCE?.split(',')[0]?.trim() },
    iss: { type: 'string', default: process.env.JWT_ISSUER },
    key: { type: 'string', default: process.env.JWT_PRIVATE_KEY },
    alg: { type: 'string' },
    kid: { type: 'string' },
  },
});

if (!values.sub) exitWithError('--sub NAME is required (who the token is for)');
const ttl =
  /^(\d+)\s*(s|sec|secs|m|min|mins|h|hr|hrs|d|days?|w|weeks?)$/.exec(values.ttl) ?? exitWithError('--ttl takes a duration such as 90s, 15m, 1h or 7d');
const unitSeconds: Record<string, number> = { s: 1, m: 60, h: 3600, d: 86_400, w: 604_800 };
const ttlSeconds = Number(ttl[1]) * (unitSeconds[(ttl[2] ?? 's')[0] as string] ?? 1);
// A token the proxy with the same settings would refuse is not minted (auth/jwt.ts checks the same limit).
const maxLifetime = /^\d+$/.test(process.env.JWT_MAX_LIFETIME ?? '') ? Number(process.env.JWT_MAX_LIFETIME) : defaultJwtMaxLifetimeSeconds;
if (maxLifetime > 0 && ttlSeconds > maxLifetime) {
  exitWithError(
    `--ttl ${values.ttl} is longer than JWT_MAX_LIFETIME (${maxLifetime} s): the proxy would refuse the token; give a shorter --ttl, or raise JWT_MAX_LIFETIME for the proxy and here`,
  );
}

let key: KeyObject | Uint8Array;
let alg: string;
if (values.key) {
  key = readPrivateKey(values.key);
  alg = values.alg ?? algorithmFor(key);
} else if (process.env.JWT_SECRET) {
  key = new TextEncoder().encode(process.env.JWT_SECRET);
  alg = values.alg ?? 'HS256';
} else {
  exitWithError('set JWT_SECRET, or give a private key with --key FILE or JWT_PRIVATE_KEY');
}

const jwt = new SignJWT(values.scope ? { scope: values.scope } : {})
  .setProtectedHeader({ alg, typ: 'JWT', ...(values.kid ? { kid: values.kid } : {}) })
  .setSubject(values.sub)
  .setIssuedAt()
  .setExpirationTime(values.ttl);
if (values.iss) jwt.setIssuer(values.iss);
if (values.aud) jwt.setAudience(values.aud);
console.log(await jwt.sign(key));

/**
 * The attack suite: every way a bearer token can be wrong, against a real proxy over HTTP, each
 * asserting status, WWW-Authenticate and the failure envelope. The clock is frozen and injected.
 */
import { createHash, generateKeyPairSync, sign as signBytes, type KeyObject } from 'node:crypto';
import { writeFile } from 'node:fs/promises';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { exportJWK, SignJWT, type JWTPayload } from 'jose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createAuthenticator } from '../../proxy/auth/authenticate.ts';
import { ConfigError, loadConfig } from '../../proxy/config/config.ts';
import type { RunningServer } from '../../proxy/http/server.ts';
import { buildFixture, startProxy, tempDir } from '../support/service.ts';

/** The frozen present: 2026-01-15T12:00:00Z. */
const frozenNow = Date.UTC(2026, 0, 15, 12);
const seconds = (offset: number): number => Math.floor(frozenNow / 1000) + offset;
const region = '/addressmanagement/api/region/getall';
const bank = '/financemanagement/api/bank/getbycode?code=010';
const secret = 'a-shared-secret-of-at-least-32-characters!';
const issuer = 'https://id.example.test';
const audience = 'reference-data';

const rsa = generateKeyPairSync('rsa', { modulusLength: 2048 });
const otherRsa = generateKeyPairSync('rsa', { modulusLength: 2048 });
const ec = generateKeyPairSync('ec', { namedCurve: 'P-256' });
const ed = generateKeyPairSync('ed25519');

let distDir: string;
let keyDir: string;
const proxies: RunningServer[] = [];
let clock = frozenNow;

beforeAll(async () => {
  distDir = await buildFixture();
  keyDir = await tempDir('keys-');
});
afterAll(async () => {
  await Promise.all(proxies.map((proxy) => proxy.close()));
});

async function proxyWith(environment: NodeJS.ProcessEnv): Promise<RunningServer> {
  const proxy = await startProxy(distDir, environment, () => clock);
  proxies.push(proxy);
  return proxy;
}

async function keyFile(name: string, contents: string): Promise<string> {
  const file = path.join(keyDir, name);
  await writeFile(file, contents);
  return file;
}

function sign(claims: JWTPayload, key: KeyObject | Uint8Array, alg: string, kid?: string): Promise<string> {
  return new SignJWT(claims).setProtectedHeader({ alg, ...(kid ? { kid } : {}) }).sign(key);
}

const valid = (extra: JWTPayload = {}): JWTPayload => ({ sub: 'client-1', iss: issuer, aud: audience, iat: seconds(-10), exp: seconds(3600), ...extra });
const base64url = (value: object): string => Buffer.from(JSON.stringify(value)).toString('base64url');

/**
 * An RS256 token signed by hand, for what jose would refuse to produce: any header (an unknown
 * `crit`, an 8 KB `alg`) and any claims text (`1e999`, which JSON.parse reads as Infinity).
 */
function signRaw(header: object, claims: string, key: KeyObject = rsa.privateKey): string {
  const input = `${base64url(header)}.${Buffer.from(claims).toString('base64url')}`;
  return `${input}.${signBytes('sha256', Buffer.from(input), key).toString('base64url')}`;
}

interface Outcome {
  status: number;
  challenge: string | null;
  message: string;
}

async function call(proxy: RunningServer, authorization: string | undefined, target = region): Promise<Outcome> {
  const response = await fetch(`${proxy.url}${target}`, authorization === undefined ? {} : { headers: { Authorization: authorization } });
  const envelope = (await response.json()) as { header: { isSuccess: boolean; message: string | null }; body: unknown };
  expect(envelope.header.isSuccess).toBe(response.status === 200);
  if (response.status !== 200) expect(envelope.body).toBeNull();
  return { status: response.status, challenge: response.headers.get('www-authenticate'), message: envelope.header.message ?? '' };
}

function expectInvalidToken(outcome: Outcome, message: RegExp): void {
  expect(outcome.status).toBe(401);
  expect(outcome.challenge).toMatch(/^Bearer realm="reference-data", error="invalid_token", error_description="[\x20-\x21\x23-\x5b\x5d-\x7e]+"$/);
  expect(outcome.message).toMatch(message);
}

describe('a proxy verifying RS256 tokens with a public key file', () => {
  let proxy: RunningServer;
  beforeAll(async () => {
    const pem = rsa.publicKey.export({ type: 'spki', format: 'pem' }).toString();
    proxy = await proxyWith({ JWT_PUBLIC_KEY: await keyFile('rsa.pem', pem), JWT_ISSUER: issuer, JWT_AUDIENCE: audience });
  });

  it('accepts a valid token, RS256 or PS256', async () => {
    expect((await call(proxy, `Bearer ${await sign(valid(), rsa.privateKey, 'RS256')}`)).status).toBe(200);
    expect((await call(proxy, `Bearer ${await sign(valid(), rsa.privateKey, 'PS256')}`)).status).toBe(200);
  });

  it('401 with only the realm when there is no Authorization header', async () => {
    const outcome = await call(proxy, undefined);
    expect(outcome).toEqual({
      status: 401,
      challenge: 'Bearer realm="reference-data"',
      message: 'Authorization required: send the header "Authorization: Bearer <token>".',
    });
  });

  it('400 invalid_request for a wrong scheme or an empty token', async () => {
    for (const authorization of ['Basic Y2xpZW50OnNlY3JldA==', 'Bearer', 'Bearer ', 'Token abc.def.ghi', 'Bearer a b']) {
      const outcome = await call(proxy, authorization);
      expect(outcome.status, authorization).toBe(400);
      expect(outcome.challenge).toBe('Bearer realm="reference-data", error="invalid_request", error_description="expected Bearer <token>"');
      expect(outcome.message).toMatch(/^Malformed Authorization header/);
    }
  });

  it('401 invalid_token for garbage', async () => {
    expectInvalidToken(await call(proxy, 'Bearer garbage-that-is-no-token'), /not one of the accepted keys, nor a JWT/);
    expectInvalidToken(await call(proxy, 'Bearer abc.def.ghi'), /not a well-formed JWT/);
  });

  it('refuses alg: none', async () => {
    const unsigned = `${base64url({ alg: 'none', typ: 'JWT' })}.${base64url(valid())}.`;
    expectInvalidToken(await call(proxy, `Bearer ${unsigned}`), /algorithm none is not accepted/);
  });

  it('refuses HS256 signed with the RSA public key as the shared secret (key confusion)', async () => {
    const pem = rsa.publicKey.export({ type: 'spki', format: 'pem' }).toString();
    const forged = await sign(valid(), new TextEncoder().encode(pem), 'HS256');
    expectInvalidToken(await call(proxy, `Bearer ${forged}`), /algorithm HS256 is not accepted/);
  });

  it('refuses a bad signature', async () => {
    expectInvalidToken(await call(proxy, `Bearer ${await sign(valid(), otherRsa.privateKey, 'RS256')}`), /signature does not verify/);
  });

  it('refuses an expired token, naming when it expired', async () => {
    const expired = await sign(valid({ exp: seconds(-120) }), rsa.privateKey, 'RS256');
    expectInvalidToken(await call(proxy, `Bearer ${expired}`), /token expired at 2026-01-15T11:58:00\.000Z/);
  });

  it('accepts a token expired within the 60 s clock tolerance', async () => {
    expect((await call(proxy, `Bearer ${await sign(valid({ exp: seconds(-30) }), rsa.privateKey, 'RS256')}`)).status).toBe(200);
  });

  it('refuses a token not valid yet (nbf in the future)', async () => {
    const early = await sign(valid({ nbf: seconds(600) }), rsa.privateKey, 'RS256');
    expectInvalidToken(await call(proxy, `Bearer ${early}`), /token not valid before 2026-01-15T12:10:00\.000Z/);
  });

  it('refuses a wrong issuer and a wrong audience, naming them', async () => {
    expectInvalidToken(
      await call(proxy, `Bearer ${await sign(valid({ iss: 'https://evil.test' }), rsa.privateKey, 'RS256')}`),
      /issuer "https:\/\/evil.test" not accepted \(expected "https:\/\/id.example.test"\)/,
    );
    expectInvalidToken(
      await call(proxy, `Bearer ${await sign(valid({ aud: 'another-api' }), rsa.privateKey, 'RS256')}`),
      /audience "another-api" not accepted/,
    );
  });

  it('refuses a token without exp', async () => {
    const { exp: _exp, ...claims } = valid();
    expectInvalidToken(await call(proxy, `Bearer ${await sign(claims, rsa.privateKey, 'RS256')}`), /no expiry \(exp claim\); tokens must expire/);
  });

  it('refuses a signed token whose exp, nbf or iat is no date (9e12, ±1e300, 1e999) with 401 naming the claim, never a 5xx', async () => {
    const cases: [JWTPayload, RegExp][] = [
      [{ nbf: 9e12 }, /the nbf claim 9000000000000 is out of range/],
      [{ exp: -1e300 }, /the exp claim -1e\+300 is out of range/],
      [{ exp: 1e300 }, /the exp claim 1e\+300 is out of range/],
      [{ iat: 9e12 }, /the iat claim 9000000000000 is out of range/],
    ];
    for (const [claims, message] of cases) {
      expectInvalidToken(await call(proxy, `Bearer ${await sign(valid(claims), rsa.privateKey, 'RS256')}`), message);
    }
    const infinite = signRaw({ alg: 'RS256' }, JSON.stringify(valid()).replace(/"exp":\d+/, '"exp":1e999'));
    expectInvalidToken(await call(proxy, `Bearer ${infinite}`), /the exp claim Infinity is out of range/);
  });

  it('refuses a token that lives longer than the default JWT_MAX_LIFETIME of 24 hours', async () => {
    const year3000 = Date.UTC(3000, 0, 1) / 1000;
    expectInvalidToken(
      await call(proxy, `Bearer ${await sign(valid({ exp: year3000 }), rsa.privateKey, 'RS256')}`),
      /the token lives longer than this service accepts: it expires at 3000-01-01T00:00:00\.000Z, more than 86400 seconds \(24 hours\) from now/,
    );
    expect((await call(proxy, `Bearer ${await sign(valid({ iat: seconds(0), exp: seconds(86_400) }), rsa.privateKey, 'RS256')}`)).status).toBe(200);
  });

  it('cuts an echoed alg, issuer and audience to 80 characters, in the message and in WWW-Authenticate', async () => {
    const longAlg = signRaw({ alg: 'A'.repeat(8192), typ: 'JWT' }, JSON.stringify(valid()));
    const outcome = await call(proxy, `Bearer ${longAlg}`);
    expectInvalidToken(outcome, new RegExp(`algorithm ${'A'.repeat(80)}… is not accepted`));
    expect(outcome.challenge).toContain(`algorithm ${'A'.repeat(80)}... is not accepted`);
    const longIssuer = await call(proxy, `Bearer ${await sign(valid({ iss: `https://evil.test/${'x'.repeat(8000)}` }), rsa.privateKey, 'RS256')}`);
    expectInvalidToken(longIssuer, /issuer "https:\/\/evil.test\/x{62}…" not accepted/);
    const longAudience = await call(proxy, `Bearer ${await sign(valid({ aud: Array.from({ length: 500 }, (_, n) => `api-${n}`) }), rsa.privateKey, 'RS256')}`);
    expectInvalidToken(longAudience, /audience \["api-0","api-1",.*…/);
    // The cut never leaves half of a surrogate pair: the emoji straddling character 80 goes whole.
    const emojiIssuer = await call(
      proxy,
      `Bearer ${await sign(valid({ iss: `https://evil.test/${'x'.repeat(61)}${'😀'.repeat(100)}` }), rsa.privateKey, 'RS256')}`,
    );
    expectInvalidToken(emojiIssuer, /issuer "https:\/\/evil.test\/x{61}…" not accepted/);
    for (const refused of [outcome, longIssuer, longAudience]) {
      expect(refused.message.length).toBeLessThan(300);
      expect(refused.challenge?.length).toBeLessThan(300);
    }
  });

  it('refuses a header parameter marked critical, naming it rather than blaming the algorithm', async () => {
    const critical = signRaw({ alg: 'RS256', crit: ['exp'], exp: seconds(3600) }, JSON.stringify(valid()));
    const outcome = await call(proxy, `Bearer ${critical}`);
    expectInvalidToken(outcome, /the token marks the header parameter\(s\) exp as critical \(crit\), which this service does not understand/);
    expect(outcome.message).not.toMatch(/algorithm/);
    const longName = signRaw({ alg: 'RS256', crit: ['z'.repeat(5000)], ['z'.repeat(5000)]: 1 }, JSON.stringify(valid()));
    expectInvalidToken(await call(proxy, `Bearer ${longName}`), new RegExp(`header parameter\\(s\\) ${'z'.repeat(80)}… as critical`));
  });
});

describe('the verified-token cache', () => {
  it('keeps a token only until it expires, and never caches a failure', async () => {
    const proxy = await proxyWith({ JWT_SECRET: secret, JWT_CLOCK_TOLERANCE: '0' });
    const shortLived = await sign({ sub: 'c', exp: seconds(5) }, new TextEncoder().encode(secret), 'HS256');
    expect((await call(proxy, `Bearer ${shortLived}`)).status).toBe(200);
    clock = frozenNow + 6_000;
    expectInvalidToken(await call(proxy, `Bearer ${shortLived}`), /token expired/);

    clock = frozenNow;
    const notYet = await sign({ sub: 'c', nbf: seconds(10), exp: seconds(3600) }, new TextEncoder().encode(secret), 'HS256');
    expectInvalidToken(await call(proxy, `Bearer ${notYet}`), /not valid before/);
    clock = frozenNow + 11_000;
    expect((await call(proxy, `Bearer ${notYet}`)).status).toBe(200);
    clock = frozenNow;
  });

  it('answers a repeated token from the cache without verifying it again', async () => {
    let time = frozenNow;
    const authenticate = await createAuthenticator({ auth: loadConfig({ JWT_SECRET: secret }).auth, now: () => time });
    const token = await sign({ sub: 'c', exp: seconds(3600) }, new TextEncoder().encode(secret), 'HS256');
    const first = await authenticate(`Bearer ${token}`);
    expect(await authenticate(`Bearer ${token}`)).toBe(first); // the same object: no second verification
    time += 61_000; // past the cache's TTL: verified again, a new principal
    expect(await authenticate(`Bearer ${token}`)).not.toBe(first);
  });
});

describe('JWT_MAX_LIFETIME', () => {
  const hs = (claims: JWTPayload): Promise<string> => sign(claims, new TextEncoder().encode(secret), 'HS256');

  it('refuses a token expiring further ahead than the limit (plus clock tolerance), or issued with a longer lifetime', async () => {
    const proxy = await proxyWith({ JWT_SECRET: secret, JWT_MAX_LIFETIME: '3600', JWT_CLOCK_TOLERANCE: '60' });
    expect((await call(proxy, `Bearer ${await hs({ sub: 'c', exp: seconds(3660) })}`)).status).toBe(200);
    expectInvalidToken(
      await call(proxy, `Bearer ${await hs({ sub: 'c', exp: seconds(3661) })}`),
      /the token lives longer than this service accepts: it expires at 2026-01-15T13:01:01\.000Z, more than 3600 seconds \(1 hour\) from now/,
    );
    expectInvalidToken(
      await call(proxy, `Bearer ${await hs({ sub: 'c', iat: seconds(-7200), exp: seconds(600) })}`),
      /the token lives longer than this service accepts: issued at 2026-01-15T10:00:00\.000Z to expire at 2026-01-15T12:10:00\.000Z, 7800 seconds later; the limit is 3600 seconds \(1 hour\)/,
    );
  });

  it('0 means no limit, but a time claim must still be a date', async () => {
    const proxy = await proxyWith({ JWT_SECRET: secret, JWT_MAX_LIFETIME: '0' });
    expect((await call(proxy, `Bearer ${await hs({ sub: 'c', iat: seconds(0), exp: Date.UTC(3000, 0, 1) / 1000 })}`)).status).toBe(200);
    expectInvalidToken(await call(proxy, `Bearer ${await hs({ sub: 'c', exp: 1e300 })}`), /the exp claim 1e\+300 is out of range/);
  });
});

describe('shared secrets, EC and Ed25519 keys, JWK files', () => {
  it('HS256 with JWT_SECRET; an RS256 token is refused when no public key is configured', async () => {
    const proxy = await proxyWith({ JWT_SECRET: secret });
    expect((await call(proxy, `Bearer ${await sign(valid(), new TextEncoder().encode(secret), 'HS512')}`)).status).toBe(200);
    expectInvalidToken(await call(proxy, `Bearer ${await sign(valid(), new TextEncoder().encode('x'.repeat(40)), 'HS256')}`), /signature does not verify/);
    expectInvalidToken(await call(proxy, `Bearer ${await sign(valid(), rsa.privateKey, 'RS256')}`), /algorithm RS256 is not accepted/);
  });

  it('ES256 with an EC PEM key; the key accepts ES256 only', async () => {
    const proxy = await proxyWith({ JWT_PUBLIC_KEY: await keyFile('ec.pem', ec.publicKey.export({ type: 'spki', format: 'pem' }).toString()) });
    expect((await call(proxy, `Bearer ${await sign(valid(), ec.privateKey, 'ES256')}`)).status).toBe(200);
    expectInvalidToken(await call(proxy, `Bearer ${await sign(valid(), rsa.privateKey, 'RS256')}`), /algorithm RS256 is not accepted/);
  });

  it('EdDSA with a JWK file', async () => {
    const proxy = await proxyWith({ JWT_PUBLIC_KEY: await keyFile('ed.jwk', JSON.stringify(await exportJWK(ed.publicKey))) });
    expect((await call(proxy, `Bearer ${await sign(valid(), ed.privateKey, 'EdDSA')}`)).status).toBe(200);
  });
});

/** A local identity provider's key set endpoint: serving, slow or down, as a test sets it. */
function startKeySetServer(
  keys: object[],
): Promise<{ url: string; mode: { current: 'up' | 'slow' }; requests: () => number; answers: () => number; close: () => Promise<void> }> {
  const mode = { current: 'up' as 'up' | 'slow' };
  let count = 0;
  let answered = 0;
  const server = http.createServer((_request, response) => {
    count++;
    const answer = (): void => {
      answered++;
      response.writeHead(200, { 'Content-Type': 'application/json' });
      response.end(JSON.stringify({ keys }));
    };
    if (mode.current === 'slow') setTimeout(answer, 5000).unref();
    else answer();
  });
  return new Promise((resolve) =>
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as AddressInfo;
      resolve({
        url: `http://127.0.0.1:${port}/.well-known/jwks.json`,
        mode,
        requests: () => count,
        answers: () => answered,
        close: () =>
          new Promise((done) => {
            server.close(() => done());
            server.closeAllConnections();
          }),
      });
    }),
  );
}

describe('a remote key set (JWKS_URL)', () => {
  it('accepts a token whose kid is in the set; refuses an unknown kid', async () => {
    const jwks = await startKeySetServer([{ ...(await exportJWK(rsa.publicKey)), kid: 'key-1', alg: 'RS256', use: 'sig' }]);
    const proxy = await proxyWith({ JWKS_URL: jwks.url });
    expect((await call(proxy, `Bearer ${await sign(valid(), rsa.privateKey, 'RS256', 'key-1')}`)).status).toBe(200);
    expectInvalidToken(
      await call(proxy, `Bearer ${await sign(valid(), otherRsa.privateKey, 'RS256', 'key-2')}`),
      /no key of the identity provider matches the token/,
    );
    expectInvalidToken(
      await call(proxy, `Bearer ${await sign(valid(), otherRsa.privateKey, 'RS256', 'key-3')}`),
      /no key of the identity provider matches the token/,
    );
    // Unknown kids within the cool-down do not make the proxy hammer the identity provider.
    expect(jwks.requests()).toBe(1);
    await jwks.close();
  });

  it('fails closed with 503 when the key set server is down', async () => {
    const jwks = await startKeySetServer([]);
    await jwks.close();
    const proxy = await proxyWith({ JWKS_URL: jwks.url });
    const outcome = await call(proxy, `Bearer ${await sign(valid(), rsa.privateKey, 'RS256', 'key-1')}`);
    expect(outcome.status).toBe(503);
    expect(outcome.message).toMatch(/key set is unreachable/);
  });

  it('fails closed with 503 when the key set server is too slow', async () => {
    const jwks = await startKeySetServer([{ ...(await exportJWK(rsa.publicKey)), kid: 'key-1', alg: 'RS256' }]);
    jwks.mode.current = 'slow';
    const proxy = await proxyWith({ JWKS_URL: jwks.url });
    const outcome = await call(proxy, `Bearer ${await sign(valid(), rsa.privateKey, 'RS256', 'key-1')}`);
    expect(outcome.status).toBe(503);
    // Asked, and gave up at its timeout before the slow answer came: no waiting on it.
    expect(jwks.requests()).toBeGreaterThanOrEqual(1);
    expect(jwks.answers()).toBe(0);
    await jwks.close();
  }, 15_000);
});

describe('scopes', () => {
  let proxy: RunningServer;
  beforeAll(async () => {
    const hashed = createHash('sha256').update('hashed-key-0123456789').digest('hex');
    const keys = await keyFile(
      'api-keys',
      ['# operators', 'plain-key-0123456789', `sha256:${hashed} address.read`, 'scoped-key-0123456789 finance.read', ''].join('\n'),
    );
    proxy = await proxyWith({ API_KEYS_FILE: keys, JWT_SECRET: secret, FINANCE_SCOPE: 'finance.read', ADDRESS_SCOPE: 'address.read' });
  });
  const hs = (claims: JWTPayload): Promise<string> => sign(valid(claims), new TextEncoder().encode(secret), 'HS256');

  it('a token with the area’s scope reads it, as a scope string or an scp array', async () => {
    expect((await call(proxy, `Bearer ${await hs({ scope: 'openid finance.read' })}`, bank)).status).toBe(200);
    expect((await call(proxy, `Bearer ${await hs({ scp: ['address.read'] })}`, region)).status).toBe(200);
  });

  it('403 insufficient_scope, naming the scope, when the token lacks it', async () => {
    const outcome = await call(proxy, `Bearer ${await hs({ scope: 'address.read' })}`, bank);
    expect(outcome).toEqual({
      status: 403,
      challenge: 'Bearer realm="reference-data", error="insufficient_scope", scope="finance.read"',
      message: 'The token lacks the scope finance.read, which financemanagement operations require.',
    });
  });

  it('API keys from the file, plain and hashed, with and without scopes', async () => {
    expect((await call(proxy, 'Bearer plain-key-0123456789', bank)).status).toBe(200);
    expect((await call(proxy, 'Bearer hashed-key-0123456789', region)).status).toBe(200);
    expect((await call(proxy, 'Bearer hashed-key-0123456789', bank)).status).toBe(403);
    expect((await call(proxy, 'Bearer scoped-key-0123456789', bank)).status).toBe(200);
    expect((await call(proxy, 'Bearer scoped-key-0123456789', region)).status).toBe(403);
    expectInvalidToken(await call(proxy, 'Bearer sha256-is-not-a-key-012345'), /not one of the accepted keys/);
  });
});

describe('keys a web page may carry: bound to origins, with a budget of their own', () => {
  let proxy: RunningServer;
  const page = 'https://forms.example.test';
  const fromOrigin = (origin: string | undefined, token = 'browser-key-0123456789'): Promise<Response> =>
    fetch(`${proxy.url}${region}`, { headers: { Authorization: `Bearer ${token}`, ...(origin === undefined ? {} : { Origin: origin }) } });
  beforeAll(async () => {
    const keys = await keyFile(
      'browser-keys',
      [
        '# a key for the address form of two sites, 3 requests a minute',
        `browser-key-0123456789 address.read origin=${page} origin=http://127.0.0.1:5173 rate=3/1m`,
        'server-key-0123456789',
        '',
      ].join('\n'),
    );
    proxy = await proxyWith({ API_KEYS_FILE: keys, RATE_LIMIT: '100/1m' });
  });

  it('is accepted from a listed origin, counted against its own budget ("key"), not RATE_LIMIT', async () => {
    const response = await fromOrigin(page);
    expect(response.status).toBe(200);
    expect(response.headers.get('RateLimit-Policy')).toBe('"key";q=3;w=60');
    // A browser shares its cache between the origins of a site: the answer must not serve another origin's page.
    expect(response.headers.get('Vary')).toBe('Authorization, Accept-Encoding, Origin');
    expect((await fromOrigin('http://127.0.0.1:5173')).status).toBe(200);
    const server = await fetch(`${proxy.url}${region}`, { headers: { Authorization: 'Bearer server-key-0123456789' } });
    expect(server.headers.get('RateLimit-Policy')).toBe('"token";q=100;w=60');
  });

  it('is refused (403, ERR_KEY_ORIGIN) from another origin and without one, saying why', async () => {
    const other = await fromOrigin('https://evil.example.test');
    expect([other.status, other.headers.get('X-Error-Code')]).toEqual([403, 'ERR_KEY_ORIGIN']);
    expect(((await other.json()) as { header: { message: string } }).header.message).toMatch(/https:\/\/evil\.example\.test is not one of them/);
    // An origin differs by scheme and port too.
    expect((await fromOrigin('http://forms.example.test')).status).toBe(403);
    const none = await fromOrigin(undefined);
    expect(none.status).toBe(403);
    expect(((await none.json()) as { header: { message: string } }).header.message).toMatch(/no Origin header/);
  });

  it('spends its own budget: the fourth request of the minute is 429', async () => {
    let last = await fromOrigin(page);
    while (last.status === 200) last = await fromOrigin(page);
    expect([last.status, last.headers.get('X-Error-Code')]).toEqual([429, 'ERR_RATE_LIMITED']);
    expect(((await last.json()) as { header: { message: string } }).header.message).toMatch(/its budget is 3 per 60 s/);
  });

  it('refuses at start an origin with a path or no scheme, and a budget not of its form', async () => {
    const refused = async (line: string): Promise<string> => {
      const error = await createAuthenticator({ auth: loadConfig({ API_KEYS_FILE: await keyFile('bad-browser-keys', `${line}\n`) }).auth }).catch(
        (caught: unknown) => caught,
      );
      expect(error).toBeInstanceOf(ConfigError);
      return (error as ConfigError).message;
    };
    expect(await refused('browser-key-0123456789 origin=https://forms.example.test/checkout')).toMatch(
      /origin=https:\/\/forms\.example\.test\/checkout is not a web origin/,
    );
    expect(await refused('browser-key-0123456789 origin=forms.example.test')).toMatch(/is not a web origin: write origin=https:\/\/app\.example\.com/);
    expect(await refused('browser-key-0123456789 rate=lots')).toMatch(/rate=lots is not a budget: write rate=<requests>\/<window>/);
  });
});

describe('auth configuration, checked at start', () => {
  const refusal = async (environment: NodeJS.ProcessEnv): Promise<string> => {
    const error = await (async () => createAuthenticator({ auth: loadConfig(environment).auth }))().catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(ConfigError);
    return (error as ConfigError).message;
  };

  it('refuses a private key, an unreadable file and a key file that holds no key', async () => {
    const privatePem = rsa.privateKey.export({ type: 'pkcs8', format: 'pem' }).toString();
    expect(await refusal({ JWT_PUBLIC_KEY: await keyFile('private.pem', privatePem) })).toMatch(/holds a private key: give the proxy the public key only/);
    expect(await refusal({ JWT_PUBLIC_KEY: '/nonexistent/key.pem' })).toMatch(/JWT_PUBLIC_KEY \/nonexistent\/key.pem cannot be read \(ENOENT\)/);
    expect(await refusal({ JWT_PUBLIC_KEY: await keyFile('junk.pem', 'not a key') })).toMatch(/is not a usable PEM public key, certificate, JWK or JWK Set/);
    expect(await refusal({ API_KEYS_FILE: await keyFile('bad-keys', 'short\nsha256:abc\n') })).toMatch(
      /API_KEYS_FILE line 1: a key must be at least 16 characters[\s\S]*API_KEYS_FILE line 2: expected sha256: followed by 64 hexadecimal digits/,
    );
  });

  it('refuses contradictory or incomplete settings, never echoing a secret', () => {
    const problems = (environment: NodeJS.ProcessEnv): readonly string[] => {
      try {
        loadConfig(environment);
      } catch (error) {
        return (error as ConfigError).problems;
      }
      return [];
    };
    expect(problems({ JWT_SECRET: 'too-short-secret' })).toEqual(['JWT_SECRET must be at least 32 characters (256 bits) for HS256, per RFC 7518 §3.2']);
    expect(problems({ JWT_PUBLIC_KEY: '/k.pem', JWKS_URL: 'https://id.test/jwks' })).toEqual([
      "JWT_PUBLIC_KEY and JWKS_URL are both set: set one (a key file, or the identity provider's key set)",
    ]);
    expect(problems({ JWT_AUDIENCE: 'api' })).toEqual(['JWT_AUDIENCE is set but no JWT key is: set JWT_SECRET, JWT_PUBLIC_KEY or JWKS_URL too']);
    expect(problems({ JWKS_URL: 'ftp://id.test/jwks' })).toEqual(['JWKS_URL must be an http(s) URL of a JSON Web Key Set (got "ftp://id.test/jwks")']);
    expect(problems({ JWT_CLOCK_TOLERANCE: 'a minute' })).toEqual(['JWT_CLOCK_TOLERANCE must be a whole number of seconds from 0 to 9999 (got "a minute")']);
    expect(problems({ JWT_SECRET: secret, JWT_MAX_LIFETIME: '1d' })).toEqual([
      'JWT_MAX_LIFETIME must be a whole number of seconds from 0 (no limit) to 999999999 (got "1d")',
    ]);
  });
});

/**
 * AWS Signature Version 4 (AWS4-HMAC-SHA256) in its S3 flavour, on node:crypto: the path is signed
 * exactly as it is sent (S3 neither normalises it nor encodes it a second time, unlike other AWS
 * services), so callers send paths made by encodeKeyPath. Checked against AWS's published vectors
 * (test/unit/sigv4.test.ts).
 */
import { createHash, createHmac } from 'node:crypto';

export interface AwsCredentials {
  readonly accessKeyId: string;
  readonly secretAccessKey: string;
  /** Temporary credentials' token (AWS STS): sent and signed as x-amz-security-token. */
  readonly sessionToken?: string | undefined;
}

export interface SigningScope {
  readonly region: string;
  readonly service: string;
}

export interface SignableRequest {
  readonly method: string;
  /** Its pathname as sent on the wire (encodeKeyPath); its query is signed in canonical order. */
  readonly url: URL;
  /** Headers to sign besides host and x-amz-date, e.g. x-amz-content-sha256 for S3. */
  readonly headers: Readonly<Record<string, string>>;
  /** Hex SHA-256 of the body, or UNSIGNED-PAYLOAD. */
  readonly payloadHash: string;
}

export const emptyPayloadHash = createHash('sha256').update('').digest('hex');

export function sha256Hex(bytes: Buffer | string): string {
  return createHash('sha256').update(bytes).digest('hex');
}

/** RFC 3986 encoding as SigV4 wants it: everything but A-Z a-z 0-9 - . _ ~ is %XX (encodeURIComponent leaves ! ' ( ) * alone). */
export function encodeRfc3986(text: string): string {
  return encodeURIComponent(text).replace(/[!'()*]/g, (character) => `%${character.charCodeAt(0).toString(16).toUpperCase()}`);
}

/** An object key as a URL path: each segment encoded, the slashes kept. */
export function encodeKeyPath(key: string): string {
  return key.split('/').map(encodeRfc3986).join('/');
}

/** `20150830T123600Z`: the ISO 8601 basic format SigV4 dates are in. */
export function amzDate(now: Date): string {
  return now
    .toISOString()
    .replace(/[-:]/g, '')
    .replace(/\.\d{3}/, '');
}

function canonicalQuery(search: string): string {
  if (search.length <= 1) return '';
  return search
    .slice(1)
    .split('&')
    .filter((pair) => pair.length > 0)
    .map((pair) => {
      const equals = pair.indexOf('=');
      const [name, value] = equals < 0 ? [pair, ''] : [pair.slice(0, equals), pair.slice(equals + 1)];
      return [encodeRfc3986(decodeURIComponent(name)), encodeRfc3986(decodeURIComponent(value))] as const;
    })
    .sort(([nameA, valueA], [nameB, valueB]) => (nameA < nameB ? -1 : nameA > nameB ? 1 : valueA < valueB ? -1 : valueA > valueB ? 1 : 0))
    .map(([name, value]) => `${name}=${value}`)
    .join('&');
}

const hmac = (key: Buffer | string, text: string): Buffer => createHmac('sha256', key).update(text, 'utf8').digest();

/**
 * The headers that sign `request`: authorization and x-amz-date, plus x-amz-security-token with
 * temporary credentials. Every header in `request.headers` is signed; send them all unchanged.
 */
export function signRequest(request: SignableRequest, credentials: AwsCredentials, scope: SigningScope, now: Date): Record<string, string> {
  const date = amzDate(now);
  const day = date.slice(0, 8);
  const added: Record<string, string> = { 'x-amz-date': date };
  if (credentials.sessionToken) added['x-amz-security-token'] = credentials.sessionToken;
  const signed = new Map<string, string>([['host', request.url.host]]);
  for (const [name, value] of Object.entries({ ...request.headers, ...added })) {
    // Values trimmed and inner runs of spaces made one, as the canonical form requires.
    signed.set(name.toLowerCase(), value.trim().replace(/ +/g, ' '));
  }
  const names = [...signed.keys()].sort();
  const canonicalRequest = [
    request.method.toUpperCase(),
    request.url.pathname || '/',
    canonicalQuery(request.url.search),
    ...names.map((name) => `${name}:${signed.get(name)}`),
    '',
    names.join(';'),
    request.payloadHash,
  ].join('\n');
  const credentialScope = `${day}/${scope.region}/${scope.service}/aws4_request`;
  const stringToSign = ['AWS4-HMAC-SHA256', date, credentialScope, sha256Hex(canonicalRequest)].join('\n');
  const signingKey = hmac(hmac(hmac(hmac(`AWS4${credentials.secretAccessKey}`, day), scope.region), scope.service), 'aws4_request');
  const signature = createHmac('sha256', signingKey).update(stringToSign, 'utf8').digest('hex');
  return {
    ...added,
    authorization: `AWS4-HMAC-SHA256 Credential=${credentials.accessKeyId}/${credentialScope}, SignedHeaders=${names.join(';')}, Signature=${signature}`,
  };
}

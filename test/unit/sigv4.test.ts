/**
 * SigV4 against AWS's own published answers (test/fixtures/sigv4/vectors.json says where each
 * comes from): a signature that is nearly right is refused by S3 with no hint why, so the only
 * useful check is against answers someone else computed.
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { encodeKeyPath, sha256Hex, signRequest } from '../../proxy/store/sigv4.ts';

interface VectorCase {
  readonly name: string;
  readonly method: string;
  readonly url: string;
  readonly headers: Record<string, string>;
  readonly body: string;
  readonly sessionToken?: string;
  readonly authorization: string;
}

interface VectorGroup {
  readonly source: string;
  readonly credentials: { accessKeyId: string; secretAccessKey: string };
  readonly scope: { region: string; service: string };
  readonly date: string;
  readonly cases: readonly VectorCase[];
}

const vectors = JSON.parse(readFileSync(path.resolve(import.meta.dirname, '../fixtures/sigv4/vectors.json'), 'utf8')) as {
  groups: VectorGroup[];
};

describe('SigV4 signing', () => {
  for (const group of vectors.groups) {
    it.each(group.cases.map((vector) => [vector.name, vector] as const))(`reproduces the ${group.source} vector %s`, (_name, vector) => {
      const signed = signRequest(
        { method: vector.method, url: new URL(vector.url), headers: vector.headers, payloadHash: sha256Hex(vector.body) },
        { ...group.credentials, sessionToken: vector.sessionToken },
        group.scope,
        new Date(group.date),
      );
      expect(signed.authorization).toBe(vector.authorization);
      expect(signed['x-amz-date']).toBe(group.date.replace(/[-:]/g, ''));
      expect(signed['x-amz-security-token']).toBe(vector.sessionToken);
    });
  }

  it('encodes an object key as S3 signs it: every character but A-Z a-z 0-9 - . _ ~ and the slashes', () => {
    expect(encodeKeyPath("builds/2026/a b(1)!*'~.json")).toBe('builds/2026/a%20b%281%29%21%2A%27~.json');
    expect(encodeKeyPath('addressmanagement/api/city/getbyname/şanlıurfa.json')).toBe('addressmanagement/api/city/getbyname/%C5%9Fanl%C4%B1urfa.json');
  });
});

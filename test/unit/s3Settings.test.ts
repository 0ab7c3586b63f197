/** ORIGIN_URL=s3://… and the AWS_* settings: what a proxy reads from them, and the start-up errors that name what to fix. */
import { describe, expect, it } from 'vitest';
import { loadConfig } from '../../proxy/config/config.ts';

const key = { AWS_ACCESS_KEY_ID: 'AKIAEXAMPLEPROXYREAD', AWS_SECRET_ACCESS_KEY: 'secret-of-the-proxy-key-0123456789' };

function problemsOf(environment: NodeJS.ProcessEnv): readonly string[] {
  try {
    loadConfig(environment);
  } catch (error) {
    return (error as { problems: readonly string[] }).problems;
  }
  throw new Error('expected a configuration error');
}

describe('a bucket as the origin', () => {
  it('reads AWS itself virtual-hosted, with the credentials, the session token and AWS_REGION', () => {
    const { origin } = loadConfig({ ORIGIN_URL: 's3://refdata-origin/prod/refdata/', AWS_REGION: 'eu-central-1', AWS_SESSION_TOKEN: 'token', ...key });
    expect(origin?.url.href).toBe('https://refdata-origin.s3.eu-central-1.amazonaws.com/prod/refdata/');
    expect(origin?.s3).toMatchObject({
      bucket: 'refdata-origin',
      prefix: 'prod/refdata/',
      region: 'eu-central-1',
      endpoint: undefined,
      credentials: { accessKeyId: key.AWS_ACCESS_KEY_ID, secretAccessKey: key.AWS_SECRET_ACCESS_KEY, sessionToken: 'token' },
    });
  });

  it('reads a bucket whose name has dots path-style (the TLS certificate matches one label), and AWS_DEFAULT_REGION when AWS_REGION is unset', () => {
    const { origin } = loadConfig({ ORIGIN_URL: 's3://refdata.example.com', AWS_DEFAULT_REGION: 'us-west-2', ...key });
    expect(origin?.url.href).toBe('https://s3.us-west-2.amazonaws.com/refdata.example.com/');
  });

  it('reads an S3-compatible store at AWS_ENDPOINT_URL_S3 (before AWS_ENDPOINT_URL) path-style', () => {
    const { origin } = loadConfig({
      ORIGIN_URL: 's3://refdata-origin/refdata',
      AWS_REGION: 'garage',
      AWS_ENDPOINT_URL_S3: 'http://10.0.0.5:3900',
      AWS_ENDPOINT_URL: 'http://10.0.0.9:9000',
      ...key,
    });
    expect(origin?.url.href).toBe('http://10.0.0.5:3900/refdata-origin/refdata/');
  });

  it('ignores AWS_* variables without an s3:// ORIGIN_URL: a shell with AWS credentials does not change a proxy that reads no bucket', () => {
    expect(loadConfig({ ORIGIN_URL: 'http://10.0.0.5:8081/', ...key }).origin?.s3).toBeUndefined();
    expect(loadConfig({ AWS_ACCESS_KEY_ID: 'AKIAONLYTHEID' }).origin).toBeUndefined();
  });

  it.each([
    [
      'no credentials',
      { AWS_REGION: 'eu-central-1' },
      /^AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY are not set: a private bucket is read and written with a key/,
    ],
    ['a key id without its secret', { AWS_REGION: 'eu-central-1', AWS_ACCESS_KEY_ID: 'AKIA' }, /AWS_ACCESS_KEY_ID is set but AWS_SECRET_ACCESS_KEY is not/],
    [
      'a secret without its key id',
      { AWS_REGION: 'eu-central-1', AWS_SECRET_ACCESS_KEY: 'secret' },
      /AWS_SECRET_ACCESS_KEY is set but AWS_ACCESS_KEY_ID is not/,
    ],
    ['no region', key, /AWS_REGION is not set: set it to the bucket's region/],
  ])('refuses to start with %s, saying what to set', (_what, environment, message) => {
    expect(problemsOf({ ORIGIN_URL: 's3://refdata-origin', ...environment })).toEqual([expect.stringMatching(message)]);
  });

  it('refuses a bucket name S3 would not take, and never echoes a secret', () => {
    expect(problemsOf({ ORIGIN_URL: 's3://Refdata_Origin/x', AWS_REGION: 'eu-central-1', ...key })).toEqual([
      expect.stringMatching(/ORIGIN_URL "s3:\/\/Refdata_Origin\/x" does not name a bucket S3 takes/),
    ]);
    const problems = problemsOf({ ORIGIN_URL: 's3://refdata-origin', AWS_REGION: 'eu-central-1', ...key, AWS_SESSION_TOKEN: '   ' });
    expect(problems).toEqual(['AWS_SESSION_TOKEN must not be empty']);
  });
});

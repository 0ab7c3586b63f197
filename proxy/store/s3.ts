/**
 * A private S3 bucket (or an S3-compatible store) as the origin: where its objects are, how a
 * request to it is signed, and what its refusals mean. Used by origin.ts (signed GETs) and by
 * deploy/upload.ts (signed PUTs, lists and deletes), with the same credentials variables as the
 * AWS command line.
 */
import { z } from 'zod';
import type { AwsCredentials } from './sigv4.ts';
import { emptyPayloadHash, encodeKeyPath, signRequest } from './sigv4.ts';

export interface S3Bucket {
  readonly bucket: string;
  /** Where the build-scoped layout starts in the bucket: '' or a path ending in '/'. */
  readonly prefix: string;
  readonly region: string;
  /** An S3-compatible store (MinIO, Ceph, Swift …), addressed path-style; undefined for AWS itself. */
  readonly endpoint: URL | undefined;
  readonly credentials: AwsCredentials;
}

/** S3's rules for a bucket name: 3 to 63 lower-case letters, digits, dots and hyphens, a letter or digit at each end. */
export const bucketNamePattern = /^[a-z0-9][a-z0-9.-]{1,61}[a-z0-9]$/;

/** `s3://bucket/some/prefix` → its bucket and its prefix (`some/prefix/`); undefined when it is not such a URL. */
export function parseS3Url(text: string): { bucket: string; prefix: string } | undefined {
  const match = /^s3:\/\/([^/]+)(?:\/(.*))?$/.exec(text);
  if (!match) return undefined;
  const [, bucket = '', path = ''] = match;
  const prefix = path.replace(/^\/+|\/+$/g, '');
  return { bucket, prefix: prefix === '' ? '' : `${prefix}/` };
}

/**
 * The URL the bucket's objects are under, ending in '/'. AWS itself: virtual-hosted
 * (`https://bucket.s3.region.amazonaws.com/`), except a name with dots, which TLS cannot match
 * against the wildcard certificate and so goes path-style; any other endpoint: path-style
 * (`endpoint/bucket/`), which every S3-compatible store serves.
 */
export function bucketBaseUrl({ bucket, prefix, region, endpoint }: Pick<S3Bucket, 'bucket' | 'prefix' | 'region' | 'endpoint'>): URL {
  const keyPrefix = encodeKeyPath(prefix);
  if (endpoint) {
    const root = endpoint.href.endsWith('/') ? endpoint.href : `${endpoint.href}/`;
    return new URL(`${bucket}/${keyPrefix}`, root);
  }
  if (bucket.includes('.')) return new URL(`https://s3.${region}.amazonaws.com/${bucket}/${keyPrefix}`);
  return new URL(`https://${bucket}.s3.${region}.amazonaws.com/${keyPrefix}`);
}

/** The URL of one object, `key` relative to the bucket's prefix; `query` as S3 wants it, e.g. `list-type=2&prefix=…`. */
export function objectUrl(base: URL, key: string, query = ''): URL {
  const url = new URL(encodeKeyPath(key), base);
  url.search = query;
  return url;
}

/** A request to sign: extra headers given are signed too, and must be sent as given; a GET's payload is empty. */
export interface BucketRequest {
  readonly method: string;
  readonly url: URL;
  readonly headers?: Readonly<Record<string, string>>;
  /** The body's SHA-256 in hex; the empty body's by default. */
  readonly payloadHash?: string | undefined;
}

/** The headers that sign a request to the bucket: S3 requires x-amz-content-sha256, the body's hash. */
export function signedHeaders(
  bucket: Pick<S3Bucket, 'region' | 'credentials'>,
  { method, url, headers: extra = {}, payloadHash = emptyPayloadHash }: BucketRequest,
  now = new Date(),
): Record<string, string> {
  const headers = { ...extra, 'x-amz-content-sha256': payloadHash };
  return { ...headers, ...signRequest({ method, url, headers, payloadHash }, bucket.credentials, { region: bucket.region, service: 's3' }, now) };
}

/** The `<Code>` of an S3 error document (`SignatureDoesNotMatch` …); undefined for any other body. */
export function s3ErrorCode(body: Buffer): string | undefined {
  if (body.length > 64 * 1024) return undefined;
  const code = /<Error>[\s\S]*?<Code>([A-Za-z.]{1,64})<\/Code>/.exec(body.toString('utf8'))?.[1];
  return code;
}

/** What an S3 refusal most likely means, in the settings' words: for the start-up error and the log. */
const hints: Readonly<Record<string, string>> = {
  SignatureDoesNotMatch: 'AWS_SECRET_ACCESS_KEY is not the secret of AWS_ACCESS_KEY_ID',
  InvalidAccessKeyId: 'the store knows no key AWS_ACCESS_KEY_ID',
  InvalidToken: 'AWS_SESSION_TOKEN is not valid for AWS_ACCESS_KEY_ID',
  ExpiredToken: 'AWS_SESSION_TOKEN has expired: temporary credentials must be renewed, and the proxy restarted with them',
  AuthorizationHeaderMalformed: "AWS_REGION is not the bucket's region",
  RequestTimeTooSkewed: "this machine's clock is more than 15 minutes off: run NTP",
  AccessDenied: "the key's policy does not allow s3:GetObject on the bucket's objects (and s3:ListBucket, so a missing object is a 404)",
  AllAccessDisabled: 'the bucket refuses all access',
  NoSuchBucket: 'ORIGIN_URL names a bucket that does not exist (or not at AWS_ENDPOINT_URL_S3)',
  NoSuchKey: "nothing there: has npm run upload put a build under ORIGIN_URL's prefix?",
};

export function s3ErrorHint(code: string | undefined): string | undefined {
  return code === undefined ? undefined : hints[code];
}

const nonEmpty = z.string().trim().min(1, 'must not be empty').optional();
const region = z
  .string()
  .trim()
  .regex(/^[a-z0-9-]{2,32}$/, 'must be a region name such as eu-central-1')
  .optional();
const endpoint = z.url({ protocol: /^https?$/, message: 'must be the http(s) URL of an S3-compatible store, e.g. http://10.0.0.5:9000' }).optional();

/**
 * The settings of a bucket origin (config.ts reads them with the others), under the names the AWS
 * command line and SDKs read; used only with an s3:// ORIGIN_URL, so a shell's AWS variables never
 * affect a proxy that does not read a bucket.
 */
export const s3Settings = {
  AWS_ACCESS_KEY_ID: nonEmpty,
  AWS_SECRET_ACCESS_KEY: nonEmpty,
  AWS_SESSION_TOKEN: nonEmpty,
  AWS_REGION: region,
  AWS_DEFAULT_REGION: region,
  AWS_ENDPOINT_URL_S3: endpoint,
  AWS_ENDPOINT_URL: endpoint,
};

export type S3Environment = z.infer<z.ZodObject<typeof s3Settings>>;

/**
 * The bucket `s3Url` names, with the credentials, region and endpoint from the environment, as
 * the AWS command line reads them (AWS_REGION before AWS_DEFAULT_REGION, AWS_ENDPOINT_URL_S3 before
 * AWS_ENDPOINT_URL); or undefined, with a line in `problems` for each setting missing or wrong.
 * Only variables are read: no ~/.aws files, no instance role.
 */
export function resolveS3Bucket(
  s3Url: string,
  environment: S3Environment,
  problems: string[],
  named = `ORIGIN_URL ${JSON.stringify(s3Url)}`,
): S3Bucket | undefined {
  const location = parseS3Url(s3Url);
  const found = problems.length;
  if (!location || !bucketNamePattern.test(location.bucket)) {
    problems.push(`${named} does not name a bucket S3 takes: 3 to 63 of a-z 0-9 . -, a letter or digit at each end (ORIGIN_URL=s3://<bucket>/<prefix>)`);
  }
  const { AWS_ACCESS_KEY_ID: accessKeyId, AWS_SECRET_ACCESS_KEY: secretAccessKey, AWS_SESSION_TOKEN: sessionToken } = environment;
  if (accessKeyId === undefined && secretAccessKey === undefined) {
    problems.push(
      'AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY are not set: a private bucket is read and written with a key (no ~/.aws file or instance role is read)',
    );
  } else if (accessKeyId === undefined) {
    problems.push('AWS_SECRET_ACCESS_KEY is set but AWS_ACCESS_KEY_ID is not: set the key id it belongs to');
  } else if (secretAccessKey === undefined) {
    problems.push('AWS_ACCESS_KEY_ID is set but AWS_SECRET_ACCESS_KEY is not: set the secret that belongs to it');
  }
  const bucketRegion = environment.AWS_REGION ?? environment.AWS_DEFAULT_REGION;
  if (bucketRegion === undefined)
    problems.push("AWS_REGION is not set: set it to the bucket's region, e.g. eu-central-1 (for an S3-compatible store, the region it is configured with)");
  const endpointUrl = environment.AWS_ENDPOINT_URL_S3 ?? environment.AWS_ENDPOINT_URL;
  if (problems.length > found || !location || accessKeyId === undefined || secretAccessKey === undefined || bucketRegion === undefined) return undefined;
  return {
    ...location,
    region: bucketRegion,
    endpoint: endpointUrl === undefined ? undefined : new URL(endpointUrl),
    credentials: { accessKeyId, secretAccessKey, sessionToken },
  };
}

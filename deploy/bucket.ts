/**
 * The few S3 calls the upload needs, signed with proxy/store/sigv4.ts: PUT an object, list keys under a
 * prefix (ListObjectsV2), delete keys (DeleteObjects). A call that fails for a reason that may
 * pass (the network, 500, 503 SlowDown) is tried again after a growing pause; a refusal (a wrong
 * key, no permission) fails at once, naming the S3 error and what it most likely means.
 */
import { createHash } from 'node:crypto';
import { Agent, request } from 'undici';
import { bucketBaseUrl, objectUrl, s3ErrorCode, s3ErrorHint, signedHeaders, type S3Bucket } from '../proxy/store/s3.ts';
import { sha256Hex } from '../proxy/store/sigv4.ts';
import { RenderError } from './commandLine.ts';

export interface BucketClient {
  /** PUTs `body` at `key` (relative to the bucket's prefix) with the given headers (Content-Type, Cache-Control …). */
  put(key: string, body: Buffer, headers: Readonly<Record<string, string>>): Promise<void>;
  /** Every key under `prefix` with its size; with `delimiter`, also the "folders" one level down. */
  list(prefix: string, delimiter?: string): Promise<{ objects: Map<string, number>; folders: string[] }>;
  /** Deletes the keys, 1000 a request (S3's limit). */
  deleteKeys(keys: readonly string[]): Promise<void>;
  close(): Promise<void>;
}

const attempts = 5;
const retryable = (status: number): boolean => status === 429 || status >= 500;
const pause = (attempt: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, 200 * 2 ** attempt));

/** Keys and values of an S3 listing are XML text: its five entities undone. */
function xmlText(text: string): string {
  return text.replace(/&(lt|gt|quot|apos|amp);/g, (_entity, name: string) => ({ lt: '<', gt: '>', quot: '"', apos: "'", amp: '&' })[name] ?? '');
}

const xmlEscape = (text: string): string => text.replace(/[<>&'"]/g, (character) => `&#${character.charCodeAt(0)};`);

export function createBucketClient(bucket: S3Bucket, concurrency: number): BucketClient {
  const agent = new Agent({ connections: concurrency, keepAliveTimeout: 30_000, headersTimeout: 30_000, bodyTimeout: 60_000 });
  const base = bucketBaseUrl(bucket);
  // Listing and deleting address the bucket itself; keys in them are relative to the bucket, prefix included.
  const bucketRoot = bucketBaseUrl({ ...bucket, prefix: '' });

  const call = async (method: string, url: URL, body: Buffer | undefined, extra: Readonly<Record<string, string>>, what: string): Promise<Buffer> => {
    for (let attempt = 1; ; attempt++) {
      let failure: string;
      try {
        const headers = signedHeaders(bucket, { method, url, headers: extra, payloadHash: body ? sha256Hex(body) : undefined });
        const response = await request(url, { method: method as 'GET', headers, body: body ?? null, dispatcher: agent });
        const answer = Buffer.from(await response.body.arrayBuffer());
        if (response.statusCode < 300) return answer;
        const code = s3ErrorCode(answer);
        failure = `${response.statusCode}${code ? ` (${code})` : ''}`;
        if (!retryable(response.statusCode)) {
          const hint = s3ErrorHint(code);
          throw new RenderError(`the bucket answered ${failure} to ${what}${hint ? `: ${hint}` : ''}`);
        }
      } catch (error) {
        if (error instanceof RenderError) throw error;
        failure = (error as { code?: string }).code ?? (error as Error).message;
      }
      if (attempt === attempts) throw new RenderError(`${what} failed ${attempts} times, the last with ${failure}: is the store reachable at ${base.origin}?`);
      await pause(attempt);
    }
  };

  const list = async (prefix: string, delimiter?: string): Promise<{ objects: Map<string, number>; folders: string[] }> => {
    const objects = new Map<string, number>();
    const folders: string[] = [];
    let token: string | undefined;
    do {
      const query = new URLSearchParams({ 'list-type': '2', prefix: `${bucket.prefix}${prefix}` });
      if (delimiter) query.set('delimiter', delimiter);
      if (token) query.set('continuation-token', token);
      const page = (await call('GET', objectUrl(bucketRoot, '', query.toString().replaceAll('+', '%20')), undefined, {}, `listing ${prefix}`)).toString('utf8');
      for (const [, contents = ''] of page.matchAll(/<Contents>([\s\S]*?)<\/Contents>/g)) {
        const key = xmlText(/<Key>([\s\S]*?)<\/Key>/.exec(contents)?.[1] ?? '');
        objects.set(key.slice(bucket.prefix.length), Number(/<Size>(\d+)<\/Size>/.exec(contents)?.[1] ?? -1));
      }
      for (const [, folder = ''] of page.matchAll(/<CommonPrefixes>\s*<Prefix>([\s\S]*?)<\/Prefix>/g))
        folders.push(xmlText(folder).slice(bucket.prefix.length));
      token = /<IsTruncated>true<\/IsTruncated>/.test(page)
        ? xmlText(/<NextContinuationToken>([\s\S]*?)<\/NextContinuationToken>/.exec(page)?.[1] ?? '')
        : undefined;
    } while (token);
    return { objects, folders };
  };

  const deleteKeys = async (keys: readonly string[]): Promise<void> => {
    for (let start = 0; start < keys.length; start += 1000) {
      const objects = keys.slice(start, start + 1000).map((key) => `<Object><Key>${xmlEscape(`${bucket.prefix}${key}`)}</Key></Object>`);
      const body = Buffer.from(`<?xml version="1.0" encoding="UTF-8"?><Delete><Quiet>true</Quiet>${objects.join('')}</Delete>`);
      // DeleteObjects requires a Content-MD5 (or a checksum) of its body.
      const md5 = createHash('md5').update(body).digest('base64');
      const answer = await call(
        'POST',
        objectUrl(bucketRoot, '', 'delete'),
        body,
        { 'content-md5': md5, 'content-type': 'application/xml' },
        'deleting old builds',
      );
      if (/<Error>/.test(answer.toString('utf8')))
        throw new RenderError(`the bucket did not delete every old object: ${answer.toString('utf8').slice(0, 500)}`);
    }
  };

  return {
    put: async (key, body, headers) => {
      await call('PUT', objectUrl(base, key), body, headers, `uploading ${key}`);
    },
    list,
    deleteKeys,
    close: () => agent.close(),
  };
}

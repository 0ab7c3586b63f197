/**
 * The framework a team would otherwise pick, a configuration of `npm run bench`: Fastify 5 in a
 * cluster of the proxies' size (node:cluster), logger off, answering the sampled lookups from
 * memory. It does the work the proxy does on a request it has seen before, no less:
 *
 * - an API-key check in a preHandler hook: an Authorization header accepted before is found in a
 *   set, as the proxy remembers accepted headers; any other is hashed and compared in constant time;
 * - the body found by the exact request target, as the proxy's resolved targets are;
 * - the same envelope with a fresh globalId (contract/envelope.ts) and the proxy's headers (ETag,
 *   Cache-Control, Vary, X-Request-Id).
 *
 * What it does not do is what a team would add later: parse the query into keys, fold names,
 * rate limits, metrics, request logs.
 *
 * With FASTIFY_BODIES=objects (`fastify-json`) it keeps each body as the parsed record instead and
 * lets Fastify serialise the envelope object on every response, as a service written the usual
 * way does (its routes returning objects, no prebuilt bytes).
 *
 *   FASTIFY_TARGETS=<file of "target<TAB>body file<TAB>etag" lines> FASTIFY_ROOT=<the references' root, referenceRoot.ts>
 *   FASTIFY_API_KEY [FASTIFY_BODIES=bytes|objects] PORT HOST WORKERS
 */
import { hash, timingSafeEqual } from 'node:crypto';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import Fastify, { type FastifyReply, type FastifyRequest, type HookHandlerDoneFunction } from 'fastify';
import { newGlobalId, wrapFailure, wrapSuccess } from '../../contract/envelope.ts';
import { cacheControl, jsonType, realm, varyOf } from '../../contract/http.ts';
import { runCluster } from './cluster.ts';

const { FASTIFY_TARGETS = '', FASTIFY_ROOT = '', FASTIFY_API_KEY = '', FASTIFY_BODIES = 'bytes', PORT = '0', HOST = '127.0.0.1', WORKERS = '1' } = process.env;

interface Lookup {
  readonly body: Buffer;
  /** The body parsed, for FASTIFY_BODIES=objects. */
  readonly record: unknown;
  readonly etag: string;
}

function serve(): void {
  const lookups = new Map<string, Lookup>();
  for (const line of readFileSync(FASTIFY_TARGETS, 'utf8').split('\n')) {
    const [target, file, etag] = line.split('\t');
    if (!target || !file || !etag) continue;
    const body = readFileSync(path.join(FASTIFY_ROOT, file));
    lookups.set(target, { body, record: FASTIFY_BODIES === 'objects' ? JSON.parse(body.toString()) : undefined, etag });
  }
  const keyDigest = hash('sha256', FASTIFY_API_KEY, 'buffer');
  const accepted = new Set<string>();
  const vary = varyOf('lookup', false);

  const refuse = (reply: FastifyReply, status: number, message: string): void => {
    reply.code(status).type(jsonType).header('Cache-Control', 'no-store').send(wrapFailure(newGlobalId(), message));
  };
  const checkKey = (request: FastifyRequest, reply: FastifyReply, done: HookHandlerDoneFunction): void => {
    const { authorization } = request.headers;
    if (authorization !== undefined && accepted.has(authorization)) {
      done();
      return;
    }
    const token = /^Bearer +([A-Za-z0-9\-._~+/]+=*) *$/i.exec(authorization ?? '')?.[1];
    if (authorization !== undefined && token !== undefined && timingSafeEqual(hash('sha256', token, 'buffer'), keyDigest)) {
      accepted.add(authorization);
      done();
      return;
    }
    reply.header('WWW-Authenticate', `Bearer realm="${realm}"`);
    refuse(reply, 401, 'Authorization required: send the header "Authorization: Bearer <token>".');
  };
  const answer = (request: FastifyRequest, reply: FastifyReply): void => {
    const lookup = lookups.get(request.url);
    if (!lookup) {
      refuse(reply, 404, 'No such record.');
      return;
    }
    reply.type(jsonType).header('ETag', lookup.etag).header('Cache-Control', cacheControl).header('Vary', vary).header('X-Request-Id', request.id);
    if (FASTIFY_BODIES === 'objects') reply.send({ header: { globalId: newGlobalId(), isSuccess: true, message: null }, body: lookup.record });
    else reply.send(wrapSuccess(newGlobalId(), lookup.body));
  };

  const app = Fastify({ logger: false });
  // One route per operation, as a Fastify service would declare them; the query stays in the target.
  const operations = new Set([...lookups.keys()].map((target) => target.split('?')[0] as string));
  for (const operation of operations) app.get(operation, { preHandler: checkKey }, answer);
  app.get('/readyz', (_request, reply) => void reply.type(jsonType).send('{"status":"ready"}'));
  app.listen({ port: Number(PORT), host: HOST }).catch((error: unknown) => {
    console.error(error);
    process.exit(1);
  });
}

runCluster(Number(WORKERS), serve);

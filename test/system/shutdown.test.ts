/**
 * Stopping a proxy (SIGTERM, as systemd, a container runtime or a rolling restart stops it), as
 * `npm start` runs it, alone and as a cluster: it first says it is not ready while it keeps
 * serving, so that a load balancer takes it out before it goes; then it closes its listener and
 * its idle connections, finishes what is in flight, and exits 0.
 *
 * A request in flight is one whose body the proxy is still fetching from its origin: the origin
 * here is a static host over the fixture build that holds the first body asked for until the test
 * lets it go.
 */
import { once } from 'node:events';
import { readFile } from 'node:fs/promises';
import http from 'node:http';
import net, { type AddressInfo } from 'node:net';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startCluster } from '../support/cluster.ts';
import { packedBody, type PackedBody } from '../support/store.ts';
import { buildFixture, testKey } from '../support/service.ts';

const auth = { Authorization: `Bearer ${testKey}` };
const lookup = '/financemanagement/api/currency/getbycode?code=TRY';
const otherLookup = '/addressmanagement/api/region/getall';

interface HoldingOrigin {
  readonly url: string;
  /** Resolves with its path when the first body is asked for (and held). */
  readonly held: Promise<string>;
  /** Lets the held body go. */
  release(): void;
  close(): Promise<void>;
}

/** Serves `root`; the first request for a body (a range of a pack) waits for release(). */
async function startHoldingOrigin(root: string): Promise<HoldingOrigin> {
  let heldNow: (pathname: string) => void = () => {};
  const held = new Promise<string>((resolve) => (heldNow = resolve));
  let release: () => void = () => {};
  const released = new Promise<void>((resolve) => (release = resolve));
  let holding = false;
  const server = http.createServer(async (request, response) => {
    const pathname = (request.url ?? '/').split('?')[0] ?? '/';
    if (!holding && pathname.endsWith('.pack')) {
      holding = true;
      heldNow(pathname);
      await released;
    }
    const body = await readFile(path.join(root, decodeURIComponent(pathname))).catch(() => undefined);
    if (body === undefined) return void response.writeHead(404).end();
    response.writeHead(200, { 'Content-Type': 'application/json', 'Content-Length': body.length }).end(body);
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/`,
    held,
    release,
    close: async () => {
      release();
      server.closeAllConnections();
      server.close();
      await once(server, 'close');
    },
  };
}

interface Reply {
  readonly status: number;
  readonly connection: string | undefined;
  readonly body: string;
}

/** One GET on a connection of its own, asking to keep it alive (so that a `Connection: close` is the server's choice). */
function ask(url: string, headers: Record<string, string> = {}): Promise<Reply> {
  const agent = new http.Agent({ keepAlive: true });
  return new Promise<Reply>((resolve, reject) => {
    http
      .get(url, { headers, agent }, (response) => {
        let body = '';
        response.setEncoding('utf8');
        response.on('data', (chunk: string) => (body += chunk));
        response.on('end', () => resolve({ status: response.statusCode ?? 0, connection: response.headers.connection, body }));
        response.on('error', reject);
      })
      .on('error', reject);
  }).finally(() => agent.destroy());
}

/** Asks /readyz until it answers anything but 200: what it answered, or why it did not. */
async function readinessOnceNotReady(url: string): Promise<string> {
  for (;;) {
    const answer = await ask(`${url}/readyz`).then(
      (reply) => String(reply.status),
      (error: Error) => error.message,
    );
    if (answer !== '200') return answer;
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

/** A kept-alive connection that has been answered once and now sits idle; resolves with it. */
async function idleConnection(url: string): Promise<net.Socket> {
  const { port } = new URL(url);
  const socket = net.connect(Number(port), '127.0.0.1');
  socket.setEncoding('utf8');
  socket.write('GET /healthz HTTP/1.1\r\nHost: proxy.test\r\n\r\n');
  let received = '';
  await new Promise<void>((resolve, reject) => {
    socket.on('data', (chunk: string) => {
      received += chunk;
      if (received.includes('"status":"live"')) resolve();
    });
    socket.on('error', reject);
  });
  expect(received).toMatch(/^HTTP\/1\.1 200 /);
  expect(received).not.toMatch(/^Connection: close/im);
  return socket;
}

describe.each([1, 2])('a proxy stopped with SIGTERM (WORKERS=%i)', (workers) => {
  let distDir: string;
  beforeAll(async () => {
    distDir = await buildFixture();
  });
  let origin: HoldingOrigin | undefined;
  afterAll(async () => {
    await origin?.close();
  });

  it('answers /readyz 503 at once while it keeps serving, then closes idle connections, finishes the request in flight and exits 0', {
    timeout: 60_000,
  }, async () => {
    origin = await startHoldingOrigin(distDir);
    const proxy = await startCluster({
      API_KEYS: testKey,
      ORIGIN_URL: origin.url,
      ORIGIN_CACHE_DIR: 'off',
      WORKERS: String(workers),
      SHUTDOWN_DELAY_MS: '3000',
      LOG_LEVEL: 'info',
    });
    if (workers > 1) await proxy.waitFor((output) => output.split('"event":"worker-listening"').length - 1 === workers);

    const inFlight = ask(`${proxy.url}${lookup}`, auth);
    expect(await origin.held).toBe(`/${((await packedBody(distDir, 'financemanagement/api/currency/getbycode/try.json')) as PackedBody).pack}`);
    const idle = await idleConnection(proxy.url);
    const idleClosed = once(idle, 'close');

    const exited = proxy.kill('SIGTERM');
    expect(await readinessOnceNotReady(proxy.url)).toBe('503');
    // Everything else is still served, each answer asking the client to reconnect (to a proxy that is not stopping).
    for (let request = 0; request < 4; request++) {
      const { status, connection } = await ask(`${proxy.url}${otherLookup}`, auth);
      expect({ status, connection }).toEqual({ status: 200, connection: 'close' });
    }
    // Alive all the while: a liveness probe must not have it restarted.
    expect((await ask(`${proxy.url}/healthz`)).status).toBe(200);

    // Once the delay has passed: the listener and the idle connection closed, the held request still answered.
    await idleClosed;
    await proxy.waitFor((output) => output.includes('"event":"stopping"'));
    if (workers === 1) await expect(ask(`${proxy.url}/healthz`)).rejects.toThrow(/ECONNREFUSED/);
    origin.release();
    const answered = await inFlight;
    expect(answered.status).toBe(200);
    expect(JSON.parse(answered.body)).toMatchObject({ header: { isSuccess: true } });
    expect(await exited).toBe(0);
  });
});

/**
 * The HTTP edge, spoken to over raw TCP: every malformed request gets exactly one envelope answer
 * with a status that says why, `Connection: close`, `no-store` and a request id, and the
 * connection is closed after it. Each test reads until the server closes the socket, so a hang
 * fails the test and a second, unsolicited response is counted.
 */
import { once } from 'node:events';
import { connect } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createAdmission, noLimits } from '../../proxy/auth/admission.ts';
import { createAuthenticator } from '../../proxy/auth/authenticate.ts';
import { loadConfig } from '../../proxy/config/config.ts';
import { silentLogger } from '../../proxy/observe/log.ts';
import { startServer, type RunningServer } from '../../proxy/http/server.ts';
import { openLocalStore } from '../../proxy/store/store.ts';
import { noMetrics } from '../../proxy/observe/metrics.ts';
import { buildFixture, startProxy, testKey } from '../support/service.ts';

let distDir: string;
let proxy: RunningServer;
beforeAll(async () => {
  distDir = await buildFixture();
  proxy = await startProxy(distDir);
});
afterAll(() => proxy.close());

interface RawResponse {
  readonly statusLine: string;
  readonly status: number;
  /** Header names lower-cased. */
  readonly headers: Map<string, string>;
  readonly body: string;
}

/** Writes `request` as it is, optionally half-closes, and collects everything until the server closes. */
function exchange(request: string, { halfClose = false } = {}): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const socket = connect(Number(new URL(proxy.url).port), '127.0.0.1');
    const chunks: Buffer[] = [];
    socket.on('data', (chunk: Buffer) => chunks.push(chunk));
    socket.on('close', () => resolve(Buffer.concat(chunks)));
    socket.on('error', reject);
    socket.write(request);
    if (halfClose) socket.end();
  });
}

/** Splits what arrived into responses (Content-Length framed); fails on bytes that are not one. */
function parseResponses(raw: Buffer): RawResponse[] {
  const responses: RawResponse[] = [];
  let offset = 0;
  while (offset < raw.length) {
    const headEnd = raw.indexOf('\r\n\r\n', offset);
    if (headEnd === -1) throw new Error(`not an HTTP response: ${JSON.stringify(raw.subarray(offset).toString())}`);
    const [statusLine = '', ...lines] = raw.subarray(offset, headEnd).toString('latin1').split('\r\n');
    const headers = new Map(lines.map((line) => [line.slice(0, line.indexOf(':')).toLowerCase(), line.slice(line.indexOf(':') + 1).trim()]));
    const status = Number(/^HTTP\/1\.1 (\d{3}) /.exec(statusLine)?.[1]);
    const length = status < 200 ? 0 : Number(headers.get('content-length') ?? 0);
    const body = raw.subarray(headEnd + 4, headEnd + 4 + length).toString();
    responses.push({ statusLine, status, headers, body });
    offset = headEnd + 4 + length;
  }
  return responses;
}

/** The one response `request` gets, checked to be a failure envelope with the edge's headers. */
async function refusal(request: string, statusLine: string, message: RegExp, options: { halfClose?: boolean } = {}): Promise<RawResponse> {
  const responses = parseResponses(await exchange(request, options));
  expect(responses.map((response) => response.statusLine)).toEqual([statusLine]);
  const [response] = responses as [RawResponse];
  expect(response.headers.get('connection')).toBe('close');
  expect(response.headers.get('cache-control')).toBe('no-store');
  expect(response.headers.get('content-type')).toBe('application/json; charset=utf-8');
  const envelope = JSON.parse(response.body) as { header: { globalId: string; isSuccess: boolean; message: string }; body: unknown };
  expect(envelope.header.isSuccess).toBe(false);
  expect(envelope.body).toBeNull();
  expect(envelope.header.message).toMatch(message);
  expect(response.headers.get('x-request-id')).toBe(envelope.header.globalId);
  return response;
}

const lookup = '/addressmanagement/api/region/getall';

describe('requests Node parses but HTTP/1.1 forbids', () => {
  it('400 for two Host headers (RFC 9112 §3.2)', async () => {
    await refusal('GET /healthz HTTP/1.1\r\nHost: a.example\r\nHost: b.example\r\n\r\n', 'HTTP/1.1 400 Bad Request', /2 Host headers.*send one/);
  });

  it('400 for a request without a Host header, naming it', async () => {
    await refusal('GET /healthz HTTP/1.1\r\nAccept: */*\r\n\r\n', 'HTTP/1.1 400 Bad Request', /no Host header: HTTP\/1\.1 requires one/);
  });

  it('400 for a request line without an HTTP version (HTTP/0.9 style)', async () => {
    await refusal('GET /healthz\r\nHost: a.example\r\n\r\n', 'HTTP/1.1 400 Bad Request', /no HTTP version.*GET \/healthz HTTP\/1\.1/);
  });

  it('505 for HTTP/2.0 on an HTTP/1.1 request line', async () => {
    await refusal('GET /healthz HTTP/2.0\r\nHost: a.example\r\n\r\n', 'HTTP/1.1 505 HTTP Version Not Supported', /HTTP\/2\.0 is not supported.*HTTP\/1\.1/);
  });

  it('417 naming an expectation other than 100-continue', async () => {
    await refusal('GET /healthz HTTP/1.1\r\nHost: a.example\r\nExpect: 999-foo\r\n\r\n', 'HTTP/1.1 417 Expectation Failed', /"999-foo"/);
  });

  it('still honours Expect: 100-continue on a GET', async () => {
    const responses = parseResponses(await exchange('GET /healthz HTTP/1.1\r\nHost: a.example\r\nExpect: 100-continue\r\nConnection: close\r\n\r\n'));
    expect(responses.map((response) => response.status)).toEqual([100, 200]);
    expect(JSON.parse(responses[1]?.body ?? '')).toMatchObject({ header: { isSuccess: true }, body: { status: 'live' } });
  });

  it('405 with Allow for CONNECT, instead of a dropped connection', async () => {
    const response = await refusal(
      'CONNECT example.com:443 HTTP/1.1\r\nHost: example.com:443\r\n\r\n',
      'HTTP/1.1 405 Method Not Allowed',
      /Method CONNECT is not allowed/,
    );
    expect(response.headers.get('allow')).toBe('GET, HEAD, OPTIONS');
  });

  it('400, once, for a GET with a body, well-formed or not', async () => {
    const badChunk = `GET ${lookup} HTTP/1.1\r\nHost: a.example\r\nAuthorization: Bearer ${testKey}\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\nabc\r\n0\r\n\r\n`;
    await refusal(badChunk, 'HTTP/1.1 400 Bad Request', /GET request carries no body.*Transfer-Encoding/);
    await refusal(
      'GET /healthz HTTP/1.1\r\nHost: a.example\r\nContent-Length: 3\r\n\r\nabc',
      'HTTP/1.1 400 Bad Request',
      /GET request carries no body.*Content-Length/,
    );
  });
});

describe('requests Node cannot parse get a message naming the problem', () => {
  it('400 for a bare LF ending a line, asking for CRLF', async () => {
    for (const request of [
      'GET /healthz HTTP/1.1\nHost: a.example\r\n\r\n',
      'GET /healthz HTTP/1.1\r\nHost: a.example\nAccept: */*\r\n\r\n',
      'GET /healthz HTTP/1.1\r\nHost: a.example\r\n\n',
    ]) {
      await refusal(request, 'HTTP/1.1 400 Bad Request', /bare LF.*end every line .*with CRLF/);
    }
    // Without a version, llhttp reads the bare LF as an HTTP/0.9 request line: refused for that.
    await refusal('GET /healthz\n\r\n', 'HTTP/1.1 400 Bad Request', /no HTTP version/);
  });

  it('505 for a major version the parser does not know and for the HTTP/2 preface; 400 for HTTP/1.2', async () => {
    await refusal('GET /healthz HTTP/3.0\r\nHost: a.example\r\n\r\n', 'HTTP/1.1 505 HTTP Version Not Supported', /HTTP\/3\.0 is not supported.*HTTP\/1\.1/);
    await refusal('GET /healthz HTTP/1.2\r\nHost: a.example\r\n\r\n', 'HTTP/1.1 400 Bad Request', /HTTP\/1\.2 is not supported.*HTTP\/1\.1/);
    await refusal('GET /healthz HTTP/1.1 \r\nHost: a.example\r\n\r\n', 'HTTP/1.1 400 Bad Request', /request line must be "METHOD \/path HTTP\/1\.1"/);
    await refusal('PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n', 'HTTP/1.1 505 HTTP Version Not Supported', /HTTP\/2.*not supported.*HTTP\/1\.1/);
  });

  it('405 for a method the parser does not know, 400 for one that is not a method', async () => {
    const response = await refusal('FROB /healthz HTTP/1.1\r\nHost: a.example\r\n\r\n', 'HTTP/1.1 405 Method Not Allowed', /Method FROB is not allowed/);
    expect(response.headers.get('allow')).toBe('GET, HEAD, OPTIONS');
    await refusal('G@T /healthz HTTP/1.1\r\nHost: a.example\r\n\r\n', 'HTTP/1.1 400 Bad Request', /does not start with an HTTP method/);
  });

  it('keeps the percent-encoding hint for a character the request target may not hold', async () => {
    await refusal(
      'GET /addressmanagement/api/country/getbyname?name=İstanbul HTTP/1.1\r\nHost: a.example\r\n\r\n',
      'HTTP/1.1 400 Bad Request',
      /percent-encode.*%C4%B0stanbul/,
    );
    await refusal('GET /addressmanagement/api/country/getbyname?name=New York HTTP/1.1\r\nHost: a.example\r\n\r\n', 'HTTP/1.1 400 Bad Request', /space.*%20/);
  });

  it('names the header at fault, and never mentions percent-encoding', async () => {
    const cases: [string, string, RegExp][] = [
      ['GET /healthz HTTP/1.1\r\nHost: a.example\r\nBad Header: x\r\n\r\n', 'HTTP/1.1 400 Bad Request', /header name/],
      ['GET /healthz HTTP/1.1\r\nHost: a.example\r\nX-Note: a\x01b\r\n\r\n', 'HTTP/1.1 400 Bad Request', /control character/],
      ['GET /healthz HTTP/1.1\r\nHost: a.example\r\nX-Note: a\r\n b\r\n\r\n', 'HTTP/1.1 400 Bad Request', /folded/],
      ['GET /healthz HTTP/1.1\r\nHost: a.example\r\nContent-Length: 3\r\nContent-Length: 4\r\n\r\nabcd', 'HTTP/1.1 400 Bad Request', /Content-Length/],
      ['GET /healthz HTTP/1.1\r\nHost: a.example\r\nContent-Length: three\r\n\r\n', 'HTTP/1.1 400 Bad Request', /Content-Length.*number/],
      [
        'GET /healthz HTTP/1.1\r\nHost: a.example\r\nContent-Length: 3\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n',
        'HTTP/1.1 400 Bad Request',
        /Transfer-Encoding/,
      ],
      [`GET /healthz HTTP/1.1\r\nHost: a.example\r\nX-Note: ${'a'.repeat(20_000)}\r\n\r\n`, 'HTTP/1.1 431 Request Header Fields Too Large', /KiB/],
    ];
    for (const [request, statusLine, message] of cases) {
      const response = await refusal(request, statusLine, message);
      expect(response.body).not.toMatch(/percent-encode/);
    }
  });

  it('400 for a connection closed before the request ended', async () => {
    await refusal('GET /healthz HTTP/1.1\r\nHost: a.example\r\n', 'HTTP/1.1 400 Bad Request', /closed before the request was complete/, { halfClose: true });
  });
});

describe('one request, one answer', () => {
  it('answers a malformed request pipelined behind a lookup after that lookup, in order', async () => {
    const responses = parseResponses(
      await exchange(
        `GET /financemanagement/api/currency/getall HTTP/1.1\r\nHost: a.example\r\nAuthorization: Bearer ${testKey}\r\n\r\nG@T / HTTP/1.1\r\n\r\n`,
      ),
    );
    expect(responses.map((response) => response.status)).toEqual([200, 400]);
    expect(JSON.parse(responses[0]?.body ?? '')).toMatchObject({ header: { isSuccess: true } });
  });

  it('sends nothing more for bytes after a Connection: close request', async () => {
    const responses = parseResponses(await exchange('GET /healthz HTTP/1.1\r\nHost: a.example\r\nConnection: close\r\n\r\nGARBAGE'));
    expect(responses.map((response) => response.status)).toEqual([200]);
  });

  it('answers a POST with a broken body once, with its 405', async () => {
    const responses = parseResponses(await exchange('POST /healthz HTTP/1.1\r\nHost: a.example\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\nabc\r\n0\r\n\r\n'));
    expect(responses.map((response) => response.status)).toEqual([405]);
  });
});

describe('a refused client that keeps its side open', () => {
  it('is cut off after the linger time', async () => {
    const { auth } = loadConfig({ API_KEYS: testKey });
    const store = await openLocalStore(distDir);
    const quick = await startServer(
      {
        store: () => store,
        admission: createAdmission(await createAuthenticator({ auth }), noLimits, undefined),
        scopes: auth.scopes,
        cors: { origins: '*' },
        log: silentLogger,
        metrics: noMetrics,
      },
      0,
      '127.0.0.1',
      { headersMs: 60_000, requestMs: 120_000, keepAliveMs: 60_000, checkEveryMs: 1_000, lingerMs: 100 },
    );
    try {
      // The server's end of the connection is what must go: this client never closes its own.
      const serverSide = new Promise<void>((resolve) => quick.server.once('connection', (socket) => socket.once('close', () => resolve())));
      const chunks: Buffer[] = [];
      const client = connect({ port: Number(new URL(quick.url).port), host: '127.0.0.1', allowHalfOpen: true });
      client.on('data', (chunk: Buffer) => chunks.push(chunk));
      client.write('G@T /healthz HTTP/1.1\r\nHost: a.example\r\n\r\n');
      await Promise.all([serverSide, once(client, 'end')]);
      client.destroy();
      const received = Buffer.concat(chunks);
      expect(parseResponses(received).map((response) => response.status)).toEqual([400]);
    } finally {
      await quick.close();
    }
  });
});

/**
 * Every failure carries its code in X-Error-Code, the status its code has in the published table
 * (contract/errorCodes.ts), and a script on another origin can read it; a success carries none. A
 * failure whose message is not shown (a server-side fault) shows the code ERR_UNAVAILABLE.
 */
import { connect } from 'node:net';
import { truncate } from 'node:fs/promises';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { errorCodeHeader, errorOutcomes } from '../../contract/errorCodes.ts';
import type { ErrorCode } from '../../contract/errors.ts';
import type { RunningService } from '../../proxy/service.ts';
import { packedBody, type PackedBody } from '../support/store.ts';
import { buildFixture, startTestService, testKey } from '../support/service.ts';

const auth = { Authorization: `Bearer ${testKey}` };
const address = '/addressmanagement/api';

let service: RunningService;
let distDir: string;

beforeAll(async () => {
  distDir = await buildFixture();
  service = await startTestService(distDir, { API_KEYS: testKey, RATE_LIMIT: '40/1m' });
});
afterAll(async () => {
  await service?.close();
});

/** Sends bytes as they are and reads the raw answer's status line and headers. */
function rawAnswer(bytes: string): Promise<{ status: number; headers: Map<string, string> }> {
  const { port } = new URL(service.running.url);
  return new Promise((resolve, reject) => {
    const socket = connect(Number(port), '127.0.0.1');
    let text = '';
    socket.on('data', (chunk) => {
      text += chunk.toString('latin1');
    });
    socket.on('error', reject);
    socket.on('close', () => {
      const [head = ''] = text.split('\r\n\r\n');
      const [statusLine = '', ...lines] = head.split('\r\n');
      const headers = new Map(lines.map((line) => [line.slice(0, line.indexOf(':')).toLowerCase(), line.slice(line.indexOf(':') + 1).trim()]));
      resolve({ status: Number(statusLine.split(' ')[1]), headers });
    });
    socket.write(bytes);
  });
}

describe('X-Error-Code', () => {
  const cases: readonly [string, string, RequestInit, ErrorCode][] = [
    ['no token', `${address}/region/getall`, {}, 'ERR_AUTH_REQUIRED'],
    ['a token of the wrong form', `${address}/region/getall`, { headers: { Authorization: 'Basic dXNlcjpwYXNz' } }, 'ERR_AUTH_MALFORMED'],
    ['an unknown token', `${address}/region/getall`, { headers: { Authorization: 'Bearer not-a-key-0123456789' } }, 'ERR_TOKEN_INVALID'],
    ['an unknown operation', `${address}/country/getbyalpha9`, { headers: auth }, 'ERR_NO_OPERATION'],
    ['a missing parameter', `${address}/country/getbyalpha2code`, { headers: auth }, 'ERR_PARAM_MISSING'],
    ['a parameter not of its form', `${address}/country/getbyid?id=42`, { headers: auth }, 'ERR_PARAM_INVALID'],
    ['a repeated parameter', `${address}/country/getbyalpha2code?alpha2code=TR&alpha2code=DE`, { headers: auth }, 'ERR_PARAM_REPEATED'],
    ['a value no record has', `${address}/country/getbyalpha2code?alpha2code=XQ`, { headers: auth }, 'ERR_NOT_FOUND'],
    ['a method that writes', `${address}/region/getall`, { method: 'POST', headers: auth }, 'ERR_METHOD_NOT_ALLOWED'],
    ['a public file that is not there', '/docs/nothing.js', {}, 'ERR_NO_FILE'],
  ];

  it.each(cases)('%s: the code and its status', async (_what, url, init, code) => {
    const response = await fetch(`${service.running.url}${url}`, init);
    expect(response.headers.get(errorCodeHeader)).toBe(code);
    expect(response.status).toBe(errorOutcomes[code].status);
    const envelope = (await response.json()) as { header: { isSuccess: boolean; message: string } };
    expect(envelope.header.isSuccess).toBe(false);
    expect(envelope.header.message.length).toBeGreaterThan(10);
  });

  it('is exposed to a script on another origin, and absent from a success', async () => {
    const origin = { Origin: 'https://forms.example' };
    const failed = await fetch(`${service.running.url}${address}/country/getbyalpha2code?alpha2code=XQ`, { headers: { ...auth, ...origin } });
    expect(failed.headers.get('Access-Control-Expose-Headers')).toContain(errorCodeHeader);
    const served = await fetch(`${service.running.url}${address}/region/getall`, { headers: { ...auth, ...origin } });
    expect(served.status).toBe(200);
    expect(served.headers.has(errorCodeHeader)).toBe(false);
  });

  it('is on a request the HTTP edge refuses before any handler', async () => {
    const malformed = await rawAnswer('GET /healthz HTTP/1.1\r\nHost: a\r\nHost: b\r\n\r\n');
    expect([malformed.status, malformed.headers.get('x-error-code')]).toEqual([400, 'ERR_REQUEST_MALFORMED']);
    const version = await rawAnswer('PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n');
    expect([version.status, version.headers.get('x-error-code')]).toEqual([505, 'ERR_HTTP_VERSION']);
  });

  it('is ERR_UNAVAILABLE for a server-side fault whose message is not shown: a body cut from its pack on the disk', async () => {
    // The pack of a body no request of this file has read (and the store has cached), emptied in
    // place: a worker keeps a pack it has read open, so removing the file would not reach it.
    const { pack } = (await packedBody(distDir, 'financemanagement/api/currency/getall.json')) as PackedBody;
    await truncate(path.join(distDir, pack), 0);
    const response = await fetch(`${service.running.url}/financemanagement/api/currency/getall`, { headers: auth });
    expect([response.status, response.headers.get(errorCodeHeader)]).toEqual([503, 'ERR_UNAVAILABLE']);
    expect(((await response.json()) as { header: { message: string } }).header.message).not.toContain(distDir);
  });

  it('is ERR_RATE_LIMITED with the status the table gives once the budget is spent', async () => {
    let last: Response | undefined;
    for (let sent = 0; sent < 60; sent += 1) {
      last = await fetch(`${service.running.url}${address}/country/getbyalpha2code?alpha2code=TR`, { headers: auth });
      if (last.status === 429) break;
    }
    expect(last?.headers.get(errorCodeHeader)).toBe('ERR_RATE_LIMITED');
    expect(last?.status).toBe(errorOutcomes.ERR_RATE_LIMITED.status);
  });
});

/**
 * A relay between the proxy and a real origin (nginx) that passes requests through with http-proxy
 * or breaks them the ways an origin or the network breaks: a reset or a stall halfway through a
 * file, a damaged byte, a host that is gone. The origin's own status and headers are kept, so the
 * proxy sees exactly what a failing nginx would send.
 */
import http from 'node:http';
import httpProxy from 'http-proxy';
import { listenOnLoopback } from './loopbackServer.ts';

/**
 * - pass: plain pass-through, every header as sent (the origin secret included);
 * - reset-mid-body: the origin's status, headers and half the file, then the connection destroyed;
 * - stall-mid-body: the origin's status, headers and half the file, then nothing, ever;
 * - corrupt: the whole file with one byte changed, at the same length;
 * - down: every connection destroyed as it arrives or sends a request, as a host that is gone.
 */
export type RelayMode = 'pass' | 'reset-mid-body' | 'stall-mid-body' | 'corrupt' | 'down';

type BodyFault = Exclude<RelayMode, 'pass' | 'down'>;

export interface FaultRelay {
  /** `http://127.0.0.1:<port>/`, for ORIGIN_URL. */
  readonly url: string;
  /** Read as each request arrives: a change applies to the next request. */
  mode: RelayMode;
  /**
   * Which requests the body faults touch (all by default), by path and Range header (a body is a
   * range of its pack); any other request passes, so that the manifest can still load while one
   * file fails. 'down' ignores it: a gone host is gone for all.
   */
  faultsOn: (pathname: string, range: string | undefined) => boolean;
  /** Requests per path the relay read (faulted ones included), since the start. */
  readonly requests: Map<string, number>;
  /** Of those, the requests with a Range header, per `<path> <range>` (`/lookups/….pack bytes=0-99`). */
  readonly ranges: Map<string, number>;
  close(): Promise<void>;
}

/** The relay on a free loopback port in front of `target` (an origin's URL). */
export async function startFaultRelay(target: string): Promise<FaultRelay> {
  const proxy = httpProxy.createProxyServer({ target });
  // The fault each request was given when it arrived, for the origin's answer to it.
  const faults = new WeakMap<http.IncomingMessage, BodyFault>();
  const relay: Omit<FaultRelay, 'url' | 'close'> = { mode: 'pass', faultsOn: () => true, requests: new Map(), ranges: new Map() };

  proxy.on('proxyRes', (originResponse, request, response) => {
    const fault = faults.get(request);
    if (!fault) return; // passed through by http-proxy itself
    const chunks: Buffer[] = [];
    originResponse.on('data', (chunk: Buffer) => chunks.push(chunk));
    originResponse.on('end', () => {
      const body = Buffer.concat(chunks);
      // The origin's headers with the relay's framing: the relay sends the body, whole or not.
      const headers = { ...originResponse.headers, 'content-length': String(body.length) };
      delete headers['transfer-encoding'];
      delete headers.connection;
      response.writeHead(originResponse.statusCode ?? 502, headers);
      if (fault === 'corrupt') {
        const middle = body.length >> 1;
        body[middle] = (body[middle] as number) ^ 0x01; // one bit flipped: the same length, another byte
        response.end(body);
        return;
      }
      response.write(body.subarray(0, body.length >> 1), () => {
        if (fault === 'reset-mid-body') response.socket?.destroy();
        // stall-mid-body: the response stays open until the proxy gives up or close() ends it
      });
    });
  });
  // The origin unreachable, or the proxy gone mid-answer: nothing sensible to send but a reset.
  proxy.on('error', (_error, request) => request.socket.destroy());

  const server = http.createServer((request, response) => {
    const pathname = (request.url ?? '/').split('?')[0] ?? '/';
    const range = request.headers.range;
    relay.requests.set(pathname, (relay.requests.get(pathname) ?? 0) + 1);
    if (range !== undefined) relay.ranges.set(`${pathname} ${range}`, (relay.ranges.get(`${pathname} ${range}`) ?? 0) + 1);
    const mode = relay.mode;
    if (mode === 'down') return request.socket.destroy(); // a kept-alive connection opened before
    if (mode === 'pass' || !relay.faultsOn(pathname, range)) return proxy.web(request, response);
    faults.set(request, mode);
    proxy.web(request, response, { selfHandleResponse: true });
  });
  server.on('connection', (socket) => {
    if (relay.mode === 'down') socket.destroy();
  });

  // Stalled answers included: close ends every connection.
  return listenOnLoopback(server, relay, () => proxy.close());
}

/** Starting and stopping the HTTP server: Node's http, strict parsing, slow clients cut off. */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { listenError } from '../process/listenable.ts';
import { clientTimeouts, shutdownGraceMs, type ClientTimeouts } from '../../contract/http.ts';
import { guardEdge } from './edge.ts';
import type { ServerDependencies } from './exchange.ts';
import { createRequestListener } from './listener.ts';

export interface RunningServer {
  readonly server: http.Server;
  readonly url: string;
  /**
   * The first step of stopping: /readyz answers 503 and every answer closes its connection, while
   * everything is still served and the listener stays open. close() is the second.
   */
  drain(): void;
  /** Stops accepting connections, closes idle ones, lets in-flight requests finish (up to the grace period), then resolves. */
  close(): Promise<void>;
}

export function startServer(deps: ServerDependencies, port: number, host: string, timeouts: ClientTimeouts = clientTimeouts): Promise<RunningServer> {
  let draining = false;
  const listener = createRequestListener(deps, () => draining);
  const server = http.createServer(
    {
      requestTimeout: timeouts.requestMs,
      headersTimeout: timeouts.headersMs,
      connectionsCheckingInterval: timeouts.checkEveryMs,
      // Whatever NODE_OPTIONS says: a lenient parser is a request-smuggling vector.
      insecureHTTPParser: false,
      // Host is checked by refuseMalformed, which answers with the envelope rather than Node's bare 400.
      requireHostHeader: false,
    },
    listener,
  );
  server.keepAliveTimeout = timeouts.keepAliveMs;
  guardEdge(server, listener, { headersMs: timeouts.headersMs, requestMs: timeouts.requestMs, lingerMs: timeouts.lingerMs ?? clientTimeouts.lingerMs });
  return new Promise((resolve, reject) => {
    server.once('error', (error: NodeJS.ErrnoException) => reject(listenError(error, host, port)));
    server.listen(port, host, () => {
      const address = server.address() as AddressInfo;
      const shownHost = address.family === 'IPv6' ? `[${address.address}]` : address.address;
      resolve({
        server,
        url: `http://${shownHost}:${address.port}`,
        drain: () => {
          draining = true;
        },
        close: () =>
          new Promise((done) => {
            const force = setTimeout(() => server.closeAllConnections(), shutdownGraceMs);
            force.unref();
            server.close(() => {
              clearTimeout(force);
              done();
            });
            server.closeIdleConnections();
          }),
      });
    });
  });
}

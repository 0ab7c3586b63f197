/**
 * A test's HTTP server on a free loopback port: its state with the URL it answers at and a close
 * that ends every connection, stalled answers included, so that a test never waits on one.
 */
import type http from 'node:http';
import type { AddressInfo } from 'node:net';

export interface OnLoopback {
  readonly url: string;
  close(): Promise<void>;
}

/** Starts `server` on 127.0.0.1 and returns `state` with `url` and `close` (which runs `alsoClose` too). */
export function listenOnLoopback<State extends object>(server: http.Server, state: State, alsoClose: () => void = () => {}): Promise<State & OnLoopback> {
  return new Promise((resolve) =>
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as AddressInfo;
      const close = () =>
        new Promise<void>((done) => {
          server.close(() => done());
          server.closeAllConnections();
          alsoClose();
        });
      resolve(Object.assign(state, { url: `http://127.0.0.1:${port}/`, close }));
    }),
  );
}

/** Whether the server can listen where it is told to, and why not in one line that says what to do. */
import net from 'node:net';
import { ServiceError } from '../../contract/errors.ts';

/** Why the server cannot listen at host:port, in one line that says what to do. */
export function listenError(error: NodeJS.ErrnoException, host: string, port: number): ServiceError {
  const where = `${host.includes(':') ? `[${host}]` : host}:${port}`;
  switch (error.code) {
    case 'EADDRINUSE':
      return new ServiceError('ERR_LISTEN', `${where} is already in use by another process: stop it, or set PORT (and HOST) to a free address`);
    case 'EACCES':
      return new ServiceError(
        'ERR_LISTEN',
        `${where} needs privileges this process lacks: use a PORT above 1023, or let a front end (nginx, a load balancer) listen on ${port}`,
      );
    case 'EADDRNOTAVAIL':
      return new ServiceError('ERR_LISTEN', `HOST ${host} is not an address of this machine: use 127.0.0.1, 0.0.0.0, :: or one of its addresses`);
    default:
      return new ServiceError('ERR_LISTEN', `cannot listen on ${where}: ${error.code ?? error.message}`);
  }
}

/** Fails with listenError when host:port cannot be listened on now; the primary checks it before any worker starts. */
export function checkListenable(port: number, host: string): Promise<void> {
  return new Promise((resolve, reject) => {
    const probe = net.createServer();
    probe.once('error', (error: NodeJS.ErrnoException) => reject(listenError(error, host, port)));
    probe.listen(port, host, () => probe.close(() => resolve()));
  });
}

/**
 * What the service says about itself without a token: an index at / (for whoever opens the
 * address), liveness and readiness (for orchestrators and load balancers).
 */
import { wrapSuccess } from '../../contract/envelope.ts';
import { ServiceError } from '../../contract/errors.ts';
import { noStore } from '../../contract/http.ts';
import type { BodyStore } from '../store/store.ts';
import type { Handler } from './exchange.ts';

/** Whether a path is a probe's: `/`, `/healthz` or `/readyz`. */
export function isProbe(pathname: string): boolean {
  return pathname === '/' || pathname === '/healthz' || pathname === '/readyz';
}

/**
 * The body of /healthz, /readyz or /. While the process drains before stopping, /readyz fails
 * (503), so that load balancers take it out, and /healthz still answers: it is alive, and must
 * not be restarted.
 */
function probeBody(pathname: string, store: () => BodyStore, draining: boolean): Record<string, unknown> {
  if (pathname === '/healthz') return { status: 'live' };
  if (pathname === '/readyz') {
    if (draining) throw new ServiceError('ERR_STOPPING', 'This instance is stopping: it answers what it is asked until it goes, but send new work elsewhere.');
    return { status: 'ready', buildId: store().manifest.buildId };
  }
  const { buildId, dataVersion } = store().manifest;
  return {
    service: 'Reference data lookup service',
    buildId,
    dataVersion,
    documentation: '/docs',
    openapi: '/openapi.json',
    health: '/healthz',
    readiness: '/readyz',
  };
}

/** A probe, never cached. /readyz answers 503 while the body store is not ready (live.ts says why). */
export const answerProbe: Handler = (exchange) => {
  const { pathname, context } = exchange;
  const draining = context.draining();
  // Stopping comes first: a proxy on its way out is not ready, whatever its origin says.
  const unready = pathname === '/readyz' && !draining ? context.notReady?.() : undefined;
  if (unready !== undefined) throw new ServiceError('ERR_NOT_READY', `Not ready: ${unready}`);
  const body = probeBody(pathname, context.store, draining);
  exchange.send(200, { 'Cache-Control': noStore, ...exchange.commonHeaders() }, wrapSuccess(exchange.ids.globalId, Buffer.from(JSON.stringify(body))));
};

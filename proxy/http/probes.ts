/**
 * What the service says about itself without a token: an index at / (for whoever opens the
 * address), liveness and readiness (for orchestrators and load balancers); and /meta, the build an
 * authenticated client is talking to.
 */
import { serviceVersion } from '../../contract/version.ts';
import { ServiceError } from '../../contract/errors.ts';
import type { BodyStore } from '../store/store.ts';

/**
 * The body of /healthz, /readyz or / (a short index for whoever opens the address); undefined for
 * every other path. While the process drains before stopping, /readyz fails (503), so that load
 * balancers take it out, and /healthz still answers: it is alive, and must not be restarted.
 */
export function probeBody(pathname: string, store: () => BodyStore, draining: boolean): Record<string, unknown> | undefined {
  if (pathname === '/') {
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
  if (pathname === '/healthz') return { status: 'live' };
  if (pathname === '/readyz') {
    if (draining) throw new ServiceError('ERR_STOPPING', 'This instance is stopping: it answers what it is asked until it goes, but send new work elsewhere.');
    return { status: 'ready', buildId: store().manifest.buildId };
  }
  return undefined;
}

/** The body of /meta. */
export function describeBuild(store: BodyStore): Record<string, unknown> {
  const { buildId, builtAt, dataVersion, counts, holidayYears } = store.manifest;
  return { version: serviceVersion, buildId, builtAt, dataVersion, counts, holidayYears };
}

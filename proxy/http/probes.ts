/**
 * What the service says about itself without a token: an index at / (for whoever opens the
 * address), liveness and readiness (for orchestrators and load balancers); and /meta, the build an
 * authenticated client is talking to.
 */
import type { BodyStore } from '../store.ts';

/** The body of /healthz, /readyz or / (a short index for whoever opens the address); undefined for every other path. */
export function probeBody(pathname: string, store: () => BodyStore): Record<string, unknown> | undefined {
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
  if (pathname === '/readyz') return { status: 'ready', buildId: store().manifest.buildId };
  return undefined;
}

/** The body of /meta. */
export function describeBuild(store: BodyStore): Record<string, unknown> {
  const { buildId, builtAt, dataVersion, counts, holidayYears } = store.manifest;
  return { buildId, builtAt, dataVersion, counts, holidayYears };
}

/**
 * What the service says about itself: liveness and readiness without a token (for orchestrators
 * and load balancers), and /meta, the build an authenticated client is talking to.
 */
import type { BodyStore } from '../store.ts';

/** The body of /healthz or /readyz; undefined for every other path. */
export function probeBody(pathname: string, store: () => BodyStore): Record<string, unknown> | undefined {
  if (pathname === '/healthz') return { status: 'live' };
  if (pathname === '/readyz') return { status: 'ready', buildId: store().manifest.buildId };
  return undefined;
}

/** The body of /meta. */
export function describeBuild(store: BodyStore): Record<string, unknown> {
  const { buildId, builtAt, dataVersion, counts, holidayYears } = store.manifest;
  return { buildId, builtAt, dataVersion, counts, holidayYears };
}

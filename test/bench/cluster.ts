/**
 * The bench's own Node servers (floor.ts, fastifyServer.ts) in a cluster of the proxies' size:
 * `workers` forked processes each running `serve`, or `serve` in this process for one; SIGTERM and
 * SIGINT stop the workers with the primary.
 */
import cluster from 'node:cluster';

export function runCluster(workers: number, serve: () => void): void {
  if (!cluster.isPrimary || workers <= 1) {
    serve();
    return;
  }
  for (let index = 0; index < workers; index++) cluster.fork();
  for (const signal of ['SIGTERM', 'SIGINT'] as const)
    process.once(signal, () => {
      for (const worker of Object.values(cluster.workers ?? {})) worker?.process.kill('SIGTERM');
      process.exit(0);
    });
}

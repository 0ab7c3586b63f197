/**
 * What a proxy worker's memory is made of while it is under load: process.memoryUsage() every 250 ms,
 * one line per sample, in MEMORY_SAMPLES_DIR/<pid>.log (default: os.tmpdir()/refdata-memory). Loaded
 * into every Node process of a bench run through NODE_OPTIONS; only the proxy's cluster workers write:
 *
 *   NODE_OPTIONS="--require ./test/bench/memorySampler.cjs" npm run bench -- --only origin-cold \
 *     --mix sampled --concurrency 64 --rounds 2
 *
 * Each line: time (ms), BODY_CACHE_MB|local or origin, then rss, heapTotal, heapUsed, external and
 * arrayBuffers in MB. The README's cold-origin memory figures (Benchmarks) were read this way.
 */
const cluster = require('node:cluster');
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');

if (/proxy/.test(process.argv[1] ?? '') && cluster.isWorker) {
  const dir = process.env.MEMORY_SAMPLES_DIR ?? path.join(os.tmpdir(), 'refdata-memory');
  fs.mkdirSync(dir, { recursive: true });
  const file = path.join(dir, `${process.pid}.log`);
  const mode = `${process.env.BODY_CACHE_MB ?? ''}|${process.env.ORIGIN_URL ? 'origin' : 'local'}`;
  const mb = (bytes) => (bytes / 1048576).toFixed(0);
  setInterval(() => {
    const usage = process.memoryUsage();
    fs.appendFileSync(
      file,
      `${Date.now()} ${mode} rss=${mb(usage.rss)} heapTotal=${mb(usage.heapTotal)} heapUsed=${mb(usage.heapUsed)} external=${mb(usage.external)} arrayBuffers=${mb(usage.arrayBuffers)}\n`,
    );
  }, 250).unref();
}

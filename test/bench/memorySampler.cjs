/**
 * What a proxy worker's memory is made of while it is under load: process.memoryUsage() every 250 ms,
 * one line per sample, in MEMORY_SAMPLES_DIR/<pid>.log (default: os.tmpdir()/refdata-memory). Loaded
 * into every Node process of a bench run through NODE_OPTIONS; only the proxy's cluster workers write:
 *
 *   NODE_OPTIONS="--require ./test/bench/memorySampler.cjs" npm run bench -- --only origin-cold \
 *     --mix sampled --concurrency 64 --rounds 2
 *
 * Each line: time (ms), BODY_CACHE_MB|local or origin, then rss, heapTotal, heapUsed, external and
 * arrayBuffers in MB. With HEAP_SAMPLES=1 each worker also runs V8's sampling heap profiler, keeping
 * the objects that survived a young collection and died in a major one (the garbage that lifts the
 * resident set between major collections), and when it exits writes <pid>.heap: its 30 largest
 * allocation sites, each with the last four frames of its stack (the allocating one last). The
 * README's cold-origin memory figures (Benchmarks) were read this way.
 */
const cluster = require('node:cluster');
const fs = require('node:fs');
const inspector = require('node:inspector');
const os = require('node:os');
const path = require('node:path');

if (/proxy/.test(process.argv[1] ?? '') && cluster.isWorker) {
  const dir = process.env.MEMORY_SAMPLES_DIR ?? path.join(os.tmpdir(), 'refdata-memory');
  fs.mkdirSync(dir, { recursive: true });
  const file = path.join(dir, `${process.pid}.log`);
  const mode = `${process.env.BODY_CACHE_MB ?? ''}|${process.env.ORIGIN_URL ? 'origin' : 'local'}`;
  setInterval(() => {
    const usage = process.memoryUsage();
    fs.appendFileSync(
      file,
      `${Date.now()} ${mode} rss=${mb(usage.rss)} heapTotal=${mb(usage.heapTotal)} heapUsed=${mb(usage.heapUsed)} external=${mb(usage.external)} arrayBuffers=${mb(usage.arrayBuffers)}\n`,
    );
  }, 250).unref();
  if (process.env.HEAP_SAMPLES === '1') sampleHeap(path.join(dir, `${process.pid}.heap`));
}

function sampleHeap(file) {
  const session = new inspector.Session();
  session.connect();
  session.post('HeapProfiler.startSampling', { samplingInterval: 32768, includeObjectsCollectedByMajorGC: true });
  // An in-process session answers at once, so the profile can be written while the process exits.
  process.on('exit', () => {
    session.post('HeapProfiler.stopSampling', (error, result) => {
      if (error) return fs.writeFileSync(file, `${error.message}\n`);
      const sites = new Map();
      const walk = (node, stack) => {
        const { functionName, url, lineNumber } = node.callFrame;
        const frames = [...stack, `${functionName || '(anonymous)'} ${url.split('/').slice(-2).join('/')}:${lineNumber + 1}`];
        const site = frames.slice(-4).join(' > ');
        if (node.selfSize > 0) sites.set(site, (sites.get(site) ?? 0) + node.selfSize);
        for (const child of node.children) walk(child, frames);
      };
      walk(result.profile.head, []);
      const total = [...sites.values()].reduce((sum, size) => sum + size, 0);
      const largest = [...sites].sort((a, b) => b[1] - a[1]).slice(0, 30);
      fs.writeFileSync(file, [`${mb(total, 1)} MB sampled`, ...largest.map(([site, size]) => `${mb(size, 1).padStart(6)} MB  ${site}`)].join('\n') + '\n');
    });
  });
}

function mb(bytes, digits = 0) {
  return (bytes / 1048576).toFixed(digits);
}

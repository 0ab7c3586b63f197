// A worker thread that runs one exported function of one of the generator's TypeScript modules
// (threads.ts says which, and how its messages and result come back). JavaScript only to load the
// TypeScript through tsx, which a worker thread does not inherit everywhere.
import { parentPort, workerData } from 'node:worker_threads';
import { register } from 'tsx/esm/api';

register();
const { module, name, input } = workerData;
const post = (message) => parentPort?.postMessage({ message });
try {
  const run = (await import(module))[name];
  if (typeof run !== 'function') throw new Error(`${module} exports no function ${name}`);
  parentPort?.postMessage({ result: await run(input, post) });
} catch (error) {
  parentPort?.postMessage({ error: String(error?.stack ?? error) });
}

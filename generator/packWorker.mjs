// A packing thread of generator/packShards.ts: its part of the spill, each shard reported as it is placed.
// JavaScript only to load the TypeScript through tsx, which a worker thread does not inherit everywhere.
import { parentPort, workerData } from 'node:worker_threads';
import { register } from 'tsx/esm/api';

register();
const { packPart } = await import('./packShards.ts');
await packPart(workerData, (shard) => parentPort?.postMessage(shard));

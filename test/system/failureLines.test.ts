/**
 * Failures a client can repeat at will (asking again and again for a body the service cannot
 * read) write a log line once per kind and interval, without a stack, each counted in /metrics:
 * a flood of them grows the log by a line, not by a line per request.
 */
import { readFile, realpath, rm, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { Writable } from 'node:stream';
import pino from 'pino';
import { describe, expect, it } from 'vitest';
import type { PackedEntry } from '../../contract/lookupIndex.ts';
import { openLocalStore } from '../../proxy/store/store.ts';
import { buildFixture, startTestService, testKey } from '../support/service.ts';

const region = '/addressmanagement/api/region/getall';

describe('failure lines', () => {
  it('writes one line per kind and interval for a flood of failures, without a stack, and counts each in /metrics', async () => {
    const distDir = await buildFixture();
    const found = (await openLocalStore(distDir)).find(region, []);
    const entry = found?.entry as PackedEntry;
    const packPath = path.join(await realpath(distDir), entry.pack);
    const pack = await readFile(packPath);
    pack[entry.offset + 1] = (pack[entry.offset + 1] as number) ^ 0x01;
    await rm(packPath);
    await writeFile(packPath, pack);
    const lines: Record<string, unknown>[] = [];
    const sink = new Writable({
      write(chunk, _encoding, done) {
        for (const line of chunk.toString().split('\n').filter(Boolean)) lines.push(JSON.parse(line) as Record<string, unknown>);
        done();
      },
    });
    const service = await startTestService(distDir, { API_KEYS: testKey, METRICS_PORT: '0', LOG_LEVEL: 'warn' }, undefined, pino({ level: 'warn' }, sink));
    try {
      const statuses = [];
      for (let count = 0; count < 100; count++) {
        const response = await fetch(`${service.running.url}${region}`, { headers: { Authorization: `Bearer ${testKey}` } });
        await response.arrayBuffer();
        statuses.push(response.status);
      }
      expect(new Set(statuses)).toEqual(new Set([503]));
      const failed = lines.filter((line) => line.msg === 'request failed');
      expect(failed).toHaveLength(1);
      expect(failed[0]).toMatchObject({ code: 'ERR_BODY_UNREADABLE', cause: expect.stringContaining(packPath) });
      expect(failed[0]).not.toHaveProperty('stack');
      const metrics = await (await fetch(`${service.metrics?.url}/metrics`)).text();
      expect(metrics).toContain('refdata_failures_total{code="ERR_BODY_UNREADABLE"} 100');
    } finally {
      await service.close();
    }
  });
});

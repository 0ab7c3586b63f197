/** The one configuration table (docs/configuration.md) against the variables the code reads. */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { settingNames } from '../../proxy/config/config.ts';

const readme = readFileSync(path.resolve(import.meta.dirname, '../../docs/configuration.md'), 'utf8');

describe('the configuration table', () => {
  it('is one table, listing every variable the service reads and the ones npm run token and npm run build read, and no other', () => {
    const tables = readme.split('\n').filter((line) => line.startsWith('| Variable | Default | Meaning |'));
    expect(tables).toHaveLength(1);
    const start = readme.indexOf('| Variable | Default | Meaning |');
    const rows = readme.slice(start).split('\n').slice(2);
    const listed = rows
      .slice(
        0,
        rows.findIndex((line) => !line.startsWith('|')),
      )
      .flatMap((line) => [...(line.split('|')[1] ?? '').matchAll(/`([A-Z][A-Z0-9_]*)`/g)].map((match) => match[1]));
    expect([...listed].sort()).toEqual([...settingNames, 'JWT_PRIVATE_KEY', 'KEEP_BUILDS'].sort());
  });
});

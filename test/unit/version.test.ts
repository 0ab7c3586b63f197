/** The service's version: semver, the same in package.json as the service reports. */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { serviceVersion } from '../../contract/version.ts';

describe('the service version', () => {
  it("is package.json's, semver, and CHANGELOG.md has a section for it", () => {
    const root = path.resolve(import.meta.dirname, '../..');
    const packageJson = JSON.parse(readFileSync(path.join(root, 'package.json'), 'utf8')) as { version: string };
    expect(serviceVersion).toBe(packageJson.version);
    expect(serviceVersion).toMatch(/^\d+\.\d+\.\d+$/);
    expect(readFileSync(path.join(root, 'CHANGELOG.md'), 'utf8')).toContain(`## [${serviceVersion}]`);
  });
});

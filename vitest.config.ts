import { defineConfig } from 'vitest/config';

/**
 * One project per kind of test, so that a developer can run one kind alone (`npm run test:unit`, `test:system`,
 * `test:data`, `test:bench`, or `test:dev` for all but the bench). `npm test` runs every project.
 */
const kinds = ['unit', 'system', 'data', 'bench'] as const;

export default defineConfig({
  test: {
    globalSetup: ['test/support/globalSetup.ts'],
    testTimeout: 30_000,
    hookTimeout: 120_000,
    projects: kinds.map((kind) => ({ extends: true, test: { name: kind, include: [`test/${kind}/**/*.test.ts`] } })),
  },
});

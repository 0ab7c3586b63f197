import { defineConfig } from 'vitest/config';

/**
 * The tests a developer runs while changing the code: one project per kind, so that a kind runs
 * alone (`npm run test:unit`, `test:system`, `test:data`); a bare `npx vitest` runs all three.
 * The bench's tests load the machine for minutes and live apart, in vitest.bench.config.ts;
 * `npm test` runs both configurations.
 */
export const shared = {
  globalSetup: ['test/support/globalSetup.ts'],
  testTimeout: 30_000,
  hookTimeout: 120_000,
};

const kinds = ['unit', 'system', 'data'] as const;

export default defineConfig({
  test: {
    ...shared,
    projects: kinds.map((kind) => ({ extends: true, test: { name: kind, include: [`test/${kind}/**/*.test.ts`] } })),
  },
});

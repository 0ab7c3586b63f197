import { defineConfig } from 'vitest/config';
import { shared } from './vitest.config.ts';

/** The bench's tests (its smoke run, the A/B and profile tools): `npm run test:bench`, and the last part of `npm test`. */
export default defineConfig({
  test: { ...shared, name: 'bench', include: ['test/bench/**/*.test.ts'] },
});

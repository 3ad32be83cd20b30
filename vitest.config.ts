import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['src/**/*.test.ts', 'mock-server/**/*.test.ts', 'suites/**/*.test.ts', 'scripts/**/*.test.ts'],
    // Contract suites are run by `iari test` against a chosen server; the meta-suite runs them in-process.
    exclude: ['suites/contract/**', 'node_modules/**'],
    testTimeout: 30_000,
    hookTimeout: 30_000,
    pool: 'forks',
  },
});

import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    // Spectral loads its ruleset and the spec-diff test runs Redocly and Optic as child processes.
    testTimeout: 60_000,
    hookTimeout: 60_000,
  },
});

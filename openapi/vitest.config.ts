import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    // Spectral loads its ruleset; the spec-diff and spec-review tests run Redocly and Spectral as child processes.
    testTimeout: 60_000,
    hookTimeout: 60_000,
  },
});

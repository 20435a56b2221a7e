import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    // Prism needs a few seconds to load the bundle.
    hookTimeout: 60_000,
    testTimeout: 15_000,
  },
});

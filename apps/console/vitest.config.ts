import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    testTimeout: 60_000,
    hookTimeout: 90_000,
    // The real-server and the mock files each start a browser and a server: one at a time on 2 cores.
    fileParallelism: false,
  },
});

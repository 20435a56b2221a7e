import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    testTimeout: 20_000,
    // The files share no mutable state; reusing one module graph saves loading the tokenizer per file.
    isolate: false,
  },
});

import { defineConfig } from 'vitest/config';

// End-to-end tests: Chromium with the built extension (.output/chrome-mv3, so `npm run build`
// first). One browser at a time: no file parallelism, one worker, long timeouts (2 cores).
export default defineConfig({
  test: {
    environment: 'node',
    include: ['test/e2e/**/*.e2e.ts'],
    testTimeout: 120_000,
    hookTimeout: 120_000,
    teardownTimeout: 30_000,
    fileParallelism: false,
    maxWorkers: 1,
    retry: 0,
  },
});

import { defineConfig } from 'vitest/config';

// End-to-end tests of the Firefox build: Debian's firefox-esr driven over WebDriver BiDi with
// puppeteer-core, the extension installed from .output/firefox-mv2 (so `npm run build:firefox`
// first, and `bash scripts/install-firefox.sh` once). One browser at a time (2 cores).
export default defineConfig({
  test: {
    environment: 'node',
    include: ['test/e2e-firefox/**/*.e2e.ts'],
    testTimeout: 180_000,
    hookTimeout: 180_000,
    teardownTimeout: 30_000,
    fileParallelism: false,
    maxWorkers: 1,
    retry: 0,
  },
});

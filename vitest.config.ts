import { defineConfig } from 'vitest/config';
import { WxtVitest } from 'wxt/testing/vitest-plugin';

export default defineConfig({
  plugins: [WxtVitest()],
  test: {
    include: ['test/**/*.test.ts'],
    // buffers released as in the browser (Node 20 has no ArrayBuffer.prototype.transfer)
    setupFiles: ['test/support/transfer.ts'],
    testTimeout: 60_000,
    // hooks build data (the index suite adds 5,000 pages to fake-indexeddb per design): on 2 cores
    // with the other test files running, one took over vitest's default 10 s in CI
    hookTimeout: 60_000,
  },
});

import { defineConfig } from 'vitest/config';

// End-to-end tests in headless Chromium (npm run test:e2e): a real listening server on the
// test's PostgreSQL, the fake SMS gateway, playwright-core driving Debian's /usr/bin/chromium.
// Kept out of `npm test` (its files end in .e2e.ts, which vitest.config.ts does not include).
export default defineConfig({
  test: {
    globalSetup: ['test/helpers/global-setup.ts'],
    include: ['test/e2e/**/*.e2e.ts'],
    testTimeout: 120_000,
    hookTimeout: 120_000,
    fileParallelism: false,
  },
});

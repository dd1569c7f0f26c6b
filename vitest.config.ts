import { defineConfig } from 'vitest/config';

// One run against real PostgreSQL: TEST_DATABASE_URL when given (.ci/run gives the machine's
// server), otherwise an embedded cluster that the global setup starts once. Each test file clones
// its databases from one migrated template, so files run in parallel without sharing state.
export default defineConfig({
  test: {
    globalSetup: ['test/helpers/global-setup.ts'],
    include: ['test/**/*.test.ts'],
    testTimeout: 60_000,
    hookTimeout: 120_000,
    // A line per finished file (count, elapsed time) beside the default summary.
    reporters: ['default', './test/helpers/progress-reporter.ts'],
  },
});

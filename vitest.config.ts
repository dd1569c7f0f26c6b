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
    // Test files wait on PostgreSQL and child processes far more than they compute: four at once on the 2-core
    // machine ran the suite in 465 s against 731 s with Vitest's default (one fewer than the cores).
    // TEST_WORKERS overrides.
    maxWorkers: Number(process.env.TEST_WORKERS ?? 4),
  },
});

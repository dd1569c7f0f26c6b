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
    // Files that share a worker share its loaded modules instead of loading the application again for each
    // file (Fastify, pdfkit and fontkit, sharp, pg, drizzle: ~9 s a file on the loaded 2-core machine). Each
    // file still gets its own databases and its own app; state kept per process (the metrics registry, the
    // caches keyed by database) is read as such by the tests. test/documents + test/ledger, 19 files, load
    // 8-12: 241 s isolated, 136 s shared. TEST_ISOLATE=1 isolates again, to rule out a leak between files.
    isolate: process.env.TEST_ISOLATE === '1',
  },
});

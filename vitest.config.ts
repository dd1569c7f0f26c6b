import { defineConfig } from 'vitest/config';

// The suite runs on the embedded engine always, and again on a PostgreSQL server when
// TEST_DATABASE_URL is set (.ci/run sets it). Pure unit tests (test/unit) run once.
const postgres = process.env.TEST_DATABASE_URL;

export default defineConfig({
  test: {
    globalSetup: ['test/helpers/global-setup.ts'],
    testTimeout: 60_000,
    hookTimeout: 120_000,
    projects: [
      { extends: true, test: { name: 'pglite', include: ['test/**/*.test.ts'], env: { PINKAS_TEST_ENGINE: 'pglite' } } },
      ...(postgres
        ? [
            {
              extends: true as const,
              test: {
                name: 'postgres',
                include: ['test/**/*.test.ts'],
                exclude: ['test/unit/**'],
                env: { PINKAS_TEST_ENGINE: 'postgres' },
              },
            },
          ]
        : []),
    ],
  },
});

import { BaseSequencer, type TestSpecification } from 'vitest/node';

/**
 * The files that take longest, slowest first (each starts servers, CLIs or PostgreSQL clusters, or walks the whole
 * API; measured on the 2-core machine, 2026-11-27). They start first so that none of them starts last and keeps the
 * run waiting on one file. Without Vitest's cache of durations (a fresh clone, a fresh `npm ci`) it would order by
 * file size and leave several of them to the end.
 */
export const SLOW_FIRST = [
  'test/backups/backup-restore.test.ts',
  'test/foundation/cli-and-process.test.ts',
  'test/foundation/embedded-server.test.ts',
  'test/hardening/openapi-walk.test.ts',
  'test/documents/concurrency.test.ts',
  'test/files/server-start.test.ts',
  'test/clients/generated.test.ts',
  'test/property/ledger.property.test.ts',
  'test/property/documents.property.test.ts',
  'test/prints/render-pool.test.ts',
  'test/foundation/crash.test.ts',
  'test/cli/listen.test.ts',
  'test/clients/sdk-package.test.ts',
  'test/foundation/metrics.test.ts',
  'test/files/backends.test.ts',
  'test/mcp/stdio.test.ts',
  'test/foundation/supervised-server.test.ts',
  'test/contract/readme.test.ts',
];

export default class SlowFirstSequencer extends BaseSequencer {
  override async sort(files: TestSpecification[]): Promise<TestSpecification[]> {
    const sorted = await super.sort(files);
    const rank = (file: TestSpecification) => {
      const i = SLOW_FIRST.findIndex((slow) => file.moduleId.endsWith(slow));
      return i === -1 ? SLOW_FIRST.length : i;
    };
    return sorted
      .map((file, order) => ({ file, order }))
      .sort((a, b) => rank(a.file) - rank(b.file) || a.order - b.order)
      .map(({ file }) => file);
  }
}

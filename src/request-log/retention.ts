import type { Services } from '../platform/http/services.ts';
import { errorSummary } from '../platform/logger.ts';
import type { Worker } from '../domain.ts';
import { runPeriodically } from '../platform/periodic.ts';
import { pruneRequests } from './list.ts';

/** The background process's hourly pruning of request-log rows older than 7 days, in both databases. */
export function requestLogRetentionWorker(s: Services, everyMs = 3_600_000): Worker {
  const prune = async () => {
    for (const mode of ['live', 'sandbox'] as const) {
      try {
        const n = await pruneRequests(s.databases[mode].db, s.clock.now());
        if (n) s.logger.info({ mode, rows: n }, 'request log: pruned rows older than 7 days');
      } catch (err) {
        s.logger.warn({ mode, err: errorSummary(err) }, 'request log: pruning failed');
      }
    }
  };
  return runPeriodically(everyMs, prune, { runNow: true });
}

import type { Services } from '../platform/http/services.ts';
import { errorSummary } from '../platform/logger.ts';
import { sweepOrphans } from '../platform/file-store/sweep.ts';
import type { Worker } from '../domain.ts';
import { runPeriodically } from '../platform/periodic.ts';

/** One sweep of every store of both modes; a store that fails is logged and the others still swept. */
export async function sweepAllStores(s: Services): Promise<void> {
  for (const mode of ['live', 'sandbox'] as const) {
    for (const store of s.fileStores[mode].all()) {
      try {
        const r = await sweepOrphans({ db: s.databases[mode].db, store, now: s.clock.now(), graceMs: s.config.files.sweepGraceMs });
        if (r.removed || r.spools) s.logger.info({ mode, store: store.location, ...r }, 'files: orphans swept');
        if (r.refused) s.logger.warn({ mode, store: store.location, ...r }, 'files: the store refused to remove some orphans (Object Lock retention?)');
      } catch (err) {
        s.logger.warn({ mode, store: store.location, err: errorSummary(err) }, 'files: sweeping orphans failed');
      }
    }
  }
}

/**
 * The background process's hourly sweep of orphaned objects (a write that crashed between its put and its
 * commit, a render that lost the race to publish). Several background processes sweeping one bucket do the
 * same work twice, never harm: removal is of unreferenced objects past the grace period only.
 */
export function fileSweepWorker(s: Services, everyMs = 3_600_000): Worker {
  return runPeriodically(everyMs, () => sweepAllStores(s));
}

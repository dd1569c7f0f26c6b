import type { Services } from '../platform/http/services.ts';
import { errorSummary } from '../platform/logger.ts';
import { pruneOutboxEvents } from '../platform/outbox.ts';
import type { Worker } from '../domain.ts';
import { runPeriodically } from '../platform/periodic.ts';
import type { Mode } from '../platform/db/mode.ts';

/** How long events stay readable through GET /v1/events (issue 32: 30 days). */
export const EVENTS_KEPT_MS = 30 * 86_400_000;

/** Prunes both databases' events older than EVENTS_KEPT_MS; answers how many went, per mode. */
export async function pruneEvents(s: Services): Promise<Record<Mode, number>> {
  const before = new Date(s.clock.now().getTime() - EVENTS_KEPT_MS);
  return {
    live: await pruneOutboxEvents(s.databases.live.db, before),
    sandbox: await pruneOutboxEvents(s.databases.sandbox.db, before),
  };
}

/** The background process's hourly pruning of old events (like the console's pruning; several processes only repeat a DELETE). */
export function eventRetentionWorker(s: Services, everyMs = 3_600_000): Worker {
  const prune = () =>
    pruneEvents(s)
      .then((n) => {
        if (n.live || n.sandbox) s.logger.info(n, 'events: pruned events older than 30 days');
      })
      .catch((err) => s.logger.warn({ err: errorSummary(err) }, 'events: pruning old events failed'));
  return runPeriodically(everyMs, prune, { runNow: true });
}

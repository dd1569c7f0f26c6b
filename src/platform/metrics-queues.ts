/**
 * Queue gauges read from the databases when /metrics is scraped (by the one process answering it,
 * so a supervised server counts each queue once): one statement per queue per database, each on
 * the partial index of its pending rows (jobs_due, webhook_deliveries_due, outbox_pending).
 */
import { sql } from 'drizzle-orm';
import { Gauge, Registry } from 'prom-client';
import type { Clock } from './clock.ts';
import type { Database, Mode } from './db/engine.ts';
import { query } from './db/sql.ts';

interface QueueGauges {
  jobsPending: Gauge<'mode' | 'kind'>;
  jobsOldestDue: Gauge<'mode' | 'kind'>;
  deliveriesPending: Gauge<'mode'>;
  deliveriesOldest: Gauge<'mode'>;
  outboxPending: Gauge<'mode'>;
  outboxOldest: Gauge<'mode'>;
}

function gauges(registry: Registry): QueueGauges {
  const gauge = <L extends string>(name: string, help: string, labelNames: L[]) => new Gauge<L>({ name, help, labelNames, registers: [registry] });
  return {
    jobsPending: gauge('pinkas_jobs_pending', 'Background jobs not yet done or failed (due now or later, retries included), by mode and kind.', [
      'mode',
      'kind',
    ]),
    jobsOldestDue: gauge('pinkas_jobs_oldest_due_age_seconds', 'How long the longest-waiting due job has been due (0 when none is due), by mode and kind.', [
      'mode',
      'kind',
    ]),
    deliveriesPending: gauge('pinkas_webhook_deliveries_pending', 'Webhook deliveries not yet delivered or failed, by mode.', ['mode']),
    deliveriesOldest: gauge(
      'pinkas_webhook_deliveries_oldest_pending_age_seconds',
      'Age of the oldest pending webhook delivery (0 when none is pending), by mode.',
      ['mode'],
    ),
    outboxPending: gauge('pinkas_outbox_events_pending', 'Events written but not yet fanned out to webhook deliveries, by mode.', ['mode']),
    outboxOldest: gauge('pinkas_outbox_oldest_pending_age_seconds', 'Age of the oldest event not yet fanned out (0 when none), by mode.', ['mode']),
  };
}

const seconds = (ms: number) => Math.max(0, ms) / 1000;
const ageSeconds = (now: Date, since: unknown) => (since === null || since === undefined ? 0 : seconds(now.getTime() - new Date(String(since)).getTime()));

async function readQueues(g: QueueGauges, mode: Mode, database: Database, now: Date): Promise<void> {
  const at = now.toISOString();
  const [jobs, deliveries, outbox] = await Promise.all([
    query<{ kind: string; pending: number; oldest_due: unknown }>(
      database.db,
      sql`SELECT kind, count(*)::int AS pending, min(run_at) FILTER (WHERE run_at <= ${at}::timestamptz) AS oldest_due
          FROM jobs WHERE done_at IS NULL AND failed_at IS NULL GROUP BY kind`,
    ),
    query<{ pending: number; oldest: unknown }>(
      database.db,
      sql`SELECT count(*)::int AS pending, min(created_at) AS oldest FROM webhook_deliveries WHERE status = 'pending'`,
    ),
    query<{ pending: number; oldest: unknown }>(
      database.db,
      sql`SELECT count(*)::int AS pending, min(created_at) AS oldest FROM outbox_events WHERE dispatched_at IS NULL`,
    ),
  ]);
  for (const j of jobs) {
    g.jobsPending.set({ mode, kind: j.kind }, j.pending);
    g.jobsOldestDue.set({ mode, kind: j.kind }, ageSeconds(now, j.oldest_due));
  }
  g.deliveriesPending.set({ mode }, deliveries[0].pending);
  g.deliveriesOldest.set({ mode }, ageSeconds(now, deliveries[0].oldest));
  g.outboxPending.set({ mode }, outbox[0].pending);
  g.outboxOldest.set({ mode }, ageSeconds(now, outbox[0].oldest));
}

/** The queue gauges of both databases, in the Prometheus text format. */
export async function queueMetricsText(databases: Record<Mode, Database>, clock: Clock): Promise<string> {
  // A registry per scrape: a job kind with nothing pending drops out instead of keeping its last value.
  const registry = new Registry();
  const g = gauges(registry);
  const now = clock.now();
  await Promise.all(Object.values(databases).map((d) => readQueues(g, d.mode, d, now)));
  return registry.metrics();
}

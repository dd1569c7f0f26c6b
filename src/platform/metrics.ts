/**
 * Prometheus metrics of this process (docs/foundation.md "Metrics"): one registry holding the HTTP, document,
 * webhook, allocation and pool metrics plus Node's defaults. Domains call the `count…` functions
 * where an outcome is recorded; `/metrics` (src/platform/http/metrics-route.ts) writes the registry,
 * summed over the worker processes of a supervised server (src/platform/metrics-cluster.ts), followed
 * by the queue gauges read from the databases at scrape time (src/platform/metrics-queues.ts).
 */
import { collectDefaultMetrics, Counter, Gauge, Histogram, Registry } from 'prom-client';
import type pg from 'pg';
import type { Mode } from './db/mode.ts';

/** A database as the pool gauges read it (db/engine.ts `Database`). */
interface PooledDatabase {
  mode: Mode;
  pool: pg.Pool;
}

export const processRegistry = new Registry();
collectDefaultMetrics({ register: processRegistry });

const httpLabels = ['method', 'route', 'status_code'] as const;

const httpRequests = new Counter({
  name: 'pinkas_http_requests_total',
  help: 'HTTP requests answered, by method, route pattern and status code.',
  labelNames: httpLabels,
  registers: [processRegistry],
});

const httpDuration = new Histogram({
  name: 'pinkas_http_request_duration_seconds',
  help: 'Time from the request arriving to its answer being sent, by method, route pattern and status code.',
  labelNames: httpLabels,
  buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30],
  registers: [processRegistry],
});

const documentsIssued = new Counter({
  name: 'pinkas_documents_issued_total',
  help: 'Documents issued (credit notes included), counted once their transaction committed, by mode and document type.',
  labelNames: ['mode', 'doc_type'] as const,
  registers: [processRegistry],
});

const webhookAttempts = new Counter({
  name: 'pinkas_webhook_delivery_attempts_total',
  help: 'Webhook delivery attempts by outcome: delivered, retry (failed, tried again later) or failed (no attempt left).',
  labelNames: ['mode', 'outcome'] as const,
  registers: [processRegistry],
});

const allocationOutcomes = new Counter({
  name: 'pinkas_allocation_outcomes_total',
  help: 'Outcomes of the background allocation-number requests: granted, refused, transport_error (asked again later) or failed (no attempt left).',
  labelNames: ['mode', 'outcome'] as const,
  registers: [processRegistry],
});

const dbRoundTrips = new Counter({
  name: 'pinkas_db_round_trips_total',
  help: 'Statements sent to PostgreSQL and answered (each is one round trip: BEGIN and COMMIT count), by mode.',
  labelNames: ['mode'] as const,
  registers: [processRegistry],
});

/** The counter of one pool's round trips (its labels resolved once: it runs on every statement). */
export function dbRoundTripCounter(mode: Mode): () => void {
  const child = dbRoundTrips.labels({ mode });
  return () => child.inc();
}

/** The route pattern, never the raw URL (ids would make one series per document); `unmatched` for 404s and bad URLs. */
export function countHttpRequest(method: string, route: string | undefined, status: number, seconds: number): void {
  const labels = { method, route: route ?? 'unmatched', status_code: String(status) };
  httpRequests.inc(labels);
  httpDuration.observe(labels, seconds);
}

export function countDocumentIssued(mode: Mode, docType: number): void {
  documentsIssued.inc({ mode, doc_type: String(docType) });
}

export type WebhookAttemptOutcome = 'delivered' | 'retry' | 'failed';
export function countWebhookAttempt(mode: Mode, outcome: WebhookAttemptOutcome): void {
  webhookAttempts.inc({ mode, outcome });
}

export type AllocationOutcome = 'granted' | 'refused' | 'transport_error' | 'failed';
export function countAllocationOutcome(mode: Mode, outcome: AllocationOutcome): void {
  allocationOutcomes.inc({ mode, outcome });
}

// The pools of this process, read at scrape time (a process has one set; tests build several).
const pools = new Set<PooledDatabase>();

/** Called by each role of a process (web, background) with its databases; the same set twice is harmless. */
export function trackDatabasePools(databases: Record<Mode, PooledDatabase>): void {
  for (const d of Object.values(databases)) pools.add(d);
}

function poolGauge(name: string, help: string, read: (p: pg.Pool) => number): void {
  new Gauge({
    name,
    help,
    labelNames: ['mode'] as const,
    registers: [processRegistry],
    collect() {
      this.reset();
      for (const d of pools) {
        // A closed pool (its databases were closed) is forgotten.
        if (d.pool.ended) pools.delete(d);
        else this.inc({ mode: d.mode }, read(d.pool));
      }
    },
  });
}

poolGauge('pinkas_db_pool_connections', 'Open connections of the PostgreSQL pools (busy and idle), by mode.', (p) => p.totalCount);
poolGauge('pinkas_db_pool_idle_connections', 'Idle connections of the PostgreSQL pools, by mode.', (p) => p.idleCount);
poolGauge('pinkas_db_pool_waiting_clients', 'Queries waiting for a free pool connection, by mode.', (p) => p.waitingCount);

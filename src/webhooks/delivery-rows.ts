import { sql, type SQL } from 'drizzle-orm';
import type { Executor, Mode } from '../platform/db/engine.ts';
import { iso } from '../platform/db/sql.ts';
import { newId } from '../platform/ids.ts';

/** The envelope: the exact bytes every attempt of a delivery sends. */
export function envelope(e: { id: string; event: string; mode: Mode; businessId: string | null; createdAt: string; data: unknown }): string {
  return JSON.stringify({ id: e.id, event: e.event, mode: e.mode, businessId: e.businessId, createdAt: e.createdAt, data: e.data });
}

/** An outbox event paired with an endpoint that should receive it (columns as the fan-out and replay read them). */
export type EventForEndpoint = Record<string, unknown> & {
  event_id: unknown;
  event: unknown;
  business_id: unknown;
  created_at: unknown;
  data: unknown;
  endpoint_id: unknown;
};

/** The VALUES row of a new pending delivery, due now: a fresh `del_` id and its envelope, written once and sent unchanged by every attempt. */
function newDeliveryRow(p: EventForEndpoint, mode: Mode, now: Date): SQL {
  const id = newId('del', now.getTime());
  const nowIso = now.toISOString();
  const businessId = (p.business_id as string | null) ?? null;
  const event = String(p.event);
  const payload = envelope({ id, event, mode, businessId, createdAt: iso(p.created_at), data: p.data ?? {} });
  return sql`(${id}, ${String(p.endpoint_id)}, ${String(p.event_id)}, ${event}, ${businessId}, ${payload}, 'pending', ${nowIso}::timestamptz, ${nowIso}::timestamptz)`;
}

/**
 * Inserts one pending delivery per (event, endpoint) pair, 500 rows a statement; a pair that already has its
 * delivery keeps it (UNIQUE(event_id, endpoint_id)), so the fan-out and a replay never make two.
 */
export async function insertDeliveries(tx: Executor, pairs: EventForEndpoint[], mode: Mode, now: Date): Promise<void> {
  for (let i = 0; i < pairs.length; i += 500) {
    const values = pairs.slice(i, i + 500).map((p) => newDeliveryRow(p, mode, now));
    await tx.execute(
      sql`INSERT INTO webhook_deliveries(id, endpoint_id, event_id, event, business_id, payload, status, next_attempt_at, created_at)
          VALUES ${sql.join(values, sql`, `)}
          ON CONFLICT (event_id, endpoint_id) DO NOTHING`,
    );
  }
}

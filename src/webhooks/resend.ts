import { sql } from 'drizzle-orm';
import type { Mode } from '../platform/db/engine.ts';
import { query, queryOne } from '../platform/db/sql.ts';
import { conflict, notFound } from '../platform/errors.ts';
import type { Services } from '../platform/http/services.ts';
import { isDelivered } from './schedule.ts';
import type { WebhookDispatcher } from './dispatcher.ts';
import { getDelivery } from './deliveries.ts';
import type { DeliveryView } from './schemas.ts';

type Row = Record<string, unknown>;

/**
 * Claims a delivery of the endpoint for one attempt sent now, as the dispatcher claims (the attempt number
 * taken, a lease), whatever its status. Not found: 404; held by a sender this moment: 409.
 */
async function claimForResend(s: Services, { mode, endpointId, deliveryId, leaseMs }: { mode: Mode; endpointId: string; deliveryId: string; leaseMs: number }) {
  const now = s.clock.now();
  const lease = new Date(now.getTime() + leaseMs).toISOString();
  const claimed = await queryOne<Row>(
    s.databases[mode].db,
    sql`UPDATE webhook_deliveries SET attempt_count = attempt_count + 1, locked_until = ${lease}
        WHERE id = ${deliveryId} AND endpoint_id = ${endpointId} AND (locked_until IS NULL OR locked_until <= ${now.toISOString()})
        RETURNING id, event, payload, attempt_count`,
  );
  if (claimed) return { id: String(claimed.id), event: String(claimed.event), payload: String(claimed.payload), attempt: Number(claimed.attempt_count) };
  const exists = await query(s.databases[mode].db, sql`SELECT 1 FROM webhook_deliveries WHERE id = ${deliveryId} AND endpoint_id = ${endpointId}`);
  if (exists.length === 0) throw notFound('delivery');
  throw conflict('the delivery is being sent right now; look at its attempts, or retry in a minute');
}

/**
 * `POST /webhooks/{id}/deliveries/{deliveryId}/retry`: sends the stored envelope again now, under the same
 * delivery id (receivers dedupe on it), whatever its status and whether or not the endpoint is active. The
 * attempt is logged with the others. A 2xx makes it `delivered`; a failure leaves its status and schedule as
 * they were (a pending delivery keeps its next retry). Like the test probe, it does not count toward auto-disable.
 */
export async function resendDelivery(
  s: Services,
  dispatcher: WebhookDispatcher,
  { mode, endpoint, deliveryId }: { mode: Mode; endpoint: { id: string; url: string; secret: string }; deliveryId: string },
): Promise<{ delivered: boolean; delivery: DeliveryView }> {
  const d = await claimForResend(s, { mode, endpointId: endpoint.id, deliveryId, leaseMs: s.config.webhooks.timeoutMs + 60_000 });
  const outcome = await dispatcher.attempt(mode, { ...d, url: endpoint.url, secret: endpoint.secret });
  const delivered = isDelivered(outcome.status) && outcome.error === null;
  const at = s.clock.now().toISOString();
  const database = s.databases[mode];
  await database.db.transaction(async (tx) => {
    await tx.execute(
      sql`INSERT INTO webhook_attempts(delivery_id, n, at, response_status, duration_ms, error, response_body)
          SELECT ${d.id}, ${d.attempt}, ${at}::timestamptz, ${outcome.status}::int, ${outcome.durationMs}::int, ${outcome.error}::text, ${outcome.body}::text
          WHERE EXISTS (SELECT 1 FROM webhook_deliveries WHERE id = ${d.id})
          ON CONFLICT (delivery_id, n) DO NOTHING`,
    );
    await tx.execute(
      delivered
        ? sql`UPDATE webhook_deliveries SET status = 'delivered', delivered_at = ${at}, failed_at = NULL, next_attempt_at = NULL, locked_until = NULL
              WHERE id = ${d.id} AND attempt_count = ${d.attempt}`
        : sql`UPDATE webhook_deliveries SET locked_until = NULL WHERE id = ${d.id} AND attempt_count = ${d.attempt}`,
    );
  });
  const delivery = await getDelivery(database.db, d.id);
  if (!delivery) throw notFound('delivery');
  return { delivered, delivery };
}

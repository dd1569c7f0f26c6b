import { sql, type SQL } from 'drizzle-orm';
import type { Database } from '../platform/db/engine.ts';
import { query } from '../platform/db/sql.ts';
import { validation } from '../platform/errors.ts';
import { insertDeliveries, type EventForEndpoint } from './delivery-rows.ts';
import type { WebhookReplayBody, WebhookView } from './schemas.ts';

/** Events one replay call creates deliveries for; a larger replay is finished by calling again (pending ones are skipped). */
export const REPLAY_MAX_NEW = 10_000;

export interface ReplayResult {
  /** Deliveries made due now: existing ones sent again under their id, plus new ones. */
  replayed: number;
  /** Of them, deliveries created for events the endpoint never had one for (its filter, or made after the event). */
  created: number;
  /** False when REPLAY_MAX_NEW was reached: call again with the same body for the rest. */
  complete: boolean;
}

// drizzle writes an array parameter as a list: `IN (a, b)`.
const typeFilter = (column: SQL, types: string[]) => (types.length === 0 ? sql`true` : sql`${column} IN ${types}`);

/** Every failed delivery of the endpoint (of `types`, when given) back to pending, due now, same id and bytes. */
async function requeueFailed(database: Database, endpointId: string, types: string[], nowIso: string): Promise<number> {
  const rows = await query(
    database.db,
    sql`UPDATE webhook_deliveries SET status = 'pending', next_attempt_at = ${nowIso}, failed_at = NULL, locked_until = NULL
        WHERE endpoint_id = ${endpointId} AND status = 'failed' AND event_id IS NOT NULL AND ${typeFilter(sql`event`, types)}
        RETURNING id`,
  );
  return rows.length;
}

/**
 * Every event of the account since `since` (of `types`, within the endpoint's business) to the endpoint: a
 * delivery it already has (delivered or failed) is made due again under its id; an event it has none for gets
 * a new one. Deliveries already pending are left as they are (they go out anyway).
 */
async function replaySince(
  database: Database,
  endpoint: WebhookView,
  { since, types, now }: { since: string; types: string[]; now: Date },
): Promise<ReplayResult> {
  const nowIso = now.toISOString();
  return database.db.transaction(async (tx) => {
    const requeued = await query(
      tx,
      sql`UPDATE webhook_deliveries d SET status = 'pending', next_attempt_at = ${nowIso}, delivered_at = NULL, failed_at = NULL, locked_until = NULL
          FROM outbox_events o
          WHERE d.endpoint_id = ${endpoint.id} AND d.status <> 'pending' AND o.id = d.event_id AND o.created_at >= ${since}
            AND ${typeFilter(sql`d.event`, types)}
          RETURNING d.id`,
    );
    const missing = await query<EventForEndpoint>(
      tx,
      sql`SELECT o.id AS event_id, o.event, o.business_id, o.created_at, o.data, ${endpoint.id}::text AS endpoint_id
          FROM outbox_events o
          WHERE o.account_id = (SELECT account_id FROM webhook_endpoints WHERE id = ${endpoint.id}) AND o.created_at >= ${since}
            AND ${endpoint.businessId ? sql`o.business_id = ${endpoint.businessId}` : sql`true`} AND ${typeFilter(sql`o.event`, types)}
            AND NOT EXISTS (SELECT 1 FROM webhook_deliveries d WHERE d.event_id = o.id AND d.endpoint_id = ${endpoint.id})
          ORDER BY o.created_at, o.id
          LIMIT ${REPLAY_MAX_NEW + 1}`,
    );
    const created = missing.slice(0, REPLAY_MAX_NEW);
    await insertDeliveries(tx, created, database.mode, now);
    return { replayed: requeued.length + created.length, created: created.length, complete: missing.length <= REPLAY_MAX_NEW };
  });
}

/**
 * `POST /webhooks/{id}/replay`: `{failed: true}` sends again every delivery the endpoint failed; `{since}` sends
 * every event since then (of `events`, else of the endpoint's own filter). A replay keeps each event's delivery
 * id, so receivers dedupe. The dispatcher sends them (an inactive endpoint's wait until it is re-armed).
 */
export async function replayToEndpoint(database: Database, endpoint: WebhookView, body: WebhookReplayBody, now: Date): Promise<ReplayResult> {
  if ((body.failed === true) === (body.since !== undefined)) {
    throw validation('body', 'give either "failed": true (every failed delivery) or "since" (every event since then), not both');
  }
  if (body.failed === true) {
    const types = body.events ?? [];
    const replayed = await requeueFailed(database, endpoint.id, types, now.toISOString());
    return { replayed, created: 0, complete: true };
  }
  const since = body.since!;
  if (Date.parse(since) > now.getTime()) throw validation('body.since', 'is in the future');
  return replaySince(database, endpoint, { since, types: body.events ?? endpoint.events, now });
}

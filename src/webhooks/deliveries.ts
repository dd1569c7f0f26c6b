import { and, asc, desc, eq, getTableColumns, inArray, lt, sql, type SQL } from 'drizzle-orm';
import type { Executor } from '../platform/db/engine.ts';
import { iso, isoOrNull } from '../platform/db/sql.ts';
import { cursorAtSql, decodeCursor, pageOf } from '../platform/http/cursor.ts';
import type { DeliveryView } from './schemas.ts';
import { webhookAttempts, webhookDeliveries, type WebhookAttemptRow, type WebhookDeliveryRow } from './tables.ts';

function toAttempt(r: WebhookAttemptRow) {
  return {
    n: r.n,
    at: iso(r.at),
    responseStatus: r.responseStatus,
    durationMs: r.durationMs,
    error: r.error,
    responseBody: r.responseBody,
  };
}

function toDelivery(r: WebhookDeliveryRow, attempts: WebhookAttemptRow[]): DeliveryView {
  return {
    id: r.id,
    webhookId: r.endpointId,
    eventId: r.eventId,
    // Written by the dispatcher from the outbox's event names (or webhook.test).
    event: r.event as DeliveryView['event'],
    businessId: r.businessId,
    status: r.status,
    attempts: attempts.map(toAttempt),
    nextAttemptAt: isoOrNull(r.nextAttemptAt),
    deliveredAt: isoOrNull(r.deliveredAt),
    failedAt: isoOrNull(r.failedAt),
    createdAt: iso(r.createdAt),
  };
}

async function withAttempts(ex: Executor, rows: WebhookDeliveryRow[]): Promise<DeliveryView[]> {
  if (rows.length === 0) return [];
  const attempts = await ex
    .select()
    .from(webhookAttempts)
    .where(
      inArray(
        webhookAttempts.deliveryId,
        rows.map((r) => r.id),
      ),
    )
    .orderBy(asc(webhookAttempts.deliveryId), asc(webhookAttempts.n));
  const byDelivery = new Map<string, WebhookAttemptRow[]>();
  for (const a of attempts) {
    const list = byDelivery.get(a.deliveryId) ?? [];
    list.push(a);
    byDelivery.set(a.deliveryId, list);
  }
  return rows.map((r) => toDelivery(r, byDelivery.get(r.id) ?? []));
}

/**
 * Newest first. A delivery's id starts with its created_at millisecond (both are the same clock
 * reading, dispatcher.ts), so the id order is the order (created_at, id) and the index
 * (endpoint_id, id) serves it without a sort; `cursor` and `before` are positions in it. `before`
 * (a delivery id, the older form of `next`) is kept for compatibility.
 */
export async function listDeliveries(
  ex: Executor,
  endpointId: string,
  opts: { before?: string; cursor?: string; take: number },
): Promise<{ deliveries: DeliveryView[]; next: string | null; nextCursor: string | null }> {
  const t = webhookDeliveries;
  const conditions: SQL[] = [eq(t.endpointId, endpointId)];
  if (opts.before) conditions.push(lt(t.id, opts.before));
  if (opts.cursor) conditions.push(lt(t.id, decodeCursor('deliveries', opts.cursor).id));
  const rows = await ex
    .select({ row: getTableColumns(t), cursorAt: sql<string>`${cursorAtSql(sql`${t.createdAt}`)}` })
    .from(t)
    .where(and(...conditions))
    .orderBy(desc(t.id))
    .limit(opts.take + 1);
  const { page, nextCursor } = pageOf('deliveries', rows, opts.take, (r) => ({ createdAt: r.cursorAt, id: r.row.id }));
  return {
    deliveries: await withAttempts(
      ex,
      page.map((r) => r.row),
    ),
    next: nextCursor ? page[page.length - 1].row.id : null,
    nextCursor,
  };
}

export async function getDelivery(ex: Executor, id: string): Promise<DeliveryView | undefined> {
  const rows = await ex.select().from(webhookDeliveries).where(eq(webhookDeliveries.id, id));
  return (await withAttempts(ex, rows))[0];
}

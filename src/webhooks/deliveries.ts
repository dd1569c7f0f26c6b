import { sql, type SQL } from 'drizzle-orm';
import type { Executor } from '../platform/db/engine.ts';
import { allOf } from '../platform/db/newest-first.ts';
import { columnList, rowReader, type Readable } from '../platform/db/row-reader.ts';
import { iso, isoOrNull, query } from '../platform/db/sql.ts';
import { cursorAtSql, decodeCursor, pageOf } from '../platform/http/cursor.ts';
import type { DeliveryView } from './schemas.ts';
import { webhookAttempts, webhookDeliveries, type WebhookAttemptRow, type WebhookDeliveryRow } from './tables.ts';

type StoredAttempt = Readable<WebhookAttemptRow>;
type StoredDelivery = Readable<WebhookDeliveryRow>;
const readAttempt = rowReader(webhookAttempts);
const readDelivery = rowReader(webhookDeliveries);

function toAttempt(r: StoredAttempt) {
  return {
    n: r.n,
    at: iso(r.at),
    responseStatus: r.responseStatus,
    durationMs: r.durationMs,
    error: r.error,
    responseBody: r.responseBody,
  };
}

function toDelivery(r: StoredDelivery, attempts: StoredAttempt[]): DeliveryView {
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

async function withAttempts(ex: Executor, rows: StoredDelivery[]): Promise<DeliveryView[]> {
  if (rows.length === 0) return [];
  const a = webhookAttempts;
  const ids = rows.map((r) => r.id);
  const raw = await query(ex, sql`SELECT ${columnList(a)} FROM ${a} WHERE ${a.deliveryId} = ANY(${sql.param(ids)}) ORDER BY ${a.deliveryId}, ${a.n}`);
  const byDelivery = new Map<string, StoredAttempt[]>();
  for (const a of raw.map(readAttempt)) {
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
  const conditions: SQL[] = [sql`${t.endpointId} = ${endpointId}`];
  if (opts.before) conditions.push(sql`${t.id} < ${opts.before}`);
  if (opts.cursor) conditions.push(sql`${t.id} < ${decodeCursor('deliveries', opts.cursor).id}`);
  const raw = await query<Record<string, unknown> & { cursor_at: string }>(
    ex,
    sql`SELECT ${columnList(t)}, ${cursorAtSql(sql`${t.createdAt}`)} AS cursor_at FROM ${t}
        WHERE ${allOf(conditions)} ORDER BY ${t.id} DESC LIMIT ${opts.take + 1}`,
  );
  const rows = raw.map((r) => ({ row: readDelivery(r), cursorAt: r.cursor_at }));
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
  const t = webhookDeliveries;
  const rows = await query(ex, sql`SELECT ${columnList(t)} FROM ${t} WHERE ${t.id} = ${id}`);
  return (await withAttempts(ex, rows.map(readDelivery)))[0];
}

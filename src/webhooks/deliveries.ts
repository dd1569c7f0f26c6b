import { sql } from 'drizzle-orm';
import type { Executor } from '../platform/db/engine.ts';
import { iso, isoOrNull, query } from '../platform/db/sql.ts';
import { cursorAtSql, decodeCursor, pageOf } from '../platform/http/cursor.ts';
import type { DeliveryView } from './schemas.ts';

type Row = Record<string, unknown>;

function toAttempt(r: Row) {
  return {
    n: Number(r.n),
    at: iso(r.at),
    responseStatus: r.response_status === null || r.response_status === undefined ? null : Number(r.response_status),
    durationMs: Number(r.duration_ms),
    error: (r.error as string | null) ?? null,
    responseBody: (r.response_body as string | null) ?? null,
  };
}

function toDelivery(r: Row, attempts: Row[]): DeliveryView {
  return {
    id: String(r.id),
    webhookId: String(r.endpoint_id),
    eventId: (r.event_id as string | null) ?? null,
    event: String(r.event) as DeliveryView['event'],
    businessId: (r.business_id as string | null) ?? null,
    status: String(r.status) as DeliveryView['status'],
    attempts: attempts.map(toAttempt),
    nextAttemptAt: isoOrNull(r.next_attempt_at),
    deliveredAt: isoOrNull(r.delivered_at),
    failedAt: isoOrNull(r.failed_at),
    createdAt: iso(r.created_at),
  };
}

async function withAttempts(ex: Executor, rows: Row[]): Promise<DeliveryView[]> {
  if (rows.length === 0) return [];
  const ids = rows.map((r) => String(r.id));
  const attempts = await query<Row>(ex, sql`SELECT * FROM webhook_attempts WHERE delivery_id IN ${ids} ORDER BY delivery_id, n`);
  const byDelivery = new Map<string, Row[]>();
  for (const a of attempts) {
    const list = byDelivery.get(String(a.delivery_id)) ?? [];
    list.push(a);
    byDelivery.set(String(a.delivery_id), list);
  }
  return rows.map((r) => toDelivery(r, byDelivery.get(String(r.id)) ?? []));
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
  const conditions = [sql`endpoint_id = ${endpointId}`];
  if (opts.before) conditions.push(sql`id < ${opts.before}`);
  if (opts.cursor) conditions.push(sql`id < ${decodeCursor('deliveries', opts.cursor).id}`);
  const rows = await query<Row>(
    ex,
    sql`SELECT *, ${cursorAtSql()} AS cursor_at FROM webhook_deliveries WHERE ${sql.join(conditions, sql` AND `)} ORDER BY id DESC LIMIT ${opts.take + 1}`,
  );
  const { page, nextCursor } = pageOf('deliveries', rows, opts.take, (r) => ({ createdAt: String(r.cursor_at), id: String(r.id) }));
  return { deliveries: await withAttempts(ex, page), next: nextCursor ? String(page[page.length - 1].id) : null, nextCursor };
}

export async function getDelivery(ex: Executor, id: string): Promise<DeliveryView | undefined> {
  const rows = await query<Row>(ex, sql`SELECT * FROM webhook_deliveries WHERE id = ${id}`);
  return (await withAttempts(ex, rows))[0];
}

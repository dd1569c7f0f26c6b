import { sql } from 'drizzle-orm';
import type { Executor } from '../platform/db/engine.ts';
import { iso, isoOrNull, query } from '../platform/db/sql.ts';
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

/** Newest first (ids are time-sortable); `before` is the last id of the previous page. */
export async function listDeliveries(
  ex: Executor,
  endpointId: string,
  opts: { before?: string; take: number },
): Promise<{ deliveries: DeliveryView[]; next: string | null }> {
  const rows = await query<Row>(
    ex,
    opts.before
      ? sql`SELECT * FROM webhook_deliveries WHERE endpoint_id = ${endpointId} AND id < ${opts.before} ORDER BY id DESC LIMIT ${opts.take + 1}`
      : sql`SELECT * FROM webhook_deliveries WHERE endpoint_id = ${endpointId} ORDER BY id DESC LIMIT ${opts.take + 1}`,
  );
  const page = rows.slice(0, opts.take);
  return { deliveries: await withAttempts(ex, page), next: rows.length > opts.take ? String(page[page.length - 1].id) : null };
}

export async function getDelivery(ex: Executor, id: string): Promise<DeliveryView | undefined> {
  const rows = await query<Row>(ex, sql`SELECT * FROM webhook_deliveries WHERE id = ${id}`);
  return (await withAttempts(ex, rows))[0];
}

import { newestFirstPage } from '../platform/db/newest-first.ts';
import { and, desc, eq, gt, inArray, lt, sql } from 'drizzle-orm';
import type { Executor, Mode } from '../platform/db/engine.ts';
import { iso } from '../platform/db/sql.ts';
import { outboxEvents } from '../platform/db/tables.ts';
import { notFound } from '../platform/errors.ts';
import type { EventsQueryValue, EventView } from './schemas.ts';

type OutboxRow = typeof outboxEvents.$inferSelect;

function toEvent(mode: Mode, r: OutboxRow): EventView {
  return {
    id: r.id,
    // The outbox accepts only the catalog's names (platform/outbox.ts).
    type: r.event as EventView['type'],
    mode,
    businessId: r.businessId,
    data: (r.data ?? {}) as EventView['data'],
    createdAt: iso(r.createdAt),
  };
}

/**
 * One page of an account's events in one mode's database, newest first in the order (created_at, id).
 * The index outbox_events_by_account (migration 0035) reads the account's range in that order, so a
 * page costs `take` rows whatever the filters (docs/webhooks.md, "Events API", has the plans).
 */
export async function listEvents(
  ex: Executor,
  mode: Mode,
  accountId: string,
  q: EventsQueryValue & { take: number },
): Promise<{ events: EventView[]; nextCursor: string | null }> {
  const t = outboxEvents;
  const where = [
    eq(t.accountId, accountId),
    q.type ? inArray(t.event, q.type) : undefined,
    q.businessId ? eq(t.businessId, q.businessId) : undefined,
    q.createdAfter ? gt(t.createdAt, new Date(q.createdAfter)) : undefined,
    q.createdBefore ? lt(t.createdAt, new Date(q.createdBefore)) : undefined,
  ];
  const { rows, nextCursor } = await newestFirstPage(ex, { name: 'events', table: t }, { where, cursor: q.cursor, take: q.take });
  return { events: rows.map((r) => toEvent(mode, r)), nextCursor };
}

/** One event of the account; another account's (or a pruned one) is not found. */
export async function getEvent(ex: Executor, mode: Mode, accountId: string, id: string): Promise<EventView> {
  const [row] = await ex
    .select()
    .from(outboxEvents)
    .where(and(eq(outboxEvents.id, id), eq(outboxEvents.accountId, accountId)));
  if (!row) throw notFound('event');
  return toEvent(mode, row);
}

/**
 * The events that name one document of a business (data.documentId), newest first, at most `take`:
 * a range of the index outbox_events_by_document (migration 0045), whatever the business's volume.
 */
export async function listDocumentEvents(
  ex: Executor,
  target: { mode: Mode; accountId: string; businessId: string; documentId: string },
  take: number,
): Promise<EventView[]> {
  const t = outboxEvents;
  const rows = await ex
    .select()
    .from(t)
    .where(
      and(
        eq(t.accountId, target.accountId),
        eq(t.businessId, target.businessId),
        sql`${t.data}->>'documentId' = ${target.documentId}`,
        sql`${t.data} ? 'documentId'`,
      ),
    )
    .orderBy(desc(t.createdAt), desc(t.id))
    .limit(take);
  return rows.map((r) => toEvent(target.mode, r));
}

import { newestFirstPage } from '../platform/db/newest-first.ts';
import { sql } from 'drizzle-orm';
import type { Executor, Mode } from '../platform/db/engine.ts';
import { columnList, rowReader, type Readable } from '../platform/db/row-reader.ts';
import { iso, query, queryOne } from '../platform/db/sql.ts';
import { outboxEvents } from '../platform/db/tables.ts';
import { notFound } from '../platform/errors.ts';
import type { EventsQueryValue, EventView } from './schemas.ts';

type OutboxRow = Readable<typeof outboxEvents.$inferSelect>;
const readEvent = rowReader(outboxEvents);

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
    sql`${t.accountId} = ${accountId}`,
    q.type ? sql`${t.event} = ANY(${sql.param(q.type)})` : undefined,
    q.businessId ? sql`${t.businessId} = ${q.businessId}` : undefined,
    q.createdAfter ? sql`${t.createdAt} > ${new Date(q.createdAfter).toISOString()}` : undefined,
    q.createdBefore ? sql`${t.createdAt} < ${new Date(q.createdBefore).toISOString()}` : undefined,
  ];
  const { rows, nextCursor } = await newestFirstPage(ex, { name: 'events', table: t }, { where, cursor: q.cursor, take: q.take });
  return { events: rows.map((r) => toEvent(mode, r)), nextCursor };
}

/** One event of the account; another account's (or a pruned one) is not found. */
export async function getEvent(ex: Executor, mode: Mode, accountId: string, id: string): Promise<EventView> {
  const t = outboxEvents;
  const row = await queryOne(ex, sql`SELECT ${columnList(t)} FROM ${t} WHERE ${t.id} = ${id} AND ${t.accountId} = ${accountId}`);
  if (!row) throw notFound('event');
  return toEvent(mode, readEvent(row));
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
  const rows = await query(
    ex,
    sql`SELECT ${columnList(t)} FROM ${t}
        WHERE ${t.accountId} = ${target.accountId} AND ${t.businessId} = ${target.businessId}
          AND ${t.data}->>'documentId' = ${target.documentId} AND ${t.data} ? 'documentId'
        ORDER BY ${t.createdAt} DESC, ${t.id} DESC LIMIT ${take}`,
  );
  return rows.map((r) => toEvent(target.mode, readEvent(r)));
}

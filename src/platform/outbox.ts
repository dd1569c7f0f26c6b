import { sql, type SQL } from 'drizzle-orm';
import type { Executor } from './db/engine.ts';
import { newId } from './ids.ts';
import { insertInto } from './db/insert-values.ts';
import { outboxEvents } from './db/tables.ts';
import type { EventData, EventName } from './catalog/events.ts';

/** One event to record: a name from the catalog (catalog/events.ts) and the data its schema describes. */
export type OutboxEvent = { [E in EventName]: { event: E; accountId: string; businessId: string | null; data: EventData<E> } }[EventName];

/** The INSERT of one event, for a caller that writes it together with other rows (withWrites). */
export function eventInsert(at: Date, e: OutboxEvent): SQL {
  return insertInto(outboxEvents, {
    id: newId('evt', at.getTime()),
    event: e.event,
    accountId: e.accountId,
    businessId: e.businessId,
    data: e.data,
    createdAt: at,
  });
}

/** Marks events as handed to the webhook deliveries (the dispatcher's transaction). */
export async function markDispatched(tx: Executor, ids: string[], at: string): Promise<void> {
  await tx.execute(sql`UPDATE outbox_events SET dispatched_at = ${at} WHERE id IN ${ids}`);
}

/** Writes an event in the caller's transaction: it exists exactly when the change commits. */
export async function recordEvent(tx: Executor, at: Date, e: OutboxEvent): Promise<void> {
  await tx.execute(eventInsert(at, e));
}

/**
 * Deletes the events recorded before `before` that were handed to the webhook deliveries (an event not yet
 * fanned out stays until it is). Deliveries keep their own copy of the envelope, so their log is untouched.
 * Answers how many went.
 */
export async function pruneOutboxEvents(ex: Executor, before: Date): Promise<number> {
  const result = await ex.execute(sql`DELETE FROM outbox_events WHERE created_at < ${before.toISOString()} AND dispatched_at IS NOT NULL`);
  return Number((result as { rowCount?: number | null }).rowCount ?? 0);
}

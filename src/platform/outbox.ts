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

/** Writes an event in the caller's transaction: it exists exactly when the change commits. */
/** Marks events as handed to the webhook deliveries (the dispatcher's transaction). */
export async function markDispatched(tx: Executor, ids: string[], at: string): Promise<void> {
  await tx.execute(sql`UPDATE outbox_events SET dispatched_at = ${at} WHERE id IN ${ids}`);
}

export async function recordEvent(tx: Executor, at: Date, e: OutboxEvent): Promise<void> {
  await tx.execute(eventInsert(at, e));
}

import { sql, type SQL } from 'drizzle-orm';
import type { Executor } from './db/engine.ts';
import { newId } from './ids.ts';
import type { EventData, EventName } from './catalog/events.ts';

/** One event to record: a name from the catalog (catalog/events.ts) and the data its schema describes. */
export type OutboxEvent = { [E in EventName]: { event: E; accountId: string; businessId: string | null; data: EventData<E> } }[EventName];

/** The INSERT of one event, for a caller that writes it together with other rows (writeTogether). */
export function eventInsert(at: Date, e: OutboxEvent): SQL {
  return sql`INSERT INTO outbox_events(id, event, account_id, business_id, data, created_at)
      VALUES (${newId('evt', at.getTime())}, ${e.event}, ${e.accountId}, ${e.businessId}, ${JSON.stringify(e.data)}::jsonb, ${at.toISOString()})`;
}

/** Writes an event in the caller's transaction: it exists exactly when the change commits. */
/** Marks events as handed to the webhook deliveries (the dispatcher's transaction). */
export async function markDispatched(tx: Executor, ids: string[], at: string): Promise<void> {
  await tx.execute(sql`UPDATE outbox_events SET dispatched_at = ${at} WHERE id IN ${ids}`);
}

export async function recordEvent(tx: Executor, at: Date, e: OutboxEvent): Promise<void> {
  await tx.execute(eventInsert(at, e));
}

import { sql, type SQL } from 'drizzle-orm';
import type { Executor } from './db/engine.ts';
import { newId } from './ids.ts';

/** Every event name the service emits (the webhook filter accepts exactly these). */
export const EVENT_NAMES = [
  'document.issued',
  'document.pdf_ready',
  'document.allocation_assigned',
  'document.allocation_failed',
  'allocation.connection_expiring',
  'expense.recorded',
  'export.completed',
  'business.status_changed',
  'webhook.test',
] as const;
export type EventName = (typeof EVENT_NAMES)[number];

export interface OutboxEvent {
  event: EventName;
  accountId: string;
  businessId: string | null;
  data: Record<string, unknown>;
}

/** The INSERT of one event, for a caller that writes it together with other rows (writeTogether). */
export function eventInsert(at: Date, e: OutboxEvent): SQL {
  return sql`INSERT INTO outbox_events(id, event, account_id, business_id, data, created_at)
      VALUES (${newId('evt', at.getTime())}, ${e.event}, ${e.accountId}, ${e.businessId}, ${JSON.stringify(e.data)}::jsonb, ${at.toISOString()})`;
}

/** Writes an event in the caller's transaction: it exists exactly when the change commits. */
export async function recordEvent(tx: Executor, at: Date, e: OutboxEvent): Promise<void> {
  await tx.execute(eventInsert(at, e));
}

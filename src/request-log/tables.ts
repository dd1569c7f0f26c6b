/** Typed definition of the table the request-log domain writes (migration 0036). */
import { integer, pgTable, text } from 'drizzle-orm/pg-core';
import { timestamptz3 } from '../platform/db/tables.ts';

export const apiRequests = pgTable('api_requests', {
  id: text('id').primaryKey(),
  accountId: text('account_id').notNull(),
  keyPrefix: text('key_prefix').notNull(),
  /** The X-Request-Id: ours or the caller's own (not unique). */
  requestId: text('request_id').notNull(),
  method: text('method').notNull(),
  path: text('path').notNull(),
  status: integer('status').notNull(),
  reason: text('reason'),
  durationMs: integer('duration_ms').notNull(),
  createdAt: timestamptz3('created_at').notNull(),
});
export type ApiRequestRow = typeof apiRequests.$inferSelect;

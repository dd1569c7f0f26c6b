/** Typed definitions of the tables the webhooks domain writes (migration 0003). */
import { boolean, integer, pgTable, primaryKey, text, unique } from 'drizzle-orm/pg-core';
import { timestamptz3 } from '../platform/db/tables.ts';
import { DELIVERY_STATUSES } from './schedule.ts';

export const webhookEndpoints = pgTable('webhook_endpoints', {
  id: text('id').primaryKey(),
  accountId: text('account_id').notNull(),
  businessId: text('business_id'),
  url: text('url').notNull(),
  /** Event names to receive; empty means all. */
  events: text('events').array().notNull().default([]),
  secret: text('secret').notNull(),
  active: boolean('active').notNull().default(true),
  disabledAt: timestamptz3('disabled_at'),
  consecutiveFailures: integer('consecutive_failures').notNull().default(0),
  createdAt: timestamptz3('created_at').notNull(),
  updatedAt: timestamptz3('updated_at').notNull(),
});
export type WebhookEndpointRow = typeof webhookEndpoints.$inferSelect;

export const webhookDeliveries = pgTable(
  'webhook_deliveries',
  {
    id: text('id').primaryKey(),
    endpointId: text('endpoint_id').notNull(),
    /** The outbox event; null for the synthetic webhook.test. */
    eventId: text('event_id'),
    event: text('event').notNull(),
    businessId: text('business_id'),
    /** The exact envelope bytes, sent again unchanged by every retry. */
    payload: text('payload').notNull(),
    status: text('status', { enum: DELIVERY_STATUSES }).notNull(),
    attemptCount: integer('attempt_count').notNull().default(0),
    nextAttemptAt: timestamptz3('next_attempt_at'),
    lockedUntil: timestamptz3('locked_until'),
    createdAt: timestamptz3('created_at').notNull(),
    deliveredAt: timestamptz3('delivered_at'),
    failedAt: timestamptz3('failed_at'),
  },
  (t) => [unique('webhook_deliveries_event_id_endpoint_id_key').on(t.eventId, t.endpointId)],
);
export type WebhookDeliveryRow = typeof webhookDeliveries.$inferSelect;

export const webhookAttempts = pgTable(
  'webhook_attempts',
  {
    deliveryId: text('delivery_id').notNull(),
    n: integer('n').notNull(),
    at: timestamptz3('at').notNull(),
    responseStatus: integer('response_status'),
    durationMs: integer('duration_ms').notNull(),
    error: text('error'),
    /** The first few KB of the answer. */
    responseBody: text('response_body'),
  },
  (t) => [primaryKey({ columns: [t.deliveryId, t.n] })],
);
export type WebhookAttemptRow = typeof webhookAttempts.$inferSelect;

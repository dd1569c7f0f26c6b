/** Typed definitions of the allocation domain's tables (migration 0008): grants at the tax authority and consent flows. */
import { pgTable, text } from 'drizzle-orm/pg-core';
import { timestamptz3 } from '../platform/db/tables.ts';
import { ALLOCATION_PROVIDERS, CONSENT_OUTCOMES } from './lists.ts';

/** One business's OAuth2 grant; provider 'simulator' for the simulated consent screen. */
export const itaConnections = pgTable('ita_connections', {
  businessId: text('business_id').primaryKey(),
  provider: text('provider', { enum: ALLOCATION_PROVIDERS }).notNull(),
  accessToken: text('access_token').notNull(),
  accessExpiresAt: timestamptz3('access_expires_at').notNull(),
  refreshToken: text('refresh_token').notNull(),
  refreshExpiresAt: timestamptz3('refresh_expires_at').notNull(),
  scope: text('scope'),
  consentedOn: text('consented_on'),
  brokenAt: timestamptz3('broken_at'),
  brokenReason: text('broken_reason'),
  connectedAt: timestamptz3('connected_at').notNull(),
  refreshedAt: timestamptz3('refreshed_at'),
  expiryWarnedFor: timestamptz3('expiry_warned_for'),
  updatedAt: timestamptz3('updated_at').notNull(),
});
export type ItaConnectionRow = typeof itaConnections.$inferSelect;
export type NewItaConnectionRow = typeof itaConnections.$inferInsert;

/** A consent flow in progress; `state` comes back to GET /ita/callback once. */
export const itaConsentRequests = pgTable('ita_consent_requests', {
  state: text('state').primaryKey(),
  businessId: text('business_id').notNull(),
  keyId: text('key_id'),
  accountId: text('account_id'),
  returnUrl: text('return_url'),
  createdAt: timestamptz3('created_at').notNull(),
  expiresAt: timestamptz3('expires_at').notNull(),
  completedAt: timestamptz3('completed_at'),
  outcome: text('outcome', { enum: CONSENT_OUTCOMES }),
});
export type ItaConsentRequestRow = typeof itaConsentRequests.$inferSelect;
export type NewItaConsentRequestRow = typeof itaConsentRequests.$inferInsert;

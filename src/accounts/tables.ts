/** Typed definitions of the control-plane tables the accounts domain writes (migration 0001). */
import { boolean, integer, pgTable, text } from 'drizzle-orm/pg-core';
import { timestamptz3 } from '../platform/db/tables.ts';
import { KEY_MODES } from '../platform/http/context.ts';
import { APPROVAL_STATUSES } from './lists.ts';

export const plans = pgTable('plans', {
  key: text('key').primaryKey(),
  name: text('name').notNull(),
  maxDocsPerMonth: integer('max_docs_per_month'),
  maxExpensesPerMonth: integer('max_expenses_per_month'),
  createdAt: timestamptz3('created_at').notNull(),
});
export type PlanRow = typeof plans.$inferSelect;
export type NewPlanRow = typeof plans.$inferInsert;

export const accounts = pgTable('accounts', {
  id: text('id').primaryKey(),
  name: text('name').notNull(),
  email: text('email').unique('accounts_email_key'),
  phone: text('phone'),
  passwordHash: text('password_hash'),
  approvalStatus: text('approval_status', { enum: APPROVAL_STATUSES }).notNull(),
  maxActiveKeys: integer('max_active_keys').notNull().default(10),
  ocrGranted: boolean('ocr_granted').notNull().default(false),
  maxDocsPerMonth: integer('max_docs_per_month'),
  maxExpensesPerMonth: integer('max_expenses_per_month'),
  createdAt: timestamptz3('created_at').notNull(),
});
export type AccountRow = typeof accounts.$inferSelect;
export type NewAccountRow = typeof accounts.$inferInsert;

export const apiKeys = pgTable('api_keys', {
  id: text('id').primaryKey(),
  accountId: text('account_id').notNull(),
  mode: text('mode', { enum: KEY_MODES }).notNull(),
  prefix: text('prefix').notNull(),
  keyHash: text('key_hash').notNull().unique('api_keys_key_hash_key'),
  label: text('label'),
  scopes: text('scopes').array().notNull(),
  createdAt: timestamptz3('created_at').notNull(),
  lastUsedAt: timestamptz3('last_used_at'),
  expiresAt: timestamptz3('expires_at'),
  revokedAt: timestamptz3('revoked_at'),
});
export type ApiKeyRow = typeof apiKeys.$inferSelect;
export type NewApiKeyRow = typeof apiKeys.$inferInsert;

/** Typed definitions of the web console's tables (migrations 0005, 0023); used in the live database only. */
import { bigserial, boolean, integer, pgTable, primaryKey, text } from 'drizzle-orm/pg-core';
import { timestamptz3 } from '../platform/db/tables.ts';

/** Known by the SHA-256 of its cookie token; second_factor_at is null until the SMS code was accepted. */
export const consoleSessions = pgTable('console_sessions', {
  id: text('id').primaryKey(),
  tokenHash: text('token_hash').notNull().unique('console_sessions_token_hash_key'),
  accountId: text('account_id').notNull(),
  createdAt: timestamptz3('created_at').notNull(),
  expiresAt: timestamptz3('expires_at').notNull(),
  lastSeenAt: timestamptz3('last_seen_at').notNull(),
  secondFactorAt: timestamptz3('second_factor_at'),
  ip: text('ip'),
  userAgent: text('user_agent'),
  endedAt: timestamptz3('ended_at'),
});
export type ConsoleSessionRow = typeof consoleSessions.$inferSelect;
export type NewConsoleSessionRow = typeof consoleSessions.$inferInsert;

export const consoleOtps = pgTable('console_otps', {
  id: text('id').primaryKey(),
  sessionId: text('session_id').notNull(),
  codeHash: text('code_hash').notNull(),
  createdAt: timestamptz3('created_at').notNull(),
  expiresAt: timestamptz3('expires_at').notNull(),
  attempts: integer('attempts').notNull().default(0),
  consumedAt: timestamptz3('consumed_at'),
  supersededAt: timestamptz3('superseded_at'),
});
export type ConsoleOtpRow = typeof consoleOtps.$inferSelect;
export type NewConsoleOtpRow = typeof consoleOtps.$inferInsert;

export const consoleSignInAttempts = pgTable('console_sign_in_attempts', {
  id: bigserial('id', { mode: 'number' }).primaryKey(),
  at: timestamptz3('at').notNull(),
  email: text('email').notNull(),
  ip: text('ip').notNull(),
  accountId: text('account_id'),
  step: text('step', { enum: ['password', 'code'] }).notNull(),
  success: boolean('success').notNull(),
});
export type ConsoleSignInAttemptRow = typeof consoleSignInAttempts.$inferSelect;
export type NewConsoleSignInAttemptRow = typeof consoleSignInAttempts.$inferInsert;

export const consoleSecrets = pgTable('console_secrets', {
  name: text('name').primaryKey(),
  value: text('value').notNull(),
  createdAt: timestamptz3('created_at').notNull(),
});
export type ConsoleSecretRow = typeof consoleSecrets.$inferSelect;

/** One-time tokens of the mint form (0023): the row names the key it created. */
export const consoleIdempotency = pgTable(
  'console_idempotency',
  {
    accountId: text('account_id').notNull(),
    token: text('token').notNull(),
    action: text('action').notNull(),
    requestHash: text('request_hash').notNull(),
    keyId: text('key_id'),
    sealedSecret: text('sealed_secret'),
    revealUntil: timestamptz3('reveal_until'),
    createdAt: timestamptz3('created_at').notNull(),
    expiresAt: timestamptz3('expires_at').notNull(),
  },
  (t) => [primaryKey({ columns: [t.accountId, t.token] })],
);
export type ConsoleIdempotencyRow = typeof consoleIdempotency.$inferSelect;
export type NewConsoleIdempotencyRow = typeof consoleIdempotency.$inferInsert;

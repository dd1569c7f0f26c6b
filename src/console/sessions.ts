import { sql } from 'drizzle-orm';
import type { Executor } from '../platform/db/engine.ts';
import { iso, isoOrNull, queryOne } from '../platform/db/sql.ts';
import { insertInto } from '../platform/db/insert-values.ts';
import { consoleSessions } from './tables.ts';
import { newId } from '../platform/ids.ts';
import { newSessionToken, tokenHash } from './secrets.ts';
import { PENDING_SESSION_TTL_MS, SESSION_TTL_MS, sessionAlive } from './limits.ts';

export const SESSION_COOKIE = 'pinkas_session';

export interface ConsoleSession {
  id: string;
  accountId: string;
  createdAt: string;
  expiresAt: string;
  lastSeenAt: string;
  secondFactorAt: string | null;
}

function toSession(r: Record<string, unknown>): ConsoleSession {
  return {
    id: String(r.id),
    accountId: String(r.account_id),
    createdAt: iso(r.created_at),
    expiresAt: iso(r.expires_at),
    lastSeenAt: iso(r.last_seen_at),
    secondFactorAt: isoOrNull(r.second_factor_at),
  };
}

/** A session after a correct password: it can only verify the SMS code until second_factor_at is set. */
export async function createPendingSession(
  ex: Executor,
  now: Date,
  input: { accountId: string; ip: string; userAgent: string | undefined },
): Promise<{ session: ConsoleSession; token: string }> {
  const token = newSessionToken();
  const row = await queryOne<Record<string, unknown>>(
    ex,
    sql`${insertInto(consoleSessions, {
      id: newId('ses', now.getTime()),
      tokenHash: tokenHash(token),
      accountId: input.accountId,
      createdAt: now,
      expiresAt: new Date(now.getTime() + PENDING_SESSION_TTL_MS),
      lastSeenAt: now,
      ip: input.ip,
      userAgent: (input.userAgent ?? '').slice(0, 300),
    })} RETURNING *`,
  );
  return { session: toSession(row!), token };
}

/** The live session of a cookie token, or null (unknown, ended, expired, idle). */
export async function findSession(ex: Executor, token: string | undefined, now: Date): Promise<ConsoleSession | null> {
  if (!token || token.length > 100) return null;
  const row = await queryOne<Record<string, unknown>>(ex, sql`SELECT * FROM console_sessions WHERE token_hash = ${tokenHash(token)}`);
  if (!row) return null;
  const s = toSession(row);
  const alive = sessionAlive(
    {
      createdAtMs: Date.parse(s.createdAt),
      expiresAtMs: Date.parse(s.expiresAt),
      lastSeenAtMs: Date.parse(s.lastSeenAt),
      secondFactor: s.secondFactorAt !== null,
      ended: row.ended_at !== null,
    },
    now.getTime(),
  );
  return alive ? s : null;
}

/** Keeps a signed-in session from idling out; written at most once a minute. */
export async function touchSession(ex: Executor, s: ConsoleSession, now: Date): Promise<void> {
  if (now.getTime() - Date.parse(s.lastSeenAt) < 60_000) return;
  await ex.execute(sql`UPDATE console_sessions SET last_seen_at = ${now.toISOString()} WHERE id = ${s.id}`);
}

/**
 * The code was right: the session becomes signed in, with a NEW token (the pre-verification token
 * is worthless afterwards, so a planted or observed cookie cannot ride the signed-in session).
 */
export async function completeSecondFactor(ex: Executor, sessionId: string, now: Date): Promise<string> {
  const token = newSessionToken();
  await ex.execute(
    sql`UPDATE console_sessions SET token_hash = ${tokenHash(token)}, second_factor_at = ${now.toISOString()},
          last_seen_at = ${now.toISOString()}, expires_at = ${new Date(now.getTime() + SESSION_TTL_MS).toISOString()}
        WHERE id = ${sessionId}`,
  );
  return token;
}

export async function endSession(ex: Executor, sessionId: string, now: Date): Promise<void> {
  await ex.execute(sql`UPDATE console_sessions SET ended_at = coalesce(ended_at, ${now.toISOString()}) WHERE id = ${sessionId}`);
}

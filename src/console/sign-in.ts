import { hash, verify } from '@node-rs/argon2';
import { sql } from 'drizzle-orm';
import type { Executor } from '../platform/db/engine.ts';
import { iso, query, queryOne } from '../platform/db/sql.ts';
import { newId } from '../platform/ids.ts';
import { codeHash, newCode, sameSecret } from './secrets.ts';
import {
  CODE_MAX_ATTEMPTS,
  CODE_TTL_MS,
  LOCKOUT_WINDOW_MS,
  MAX_FAILURES_PER_ADDRESS,
  MAX_FAILURES_PER_EMAIL,
  judgeCode,
  lockedUntil,
  type CodeVerdict,
} from './limits.ts';
import { insertInto } from '../platform/db/insert-values.ts';
import { consoleOtps, consoleSignInAttempts } from './tables.ts';

/**
 * argon2id with OWASP's minimum profile (19 MiB, 2 passes, 1 lane): memory-hard, ~30 ms here.
 * @node-rs/argon2 defaults to argon2id; the parameters are stored in each hash, so raising them
 * later only affects new hashes.
 */
const ARGON2 = { memoryCost: 19_456, timeCost: 2, parallelism: 1 };

export function hashPassword(password: string): Promise<string> {
  return hash(password, ARGON2);
}

let dummyHash: Promise<string> | null = null;

/**
 * Checks a password against a stored hash. With no account (or no password) a dummy hash is still
 * verified, so the answer takes the same time whether the email exists or not.
 */
export async function passwordMatches(stored: string | null, password: string): Promise<boolean> {
  if (!stored) {
    dummyHash ??= hash('no account has this password', ARGON2);
    await verify(await dummyHash, password).catch(() => false);
    return false;
  }
  try {
    return await verify(stored, password);
  } catch {
    return false;
  }
}

export interface SignInAccount {
  id: string;
  name: string;
  phone: string | null;
  passwordHash: string | null;
  approvalStatus: string;
}

export async function accountByEmail(ex: Executor, email: string): Promise<SignInAccount | null> {
  const r = await queryOne<Record<string, unknown>>(
    ex,
    sql`SELECT id, name, phone, password_hash, approval_status FROM accounts WHERE lower(email) = ${email}`,
  );
  if (!r) return null;
  return {
    id: String(r.id),
    name: String(r.name),
    phone: (r.phone as string | null) ?? null,
    passwordHash: (r.password_hash as string | null) ?? null,
    approvalStatus: String(r.approval_status),
  };
}

export async function recordAttempt(
  ex: Executor,
  now: Date,
  a: { email: string; ip: string; accountId: string | null; step: 'password' | 'code'; success: boolean },
): Promise<void> {
  await ex.execute(insertInto(consoleSignInAttempts, { at: now, email: a.email, ip: a.ip, accountId: a.accountId, step: a.step, success: a.success }));
}

/**
 * Until when (ms) sign-in is refused for this email or this address, or null. Failures of an
 * email count since its last completed sign-in; an address's failures always count (one valid
 * account must not reset the counter of an address guessing others).
 */
export async function lockout(ex: Executor, now: Date, email: string, ip: string): Promise<number | null> {
  const since = new Date(now.getTime() - LOCKOUT_WINDOW_MS).toISOString();
  const byEmail = await query<{ at: string }>(
    ex,
    sql`SELECT at FROM console_sign_in_attempts
        WHERE email = ${email} AND NOT success AND at > ${since}
          AND at > coalesce((SELECT max(at) FROM console_sign_in_attempts WHERE email = ${email} AND success AND step = 'code'),
                            '-infinity'::timestamptz)`,
  );
  const byIp = await query<{ at: string }>(ex, sql`SELECT at FROM console_sign_in_attempts WHERE ip = ${ip} AND NOT success AND at > ${since}`);
  const ms = (rows: { at: unknown }[]) => rows.map((r) => Date.parse(iso(r.at)));
  const a = lockedUntil(ms(byEmail), now.getTime(), MAX_FAILURES_PER_EMAIL);
  const b = lockedUntil(ms(byIp), now.getTime(), MAX_FAILURES_PER_ADDRESS);
  if (a === null) return b;
  if (b === null) return a;
  return Math.max(a, b);
}

/** A new code for the session; earlier codes of the session stop working. Returns the code to send. */
export async function issueCode(ex: Executor, now: Date, secret: Buffer, sessionId: string): Promise<string> {
  const code = newCode();
  await ex.execute(
    sql`UPDATE console_otps SET superseded_at = ${now.toISOString()}
        WHERE session_id = ${sessionId} AND consumed_at IS NULL AND superseded_at IS NULL`,
  );
  await ex.execute(
    insertInto(consoleOtps, {
      id: newId('otp', now.getTime()),
      sessionId,
      codeHash: codeHash(secret, sessionId, code),
      createdAt: now,
      expiresAt: new Date(now.getTime() + CODE_TTL_MS),
    }),
  );
  return code;
}

/** Withdraws a code that could not be delivered (so it does not count as sent). */
export async function withdrawLatestCode(ex: Executor, sessionId: string): Promise<void> {
  await ex.execute(
    sql`DELETE FROM console_otps WHERE id = (SELECT id FROM console_otps WHERE session_id = ${sessionId} ORDER BY created_at DESC, id DESC LIMIT 1)
          AND consumed_at IS NULL`,
  );
}

export async function codeSendTimes(ex: Executor, sessionId: string): Promise<number[]> {
  const rows = await query<{ created_at: unknown }>(ex, sql`SELECT created_at FROM console_otps WHERE session_id = ${sessionId}`);
  return rows.map((r) => Date.parse(iso(r.created_at)));
}

/**
 * Checks a submitted code against the session's current code, inside the caller's transaction
 * (the row is locked, so parallel guesses cannot exceed the attempt limit).
 */
export async function checkCode(
  tx: Executor,
  { now, secret, sessionId, code }: { now: Date; secret: Buffer; sessionId: string; code: string },
): Promise<{ verdict: CodeVerdict; attemptsLeft: number }> {
  const row = await queryOne<Record<string, unknown>>(
    tx,
    sql`SELECT * FROM console_otps WHERE session_id = ${sessionId} AND consumed_at IS NULL AND superseded_at IS NULL
        ORDER BY created_at DESC, id DESC LIMIT 1 FOR UPDATE`,
  );
  const state = row
    ? {
        createdAtMs: Date.parse(iso(row.created_at)),
        expiresAtMs: Date.parse(iso(row.expires_at)),
        attempts: Number(row.attempts),
        consumed: false,
        superseded: false,
      }
    : null;
  const matches = row ? sameSecret(String(row.code_hash), codeHash(secret, sessionId, code)) : false;
  const verdict = judgeCode(state, now.getTime(), matches);
  if (!row) return { verdict, attemptsLeft: 0 };
  if (verdict === 'accept') {
    await tx.execute(sql`UPDATE console_otps SET consumed_at = ${now.toISOString()} WHERE id = ${String(row.id)}`);
  } else if (verdict === 'wrong') {
    await tx.execute(sql`UPDATE console_otps SET attempts = attempts + 1 WHERE id = ${String(row.id)}`);
  }
  return { verdict, attemptsLeft: Math.max(0, CODE_MAX_ATTEMPTS - Number(row.attempts) - (verdict === 'wrong' ? 1 : 0)) };
}

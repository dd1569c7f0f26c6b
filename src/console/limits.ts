/**
 * The console's sign-in limits and the pure decisions over them (no I/O: unit-tested directly).
 */

/** A one-time code: 6 digits, valid 5 minutes, 5 wrong tries kill it. */
export const CODE_TTL_MS = 5 * 60_000;
export const CODE_MAX_ATTEMPTS = 5;
/** A new code no sooner than 60 s after the previous one, at most 5 codes per sign-in. */
export const RESEND_AFTER_MS = 60_000;
export const MAX_CODES_PER_SIGN_IN = 5;

/** Failures (wrong password or wrong code) counted over a sliding 15 minutes. */
export const LOCKOUT_WINDOW_MS = 15 * 60_000;
export const MAX_FAILURES_PER_EMAIL = 10;
export const MAX_FAILURES_PER_ADDRESS = 20;

/** A session waiting for its code lives 10 minutes; a signed-in one 12 hours, or 1 hour idle. */
export const PENDING_SESSION_TTL_MS = 10 * 60_000;
export const SESSION_TTL_MS = 12 * 3_600_000;
export const SESSION_IDLE_MS = 3_600_000;

/** New accounts per address per day (sign-up spam backstop). */
export const SIGN_UPS_PER_ADDRESS_PER_DAY = 20;

/**
 * Given the times (ms, any order) of recent failures, the time until which further attempts are
 * refused, or null. Locked while `max` failures fall inside the window: it opens `window` after the
 * `max`-th most recent failure.
 */
export function lockedUntil(failureTimes: number[], nowMs: number, max: number, windowMs: number = LOCKOUT_WINDOW_MS): number | null {
  const recent = failureTimes.filter((t) => t > nowMs - windowMs && t <= nowMs).sort((a, b) => b - a);
  if (recent.length < max) return null;
  return recent[max - 1] + windowMs;
}

export interface CodeState {
  createdAtMs: number;
  expiresAtMs: number;
  attempts: number;
  consumed: boolean;
  superseded: boolean;
}

export type CodeVerdict = 'accept' | 'wrong' | 'expired' | 'exhausted' | 'none';

/** Whether a submitted code is accepted; `matches` is the constant-time comparison of its hash. */
export function judgeCode(code: CodeState | null, nowMs: number, matches: boolean): CodeVerdict {
  if (!code || code.consumed || code.superseded) return 'none';
  if (nowMs >= code.expiresAtMs) return 'expired';
  if (code.attempts >= CODE_MAX_ATTEMPTS) return 'exhausted';
  return matches ? 'accept' : 'wrong';
}

export type ResendVerdict = { ok: true } | { ok: false; why: 'too_soon'; retryAfterMs: number } | { ok: false; why: 'too_many' };

/** Whether another code may be sent for this sign-in. */
export function judgeResend(sentTimesMs: number[], nowMs: number): ResendVerdict {
  if (sentTimesMs.length >= MAX_CODES_PER_SIGN_IN) return { ok: false, why: 'too_many' };
  const last = Math.max(...sentTimesMs, Number.NEGATIVE_INFINITY);
  if (nowMs - last < RESEND_AFTER_MS) return { ok: false, why: 'too_soon', retryAfterMs: last + RESEND_AFTER_MS - nowMs };
  return { ok: true };
}

export interface SessionTimes {
  createdAtMs: number;
  expiresAtMs: number;
  lastSeenAtMs: number;
  secondFactor: boolean;
  ended: boolean;
}

/** A session is usable until it ends, expires, or (once signed in) sits idle for an hour. */
export function sessionAlive(t: SessionTimes, nowMs: number): boolean {
  if (t.ended || nowMs >= t.expiresAtMs) return false;
  if (t.secondFactor && nowMs - t.lastSeenAtMs >= SESSION_IDLE_MS) return false;
  return true;
}

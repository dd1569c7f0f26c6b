import { sql } from 'drizzle-orm';
import type { Executor } from '../platform/db/engine.ts';
import type { Services } from '../platform/http/services.ts';
import { errorSummary } from '../platform/logger.ts';
import type { Worker } from '../domain.ts';
import { LOCKOUT_WINDOW_MS } from './limits.ts';
import { pruneMintTokens } from './mint-tokens.ts';

/** Sign-in attempts matter for lockout only; kept a day for the operator's eyes, then dropped. */
export const ATTEMPTS_KEPT_MS = 86_400_000;
/** Ended or expired sessions (and their codes) are kept 30 days, then dropped. */
export const SESSIONS_KEPT_MS = 30 * 86_400_000;

/** Deletes console records nothing reads any more. Answers how many rows went, per table. */
export async function pruneConsoleRecords(ex: Executor, now: Date) {
  const attemptsBefore = new Date(now.getTime() - Math.max(ATTEMPTS_KEPT_MS, LOCKOUT_WINDOW_MS)).toISOString();
  const sessionsBefore = new Date(now.getTime() - SESSIONS_KEPT_MS).toISOString();
  const count = (r: unknown) => Number((r as { rowCount?: number; affectedRows?: number }).rowCount ?? (r as { affectedRows?: number }).affectedRows ?? 0);
  const attempts = count(await ex.execute(sql`DELETE FROM console_sign_in_attempts WHERE at < ${attemptsBefore}`));
  const stale = sql`SELECT id FROM console_sessions WHERE coalesce(ended_at, expires_at) < ${sessionsBefore}`;
  const codes = count(await ex.execute(sql`DELETE FROM console_otps WHERE session_id IN (${stale})`));
  const sessions = count(await ex.execute(sql`DELETE FROM console_sessions WHERE id IN (${stale})`));
  return { attempts, codes, sessions };
}

/** The server's hourly clean-up of the console tables (live database), mint tokens included. */
export function consoleWorker(s: Services): Worker {
  const run = async () => {
    try {
      await pruneConsoleRecords(s.databases.live.db, s.clock.now());
      await pruneMintTokens(s.databases.live.db, s.clock.now());
    } catch (err) {
      s.logger.warn({ err: errorSummary(err) }, 'console: pruning old sessions, attempts and mint tokens failed');
    }
  };
  const timer = setInterval(run, 3_600_000);
  timer.unref();
  void run();
  return {
    async stop() {
      clearInterval(timer);
    },
  };
}

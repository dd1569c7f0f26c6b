import { sql, type SQL } from 'drizzle-orm';
import type { Database, Executor } from './db/engine.ts';
import { query } from './db/sql.ts';
import { limitReached, AppError } from './errors.ts';

/** Usage figures per account and day (GET /usage). */
export const USAGE_METRICS = ['requests', 'documents_issued', 'expense_rows', 'ocr_scans', 'emails_sent'] as const;

export const subject = {
  account: (id: string) => `acct:${id}`,
  key: (id: string) => `key:${id}`,
  business: (id: string) => `biz:${id}`,
};

/** The upsert that adds `by` to a counter, for a caller that writes it with other rows. */
export function counterBump(day: string, subj: string, metric: string, by = 1): SQL {
  return sql`INSERT INTO usage_daily(day, subject, metric, count) VALUES (${day}, ${subj}, ${metric}, ${by})
      ON CONFLICT (subject, metric, day) DO UPDATE SET count = usage_daily.count + ${by}`;
}

/** Adds `by` to a counter in the caller's transaction. */
export async function bumpCounter(tx: Executor, { day, subject, metric }: { day: string; subject: string; metric: string }, by = 1): Promise<void> {
  await tx.execute(counterBump(day, subject, metric, by));
}

/**
 * The upsert that takes one unit of a daily allowance, `RETURNING count`; no row when the allowance
 * is spent. For a caller that writes it inside a larger statement (the issue's `WITH`).
 */
export function allowanceTake(day: string, subj: string, metric: string, limit: number): SQL {
  return sql`INSERT INTO usage_daily(day, subject, metric, count) VALUES (${day}, ${subj}, ${metric}, 1)
      ON CONFLICT (subject, metric, day) DO UPDATE SET count = usage_daily.count + 1
      WHERE usage_daily.count < ${limit}
      RETURNING count`;
}

/**
 * Takes one unit of a daily allowance in the caller's transaction, exactly, across processes:
 * the row lock of the upsert serializes takers and a rollback gives the unit back.
 * Throws 429 with `reason` once `limit` units were taken that day.
 */
export async function takeDailyAllowance(
  tx: Executor,
  opts: { day: string; subject: string; metric: string; limit: number; reason?: 'limit_reached' | 'quota_exceeded'; what: string },
): Promise<void> {
  const rows = await query<{ count: number }>(tx, allowanceTake(opts.day, opts.subject, opts.metric, opts.limit));
  if (rows.length === 0 || rows[0].count > opts.limit) {
    const message = `${opts.what}: the daily limit of ${opts.limit} is reached; it resets at midnight Israel time`;
    throw opts.reason === 'quota_exceeded' ? new AppError('quota_exceeded', message) : limitReached(message);
  }
}

/**
 * Request counts are buffered in memory and flushed every few seconds, so counting a request
 * costs no database round trip. A crash loses at most one interval of request counts (figures only,
 * never a limit).
 */
export class RequestCounter {
  private pending = new Map<string, number>();
  constructor(private readonly databases: Record<string, Database>) {}

  count(mode: string, day: string, accountId: string): void {
    const k = `${mode}\u0000${day}\u0000${accountId}`;
    this.pending.set(k, (this.pending.get(k) ?? 0) + 1);
  }

  async flush(): Promise<void> {
    const batch = this.pending;
    this.pending = new Map();
    for (const [k, n] of batch) {
      const [mode, day, accountId] = k.split('\u0000');
      const database = this.databases[mode];
      if (!database) continue;
      await bumpCounter(database.db, { day, subject: subject.account(accountId), metric: 'requests' }, n);
    }
  }
}

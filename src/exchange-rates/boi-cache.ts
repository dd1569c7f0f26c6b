/**
 * The database cache in front of the Bank of Israel (table boi_exchange_rates, migration 0020):
 * public data, shared by every business of the database. A day whose answer is cached is never
 * asked again. A day's answer is final once the day is over (its own rate, or the last one before
 * it); today's may still change (the Bank publishes in the afternoon), so today is cached only
 * when its own rate is out.
 */
import { sql } from 'drizzle-orm';
import type { Executor } from '../platform/db/engine.ts';
import { queryOne } from '../platform/db/sql.ts';
import { daysBefore } from './boi-protocol.ts';
import type { PublishedRate } from './provider.ts';

const day = (v: unknown): string => (v instanceof Date ? v.toISOString().slice(0, 10) : String(v).slice(0, 10));

export async function cachedBoiRate(ex: Executor, currency: string, date: string): Promise<PublishedRate | null> {
  const r = await queryOne<{ rate: string; rate_date: unknown }>(
    ex,
    sql`SELECT rate, rate_date::text AS rate_date FROM boi_exchange_rates WHERE currency = ${currency} AND for_date = ${date}`,
  );
  return r ? { rate: r.rate, date: day(r.rate_date) } : null;
}

/**
 * The last day whose answer `found` settles: every day from the publication through the day asked
 * has that rate (nothing was published in between), but only days already over are final.
 */
export function lastSettledDay(asked: string, found: PublishedRate, today: string): string {
  if (asked < today) return asked;
  return found.date === today ? today : daysBefore(today, 1);
}

/** Stores the answer for every settled day from its publication day through the day asked. */
export async function storeBoiRate(
  ex: Executor,
  { at, currency, asked, found, today }: { at: Date; currency: string; asked: string; found: PublishedRate; today: string },
): Promise<void> {
  const last = lastSettledDay(asked, found, today);
  await ex.execute(
    sql`INSERT INTO boi_exchange_rates(currency, for_date, rate_date, rate, fetched_at)
        SELECT ${currency}, d::date, ${found.date}::date, ${found.rate}, ${at.toISOString()}
        FROM generate_series(${found.date}::date, ${last}::date, interval '1 day') AS d
        ON CONFLICT (currency, for_date) DO NOTHING`,
  );
}

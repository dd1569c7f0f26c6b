/**
 * Closed months of the books (decisions.md "Books: dates, periods"). A closed month takes no manual
 * entry and no document dated inside it; an expense dated inside it posts on the first open day.
 * Months close in date order (migration 0033 checks it under a lock per business); the last closed
 * month can be reopened with a reason, audited and announced (`ledger.period_reopened`).
 */
import { sql } from 'drizzle-orm';
import type { Database, Tx } from '../platform/db/engine.ts';
import { iso, pgErrorCode, pgErrorMessage, query, queryOne } from '../platform/db/sql.ts';
import { appendAudit, type Actor } from '../platform/audit.ts';
import { recordEvent } from '../platform/outbox.ts';
import { conflict, notFound, validation } from '../platform/errors.ts';
import type { BusinessRecord } from '../businesses/index.ts';

export interface PeriodView {
  period: string;
  closedAt: string;
}

export async function listClosedPeriods(database: Database, businessId: string): Promise<PeriodView[]> {
  const rows = await query<{ period: string; closed_at: unknown }>(
    database.db,
    sql`SELECT to_char(period, 'YYYY-MM') AS period, closed_at FROM ledger_periods WHERE business_id = ${businessId} AND reopened_at IS NULL ORDER BY period`,
  );
  return rows.map((r) => ({ period: r.period, closedAt: iso(r.closed_at) }));
}

/**
 * Waits for the business's issues in flight: each holds the entry counter's row from its journal entry
 * to its commit, and the entry's trigger reads the periods after taking it, so an issue either
 * committed before the close or sees it (a business without entries gets the row, at 0).
 */
async function lockEntryCounter(tx: Tx, businessId: string): Promise<void> {
  await tx.execute(sql`INSERT INTO ledger_counters(business_id, last_entry_no) VALUES (${businessId}, 0) ON CONFLICT (business_id) DO NOTHING`);
  await tx.execute(sql`SELECT 1 FROM ledger_counters WHERE business_id = ${businessId} FOR UPDATE`);
}

/** Refusals of migration 0033's period triggers (PK005 out of order, PK006 not the last), else null. */
function periodRefusal(err: unknown) {
  const code = pgErrorCode(err);
  if (code !== 'PK005' && code !== 'PK006') return null;
  return conflict(pgErrorMessage(err).replace(/^ledger_periods: /, ''));
}

/** Closes a month (`YYYY-MM`) once it has ended (Israel date `today`), the month after the last one closed. Audited. */
export async function closePeriod(
  database: Database,
  { at, actor, business: b, period, today }: { at: Date; actor: Actor; business: BusinessRecord; period: string; today: string },
): Promise<PeriodView> {
  const first = `${period}-01`;
  if (today.slice(0, 7) <= period) throw validation('params.period', `${period} has not ended yet (today is ${today})`);
  try {
    return await database.db.transaction(async (tx) => {
      await lockEntryCounter(tx, b.id);
      const row = await queryOne<{ closed_at: unknown }>(
        tx,
        sql`INSERT INTO ledger_periods(business_id, period, closed_at, closed_by_key_id) VALUES (${b.id}, ${first}::date, ${at.toISOString()}, ${actor.keyId})
            ON CONFLICT (business_id, period) WHERE reopened_at IS NULL DO NOTHING RETURNING closed_at`,
      );
      if (!row) throw conflict(`${period} is closed already`);
      await appendAudit(
        tx,
        { at, actor },
        {
          businessId: b.id,
          action: 'ledger.period.close',
          entityType: 'ledger_period',
          entityId: `${b.id}:${period}`,
          after: { period },
        },
      );
      return { period, closedAt: at.toISOString() };
    });
  } catch (err) {
    throw periodRefusal(err) ?? err;
  }
}

export interface ReopenedPeriodView {
  period: string;
  closedAt: string;
  reopenedAt: string;
  reason: string;
}

/** Reopens the last closed month with a reason: documents and manual entries may be dated in it again. Audited; emits `ledger.period_reopened`. */
export async function reopenPeriod(
  database: Database,
  { at, actor, business: b, period, reason }: { at: Date; actor: Actor; business: BusinessRecord; period: string; reason: string },
): Promise<ReopenedPeriodView> {
  const text = reason.trim();
  if (!text) throw validation('body.reason', 'is required: say why the closed month is reopened');
  try {
    return await database.db.transaction(async (tx) => {
      const row = await queryOne<{ closed_at: unknown }>(
        tx,
        sql`UPDATE ledger_periods SET reopened_at = ${at.toISOString()}, reopened_by_key_id = ${actor.keyId}, reopen_reason = ${text}
             WHERE business_id = ${b.id} AND period = ${`${period}-01`}::date AND reopened_at IS NULL RETURNING closed_at`,
      );
      if (!row) throw notFound(`closed period ${period}`);
      const after = { period, reason: text };
      await appendAudit(
        tx,
        { at, actor },
        { businessId: b.id, action: 'ledger.period.reopen', entityType: 'ledger_period', entityId: `${b.id}:${period}`, after },
      );
      await recordEvent(tx, at, { event: 'ledger.period_reopened', accountId: b.accountId, businessId: b.id, data: { businessId: b.id, ...after } });
      return { period, closedAt: iso(row.closed_at), reopenedAt: at.toISOString(), reason: text };
    });
  } catch (err) {
    throw periodRefusal(err) ?? err;
  }
}

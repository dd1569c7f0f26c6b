import { sql } from 'drizzle-orm';
import type { Executor, Tx } from '../platform/db/engine.ts';
import { queryOne } from '../platform/db/sql.ts';
import { AppError, limitReached } from '../platform/errors.ts';
import { israelDate, israelMonthStart } from '../platform/clock.ts';
import { bumpCounter, subject, takeDailyAllowance } from '../platform/usage.ts';
import type { Services } from '../platform/http/services.ts';
import { businessCeilings, type BusinessRecord } from '../businesses/index.ts';

/** Expense rows opened per business per Israel calendar day (drafts, uploads, scans, storno rows, redrafts). */
export const EXPENSE_ROWS_PER_DAY = 300;
/** OCR scans per API key per Israel calendar day. */
export const SCANS_PER_KEY_PER_DAY = 200;

const DAILY_METRIC = 'expense_rows_opened';
// The monthly ceiling uses the same exact counter table, keyed by the first day of the month.
const MONTHLY_METRIC = 'expense_rows_month';

/** 403 `approval_required` unless the business is approved (record, upload, scan, correction). */
export function requireApproved(b: BusinessRecord, what: string): void {
  if (b.approvalStatus !== 'approved') {
    throw new AppError('approval_required', `${what} needs an approved business; this one is ${b.approvalStatus}`);
  }
}

/**
 * The monthly ceiling in force (null: unlimited). Read from the control plane BEFORE the writing
 * transaction opens: on the embedded engine a query on another handle inside it would wait forever.
 */
export async function expenseCeiling(s: Services, b: BusinessRecord): Promise<number | null> {
  return (await businessCeilings(s, b)).maxExpensesPerMonth;
}

/**
 * Takes `n` expense rows from the business's daily backstop and monthly ceiling, exactly, in the
 * writing transaction (a rollback gives them back), and counts them in the account's usage.
 */
export async function openExpenseRows(
  tx: Tx,
  b: BusinessRecord,
  { maxExpensesPerMonth, at, n = 1 }: { maxExpensesPerMonth: number | null; at: Date; n?: number },
): Promise<void> {
  for (let i = 0; i < n; i++) {
    await takeDailyAllowance(tx, {
      day: israelDate(at),
      subject: subject.business(b.id),
      metric: DAILY_METRIC,
      limit: EXPENSE_ROWS_PER_DAY,
      what: 'expense rows opened per business per day',
    });
    if (maxExpensesPerMonth === null) await bumpCounter(tx, { day: israelMonthStart(at), subject: subject.business(b.id), metric: MONTHLY_METRIC });
    else {
      await takeDailyAllowance(tx, {
        day: israelMonthStart(at),
        subject: subject.business(b.id),
        metric: MONTHLY_METRIC,
        limit: maxExpensesPerMonth,
        what: `the monthly ceiling of ${maxExpensesPerMonth} expense rows (maxExpensesPerMonth)`,
      }).catch((err) => {
        // Same reason, a clearer message: it resets with the calendar month, not at midnight.
        if (err instanceof AppError && err.reason === 'limit_reached') {
          throw limitReached(`the business reached its monthly ceiling of ${maxExpensesPerMonth} expense rows; it resets on the 1st`);
        }
        throw err;
      });
    }
  }
  await bumpCounter(tx, { day: israelDate(at), subject: subject.account(b.accountId), metric: 'expense_rows' }, n);
}

/**
 * A read-only look at the same limits, before a billed OCR call: refuses early when the row could
 * not be opened anyway. The authoritative take happens in openExpenseRows.
 */
export async function checkExpenseRowsAvailable(ex: Executor, b: BusinessRecord, maxExpensesPerMonth: number | null, at: Date): Promise<void> {
  const used = async (day: string, metric: string) =>
    Number(
      (
        await queryOne<{ count: number }>(
          ex,
          sql`SELECT count FROM usage_daily WHERE subject = ${subject.business(b.id)} AND metric = ${metric} AND day = ${day}`,
        )
      )?.count ?? 0,
    );
  if ((await used(israelDate(at), DAILY_METRIC)) >= EXPENSE_ROWS_PER_DAY) {
    throw limitReached(`expense rows opened per business per day: the daily limit of ${EXPENSE_ROWS_PER_DAY} is reached; it resets at midnight Israel time`);
  }
  if (maxExpensesPerMonth !== null && (await used(israelMonthStart(at), MONTHLY_METRIC)) >= maxExpensesPerMonth) {
    throw limitReached(`the business reached its monthly ceiling of ${maxExpensesPerMonth} expense rows; it resets on the 1st`);
  }
}

/** Takes one scan from the key's daily OCR backstop (429 `quota_exceeded`) and counts it for the account. */
export async function takeScan(tx: Tx, at: Date, keyId: string, accountId: string): Promise<void> {
  await takeDailyAllowance(tx, {
    day: israelDate(at),
    subject: subject.key(keyId),
    metric: 'ocr_scans',
    limit: SCANS_PER_KEY_PER_DAY,
    reason: 'quota_exceeded',
    what: 'OCR scans per key per day',
  });
  await bumpCounter(tx, { day: israelDate(at), subject: subject.account(accountId), metric: 'ocr_scans' });
}

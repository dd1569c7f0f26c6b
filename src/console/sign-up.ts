import { sql } from 'drizzle-orm';
import { createAccount, type Account } from '../accounts/index.ts';
import { appendAudit } from '../platform/audit.ts';
import { israelDate } from '../platform/clock.ts';
import type { Database } from '../platform/db/engine.ts';
import { queryOne } from '../platform/db/sql.ts';
import { AppError } from '../platform/errors.ts';
import { errorSummary } from '../platform/logger.ts';
import { takeDailyAllowance } from '../platform/usage.ts';
import { SIGN_UPS_PER_ADDRESS_PER_DAY } from './limits.ts';
import type { SignUpValues } from './forms.ts';
import { hashPassword } from './sign-in.ts';

/** `taken`: the email has an account; `rate`: this address's sign-ups of the day are used up. */
export type SignUpResult = { ok: true; account: Account } | { ok: false; why: 'taken' | 'rate' };

/** A console sign-up: the account (pending approval) and its audit row, within the address's daily allowance. */
export async function signUp(control: Database, now: Date, ip: string, v: SignUpValues): Promise<SignUpResult> {
  const existing = await queryOne(control.db, sql`SELECT 1 FROM accounts WHERE lower(email) = ${v.email}`);
  if (existing) return { ok: false, why: 'taken' };
  // Cheap refusal before the memory-hard hash, so a sign-up flood from one address costs little;
  // the exact allowance is taken below, in the account's transaction.
  const used = await queryOne<{ count: number }>(
    control.db,
    sql`SELECT count FROM usage_daily WHERE subject = ${`ip:${ip}`} AND metric = 'console_sign_ups' AND day = ${israelDate(now)}`,
  );
  if (used && Number(used.count) >= SIGN_UPS_PER_ADDRESS_PER_DAY) return { ok: false, why: 'rate' };
  const passwordHash = await hashPassword(v.password);
  try {
    const account = await control.db.transaction(async (tx) => {
      await takeDailyAllowance(tx, {
        day: israelDate(now),
        subject: `ip:${ip}`,
        metric: 'console_sign_ups',
        limit: SIGN_UPS_PER_ADDRESS_PER_DAY,
        what: 'console sign-ups from this address',
      });
      const a = await createAccount(tx, now, { name: v.name, email: v.email, phone: v.phone, passwordHash, approvalStatus: 'pending' });
      await appendAudit(
        tx,
        { at: now, actor: { accountId: a.id, keyId: null } },
        {
          action: 'account.signed_up',
          entityType: 'account',
          entityId: a.id,
          after: { name: a.name, email: a.email, phone: a.phone, approvalStatus: a.approvalStatus },
        },
      );
      return a;
    });
    return { ok: true, account };
  } catch (err) {
    // Two sign-ups racing for one email: the UNIQUE constraint decides.
    if (String(errorSummary(err).code) === '23505') return { ok: false, why: 'taken' };
    if (err instanceof AppError && err.status === 429) return { ok: false, why: 'rate' };
    throw err;
  }
}

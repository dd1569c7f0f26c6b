/**
 * What the API does to the books by hand: accounts added, renamed or closed; manual entries
 * (adjustments, opening balances) and their reversal. Every change is audited. Entries generated from
 * documents and expenses are written by post.ts in their own transactions.
 */
import { sql } from 'drizzle-orm';
import type { Database } from '../platform/db/engine.ts';
import { pgErrorCode, queryOne } from '../platform/db/sql.ts';
import { insertInto } from '../platform/db/insert-values.ts';
import { ledgerAccounts } from './tables.ts';
import { appendAudit, type Actor } from '../platform/audit.ts';
import { AppError, conflict, notFound, validation } from '../platform/errors.ts';
import type { BusinessRecord } from '../businesses/index.ts';
import { TRIAL_BALANCE_GROUPS } from './chart.ts';
import { CREDIT, DEBIT, reversed, type JournalLine } from './journal.ts';
import type { ManualEntryInput, NewAccountInput } from './schemas.ts';
import { chartOf, ensureChart, getAccount, listEntries, postEntry, toAccountView, type AccountView, type EntryView } from './store.ts';

export async function createAccount(
  database: Database,
  { at, actor, business: b, input }: { at: Date; actor: Actor; business: BusinessRecord; input: NewAccountInput },
): Promise<AccountView> {
  if (chartOf(b.dealerType).has(input.code)) throw conflict(`account ${input.code} is in the default chart already`);
  const tbName = input.trialBalanceName ?? TRIAL_BALANCE_GROUPS[input.trialBalanceCode as keyof typeof TRIAL_BALANCE_GROUPS];
  if (!tbName)
    throw validation('body.trialBalanceName', `required for a trial-balance code outside the default groups (${Object.keys(TRIAL_BALANCE_GROUPS).join(', ')})`);
  return database.db.transaction(async (tx) => {
    await ensureChart(tx, b.id, b.dealerType, at);
    const row = await queryOne<Record<string, unknown>>(
      tx,
      sql`${insertInto(ledgerAccounts, {
        businessId: b.id,
        code: input.code,
        name: input.name,
        kind: input.kind,
        trialBalanceCode: input.trialBalanceCode,
        trialBalanceName: tbName,
        createdAt: at,
        updatedAt: at,
      })}
          ON CONFLICT (business_id, code) DO NOTHING RETURNING *`,
    );
    if (!row) throw conflict(`account ${input.code} exists already`);
    const account = toAccountView(row);
    await appendAudit(
      tx,
      { at, actor },
      { businessId: b.id, action: 'ledger.account.create', entityType: 'ledger_account', entityId: input.code, after: account },
    );
    return account;
  });
}

/** Renames or closes (or reopens) an account. A closed account takes no new lines; it is never deleted. */
export async function updateAccount(
  database: Database,
  { at, actor, business: b, code, patch }: { at: Date; actor: Actor; business: BusinessRecord; code: string; patch: { name?: string; closed?: boolean } },
): Promise<AccountView> {
  return database.db.transaction(async (tx) => {
    await ensureChart(tx, b.id, b.dealerType, at);
    const before = await getAccount(tx, b.id, code);
    if (!before) throw notFound('account');
    const closedAt = patch.closed === undefined ? sql`closed_at` : patch.closed ? sql`coalesce(closed_at, ${at.toISOString()}::timestamptz)` : sql`NULL`;
    const row = await queryOne<Record<string, unknown>>(
      tx,
      sql`UPDATE ledger_accounts SET name = ${patch.name ?? before.name}, closed_at = ${closedAt}, updated_at = ${at.toISOString()}
          WHERE business_id = ${b.id} AND code = ${code} RETURNING *`,
    );
    const after = toAccountView(row!);
    await appendAudit(tx, { at, actor }, { businessId: b.id, action: 'ledger.account.update', entityType: 'ledger_account', entityId: code, before, after });
    return after;
  });
}

/** Each line is a debit or a credit (one of them, > 0). */
function linesOf(input: ManualEntryInput): JournalLine[] {
  return input.lines.map((l, i) => {
    const debit = l.debit ?? 0;
    const credit = l.credit ?? 0;
    if (debit > 0 === credit > 0) throw validation(`body.lines[${i}]`, 'give either a debit or a credit, greater than zero');
    return { account: l.account, side: debit > 0 ? DEBIT : CREDIT, amount: debit || credit };
  });
}

async function entryById(database: Database, businessId: string, id: string): Promise<EntryView> {
  const row = await queryOne<{ entry_no: string }>(database.db, sql`SELECT entry_no FROM journal_entries WHERE id = ${id} AND business_id = ${businessId}`);
  if (!row) throw notFound('journal entry');
  return (await listEntries(database.db, businessId, { afterEntryNo: Number(row.entry_no) - 1, take: 1 }))[0];
}

export async function getEntry(database: Database, businessId: string, id: string): Promise<EntryView> {
  return entryById(database, businessId, id);
}

/** Unknown or closed accounts answer 422 naming the account (the database would refuse them too). */
function accountProblem(err: unknown, lines: JournalLine[]): AppError | null {
  const code = pgErrorCode(err);
  // drizzle wraps the driver's error: PostgreSQL's message is on the cause.
  let message = '';
  for (let e = err as { message?: string; cause?: unknown } | undefined, i = 0; e && i < 4; e = e.cause as typeof e, i++) message += ` ${e.message ?? ''}`;
  if (code === '23503') {
    // The lines' guard names the first missing account (migration 0071).
    const missing = /account (\S+) does not exist/.exec(message)?.[1];
    const named = missing ? `account ${missing} does not exist` : `an account of the entry does not exist: ${lines.map((l) => l.account).join(', ')}`;
    return new AppError('unknown_account', `${named} — add it first (POST …/ledger/accounts)`);
  }
  const closed = /account (\S+) is closed/.exec(message);
  if (closed) return new AppError('account_closed', `account ${closed[1]} is closed`);
  const period = /(\d{4}-\d{2}-\d{2}) is in a closed period/.exec(message);
  if (period) return new AppError('period_closed', `${period[1]} is in a closed period of the books: date the entry after it`);
  return null;
}

export async function createManualEntry(
  database: Database,
  { at, actor, business: b, input }: { at: Date; actor: Actor; business: BusinessRecord; input: ManualEntryInput },
): Promise<EntryView> {
  const lines = linesOf(input);
  let id: string;
  try {
    id = await database.db.transaction(async (tx) => {
      await ensureChart(tx, b.id, b.dealerType, at);
      const posted = await postEntry(tx, at, {
        businessId: b.id,
        dealerType: b.dealerType,
        date: input.date,
        source: 'manual',
        description: input.description,
        keyId: actor.keyId,
        lines,
      });
      if (!posted) throw new AppError('unbalanced', 'the entry has no lines');
      await appendAudit(
        tx,
        { at, actor },
        {
          businessId: b.id,
          action: 'ledger.entry.create',
          entityType: 'journal_entry',
          entityId: posted.id,
          after: { ...input, entryNo: posted.entryNo },
        },
      );
      return posted.id;
    });
  } catch (err) {
    throw accountProblem(err, lines) ?? err;
  }
  return entryById(database, b.id, id);
}

/** A manual entry is corrected by its reversal: the same lines on the other side, dated `date`. Once only. */
export async function reverseEntry(
  database: Database,
  { at, actor, business: b, id, date }: { at: Date; actor: Actor; business: BusinessRecord; id: string; date: string },
): Promise<EntryView> {
  const original = await entryById(database, b.id, id);
  if (original.source !== 'manual') {
    throw conflict(
      original.source === 'reversal'
        ? 'a reversal cannot itself be reversed'
        : `an entry of a ${original.source} is corrected through it (a credit note, an expense storno), not by hand`,
    );
  }
  const lines: JournalLine[] = original.lines.map((l) => ({ account: l.account, side: l.debit > 0 ? DEBIT : CREDIT, amount: l.debit || l.credit }));
  try {
    const newId = await database.db.transaction(async (tx) => {
      const posted = await postEntry(tx, at, {
        businessId: b.id,
        dealerType: b.dealerType,
        date,
        source: 'reversal',
        reversesEntryId: original.id,
        description: `ביטול פקודה ${original.entryNo}`,
        keyId: actor.keyId,
        lines: reversed(lines),
      });
      await appendAudit(
        tx,
        { at, actor },
        {
          businessId: b.id,
          action: 'ledger.entry.reverse',
          entityType: 'journal_entry',
          entityId: posted!.id,
          after: { reverses: original.id, date },
        },
      );
      return posted!.id;
    });
    return entryById(database, b.id, newId);
  } catch (err) {
    if (pgErrorCode(err) === '23505') throw conflict(`entry ${original.entryNo} is reversed already`);
    throw accountProblem(err, lines) ?? err;
  }
}

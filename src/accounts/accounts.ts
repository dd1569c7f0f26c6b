import { sql } from 'drizzle-orm';
import type { Executor } from '../platform/db/engine.ts';
import { iso, queryOne, query } from '../platform/db/sql.ts';
import { insertInto } from '../platform/db/insert-values.ts';
import { accounts } from './tables.ts';
import { notFound, validation } from '../platform/errors.ts';
import { newId } from '../platform/ids.ts';
import type { ApprovalStatus } from './lists.ts';

export interface Account {
  id: string;
  name: string;
  email: string | null;
  phone: string | null;
  approvalStatus: ApprovalStatus;
  maxActiveKeys: number;
  ocrGranted: boolean;
  maxDocsPerMonth: number | null;
  maxExpensesPerMonth: number | null;
  createdAt: string;
}

export function toAccount(r: Record<string, unknown>): Account {
  return {
    id: String(r.id),
    name: String(r.name),
    email: (r.email as string | null) ?? null,
    phone: (r.phone as string | null) ?? null,
    approvalStatus: r.approval_status as ApprovalStatus,
    maxActiveKeys: Number(r.max_active_keys),
    ocrGranted: Boolean(r.ocr_granted),
    maxDocsPerMonth: r.max_docs_per_month === null ? null : Number(r.max_docs_per_month),
    maxExpensesPerMonth: r.max_expenses_per_month === null ? null : Number(r.max_expenses_per_month),
    createdAt: iso(r.created_at),
  };
}

export async function createAccount(
  ex: Executor,
  now: Date,
  input: { name: string; approvalStatus: ApprovalStatus; email?: string | null; phone?: string | null; passwordHash?: string | null },
): Promise<Account> {
  const name = input.name.trim();
  if (!name) throw validation('name', 'is required');
  if (name.length > 200) throw validation('name', 'at most 200 characters');
  const row = await queryOne<Record<string, unknown>>(
    ex,
    sql`${insertInto(accounts, {
      id: newId('acct', now.getTime()),
      name,
      email: input.email ?? null,
      phone: input.phone ?? null,
      passwordHash: input.passwordHash ?? null,
      approvalStatus: input.approvalStatus,
      createdAt: now,
    })} RETURNING *`,
  );
  return toAccount(row!);
}

export async function getAccount(ex: Executor, id: string): Promise<Account> {
  const row = await queryOne<Record<string, unknown>>(ex, sql`SELECT * FROM accounts WHERE id = ${id}`);
  if (!row) throw notFound('account');
  return toAccount(row);
}

export async function listAccounts(ex: Executor): Promise<Account[]> {
  return (await query<Record<string, unknown>>(ex, sql`SELECT * FROM accounts ORDER BY created_at, id`)).map(toAccount);
}

export async function setAccountStatus(ex: Executor, id: string, status: ApprovalStatus): Promise<Account> {
  const row = await queryOne<Record<string, unknown>>(ex, sql`UPDATE accounts SET approval_status = ${status} WHERE id = ${id} RETURNING *`);
  if (!row) throw notFound('account');
  return toAccount(row);
}

export interface AccountLimits {
  maxActiveKeys?: number;
  ocrGranted?: boolean;
  /** null clears the override (the plan decides again). */
  maxDocsPerMonth?: number | null;
  maxExpensesPerMonth?: number | null;
}

export async function setAccountLimits(ex: Executor, id: string, l: AccountLimits): Promise<Account> {
  const current = await getAccount(ex, id);
  const row = await queryOne<Record<string, unknown>>(
    ex,
    sql`UPDATE accounts SET
          max_active_keys = ${l.maxActiveKeys ?? current.maxActiveKeys},
          ocr_granted = ${l.ocrGranted ?? current.ocrGranted},
          max_docs_per_month = ${l.maxDocsPerMonth === undefined ? current.maxDocsPerMonth : l.maxDocsPerMonth},
          max_expenses_per_month = ${l.maxExpensesPerMonth === undefined ? current.maxExpensesPerMonth : l.maxExpensesPerMonth}
        WHERE id = ${id} RETURNING *`,
  );
  return toAccount(row!);
}

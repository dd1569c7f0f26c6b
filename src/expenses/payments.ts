/**
 * Payments to suppliers (issue 29): what the business paid, against a recorded expense (its supplier's
 * account, as the expense booked it) or a saved supplier on account, by payment method. Each writes, in
 * one transaction, its row, its journal entry (Dr the supplier / Cr cash or the bank: ledger
 * postSupplierPaymentEntry) and its audit row; the database keeps the row and its entry together and
 * unchanged (migration 0039).
 */
import { sql } from 'drizzle-orm';
import type { Database, Tx } from '../platform/db/engine.ts';
import { iso, query, queryOne } from '../platform/db/sql.ts';
import { insertInto } from '../platform/db/insert-values.ts';
import { appendAudit, type Actor } from '../platform/audit.ts';
import { AppError, conflict, notFound, validation } from '../platform/errors.ts';
import { israelDate } from '../platform/clock.ts';
import { newId } from '../platform/ids.ts';
import type { Services } from '../platform/http/services.ts';
import type { BusinessRecord } from '../businesses/index.ts';
import { PAYMENT_METHOD_NAMES, type PaymentMethodCode } from '../documents/index.ts';
import { getParty } from '../parties/index.ts';
import { expenseSupplierAccount, inClosedPeriod, postSupplierPaymentEntry } from '../ledger/index.ts';
import { expenseRow, toExpense } from './rows.ts';
import { requireApproved } from './limits.ts';
import { supplierPayments, type SupplierPaymentRow } from './tables.ts';

/** Payment methods by name (decisions.md "Money and tax"); vouchers are taken, not given. */
export const SUPPLIER_PAYMENT_METHODS: Record<string, PaymentMethodCode> = Object.fromEntries(
  Object.entries(PAYMENT_METHOD_NAMES).filter(([, code]) => code !== 5),
);

export interface SupplierPaymentInput {
  date?: string;
  method: string;
  amount: number;
  expenseId?: string;
  partyId?: string;
  reference?: string | null;
  note?: string | null;
}

export interface SupplierPaymentView {
  id: string;
  date: string;
  method: number;
  amount: number;
  expenseId: string | null;
  partyId: string | null;
  supplierAccount: string;
  paidFromAccount: string;
  reference: string | null;
  note: string | null;
  journalEntryId: string;
  createdAt: string;
}

export const toPayment = (r: SupplierPaymentRow | Record<string, unknown>): SupplierPaymentView => {
  const row = r as Record<string, unknown>;
  const pick = (camel: string, snake: string) => row[camel] ?? row[snake];
  return {
    id: String(row.id),
    date: String(pick('paymentDate', 'payment_date')).slice(0, 10),
    method: Number(row.method),
    amount: Number(row.amount),
    expenseId: (pick('expenseId', 'expense_id') as string | null) ?? null,
    partyId: (pick('partyId', 'party_id') as string | null) ?? null,
    supplierAccount: String(pick('supplierAccount', 'supplier_account')),
    paidFromAccount: String(pick('paidFromAccount', 'paid_from_account')),
    reference: (row.reference as string | null) ?? null,
    note: (row.note as string | null) ?? null,
    journalEntryId: String(pick('journalEntryId', 'journal_entry_id')),
    createdAt: iso(pick('createdAt', 'created_at')),
  };
};

/** What the payment pays: the supplier account and the words of its entry. Locks the expense, so payments of one expense queue. */
async function targetOf(tx: Tx, b: BusinessRecord, input: SupplierPaymentInput) {
  if (input.partyId) {
    const party = await getParty(tx, b.id, input.partyId).catch(() => {
      throw validation('body.partyId', 'no saved party with this id in the business');
    });
    if (party.kind === 'customer') throw validation('body.partyId', `${party.name} is a customer: pay a supplier (kind supplier or both)`);
    return {
      supplier: { party: { partyId: party.id, key: party.key, name: party.name, taxId: party.taxId } },
      name: party.name,
      expenseId: null,
      partyId: party.id,
    };
  }
  const e = toExpense(await expenseRow(tx, b.id, input.expenseId!, true));
  if (e.status !== 'recorded') throw new AppError('not_draft', 'a draft expense is not in the books yet: record it first, then pay it');
  if (e.reversesExpenseId || e.reversedByExpenseId) throw conflict(`expense ${e.id} is a storno or was corrected by one: pay the expense that stands`);
  if ((e.amountIncVat ?? 0) <= 0) throw conflict(`expense ${e.id} is a credit from the supplier (${e.amountIncVat} agorot): nothing to pay`);
  const paid = await queryOne<{ paid: string }>(tx, sql`SELECT coalesce(sum(amount), 0)::bigint AS paid FROM supplier_payments WHERE expense_id = ${e.id}`);
  const left = e.amountIncVat! - Number(paid!.paid);
  if (input.amount > left) throw conflict(`expense ${e.id} has ${left} agorot left to pay of ${e.amountIncVat}; the payment is ${input.amount}`);
  const account = await expenseSupplierAccount(tx, b.id, e.id);
  if (!account) throw new AppError('internal', `expense ${e.id} has no supplier line in its journal entry`);
  return { supplier: { account }, name: e.supplierName ?? '', expenseId: e.id, partyId: e.partyId };
}

/** Checks the input that needs no database: one target, a method one pays with, a date not after today. */
function checkedInput(input: SupplierPaymentInput, today: string): { method: PaymentMethodCode; date: string } {
  if (!input.expenseId === !input.partyId)
    throw validation('body', 'give expenseId (pay a recorded expense) or partyId (pay a saved supplier on account), one of them');
  const method = SUPPLIER_PAYMENT_METHODS[input.method];
  if (method === undefined) throw validation('body.method', `one of ${Object.keys(SUPPLIER_PAYMENT_METHODS).join(', ')}`);
  const date = input.date ?? today;
  if (date > today) throw validation('body.date', `a payment is recorded when made: ${date} is after today (${today})`);
  return { method, date };
}

/** Records a payment to a supplier with its journal entry and audit row (422 `period_closed` for a date in a closed month). */
export async function paySupplier(
  s: Services,
  database: Database,
  { actor, business: b, input }: { actor: Actor; business: BusinessRecord; input: SupplierPaymentInput },
): Promise<SupplierPaymentView> {
  requireApproved(b, 'paying a supplier');
  const now = s.clock.now();
  const { method, date } = checkedInput(input, israelDate(now));
  return database.db.transaction(async (tx) => {
    if (await inClosedPeriod(tx, b.id, date)) {
      throw new AppError('period_closed', `${date} is in a closed period of the books: a payment is dated when it was made, in an open month`);
    }
    const target = await targetOf(tx, b, input);
    const reference = input.reference ?? null;
    const entry = await postSupplierPaymentEntry(tx, now, {
      businessId: b.id,
      dealerType: b.dealerType,
      date,
      method,
      amount: input.amount,
      supplier: target.supplier,
      description: `תשלום לספק — ${target.name}`,
      reference,
      keyId: actor.keyId,
    });
    const row = await queryOne<Record<string, unknown>>(
      tx,
      sql`${insertInto(supplierPayments, {
        id: newId('spay', now.getTime()),
        businessId: b.id,
        paymentDate: date,
        method,
        amount: input.amount,
        expenseId: target.expenseId,
        partyId: target.partyId,
        supplierAccount: entry.supplierAccount,
        paidFromAccount: entry.paidFromAccount,
        reference,
        note: input.note ?? null,
        journalEntryId: entry.id,
        createdByKeyId: actor.keyId,
        createdAt: now,
      })} RETURNING *`,
    );
    const payment = toPayment(row!);
    await appendAudit(
      tx,
      { at: now, actor },
      {
        businessId: b.id,
        action: 'supplier_payment.create',
        entityType: 'supplier_payment',
        entityId: payment.id,
        after: payment,
      },
    );
    return payment;
  });
}

export async function getSupplierPayment(database: Database, businessId: string, id: string): Promise<SupplierPaymentView> {
  const r = await queryOne<Record<string, unknown>>(database.db, sql`SELECT * FROM supplier_payments WHERE id = ${id} AND business_id = ${businessId}`);
  if (!r) throw notFound('supplier payment');
  return toPayment(r);
}

/** A business's payments to suppliers, newest first; of one expense or one party when asked. */
export async function listSupplierPayments(
  database: Database,
  businessId: string,
  q: { expenseId?: string; partyId?: string; take: number },
): Promise<SupplierPaymentView[]> {
  const rows = await query<Record<string, unknown>>(
    database.db,
    sql`SELECT * FROM supplier_payments WHERE business_id = ${businessId}
          ${q.expenseId ? sql`AND expense_id = ${q.expenseId}` : sql``} ${q.partyId ? sql`AND party_id = ${q.partyId}` : sql``}
        ORDER BY payment_date DESC, id DESC LIMIT ${q.take}`,
  );
  return rows.map(toPayment);
}

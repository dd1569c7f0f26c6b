/**
 * The journal entries of facts, written in the fact's own transaction: an issued document (and its
 * credit), a recorded expense (and its storno row). See journal.ts for the lines of each.
 */
import type { Executor } from '../platform/db/engine.ts';
import type { DealerType } from '../businesses/dealer-types.ts';
import type { DocumentSnapshot } from '../documents/snapshot-types.ts';
import { journalOfDocument, journalOfExpense, journalOfSupplierPayment, partyAccountOf, type BookParty, type ExpenseFacts } from './journal.ts';
import { OCCASIONAL_SUPPLIERS, paidFromAccount, SUPPLIERS } from './chart.ts';
import { query, queryOne } from '../platform/db/sql.ts';
import { sql } from 'drizzle-orm';
import type { PaymentMethodCode } from '../documents/snapshot-types.ts';
import { journalCall, postEntry, type JournalCall } from './store.ts';
import { DOC_TYPES } from '../documents/doc-types.ts';

/**
 * The entry a document writes (pure): its lines, the party sub-accounts it needs, and what it says.
 * `docNumber`: the number as written, NUMBER_HOLE while only the database knows it.
 */
export function documentEntryOf(snap: DocumentSnapshot, dealerType: DealerType, docNumber = String(snap.docNumber)) {
  const { lines, partyAccounts } = journalOfDocument(snap, dealerType);
  const rule = DOC_TYPES[snap.docType];
  // A negative document (the credit of a type reversed by its own negative, a 400) says so.
  const credit = rule.creditedBy?.as === 'negative' && snap.totals.totalIncVat < 0 ? ' (זיכוי)' : '';
  return {
    date: snap.documentDate,
    reference: docNumber,
    referenceDocType: snap.docType,
    description: `${rule.titles.journal}${credit} ${docNumber}${snap.party ? ` — ${snap.party.name}` : ''}`,
    lines,
    partyAccounts,
  };
}

/** The journal_post call of a document's entry, written by the issue with its other rows (documents/issue-writes.ts). */
export function documentJournalCall(
  at: Date,
  d: { businessId: string; dealerType: DealerType; documentId: string; snapshot: DocumentSnapshot; keyId: string | null; docNumber: string },
): JournalCall | null {
  const e = documentEntryOf(d.snapshot, d.dealerType, d.docNumber);
  return journalCall(at, { businessId: d.businessId, dealerType: d.dealerType, source: 'document', documentId: d.documentId, keyId: d.keyId, ...e });
}

export async function postExpenseEntry(
  tx: Executor,
  at: Date,
  e: ExpenseFacts & {
    businessId: string;
    dealerType: DealerType;
    expenseId: string;
    date: string;
    supplierName: string;
    supplierDocNumber: string | null;
    storno: boolean;
    keyId: string | null;
  },
): Promise<void> {
  const { lines, partyAccounts } = journalOfExpense(e);
  await postEntry(tx, at, {
    businessId: e.businessId,
    dealerType: e.dealerType,
    date: e.date,
    source: 'expense',
    expenseId: e.expenseId,
    reference: e.supplierDocNumber?.slice(0, 20) ?? null,
    referenceDocType: null,
    description: `${e.storno ? 'ביטול הוצאה' : 'הוצאה'} — ${e.supplierName}`.slice(0, 50),
    keyId: e.keyId,
    lines,
    partyAccounts,
  });
}

/** The supplier account a recorded expense credited (its own, by tax id, or the occasional suppliers'), or null. */
export async function expenseSupplierAccount(tx: Executor, businessId: string, expenseId: string): Promise<string | null> {
  const r = await queryOne<{ account_code: string }>(
    tx,
    sql`SELECT l.account_code FROM journal_entries e JOIN journal_lines l ON l.entry_id = e.id
         WHERE e.business_id = ${businessId} AND e.expense_id = ${expenseId} AND l.side = 2
           AND (l.account_code = ${OCCASIONAL_SUPPLIERS} OR l.account_code LIKE ${`${SUPPLIERS}-%`})`,
  );
  return r?.account_code ?? null;
}

/** Whether the month of `date` is a closed period of the business's books. */
export async function inClosedPeriod(ex: Executor, businessId: string, date: string): Promise<boolean> {
  const rows = await query<{ one: number }>(
    ex,
    sql`SELECT 1 AS one FROM ledger_periods WHERE business_id = ${businessId} AND period = date_trunc('month', ${date}::date)::date AND reopened_at IS NULL`,
  );
  return rows.length > 0;
}

/**
 * The entry of a payment to a supplier, in the caller's transaction: Dr the supplier's account (`account`,
 * or a saved supplier's by the party rule) / Cr cash or the bank by the method. Answers the entry and its accounts.
 */
export async function postSupplierPaymentEntry(
  tx: Executor,
  at: Date,
  p: {
    businessId: string;
    dealerType: DealerType;
    date: string;
    method: PaymentMethodCode;
    amount: number;
    supplier: { account: string } | { party: BookParty };
    description: string;
    reference: string | null;
    keyId: string | null;
  },
): Promise<{ id: string; entryNo: number; supplierAccount: string; paidFromAccount: string }> {
  const resolved = 'account' in p.supplier ? { code: p.supplier.account, account: null } : partyAccountOf(SUPPLIERS, p.supplier.party);
  const paidFrom = paidFromAccount(p.method);
  const posted = await postEntry(tx, at, {
    businessId: p.businessId,
    dealerType: p.dealerType,
    date: p.date,
    source: 'payment',
    reference: p.reference,
    referenceDocType: null,
    description: p.description.slice(0, 50),
    keyId: p.keyId,
    lines: journalOfSupplierPayment({ supplierAccount: resolved.code, paidFrom, amount: p.amount }),
    partyAccounts: resolved.account ? [resolved.account] : [],
  });
  return { ...posted!, supplierAccount: resolved.code, paidFromAccount: paidFrom };
}

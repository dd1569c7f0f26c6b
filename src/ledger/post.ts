/**
 * The journal entries of facts, written in the fact's own transaction: an issued document (and its
 * credit), a recorded expense (and its storno row). See journal.ts for the lines of each.
 */
import type { Executor } from '../platform/db/engine.ts';
import type { DealerType } from '../businesses/index.ts';
import type { DocumentSnapshot } from '../documents/index.ts';
import { journalOfDocument, journalOfExpense, type ExpenseFacts } from './journal.ts';
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

/**
 * The journal entries of facts, written in the fact's own transaction: an issued document (and its
 * credit), a recorded expense (and its storno row). See journal.ts for the lines of each.
 */
import type { Executor } from '../platform/db/engine.ts';
import type { DealerType } from '../businesses/index.ts';
import type { DocumentSnapshot } from '../documents/index.ts';
import { journalOfDocument, journalOfExpense, type ExpenseFacts } from './journal.ts';
import { postEntry } from './store.ts';
import { DOC_TYPES } from '../documents/doc-types.ts';

/** The entry a document writes (pure): its lines, the party sub-accounts it needs, and what it says. */
export function documentEntryOf(snap: DocumentSnapshot, dealerType: DealerType) {
  const { lines, partyAccounts } = journalOfDocument(snap, dealerType);
  const rule = DOC_TYPES[snap.docType];
  // A negative document (the credit of a type reversed by its own negative, a 400) says so.
  const credit = rule.creditedBy?.as === 'negative' && snap.totals.totalIncVat < 0 ? ' (זיכוי)' : '';
  return {
    date: snap.documentDate,
    reference: String(snap.docNumber),
    referenceDocType: snap.docType,
    description: `${rule.titles.journal}${credit} ${snap.docNumber}${snap.party ? ` — ${snap.party.name}` : ''}`.slice(0, 50),
    lines,
    partyAccounts,
  };
}

export async function postDocumentEntry(
  tx: Executor,
  at: Date,
  d: { businessId: string; dealerType: DealerType; documentId: string; snapshot: DocumentSnapshot; keyId: string | null },
): Promise<void> {
  const e = documentEntryOf(d.snapshot, d.dealerType);
  await postEntry(tx, at, { businessId: d.businessId, dealerType: d.dealerType, source: 'document', documentId: d.documentId, keyId: d.keyId, ...e });
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

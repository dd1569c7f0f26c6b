/**
 * What every issued document writes beside its row, as one `document_issued_writes` call (migration
 * 0026): its journal entry, its audit row, the `document.issued` event, the day's usage count and its
 * jobs (the PDF render, and the allocation request when one is pending). Issue and credit note share it.
 */
import { sql, type SQL } from 'drizzle-orm';
import type { Executor } from '../platform/db/engine.ts';
import { withWrites } from '../platform/db/sql.ts';
import { auditRowCall, type Actor } from '../platform/audit.ts';
import type { AuditAction } from '../platform/catalog/audit-actions.ts';
import type { EventData } from '../platform/catalog/events.ts';
import type { JobKind } from '../platform/catalog/jobs.ts';
import { israelDate } from '../platform/clock.ts';
import { newId } from '../platform/ids.ts';
import { subject } from '../platform/usage.ts';
import { documentJournalCall, unknownAccounts } from '../ledger/index.ts';
import type { Mode } from '../platform/db/mode.ts';
import type { BusinessRecord } from '../businesses/index.ts';
import type { DocumentRow, DocumentView } from './snapshot.ts';

export interface IssuedWrites {
  business: Pick<BusinessRecord, 'id' | 'accountId' | 'dealerType'>;
  actor: Actor;
  /** The issued row; its number may be unknown yet (then `docNumber` is NUMBER_HOLE). */
  row: DocumentRow;
  /** The audit row's `after`: the row's view. */
  view: DocumentView;
  /** The number as the texts write it: String(number), or NUMBER_HOLE while only the database knows it. */
  docNumber: string;
  now: Date;
  action: Extract<AuditAction, 'document.issue' | 'document.credit_note'>;
  /** The jobs it enqueues (each at most once per document). */
  jobs: { kind: JobKind }[];
  /** Given, the journal call leaves out the accounts this process has seen committed in that database. */
  mode?: Mode;
}

/** The argument of document_issued_writes. */
export function issuedWritesCall(w: IssuedWrites) {
  const { business, row, view, now } = w;
  const at = now.toISOString();
  const data: EventData<'document.issued'> = {
    documentId: row.id,
    docType: row.docType,
    docNumber: row.docNumber, // set by the database from the number taken
    totalIncVat: row.totalIncVat,
    // The unit of totalIncVat (minor units of this currency), and the shekel total (issue 21).
    currency: row.currency,
    totalIncVatIls: view.ils?.totalIncVat ?? row.totalIncVat,
    partyName: view.party?.name ?? null,
    externalRef: row.externalRef,
  };
  const journal = documentJournalCall(now, {
    businessId: business.id,
    dealerType: business.dealerType,
    documentId: row.id,
    snapshot: row.snapshot!,
    keyId: w.actor.keyId,
    docNumber: w.docNumber,
  });
  return {
    journal: journal && w.mode ? { ...journal, accounts: unknownAccounts(w.mode, business.id, journal.accounts) } : journal,
    audit: auditRowCall(now, w.actor, { businessId: business.id, action: w.action, entityType: 'document', entityId: row.id, after: view }),
    event: { id: newId('evt', now.getTime()), event: 'document.issued', accountId: business.accountId, businessId: business.id, data, at },
    // Per business, not per account: an account-wide row would make every business of the account
    // wait for each other's commits; GET /usage sums the account's businesses.
    usage: { day: israelDate(now), subject: subject.business(business.id), metric: 'documents_issued' },
    jobs: w.jobs.map(({ kind }) => ({ id: newId('job', now.getTime()), kind, business_id: business.id, ref_id: row.id, at })),
  };
}

/** Writes them in the caller's transaction for a row whose number is known (a credit note), with `alongside` writes in the same statement. */
export async function writeIssued(tx: Executor, w: IssuedWrites, alongside: SQL[] = []): Promise<void> {
  await tx.execute(withWrites(alongside, sql`SELECT document_issued_writes(${JSON.stringify(issuedWritesCall(w))}::jsonb, ${w.row.docNumber}::bigint)`));
}

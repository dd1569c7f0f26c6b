/**
 * A 405's report as pure data: what is sent about it (the input of the donation system) and how its state
 * reads (the API's view). No row yet means pending: the job writes the first one.
 *
 *   pending  → reported     the system gave its report number (stored once)
 *   pending  → refused      the system refused it; final (the receipt is corrected by a credit)
 *   pending  → failed       transport failures until the retries ran out; or a cancellation whose donation was never reported
 *   pending stays pending   unconfigured (live without the client): never a made-up number
 */
import type { DocumentRow } from '../documents/index.ts';
import type { StoredReport } from './store.ts';
import type { DonationReportInput, DonationReportKind } from './provider.ts';

/** A negative 405 (the credit of one) reports the cancellation of the donation it reverses. */
export const reportKindOf = (d: Pick<DocumentRow, 'linkedDocumentId'>): DonationReportKind => (d.linkedDocumentId ? 'cancellation' : 'donation');

/** What the system is told about an issued 405, from its frozen snapshot; null when the snapshot lacks what a report needs. */
export function reportInputOf(d: DocumentRow, cancelsReportNumber: string | null): DonationReportInput | null {
  const snap = d.snapshot;
  if (!snap?.section46 || !snap.party?.taxId || d.docNumber === null) return null;
  const total = (snap.ils ?? snap.totals).totalIncVat;
  return {
    kind: reportKindOf(d),
    reference: d.id,
    institutionTaxId: snap.dealer.taxId,
    approvalNumber: snap.section46.number,
    receiptType: snap.docType,
    receiptNumber: d.docNumber,
    receiptDate: snap.documentDate,
    donorId: snap.party.taxId,
    donorName: snap.party.name,
    amount: Math.abs(total),
    cancelsReportNumber,
  };
}

export interface DonationReportView {
  documentId: string;
  kind: DonationReportKind;
  status: StoredReport['status'];
  reportNumber: string | null;
  cancelsReportNumber: string | null;
  /** The last problem: `unconfigured: …` while live has no client, a transport error while retried, the refusal. */
  error: string | null;
  requestedAt: string;
  decidedAt: string | null;
}

/** The state of an issued 405's report: its row, or pending since issue when the job has not written one. */
export function reportView(d: Pick<DocumentRow, 'id' | 'linkedDocumentId' | 'issuedAt'>, row: StoredReport | undefined): DonationReportView {
  if (!row) {
    return {
      documentId: d.id,
      kind: reportKindOf(d),
      status: 'pending',
      reportNumber: null,
      cancelsReportNumber: null,
      error: null,
      requestedAt: d.issuedAt!,
      decidedAt: null,
    };
  }
  return {
    documentId: row.documentId,
    kind: row.kind,
    status: row.status,
    reportNumber: row.reportNumber,
    cancelsReportNumber: row.cancelsReportNumber,
    error: row.error,
    requestedAt: row.requestedAt,
    decidedAt: row.decidedAt,
  };
}

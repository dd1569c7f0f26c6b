/** The documents domain's public surface: what other folders may import (ARCHITECTURE.md, "Boundaries"). */
export { allocationEligibility, allocationThreshold, type Eligibility } from './allocation-eligibility.ts';
export { writeDraftAllocation, writeIssuedAllocation } from './allocation-writes.ts';
export { verifyBooks } from './audit-check.ts';
export { docTypeIn } from './doc-type-sql.ts';
export { claimOriginPrint, countCopyPrint } from './print-writes.ts';
export {
  convertedFromOf,
  dealerOf,
  type DocumentRow,
  documentView,
  type DocumentView,
  findDocumentRow,
  getDocumentById,
  getDocumentWithAccount,
  getDocumentsWithAccount,
  getDocumentRow,
  toDocumentRow,
  documentColumns,
} from './snapshot.ts';
export {
  type AllocationState,
  type DocumentLine,
  type DocumentPayment,
  type DocumentSnapshot,
  type DocumentWarning,
  PAYMENT_METHOD_NAMES,
  type PaymentMethodCode,
  type PdfFiles,
} from './snapshot-types.ts';
export { DOCUMENT_LANGUAGES, type DocumentLanguage, type ExchangeRateSource, type PriceMode } from './lists.ts';
export { computeTotals, lineAmount, resolveVatRateBp, totalsOfDraft } from './totals.ts';
export { listDocuments } from './list.ts';
export { ListQuery as DocumentListQuery } from './schemas.ts';

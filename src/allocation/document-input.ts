/**
 * From a document to what the tax authority is asked (pure). An issued document answers from its
 * frozen snapshot; a draft from its final figures, computed by the documents area's totals module
 * exactly as issue will compute them.
 */
import { roundHalfAwayFromZero } from '../platform/money.ts';
import type { DealerType } from '../businesses/dealer-types.ts';
import { type DocumentRow, totalsOfDraft, allocationEligibility, type Eligibility } from '../documents/index.ts';
import { DOC_TYPES, docTypesWhere, listOfCodes } from '../documents/doc-types.ts';
import { shekelFigures } from '../documents/currency.ts';
import type { ApprovalInput } from './provider.ts';
import type { PriceMode } from '../documents/index.ts';

export interface IssuerOfDraft {
  id: string;
  taxId: string;
  dealerType: DealerType;
  defaultVatRateBp: number | null;
}

/** The document discount expressed before VAT (a gross-mode discount includes VAT). */
function discountExVat(discount: number, priceMode: PriceMode, vatRateBp: number): number {
  return priceMode === 'gross' ? roundHalfAwayFromZero((discount * 10000) / (10000 + vatRateBp)) : discount;
}

/** The approval request of an issued document, or null when it has no snapshot (not issued). */
export function approvalInputOfIssued(d: DocumentRow): ApprovalInput | null {
  const snap = d.snapshot;
  if (!snap || !d.issuedAt) return null;
  // The authority is told shekels: a foreign-currency document's frozen shekel totals.
  const t = snap.ils ?? snap.totals;
  const discount = discountExVat(t.discountAmount, snap.priceMode, snap.vatRateBp);
  return {
    businessId: d.businessId,
    invoiceId: d.id,
    invoiceType: snap.docType,
    vatNumber: snap.dealer.taxId,
    invoiceReferenceNumber: String(snap.docNumber),
    customerVatNumber: snap.party?.taxId ?? '',
    customerName: snap.party?.name ?? null,
    invoiceDate: snap.documentDate,
    invoiceIssuanceDate: d.issuedAt.slice(0, 10),
    amountBeforeDiscount: t.totalExVat + discount,
    discount,
    paymentAmount: t.totalExVat,
    vatAmount: t.vatAmount,
    paymentAmountIncludingVat: t.totalIncVat,
    note: snap.note,
  };
}

export interface DraftApproval {
  input: ApprovalInput;
  eligibility: Eligibility;
  vatRateBp: number;
}

/** The approval request of a draft with the figures issue will freeze. `today` is the issuance date. */
export function approvalInputOfDraft(d: DocumentRow, issuer: IssuerOfDraft, today: string): DraftApproval {
  const own = totalsOfDraft(d, issuer);
  const { vatRateBp } = own;
  // In shekels: a foreign-currency draft at its own rate (without one, draftRequestProblem refuses it).
  const t = d.currency === 'ILS' || d.exchangeRate === null ? own : shekelFigures({ ...d, totals: own }, d.currency, d.exchangeRate).ils;
  const discount = discountExVat(t.discountAmount, d.priceMode, vatRateBp);
  const input: ApprovalInput = {
    businessId: d.businessId,
    invoiceId: d.id,
    invoiceType: d.docType,
    vatNumber: issuer.taxId,
    invoiceReferenceNumber: null,
    customerVatNumber: d.party?.taxId ?? '',
    customerName: d.party?.name ?? null,
    invoiceDate: d.documentDate,
    invoiceIssuanceDate: today,
    amountBeforeDiscount: t.totalExVat + discount,
    discount,
    paymentAmount: t.totalExVat,
    vatAmount: t.vatAmount,
    paymentAmountIncludingVat: t.totalIncVat,
    note: d.note,
  };
  const eligibility = allocationEligibility({
    docType: d.docType,
    documentDate: d.documentDate,
    totalExVat: t.totalExVat,
    vatAmount: t.vatAmount,
    partyTaxId: d.party?.taxId,
  });
  return { input, eligibility, vatRateBp };
}

/**
 * Why a draft cannot be sent to the authority at all (even voluntarily), or null.
 * The authority needs a tax invoice (305/320) with VAT and a buyer VAT number.
 */
export function draftRequestProblem(d: DocumentRow, a: DraftApproval): string | null {
  if (!DOC_TYPES[d.docType].allocation)
    return `document type ${d.docType} never takes an allocation number (only ${listOfCodes(
      docTypesWhere((r) => r.allocation),
      'and',
    )})`;
  if (d.currency !== 'ILS' && d.exchangeRate === null) {
    return `the draft is in ${d.currency} without an exchangeRate: its shekel figures are known only at issue (set exchangeRate, or issue and the number is requested then)`;
  }
  if (!d.party?.taxId) return 'the buyer has no tax id: party.taxId is needed for an allocation number';
  if (a.input.vatAmount <= 0) return 'the document carries no VAT: no allocation number is issued for it';
  return null;
}

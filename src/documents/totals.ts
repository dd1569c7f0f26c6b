/**
 * Money and tax of a document, exactly per decisions.md "Money and tax". Pure: no I/O, no clock.
 * All amounts are integer agorot; rounding is half away from zero, to the agora.
 */
import { roundHalfAwayFromZero } from '../platform/money.ts';
import type { DealerType } from '../businesses/schemas.ts';
import type { DocType, PriceMode, VatExemptionReason } from './snapshot.ts';

export interface LineAmountInput {
  quantity: number;
  unitPriceExVat: number;
  lineDiscount?: number | null;
}

export interface TotalsInput {
  docType: DocType;
  priceMode: PriceMode;
  vatRateBp: number;
  lines: LineAmountInput[];
  payments: { amount: number }[];
  discountAmount: number;
  withholdingAmount: number;
}

export interface ComputedTotals {
  lineAmounts: number[];
  /** Σ line amounts before the document discount. */
  linesTotal: number;
  paymentsTotal: number;
  totalExVat: number;
  vatAmount: number;
  totalIncVat: number;
  discountAmount: number;
  withholdingAmount: number;
}

/** round(quantity × unitPriceExVat) − lineDiscount. */
export function lineAmount(l: LineAmountInput): number {
  return roundHalfAwayFromZero(l.quantity * l.unitPriceExVat) - (l.lineDiscount ?? 0);
}

const sum = (xs: number[]) => xs.reduce((a, b) => a + b, 0);

/**
 * 305/320/330: from the lines (net or gross mode). 400 (receipt): the amount received is the sum
 * of the payments; a receipt carries no VAT of its own and no document discount, and its
 * withholding sits on top of the amount received (OPENFRMT C100 1223/1224, clarification 4).
 */
export function computeTotals(input: TotalsInput): ComputedTotals {
  const lineAmounts = input.lines.map(lineAmount);
  const linesTotal = sum(lineAmounts);
  const paymentsTotal = sum(input.payments.map((p) => p.amount));
  const base = { lineAmounts, linesTotal, paymentsTotal, withholdingAmount: input.withholdingAmount };
  if (input.docType === 400) {
    return { ...base, totalExVat: paymentsTotal, vatAmount: 0, totalIncVat: paymentsTotal, discountAmount: 0 };
  }
  const rate = input.vatRateBp;
  if (input.priceMode === 'gross') {
    const totalIncVat = linesTotal - input.discountAmount;
    const totalExVat = roundHalfAwayFromZero((totalIncVat * 10000) / (10000 + rate));
    return { ...base, totalExVat, vatAmount: totalIncVat - totalExVat, totalIncVat, discountAmount: input.discountAmount };
  }
  const totalExVat = linesTotal - input.discountAmount;
  const vatAmount = roundHalfAwayFromZero((totalExVat * rate) / 10000);
  return { ...base, totalExVat, vatAmount, totalIncVat: totalExVat + vatAmount, discountAmount: input.discountAmount };
}

/** The statutory general VAT rate on a date: 17% until 2024-12-31, 18% from 2025-01-01. */
export function statutoryVatRateBp(documentDate: string): number {
  return documentDate >= '2025-01-01' ? 1800 : 1700;
}

export interface VatRateInput {
  docType: DocType;
  dealerType: DealerType;
  businessDefaultBp: number | null;
  /** The rate the draft set (only 0 with an exemption reason), or null to follow the default. */
  draftRateBp: number | null;
  documentDate: string;
}

/**
 * The rate of a document: exempt dealers 0; a receipt 0 (it carries no VAT); the draft's explicit
 * rate; the business default when set; else the statutory rate on the document date.
 * (A credit note does not come here: it keeps the rate of the document it corrects.)
 */
export function resolveVatRateBp(v: VatRateInput): number {
  if (v.dealerType === 'patur' || v.dealerType === 'ngo') return 0;
  if (v.docType === 400) return 0;
  if (v.draftRateBp !== null) return v.draftRateBp;
  if (v.businessDefaultBp !== null) return v.businessDefaultBp;
  return statutoryVatRateBp(v.documentDate);
}

/** What a draft carries that decides its figures. */
export interface DraftFigures {
  docType: DocType;
  priceMode: PriceMode;
  lines: LineAmountInput[];
  payments: { amount: number }[];
  documentDate: string;
  vatRateBp: number | null;
  discountAmount: number;
  withholdingAmount: number;
}

/** The rate and totals a draft has if issued now (issue, previews and allocation requests agree by construction). */
export function totalsOfDraft(
  d: DraftFigures,
  business: { dealerType: DealerType; defaultVatRateBp: number | null },
): ComputedTotals & { vatRateBp: number } {
  const vatRateBp = resolveVatRateBp({
    docType: d.docType,
    dealerType: business.dealerType,
    businessDefaultBp: business.defaultVatRateBp,
    draftRateBp: d.vatRateBp,
    documentDate: d.documentDate,
  });
  const t = computeTotals({
    docType: d.docType,
    priceMode: d.priceMode,
    vatRateBp,
    lines: d.lines,
    payments: d.payments,
    discountAmount: d.discountAmount,
    withholdingAmount: d.withholdingAmount,
  });
  return { ...t, vatRateBp };
}

/** Problem text when the rate and exemption reason do not go together, else null. */
export function vatRateProblem(rateBp: number | null | undefined, reason: VatExemptionReason | null | undefined): string | null {
  if (rateBp === 0 && !reason) return 'vatRateBp 0 needs a vatExemptionReason (eilat, export or exempt)';
  if (rateBp !== undefined && rateBp !== null && rateBp !== 0 && reason) return 'vatExemptionReason goes only with vatRateBp 0';
  return null;
}

/**
 * 320: the payments must equal the total net of withholding. 400: payments are the total by
 * construction, but there must be some and they must not be zero. Null when consistent.
 */
export function paymentsProblem(docType: DocType, t: ComputedTotals, paymentCount: number): string | null {
  if (docType === 320) {
    if (paymentCount === 0) return 'a 320 invoice/receipt needs payments';
    const due = t.totalIncVat - t.withholdingAmount;
    if (t.paymentsTotal !== due) {
      return `payments total ${t.paymentsTotal} agorot but the document needs ${due} (totalIncVat ${t.totalIncVat} − withholdingAmount ${t.withholdingAmount})`;
    }
  }
  if (docType === 400) {
    if (paymentCount === 0) return 'a 400 receipt needs payments';
    if (t.paymentsTotal === 0) return 'a 400 receipt must receive a non-zero amount';
  }
  return null;
}

/** patur and ngo issue receipts (400) only; murshe and company issue 305, 320, 330, 400. */
export function docTypeAllowed(dealerType: DealerType, docType: DocType): boolean {
  if (dealerType === 'patur' || dealerType === 'ngo') return docType === 400;
  return true;
}

/** A buyer's tax id is required on 305/320 when the amount before VAT is 5,000 NIS or more. */
export const BUYER_TAX_ID_THRESHOLD = 500_000;

export function buyerTaxIdRequired(docType: DocType, totalExVat: number): boolean {
  return (docType === 305 || docType === 320) && totalExVat >= BUYER_TAX_ID_THRESHOLD;
}

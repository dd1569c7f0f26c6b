/**
 * Money and tax of a document, exactly per decisions.md "Money and tax". Pure: no I/O, no clock.
 * All amounts are integer agorot; rounding is half away from zero, to the agora.
 */
import { quantityTimesPrice, roundHalfAwayFromZero } from '../platform/money.ts';
import { validation } from '../platform/errors.ts';
import { carrier, maxAgorot, maxScaled, type CarriedField } from '../openfrmt/index.ts';
import type { DealerType } from '../businesses/dealer-types.ts';
import type { DocType } from './figures.ts';
import type { PriceMode, VatExemptionReason } from './snapshot-types.ts';
import { chargesVat, DOC_TYPES } from './doc-types.ts';

export { docTypeAllowed } from './doc-types.ts';

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

/**
 * round(quantity × unitPriceExVat) − lineDiscount: the one product of platform/money.ts, exact and
 * half away from zero (the draft check keeps quantities to the 4 decimals OPENFRMT D110/1264
 * carries, so the line total is quantity × price as printed and as the export writes it).
 */
export function lineAmount(l: LineAmountInput): number {
  return quantityTimesPrice(l.quantity, l.unitPriceExVat) - (l.lineDiscount ?? 0);
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
  if (DOC_TYPES[input.docType].totalsFrom === 'payments') {
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
  if (!chargesVat(v.dealerType)) return 0;
  if (!DOC_TYPES[v.docType].carriesVat) return 0;
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

/**
 * The rates a draft may name (decisions.md "Money and tax"): the rate in force on its date — the
 * business default when set, else the statutory rate —, the statutory rate of its date, or 0 (with
 * an exemption reason, checked by vatRateProblem). Null when `draftRateBp` is one of them.
 */
export function vatRateChoiceProblem(
  draftRateBp: number | null,
  documentDate: string,
  business: { dealerType: DealerType; defaultVatRateBp: number | null },
): string | null {
  if (draftRateBp === null || draftRateBp === 0) return null;
  // An exempt dealer's documents carry no VAT: a rate is refused, never zeroed behind the caller's back (issue 29).
  if (!chargesVat(business.dealerType)) {
    return `a ${business.dealerType} dealer charges no VAT (decisions.md "Money and tax"; an exempt dealer may not charge it): leave vatRateBp out or null, got ${draftRateBp}`;
  }
  const businessDefaultBp = business.defaultVatRateBp;
  const allowed = [...new Set([statutoryVatRateBp(documentDate), ...(businessDefaultBp !== null ? [businessDefaultBp] : [])])];
  if (allowed.includes(draftRateBp)) return null;
  const named = allowed.map((r) => `${r}`).join(' or ');
  return `must be the rate in force on ${documentDate} (${named}), 0 with a vatExemptionReason, or null to follow it; got ${draftRateBp}`;
}

/** A figure of a document and the request field that decides it, for the error. */
interface FigureCheck {
  figure: string;
  value: number;
  carried: CarriedField;
  field: string;
}

/**
 * Every figure of a draft's totals must fit the OPENFRMT field that will carry it — a sum of lines
 * that each fit can still overflow the document's total — and its rate must be one a document may
 * carry. Null when it would export, else the field to name and the problem.
 */
export function figuresProblem(
  d: DraftFigures,
  business: { dealerType: DealerType; defaultVatRateBp: number | null },
  t: ComputedTotals & { vatRateBp: number },
): { field: string; problem: string } | null {
  const rateProblem = vatRateChoiceProblem(d.vatRateBp, d.documentDate, business);
  if (rateProblem) return { field: 'body.vatRateBp', problem: rateProblem };
  const maxRate = maxScaled('vatRate');
  if (t.vatRateBp > maxRate) {
    return { field: 'business.defaultVatRateBp', problem: `${t.vatRateBp} is more than the ${maxRate} basis points ${carrier('vatRate')} carries` };
  }
  const source = DOC_TYPES[d.docType].totalsFrom === 'payments' ? 'body.payments' : 'body.lines';
  const checks: FigureCheck[] = [
    ...t.lineAmounts.map((value, i) => ({
      figure: 'the line total (quantity × unitPriceExVat − lineDiscount)',
      value,
      carried: 'lineTotal' as const,
      field: `body.lines[${i}]`,
    })),
    { figure: 'the sum of the lines', value: t.linesTotal, carried: 'amountBeforeDiscount', field: 'body.lines' },
    { figure: 'the sum of the payments', value: t.paymentsTotal, carried: 'totalIncVat', field: 'body.payments' },
    { figure: 'totalExVat', value: t.totalExVat, carried: 'totalExVat', field: source },
    { figure: 'vatAmount', value: t.vatAmount, carried: 'vatAmount', field: source },
    { figure: 'totalIncVat', value: t.totalIncVat, carried: 'totalIncVat', field: source },
    { figure: 'withholdingAmount', value: t.withholdingAmount, carried: 'withholding', field: 'body.withholdingAmount' },
  ];
  for (const c of checks) {
    const max = maxAgorot(c.carried);
    if (!Number.isSafeInteger(c.value) || Math.abs(c.value) > max) {
      return { field: c.field, problem: `${c.figure} comes to ${c.value} agorot, more than the ${max} ${carrier(c.carried)} carries` };
    }
  }
  return null;
}

/**
 * The rate and totals a draft has if issued now (issue, previews and allocation requests agree by
 * construction). Refuses (400 validation naming the field) a rate a document may not carry and
 * totals the OPENFRMT export could not write, so a draft that is stored can always be issued and
 * exported.
 */
export function totalsOfDraft(d: DraftFigures, business: { dealerType: DealerType; defaultVatRateBp: number | null }): ComputedTotals & { vatRateBp: number } {
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
  const out = { ...t, vatRateBp };
  const problem = figuresProblem(d, business, out);
  if (problem) throw validation(problem.field, problem.problem);
  return out;
}

/** Problem text when the rate and exemption reason do not go together, else null. */
export function vatRateProblem(rateBp: number | null | undefined, reason: VatExemptionReason | null | undefined): string | null {
  if (rateBp === 0 && !reason) return 'vatRateBp 0 needs a vatExemptionReason (eilat, export or exempt)';
  // A reason with no rate (following the default, never 0 for a dealer) is a reason with a non-zero rate.
  if (reason && rateBp !== 0) return 'vatExemptionReason goes only with vatRateBp 0';
  return null;
}

/**
 * By the type's payments rule (doc-types.ts): a 320's payments must equal the total net of
 * withholding; a 400's are the total by construction, but there must be some and they must not be
 * zero. Null when consistent.
 */
export function paymentsProblem(docType: DocType, t: ComputedTotals, paymentCount: number): string | null {
  const rule = DOC_TYPES[docType];
  if (rule.payments === 'none') return null;
  if (paymentCount === 0) return `a ${rule.code} ${rule.noun} needs payments`;
  if (rule.payments === 'settle-total-less-withholding') {
    const due = t.totalIncVat - t.withholdingAmount;
    if (t.paymentsTotal !== due) {
      return `payments total ${t.paymentsTotal} agorot but the document needs ${due} (totalIncVat ${t.totalIncVat} − withholdingAmount ${t.withholdingAmount})`;
    }
  }
  if (rule.payments === 'are-the-total' && t.paymentsTotal === 0) return `a ${rule.code} ${rule.noun} must receive a non-zero amount`;
  return null;
}

/** A buyer's tax id is required on 305/320 when the amount before VAT is 5,000 NIS or more. */
export const BUYER_TAX_ID_THRESHOLD = 500_000;

/**
 * Whether the buyer's tax id is asked for: 305/320 of 5,000 NIS or more before VAT (VAT Law §47(ב)(1): the
 * registration number of a buyer who is an Israeli dealer; israel-tax.md §5.1), except an export invoice
 * (vatExemptionReason `export`, zero-rated): its buyer is abroad and holds no Israeli registration number (issue 29).
 */
export function buyerTaxIdRequired(docType: DocType, totalExVat: number, vatExemptionReason: VatExemptionReason | null = null): boolean {
  return DOC_TYPES[docType].buyerTaxIdCheck && vatExemptionReason !== 'export' && totalExVat >= BUYER_TAX_ID_THRESHOLD;
}

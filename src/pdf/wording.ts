// Pure text decisions of the printed document (no drawing), unit-tested on their own.
import {
  DEALER_ID_LABELS, DOC_TITLES, L, VARIANT_LABELS, VAT_EXEMPTION_NAMES,
  cardAcquirerName, cardDealTypeName, formatDate, formatRate, formatShekels, paymentMethodName,
} from './hebrew.ts';
import type { RenderModel, RenderPayment, Variant } from './model.ts';

export interface TotalsRow {
  label: string;
  value: string;
  strong?: boolean;
}

export function titleLine(m: RenderModel, variant: Variant): string {
  const title = DOC_TITLES[m.docType];
  if (variant === 'draft' || m.docNumber === null) return `${title} - ${VARIANT_LABELS.draft}`;
  return `${title} ${L.number} ${m.docNumber}`;
}

export function dealerIdLine(m: RenderModel): string {
  return `${DEALER_ID_LABELS[m.dealer.dealerType]} ${m.dealer.taxId}`;
}

/** Lines under the title: value date, allocation number, the corrected document. */
export function infoLines(m: RenderModel): string[] {
  const out: string[] = [];
  if (m.valueDate && m.valueDate !== m.documentDate) out.push(`${L.valueDate}: ${formatDate(m.valueDate)}`);
  if (m.allocationNumber) out.push(`${L.allocation}: ${m.allocationNumber}`);
  if (m.linkedDocument) {
    const verb = m.docType === 330 ? L.corrects : L.reverses;
    out.push(`${verb}: ${DOC_TITLES[m.linkedDocument.docType]} ${L.number} ${m.linkedDocument.docNumber}`);
  }
  return out;
}

/** Exempt dealers (patur, ngo) charge no VAT; their documents say so instead of a VAT row. */
export function isNoVatDealer(m: RenderModel): boolean {
  return m.dealer.dealerType === 'patur' || m.dealer.dealerType === 'ngo';
}

/** A receipt (400), or any document without lines, totals what was received, not VAT. */
export function isReceiptStyle(m: RenderModel): boolean {
  return m.docType === 400 || m.lines.length === 0;
}

/** The totals block, top to bottom. Receipts without lines show only what was received. */
export function totalsRows(m: RenderModel): TotalsRow[] {
  const t = m.totals;
  const rows: TotalsRow[] = [];
  if (isReceiptStyle(m)) {
    rows.push({ label: L.paymentsTotal, value: formatShekels(t.totalIncVat), strong: true });
    if (t.withholdingAmount) rows.push({ label: L.withholding, value: formatShekels(t.withholdingAmount) });
    return rows;
  }
  const linesSum = m.lines.reduce((a, l) => a + l.amount, 0);
  if (t.discountAmount) {
    rows.push({ label: L.subtotal, value: formatShekels(linesSum) });
    rows.push({ label: L.discount, value: formatShekels(-t.discountAmount) });
  }
  if (isNoVatDealer(m)) {
    rows.push({ label: L.totalNoVat, value: formatShekels(t.totalIncVat), strong: true });
    return rows;
  }
  rows.push({ label: L.totalExVat, value: formatShekels(t.totalExVat) });
  const reason = m.vatRateBp === 0 && m.vatExemptionReason ? ` (${VAT_EXEMPTION_NAMES[m.vatExemptionReason] ?? m.vatExemptionReason})` : '';
  rows.push({ label: `${L.vat} ${formatRate(m.vatRateBp)}${reason}`, value: formatShekels(t.vatAmount) });
  rows.push({ label: L.totalIncVat, value: formatShekels(t.totalIncVat), strong: true });
  return rows;
}

/** Rows under the payments table: withholding and what was paid. */
export function paymentsSummaryRows(m: RenderModel): TotalsRow[] {
  const rows: TotalsRow[] = [];
  const paid = m.payments.reduce((a, p) => a + p.amount, 0);
  if (isReceiptStyle(m)) return rows;
  if (m.totals.withholdingAmount) rows.push({ label: L.withholding, value: formatShekels(m.totals.withholdingAmount) });
  rows.push({ label: L.paymentsTotal, value: formatShekels(paid), strong: true });
  return rows;
}

/** The details column of a payment: cheque and bank fields, card acquirer / deal type / name. */
export function paymentDetails(p: RenderPayment): string {
  const parts: string[] = [];
  if (p.checkNumber) parts.push(`${L.cheque} ${p.checkNumber}`);
  if (p.bankCode) parts.push(`${L.bank} ${p.bankCode}`);
  if (p.branchCode) parts.push(`${L.branch} ${p.branchCode}`);
  if (p.accountNumber) parts.push(`${L.account} ${p.accountNumber}`);
  if (p.cardCompany) parts.push(cardAcquirerName(p.cardCompany));
  if (p.cardName) parts.push(p.cardName);
  if (p.cardTxType) parts.push(`${L.dealType}: ${cardDealTypeName(p.cardTxType)}`);
  return parts.join(', ');
}

export function paymentMethodLabel(p: RenderPayment): string {
  return paymentMethodName(p.method);
}

export function footerLine(variant: Variant): string {
  if (variant === 'draft') return L.draftNotice;
  return `${VARIANT_LABELS[variant]} | ${L.computerized} | ${L.signed}`;
}

export function pageLabel(page: number, pages: number): string {
  return `${L.page} ${page} ${L.of} ${pages}`;
}

// Pure text decisions of the printed document (no drawing), unit-tested on their own.
// Every function speaks the model's language: 'he' (as before issue 21), 'en', or 'he+en'.
import {
  CARD_ACQUIRER_NAMES,
  CARD_DEAL_TYPE_NAMES,
  DEALER_ID_LABELS,
  DOC_TITLES,
  L,
  PAYMENT_METHOD_NAMES,
  RATE_SOURCE_NAMES,
  VARIANT_LABELS,
  VAT_EXEMPTION_NAMES,
  formatRate,
} from './hebrew.ts';
import {
  EN,
  EN_CARD_ACQUIRER_NAMES,
  EN_CARD_DEAL_TYPE_NAMES,
  EN_DEALER_ID_LABELS,
  EN_DOC_TITLES,
  EN_PAYMENT_METHOD_NAMES,
  EN_RATE_SOURCE_NAMES,
  EN_VARIANT_LABELS,
  EN_VAT_EXEMPTION_NAMES,
} from './english.ts';
import { SHEKEL, formatAmount, formatDateIn, formatExchangeRate } from './format.ts';
import { both, label, languageOf, named } from './language.ts';
import type { Language, RenderCurrency, RenderModel, RenderPayment, SignatureInfo, Variant } from './model.ts';
import { DOC_TYPES } from '../documents/doc-types.ts';

export interface TotalsRow {
  label: string;
  value: string;
  strong?: boolean;
}

const currencyOf = (m: RenderModel): RenderCurrency => m.currency ?? SHEKEL;
const money = (m: RenderModel, minor: number) => formatAmount(minor, currencyOf(m));
/** Summary labels: a bilingual page puts the English under the Hebrew. */
const rowLabel = (lang: Language, key: keyof typeof L) => label(lang, key, '\n');

const heTitle = (m: RenderModel, variant: Variant) =>
  variant === 'draft' || m.docNumber === null ? `${DOC_TITLES[m.docType]} - ${VARIANT_LABELS.draft}` : `${DOC_TITLES[m.docType]} ${L.number} ${m.docNumber}`;
const enTitle = (m: RenderModel, variant: Variant) =>
  variant === 'draft' || m.docNumber === null
    ? `${EN_DOC_TITLES[m.docType]} - ${EN_VARIANT_LABELS.draft}`
    : `${EN_DOC_TITLES[m.docType]} ${EN.number} ${m.docNumber}`;

/** The big title: Hebrew on Hebrew and bilingual pages, English on English ones. */
export function titleLine(m: RenderModel, variant: Variant): string {
  return languageOf(m) === 'en' ? enTitle(m, variant) : heTitle(m, variant);
}

/**
 * The line under the title: the English title on a bilingual page; on an English page the Hebrew
 * name of the document type, which the VAT regulations require in those words ("חשבונית מס").
 */
export function titleSecondLine(m: RenderModel, variant: Variant): string | null {
  const lang = languageOf(m);
  if (lang === 'he') return null;
  if (lang === 'he+en') return enTitle(m, variant);
  return variant === 'draft' || m.docNumber === null ? `${DOC_TITLES[m.docType]} - ${VARIANT_LABELS.draft}` : DOC_TITLES[m.docType];
}

/** The PDF's Title: type and number, in the page's language(s). */
export function metadataTitle(m: RenderModel): string {
  const lang = languageOf(m);
  const title = both(lang, DOC_TITLES[m.docType], EN_DOC_TITLES[m.docType]);
  return m.docNumber === null ? title : `${title} ${m.docNumber}`;
}

/** The dealer's id; an English page keeps the Hebrew "עוסק מורשה"/"עוסק פטור" the law names. */
export function dealerIdLine(m: RenderModel): string {
  const lang = languageOf(m);
  const t = m.dealer.dealerType;
  if (lang === 'en') {
    const keep = t === 'murshe' || t === 'patur' ? ` (${DEALER_ID_LABELS[t]})` : '';
    return `${EN_DEALER_ID_LABELS[t]}${keep} ${m.dealer.taxId}`;
  }
  return `${both(lang, DEALER_ID_LABELS[t], EN_DEALER_ID_LABELS[t])} ${m.dealer.taxId}`;
}

/** The type's notice (a 300 is not a tax invoice); an English page keeps the Hebrew words beside it, as it keeps the title's. */
function noticeLine(m: RenderModel): string | null {
  const notice = DOC_TYPES[m.docType].printedNotice;
  if (!notice) return null;
  const lang = languageOf(m);
  return lang === 'en' ? `${notice.en} (${notice.he})` : both(lang, notice.he, notice.en);
}

/**
 * A donation receipt's approval and its report number, beside the receipt's own number (israel-tax.md §7):
 * the donor's credit depends on both. A report not answered yet says so; a number is never made up.
 */
function donationLines(m: RenderModel): string[] {
  const lang = languageOf(m);
  const out: string[] = [];
  const a = m.section46;
  if (a) {
    // One line per language (a bilingual page gives each its own, as a line mixing both directions reads badly).
    const line = (l: 'he' | 'en', words: Record<keyof typeof L, string>) =>
      `${words.section46}: ${a.number}, ${words.validFromTo} ${formatDateIn(a.validFrom, l)} - ${formatDateIn(a.validTo, l)}`;
    if (lang !== 'en') out.push(line('he', L));
    if (lang !== 'he') out.push(line('en', EN));
  }
  const r = m.donationReport;
  if (r) out.push(`${label(lang, 'donationReport')}: ${r.number ?? label(lang, r.pending ? 'donationReportPending' : 'donationReportMissing')}`);
  return out;
}

/** Lines under the title: the type's notice, value date, allocation number, the corrected document. */
export function infoLines(m: RenderModel): string[] {
  const lang = languageOf(m);
  const out: string[] = [];
  const notice = noticeLine(m);
  if (notice) out.push(notice);
  if (m.valueDate && m.valueDate !== m.documentDate) out.push(`${label(lang, 'valueDate')}: ${formatDateIn(m.valueDate, lang)}`);
  if (m.allocationNumber) out.push(`${label(lang, 'allocation')}: ${m.allocationNumber}`);
  out.push(...donationLines(m));
  if (m.linkedDocument) {
    const key = DOC_TYPES[m.docType].linkedLabel;
    const { docType, docNumber } = m.linkedDocument;
    const which = both(lang, `${DOC_TITLES[docType]} ${L.number} ${docNumber}`, `${EN_DOC_TITLES[docType]} ${EN.number} ${docNumber}`);
    out.push(`${label(lang, key)}: ${which}`);
  }
  // A converted document names what it was converted from (a delivery note its order); a bilingual page
  // gives each language its own line, as a list mixing both directions reads badly on one.
  const based = m.basedOn ?? [];
  if (based.length > 0) {
    if (lang !== 'en') out.push(`${L.basedOn}: ${based.map((b) => `${DOC_TITLES[b.docType]} ${L.number} ${b.docNumber}`).join(', ')}`);
    if (lang !== 'he') out.push(`${EN.basedOn}: ${based.map((b) => `${EN_DOC_TITLES[b.docType]} ${EN.number} ${b.docNumber}`).join(', ')}`);
  }
  return out;
}

/** Exempt dealers (patur, ngo) charge no VAT; their documents say so instead of a VAT row. */
export function isNoVatDealer(m: RenderModel): boolean {
  return m.dealer.dealerType === 'patur' || m.dealer.dealerType === 'ngo';
}

/** A receipt (totals from its payments), or any document without lines, totals what was received, not VAT. */
export function isReceiptStyle(m: RenderModel): boolean {
  return DOC_TYPES[m.docType].totalsFrom === 'payments' || m.lines.length === 0;
}

function vatLabel(m: RenderModel, lang: Language): string {
  const rate = formatRate(m.vatRateBp);
  const reason = m.vatRateBp === 0 && m.vatExemptionReason ? m.vatExemptionReason : null;
  const he = `${L.vat} ${rate}${reason ? ` (${VAT_EXEMPTION_NAMES[reason] ?? reason})` : ''}`;
  const en = `${EN.vat} ${rate}${reason ? ` (${EN_VAT_EXEMPTION_NAMES[reason] ?? reason})` : ''}`;
  return both(lang, he, en, '\n');
}

/** The totals block, top to bottom. Receipts without lines show only what was received. */
export function totalsRows(m: RenderModel): TotalsRow[] {
  const lang = languageOf(m);
  const t = m.totals;
  const rows: TotalsRow[] = [];
  if (isReceiptStyle(m)) {
    rows.push({ label: rowLabel(lang, 'paymentsTotal'), value: money(m, t.totalIncVat), strong: true });
    if (t.withholdingAmount) rows.push({ label: rowLabel(lang, 'withholding'), value: money(m, t.withholdingAmount) });
    return rows;
  }
  const linesSum = m.lines.reduce((a, l) => a + l.amount, 0);
  if (t.discountAmount) {
    rows.push({ label: rowLabel(lang, 'subtotal'), value: money(m, linesSum) });
    rows.push({ label: rowLabel(lang, 'discount'), value: money(m, -t.discountAmount) });
  }
  if (isNoVatDealer(m)) {
    rows.push({ label: rowLabel(lang, 'totalNoVat'), value: money(m, t.totalIncVat), strong: true });
    return rows;
  }
  rows.push({ label: rowLabel(lang, 'totalExVat'), value: money(m, t.totalExVat) });
  rows.push({ label: vatLabel(m, lang), value: money(m, t.vatAmount) });
  rows.push({ label: rowLabel(lang, 'totalIncVat'), value: money(m, t.totalIncVat), strong: true });
  return rows;
}

/** Rows under the payments table: withholding and what was paid. */
export function paymentsSummaryRows(m: RenderModel): TotalsRow[] {
  const lang = languageOf(m);
  const rows: TotalsRow[] = [];
  const paid = m.payments.reduce((a, p) => a + p.amount, 0);
  if (isReceiptStyle(m)) return rows;
  if (m.totals.withholdingAmount) rows.push({ label: rowLabel(lang, 'withholding'), value: money(m, m.totals.withholdingAmount) });
  rows.push({ label: rowLabel(lang, 'paymentsTotal'), value: money(m, paid), strong: true });
  return rows;
}

/**
 * A foreign-currency document: the rate, its date and source, then the shekel totals recorded at
 * issue (`ils`). Null for shekels. Nothing here is computed: a missing `ils` prints no shekel rows.
 */
export function exchangeRateBlock(m: RenderModel): { lines: string[]; rows: TotalsRow[] } | null {
  const cur = currencyOf(m);
  if (cur.code === 'ILS') return null;
  const lang = languageOf(m);
  // A bilingual page gives each fact one line per language: "label / label: value" reads badly here.
  const lines: string[] = [];
  const fact = (key: keyof typeof L, he: string, en: string = he) => {
    if (lang !== 'en') lines.push(`${L[key]}: ${he}`);
    if (lang !== 'he') lines.push(`${EN[key]}: ${en}`);
  };
  if (m.exchangeRate) fact('exchangeRate', formatExchangeRate(m.exchangeRate, cur.code));
  if (m.exchangeRateDate) fact('rateDate', formatDateIn(m.exchangeRateDate, 'he'), formatDateIn(m.exchangeRateDate, 'en'));
  if (m.exchangeRateSource) {
    const src = m.exchangeRateSource;
    fact('rateSource', RATE_SOURCE_NAMES[src] ?? src, EN_RATE_SOURCE_NAMES[src] ?? src);
  }
  const rows: TotalsRow[] = [];
  const ils = m.ils;
  if (ils) {
    const inIls = (key: keyof typeof L) => both(lang, `${L[key]} ${L.inShekels}`, `${EN[key]} ${EN.inShekels}`, '\n');
    const shekels = (minor: number) => formatAmount(minor, SHEKEL);
    if (isReceiptStyle(m)) {
      rows.push({ label: inIls('paymentsTotal'), value: shekels(ils.totalIncVat), strong: true });
    } else if (isNoVatDealer(m)) {
      rows.push({ label: inIls('totalNoVat'), value: shekels(ils.totalIncVat), strong: true });
    } else {
      rows.push({ label: inIls('totalExVat'), value: shekels(ils.totalExVat) });
      rows.push({ label: inIls('vat'), value: shekels(ils.vatAmount) });
      rows.push({ label: inIls('totalIncVat'), value: shekels(ils.totalIncVat), strong: true });
    }
    if (ils.withholdingAmount) rows.push({ label: inIls('withholding'), value: shekels(ils.withholdingAmount) });
  }
  return { lines, rows };
}

/** The details column of a payment: cheque and bank fields, card details, another currency. */
export function paymentDetails(p: RenderPayment, lang: Language = 'he'): string {
  const w = (key: keyof typeof L) => label(lang, key);
  const parts: string[] = [];
  if (p.checkNumber) parts.push(`${w('cheque')} ${p.checkNumber}`);
  if (p.bankCode) parts.push(`${w('bank')} ${p.bankCode}`);
  if (p.branchCode) parts.push(`${w('branch')} ${p.branchCode}`);
  if (p.accountNumber) parts.push(`${w('account')} ${p.accountNumber}`);
  if (p.cardCompany) parts.push(named(lang, { he: CARD_ACQUIRER_NAMES, en: EN_CARD_ACQUIRER_NAMES }, p.cardCompany.trim(), p.cardCompany));
  if (p.cardName) parts.push(p.cardName);
  if (p.cardTxType)
    parts.push(`${w('dealType')}: ${named(lang, { he: CARD_DEAL_TYPE_NAMES, en: EN_CARD_DEAL_TYPE_NAMES }, p.cardTxType.trim(), p.cardTxType)}`);
  if (p.currency && p.originalAmount !== null && p.originalAmount !== undefined) {
    const rate = p.exchangeRate ? ` (${formatExchangeRate(p.exchangeRate, p.currency.code)})` : '';
    parts.push(`${w('paidIn')}: ${formatAmount(p.originalAmount, p.currency)}${rate}`);
  }
  return parts.join(', ');
}

export function paymentMethodLabel(p: RenderPayment, lang: Language = 'he'): string {
  const code = String(p.method);
  const other = both(lang, `${PAYMENT_METHOD_NAMES[9]} (${code})`, `${EN_PAYMENT_METHOD_NAMES[9]} (${code})`);
  return named(lang, { he: PAYMENT_METHOD_NAMES, en: EN_PAYMENT_METHOD_NAMES }, code, other);
}

/**
 * The print mark, big in the stamp: the English page keeps "מקור"/"העתק" (Appendix ה of the
 * bookkeeping instructions names these words) beside "Original"/"Copy".
 */
export function stampLines(variant: Variant, lang: Language = 'he'): { marks: string[]; small: string } {
  const small = variant === 'draft' ? label(lang, 'preview') : label(lang, 'computerized', lang === 'he+en' ? '\n' : ' · ');
  if (lang === 'he') return { marks: [VARIANT_LABELS[variant]], small };
  if (lang === 'en')
    return { marks: [EN_VARIANT_LABELS[variant], VARIANT_LABELS[variant]], small: variant === 'draft' ? small : `${EN.computerized}\n${L.computerized}` };
  return { marks: [VARIANT_LABELS[variant], EN_VARIANT_LABELS[variant]], small };
}

/** The footer's mark line on every page: origin/copy and "מסמך ממוחשב" (kept in Hebrew on English pages). */
export function footerLine(variant: Variant, lang: Language = 'he'): string {
  if (variant === 'draft') {
    if (lang === 'en') return `${EN_VARIANT_LABELS.draft} (${VARIANT_LABELS.draft}) - not an accounting document, not signed`;
    return both(lang, L.draftNotice, EN.draftNotice);
  }
  if (lang === 'en') return `${EN_VARIANT_LABELS[variant]} (${VARIANT_LABELS[variant]}) | ${EN.computerized} (${L.computerized})`;
  return `${both(lang, VARIANT_LABELS[variant], EN_VARIANT_LABELS[variant])} | ${label(lang, 'computerized')}`;
}

/**
 * What the signature is, truthfully: never "approved". Our generated certificate says it is a
 * development one; any self-signed certificate says it is not an approved electronic signature; a
 * CA-issued one is named by subject and issuer. A bilingual page gives one line per language.
 */
export function signatureStatement(sig: SignatureInfo | null, lang: Language = 'he'): string {
  const pair = (he: string, en: string) => both(lang, he, en, '\n');
  if (!sig) return pair(L.signatureUnsigned, EN.signatureUnsigned);
  if (sig.kind === 'development') return pair(L.signatureDevelopment, EN.signatureDevelopment);
  if (sig.kind === 'self-signed') return pair(`${L.signatureSelfSigned} (${sig.subject})`, `${EN.signatureSelfSigned} (${sig.subject})`);
  return pair(`${L.signedBy}: ${sig.subject}; ${L.certificateIssuer}: ${sig.issuer}`, `${EN.signedBy} ${sig.subject}; ${EN.certificateIssuer} ${sig.issuer}`);
}

/** The sandbox mark, in the page's language(s). */
export function sandboxLine(lang: Language = 'he'): string {
  return label(lang, 'sandbox');
}

export function pageLabel(page: number, pages: number, lang: Language = 'he'): string {
  return both(lang, `${L.page} ${page} ${L.of} ${pages}`, `${EN.page} ${page} ${EN.of} ${pages}`, '\n');
}

/** The PDF's Subject: what the file is, and that a sandbox file is no tax document. */
export function metadataSubject(m: RenderModel, variant: Variant, sandbox: boolean): string {
  const lang = languageOf(m);
  const parts = [titleLine(m, variant), both(lang, VARIANT_LABELS[variant], EN_VARIANT_LABELS[variant]), m.dealer.name];
  if (sandbox) parts.push(sandboxLine(lang));
  return parts.join(' | ');
}

/** Dates in the page's convention. */
export const dateIn = (m: RenderModel, iso: string) => formatDateIn(iso, languageOf(m));
export const amountIn = money;

/**
 * The notes heading. A bilingual heading has no colon: after the English word at the end of a
 * right-to-left line it would land on the far left.
 */
export function noteHeading(lang: Language = 'he'): string {
  return lang === 'he+en' ? label(lang, 'note') : `${label(lang, 'note')}:`;
}

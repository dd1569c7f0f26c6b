// From the documents area's rows to the renderer's model (pure).
import type * as Pdf from '../pdf/index.ts';
import type { Language, RenderCurrency, RenderModel, RenderPayment } from '../pdf/index.ts';
import { SHEKEL, minorUnitsOf } from '../platform/currencies.ts';
import type { BrandingTemplate, BusinessRecord } from '../businesses/index.ts';
import type { DealerType } from '../businesses/dealer-types.ts';
import type { PDF_VARIANTS } from './lists.ts';
import {
  type DocumentLine,
  type DocumentPayment,
  type DocumentRow,
  type DocumentSnapshot,
  computeTotals,
  convertedFromOf,
  dealerOf,
  DOCUMENT_LANGUAGES,
  type DocumentLanguage,
  type ExchangeRateSource,
  lineAmount,
  resolveVatRateBp,
} from '../documents/index.ts';
import { DOC_TYPES } from '../documents/doc-types.ts';

const lineOf = (l: DocumentLine, amount: number) => ({
  description: l.description,
  quantity: l.quantity,
  unitPrice: l.unitPriceExVat,
  lineDiscount: l.lineDiscount ?? 0,
  amount,
  unit: l.unit,
  sku: l.sku,
});

const currency = (code: string | null | undefined): RenderCurrency => {
  const c = code ?? SHEKEL;
  return { code: c, minorUnits: minorUnitsOf(c) };
};

/** A payment in another currency than the document's carries its own amount and rate. */
function paymentOf(p: DocumentPayment, docCurrency: string): RenderPayment {
  const { currency: code, exchangeRate, originalAmount, ...rest } = p;
  const foreign = code && code !== docCurrency;
  return {
    ...rest,
    method: Number(p.method),
    currency: foreign ? currency(code) : null,
    exchangeRate: foreign ? (exchangeRate ?? null) : null,
    originalAmount: foreign ? (originalAmount ?? null) : null,
  };
}

// The printed languages are the document's (the PDF's Language names the same three).
const LANGUAGES: readonly Language[] = DOCUMENT_LANGUAGES;
const languageOf = (value: unknown): Language => (LANGUAGES.includes(value as Language) ? (value as Language) : 'he');

/**
 * An issued document prints its frozen snapshot; the allocation number may have arrived after
 * issue (documents.allocation_number), and is printed then, as is a 405's donation report number
 * (`donationReport`, read by the caller; null for other types).
 */
export function issuedRenderModel(
  doc: DocumentRow,
  logo: Uint8Array | null,
  donationReport: { number: string | null; pending: boolean } | null = null,
): RenderModel {
  const snap = doc.snapshot as DocumentSnapshot;
  const code = snap.currency ?? SHEKEL;
  return {
    docType: snap.docType,
    docNumber: snap.docNumber,
    documentDate: snap.documentDate,
    valueDate: snap.valueDate,
    dealer: snap.dealer,
    branding: {
      template: snap.branding.template === 'stripe' ? 'stripe' : 'classic',
      accentColor: snap.branding.accentColor,
      tagline: snap.branding.tagline,
      website: snap.branding.website,
      footerText: snap.branding.footerText,
      logo,
    },
    party: snap.party,
    priceMode: snap.priceMode,
    vatRateBp: snap.vatRateBp,
    vatExemptionReason: snap.vatExemptionReason,
    lines: snap.lines.map((l) => lineOf(l, l.amount)),
    payments: snap.payments.map((p) => paymentOf(p, code)),
    totals: snap.totals,
    language: languageOf(snap.language),
    currency: currency(code),
    exchangeRate: code === SHEKEL ? null : (snap.exchangeRate ?? null),
    exchangeRateDate: code === SHEKEL ? null : (snap.exchangeRateDate ?? null),
    exchangeRateSource: code === SHEKEL ? null : (snap.exchangeRateSource ?? null),
    ils: code === SHEKEL ? null : (snap.ils ?? null),
    allocationNumber: doc.allocationNumber ?? snap.allocationNumber,
    section46: snap.section46 ?? null,
    donationReport: donationReport ? { number: donationReport.number, pending: donationReport.pending } : null,
    note: snap.note,
    linkedDocument: snap.linkedDocument ? { docType: snap.linkedDocument.docType, docNumber: snap.linkedDocument.docNumber } : null,
    basedOn: convertedFromOf(snap.lines).map(({ docType, docNumber }) => ({ docType, docNumber })),
  };
}

/**
 * A draft previews what it would say if issued now: the business as it is, totals computed. A
 * foreign-currency draft prints no shekel totals: they are fixed at issue, with the rate.
 */
export function draftRenderModel(doc: DocumentRow, business: BusinessRecord, logo: Uint8Array | null): RenderModel {
  const code = doc.currency ?? SHEKEL;
  const vatRateBp = resolveVatRateBp({
    docType: doc.docType,
    dealerType: business.dealerType,
    businessDefaultBp: business.defaultVatRateBp,
    draftRateBp: doc.vatRateBp,
    documentDate: doc.documentDate,
  });
  const b = business.branding;
  return {
    docType: doc.docType,
    docNumber: null,
    documentDate: doc.documentDate,
    valueDate: doc.valueDate,
    dealer: dealerOf(business),
    branding: {
      template: b.template === 'stripe' ? 'stripe' : 'classic',
      accentColor: b.accentColor,
      tagline: b.tagline,
      website: b.website,
      footerText: b.footerText,
      logo,
    },
    party: doc.party,
    priceMode: doc.priceMode,
    vatRateBp,
    vatExemptionReason: doc.vatExemptionReason,
    lines: doc.lines.map((l) => lineOf(l, lineAmount(l))),
    payments: doc.payments.map((p) => paymentOf(p, code)),
    language: languageOf(doc.language),
    currency: currency(code),
    exchangeRate: code === SHEKEL ? null : (doc.exchangeRate ?? null),
    exchangeRateDate: code === SHEKEL ? null : (doc.exchangeRateDate ?? null),
    exchangeRateSource: code === SHEKEL ? null : (doc.exchangeRateSource ?? null),
    ils: null,
    totals: draftTotals(doc, vatRateBp),
    allocationNumber: doc.allocationNumber,
    // A donation receipt previews the approval it would print if issued now.
    section46: DOC_TYPES[doc.docType].donation ? business.section46Approval : null,
    note: doc.note,
    linkedDocument: null,
    basedOn: convertedFromOf(doc.lines).map(({ docType, docNumber }) => ({ docType, docNumber })),
  };
}

/** The five printed totals of a draft, computed at `vatRateBp`. */
function draftTotals(doc: DocumentRow, vatRateBp: number): RenderModel['totals'] {
  const t = computeTotals({
    docType: doc.docType,
    priceMode: doc.priceMode,
    vatRateBp,
    lines: doc.lines,
    payments: doc.payments,
    discountAmount: doc.discountAmount,
    withholdingAmount: doc.withholdingAmount,
  });
  return {
    discountAmount: t.discountAmount,
    totalExVat: t.totalExVat,
    vatAmount: t.vatAmount,
    totalIncVat: t.totalIncVat,
    withholdingAmount: t.withholdingAmount,
  };
}

// The PDF layer imports no domain, so it names its own closed lists; each must be the domain's list exactly.
type Same<A, B> = [A] extends [B] ? ([B] extends [A] ? true : false) : false;
const pdfListsAgree: [
  Same<Pdf.Language, DocumentLanguage>,
  Same<Pdf.ExchangeRateSource, ExchangeRateSource>,
  Same<Pdf.DealerType, DealerType>,
  Same<Pdf.Template, BrandingTemplate>,
  Same<Pdf.Variant, (typeof PDF_VARIANTS)[number]>,
] = [true, true, true, true, true];
void pdfListsAgree;

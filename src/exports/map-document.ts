/**
 * From an issued document's frozen snapshot to the OPENFRMT records' inputs. Pure.
 *
 * Decisions (docs/exports-reports-backups.md):
 * - C100/1228 (cancelled) stays blank: an issued document has left the system and is never
 *   cancelled in place; a reversal is its own document (330 credit note, or a negative 400) whose
 *   D110 lines name the original in 1256/1257.
 * - Credit notes (330) are written with positive amounts (the type carries the meaning); a negative
 *   receipt keeps its negative amounts (spec: a negative document has the opposite effect).
 * - A receipt (400): 1219 = 1221 = 1223 = the amount received, 1220 = 1222 = 0, 1224 = withholding
 *   (clarification 4). D110 for 305/320/330, D120 for 320/400. A negative receipt's amounts, payments
 *   and withholding are all negative: the writer gives 1224 the document's sign (records.ts
 *   c100Amounts). 1224 is for receipts only: 0 on 305 and 330.
 * - Customer key (1225, mandatory for types 100–710): a saved party's key, else its tax id. A customer
 *   with neither (an anonymous receipt, an inline party without a tax id) has no account at the seller;
 *   the spec says nothing about occasional customers, so each such document gets its own key
 *   `<type>-<number>` (a reversal takes the key of the document it reverses): one shared key would
 *   make every walk-in customer one customer for anyone grouping by 1225. It cannot collide with a
 *   saved key (C/S + digits) or a tax id (digits only).
 * - No M100: the service keeps no inventory, and item records invented from invoice lines (opening 0,
 *   no cost, quantities summed from lines) would state stock movements that never were.
 * - `gross` documents: D110 prices and C100 1219/1220 are brought to ex-VAT (rounded half away from
 *   zero); 1221–1223 are the document's stored totals, never recomputed.
 */
import { roundHalfAwayFromZero } from '../platform/money.ts';
import type { DocumentSnapshot, DocumentPayment } from '../documents/index.ts';
import type { ExportDocument } from '../openfrmt/index.ts';
import { SHEKEL } from '../platform/currencies.ts';
import { ilsLineAmounts, ilsPaymentAmounts, toAgorot, toHundredths } from '../documents/currency.ts';
import { DOC_TYPES } from '../documents/doc-types.ts';
import { israelDateTime } from '../platform/israel-time.ts';

const WALK_IN_NAME = 'לקוח מזדמן';

/**
 * The snapshot's keys the export never reads: the export's read leaves them in PostgreSQL (bkmv-writer.ts), so
 * fewer bytes are turned into text there and parsed here. exportDocument takes an ExportSnapshot, so reading one
 * of them does not compile.
 */
export const UNREAD_SNAPSHOT_KEYS = [
  'dealer',
  'branding',
  'vatExemptionReason',
  'note',
  'allocationNumber',
  'credited',
  'metadata',
  'exchangeRateDate',
  'exchangeRateSource',
  'language',
  'section46',
] as const satisfies readonly (keyof DocumentSnapshot)[];

/** A snapshot as the export reads it. */
export type ExportSnapshot = Omit<DocumentSnapshot, (typeof UNREAD_SNAPSHOT_KEYS)[number]>;

/** The customer key of an occasional customer (see the header comment): `<doc type>-<doc number>`. */
export function occasionalCustomerKey(docType: number, docNumber: number | string): string {
  return `${docType}-${docNumber}`;
}

const ACQUIRERS: [RegExp, number][] = [
  [/^(1|isracard|ישראכרט)$/i, 1],
  [/^(2|cal|visa cal|כאל|ויזה כאל)$/i, 2],
  [/^(3|diners|דיינרס)$/i, 3],
  [/^(4|amex|american express|אמריקן אקספרס)$/i, 4],
  [/^(6|leumi ?card|max|לאומי ?קארד|לאומי ?כארד|מקס)$/i, 6],
];
const DEAL_TYPES: [RegExp, number][] = [
  [/^(1|regular|רגיל)$/i, 1],
  [/^(2|installments?|payments|תשלומים)$/i, 2],
  [/^(3|credit|קרדיט)$/i, 3],
  [/^(4|deferred|חיוב נדחה)$/i, 4],
  [/^(5|other|אחר)$/i, 5],
];

/** A free-text card company / deal type to its OPENFRMT code; unknown → null (written as 0). */
export function codeOf(table: [RegExp, number][], v: string | null): number | null {
  if (!v) return null;
  const t = v.trim();
  for (const [re, code] of table) if (re.test(t)) return code;
  return null;
}

export const acquirerCode = (v: string | null) => codeOf(ACQUIRERS, v);
export const dealTypeCode = (v: string | null) => codeOf(DEAL_TYPES, v);

function payment(p: DocumentPayment, amount: number): ExportDocument['payments'][number] {
  const isCheque = p.method === 2;
  const isCard = p.method === 3;
  return {
    method: p.method,
    bankNo: isCheque ? p.bankCode : null,
    bankBranch: isCheque ? p.branchCode : null,
    bankAccount: isCheque ? p.accountNumber : null,
    chequeNo: isCheque ? p.checkNumber : null,
    dueDate: isCheque || isCard ? p.dueDate : null,
    amount,
    acquirer: isCard ? acquirerCode(p.cardCompany) : null,
    cardName: isCard ? p.cardName : null,
    dealType: isCard ? dealTypeCode(p.cardTxType) : null,
  };
}

/** A VAT-inclusive agorot figure → ex-VAT at the document's rate. */
function exVat(gross: number, rateBp: number): number {
  return rateBp === 0 ? gross : roundHalfAwayFromZero((gross * 10000) / (10000 + rateBp));
}

/**
 * A foreign-currency document is written in shekels (A000/1032 leading currency ILS): C100 amounts
 * are its frozen shekel totals, with its total in the currency in 1217 and the code in 1218; D110
 * line totals and D120 payments are the shekel amounts frozen at issue (docs/currency.md), which add
 * up to the shekel totals exactly; unit prices and line discounts are converted one by one, as issue
 * converted them to make each line's amount (so 1267 = 1264 × 1265 − 1266); a line of one with no
 * discount writes its amount as its price (the same figure, or a credit's remainder closing in shekels).
 */
type Line = DocumentSnapshot['lines'][number];

function shekelFigures(snap: ExportSnapshot) {
  const currency = snap.currency ?? SHEKEL;
  const rate = snap.exchangeRate ?? null;
  const t = snap.ils ?? snap.totals;
  const lineAmounts = ilsLineAmounts(snap);
  const payments = ilsPaymentAmounts(snap);
  if (currency === SHEKEL || rate === null) return { t, foreign: null, lineAmounts, unit: (x: number) => x, unitOf: (l: Line) => l.unitPriceExVat, payments };
  const unit = (x: number) => toAgorot(x, currency, rate);
  return {
    t,
    foreign: { total: toHundredths(snap.totals.totalIncVat, currency), currency },
    lineAmounts,
    unit,
    // A line of one, with no discount, is its amount: what is left of a document credited in parts is
    // such a line, whose shekels close the original's to the agora (documents/partial-credit-ils.ts).
    // Issued before issue 29 (no amountIls), a line is written as it was then.
    unitOf: (l: Line) => (l.amountIls !== undefined && l.quantity === 1 && l.lineDiscount === 0 ? l.amountIls : unit(l.unitPriceExVat)),
    payments,
  };
}

export function exportDocument(snap: ExportSnapshot): ExportDocument {
  const { date: issueDate, time: issueTime } = israelDateTime(snap.issuedAt);
  const money = shekelFigures(snap);
  const t = money.t;
  const gross = snap.priceMode === 'gross';
  // How the type is written (doc-types.ts `openfrmt`): its amounts' sign, C100 as a receipt, D110/D120/1224.
  const written = DOC_TYPES[snap.docType].openfrmt;
  const sign = written.amounts === 'positive' ? (x: number) => Math.abs(x) : (x: number) => x;
  const isReceipt = written.c100 === 'receipt';
  const discountExVat = gross ? exVat(t.discountAmount, snap.vatRateBp) : t.discountAmount;
  const party = snap.party;
  const withLines = written.d110;
  const withPayments = written.d120;
  const base = snap.linkedDocument;
  return {
    docType: snap.docType,
    docNumber: String(snap.docNumber),
    docDate: snap.documentDate,
    header: {
      issueDate,
      issueTime,
      partyName: party?.name || WALK_IN_NAME,
      partyStreet: party?.address ?? null,
      partyPhone: party?.phone ?? null,
      partyVatId: party?.taxId && /^\d{1,9}$/.test(party.taxId) ? party.taxId : null,
      valueDate: snap.valueDate,
      foreignTotal: money.foreign ? sign(money.foreign.total) : null,
      foreignCurrency: money.foreign?.currency ?? null,
      amountBeforeDiscount: sign(isReceipt ? t.totalIncVat : t.totalExVat + discountExVat),
      discount: isReceipt ? 0 : Math.abs(discountExVat),
      amountAfterDiscountExVat: sign(isReceipt ? t.totalIncVat : t.totalExVat),
      vatAmount: sign(isReceipt ? 0 : t.vatAmount),
      totalIncVat: sign(t.totalIncVat),
      withholding: written.withholding1224 ? Math.abs(t.withholdingAmount) : 0,
      partyKey:
        party?.key || party?.taxId || (base ? occasionalCustomerKey(base.docType, base.docNumber) : occasionalCustomerKey(snap.docType, snap.docNumber)),
      cancelled: false,
    },
    lines: withLines
      ? snap.lines.map((l, i) => ({
          // The base document (clarification 6): a credit note's original, or the document a converted line came from (issue 30).
          baseDocType: l.source ? l.source.docType : base ? base.docType : null,
          baseDocNumber: l.source ? String(l.source.docNumber) : base ? String(base.docNumber) : null,
          sku: l.sku,
          description: l.description,
          unit: l.unit || 'יחידה',
          quantity: written.amounts === 'positive' ? Math.abs(l.quantity) : l.quantity,
          unitPriceExVat: sign(gross ? exVat(money.unitOf(l), snap.vatRateBp) : money.unitOf(l)),
          lineDiscount: Math.abs(gross ? exVat(money.unit(l.lineDiscount), snap.vatRateBp) : money.unit(l.lineDiscount)),
          lineTotal: sign(gross ? exVat(money.lineAmounts[i], snap.vatRateBp) : money.lineAmounts[i]),
          vatRateBp: snap.vatRateBp,
        }))
      : [],
    payments: withPayments ? snap.payments.map((p, i) => payment(p, money.payments[i])) : [],
  };
}

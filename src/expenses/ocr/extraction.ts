/**
 * What the OCR model is asked for (a JSON schema for `response_format`) and how its answer is
 * turned into draft fields. Pure: no I/O.
 */
import { isAllocationNumber } from '../../platform/allocation-number.ts';
import { SUPPLIER_DOC_TYPES, type SupplierDocType } from '../lists.ts';
import { isAcceptedDate } from '../../platform/http/formats.ts';
import { maxAgorot, textProblemOf, type CarriedField } from '../../openfrmt/index.ts';

/**
 * What a prefilled value may be: exactly what the expense API itself accepts (src/expenses/schemas.ts
 * EXPENSE_LIMITS reads the same OPENFRMT fields). A model's value beyond them is not stored (not
 * cut: a cut document number or name is a wrong one); the raw extraction keeps what it said.
 */
export const PREFILL_LIMITS = {
  /** B100/1368: the magnitude of an amount, agorot. */
  amountAgorot: maxAgorot('expenseAmount'),
} as const;

const nullable = (type: string, description: string) => ({ type: [type, 'null'], description });

/** The structured output schema sent to the model (strict mode: every property required, nulls allowed). */
export const RECEIPT_JSON_SCHEMA = {
  type: 'object',
  additionalProperties: false,
  required: ['supplierName', 'supplierTaxId', 'documentType', 'documentNumber', 'documentDate', 'amountExVat', 'vatAmount', 'amountIncVat', 'allocationNumber'],
  properties: {
    supplierName: nullable('string', 'Name of the business that issued the document'),
    supplierTaxId: nullable('string', 'Supplier Israeli tax id (ע.מ / ח.פ), digits only'),
    documentType: {
      type: ['string', 'null'],
      enum: [...SUPPLIER_DOC_TYPES, null],
      description:
        'tax_invoice (חשבונית מס), tax_invoice_receipt (חשבונית מס קבלה), credit_invoice (חשבונית זיכוי), receipt (קבלה), import_entry (רשימון יבוא), other',
    },
    documentNumber: nullable('string', 'The document number as printed'),
    documentDate: nullable('string', 'Document date, YYYY-MM-DD'),
    amountExVat: nullable('number', 'Total before VAT, in shekels'),
    vatAmount: nullable('number', 'VAT amount, in shekels'),
    amountIncVat: nullable('number', 'Total including VAT, in shekels'),
    allocationNumber: nullable('string', 'Israel Invoices allocation number (מספר הקצאה), digits only'),
  },
} as const;

export const OCR_INSTRUCTIONS =
  'You read Israeli purchase documents (receipts and invoices, often in Hebrew). Extract the fields of the ' +
  'JSON schema from the attached document. Use null for anything not printed on it; never guess. Amounts are ' +
  'in shekels as numbers (e.g. 118.5). Dates are YYYY-MM-DD.';

/** Draft fields prefilled from an extraction; every field may be absent. */
export interface PrefilledFields {
  supplierName: string | null;
  supplierTaxId: string | null;
  supplierDocType: SupplierDocType | null;
  supplierDocNumber: string | null;
  supplierDocDate: string | null;
  allocationNumber: string | null;
  amountExVat: number | null;
  vatAmount: number | null;
  amountIncVat: number | null;
}

function str(v: unknown, max = 200): string | null {
  // Models sometimes answer a document number or tax id as a JSON number.
  if (typeof v === 'number' && Number.isSafeInteger(v) && v >= 0) v = String(v);
  if (typeof v !== 'string') return null;
  const t = v.trim();
  return t === '' || t.length > max ? null : t;
}

/** A text that fits the OPENFRMT field that will carry it, as written there (folded), or null. */
function carriedText(v: unknown, field: CarriedField): string | null {
  const t = str(v, 10_000);
  return t !== null && textProblemOf(t, field) === null ? t : null;
}

const fitsAmount = (v: number | null) => v === null || (Number.isSafeInteger(v) && Math.abs(v) <= PREFILL_LIMITS.amountAgorot);

/** Shekels (number or "1,234.50" / "₪118") → agorot; null when not a finite amount. */
export function toAgorot(v: unknown): number | null {
  let n: number;
  if (typeof v === 'number') n = v;
  else if (typeof v === 'string') {
    const cleaned = v.replace(/[₪,\s]|NIS|ILS/gi, '');
    if (!/^-?\d+(\.\d+)?$/.test(cleaned)) return null;
    n = Number(cleaned);
  } else return null;
  if (!Number.isFinite(n)) return null;
  const agorot = Math.round(n * 100);
  // Beyond what the expense API accepts (B100/1368), or inexact as a JSON number: not an amount.
  return Number.isSafeInteger(agorot) && Math.abs(agorot) <= PREFILL_LIMITS.amountAgorot ? agorot : null;
}

function isoDate(v: unknown): string | null {
  const s = str(v, 40);
  if (!s) return null;
  let m = /^(\d{4})-(\d{2})-(\d{2})$/.exec(s);
  let y: number, mo: number, d: number;
  if (m) [y, mo, d] = [Number(m[1]), Number(m[2]), Number(m[3])];
  else {
    // Israeli receipts print day first: 31/12/2025 or 31.12.25.
    m = /^(\d{1,2})[./-](\d{1,2})[./-](\d{2}|\d{4})$/.exec(s);
    if (!m) return null;
    [d, mo, y] = [Number(m[1]), Number(m[2]), Number(m[3].length === 2 ? `20${m[3]}` : m[3])];
  }
  const iso = `${String(y).padStart(4, '0')}-${String(mo).padStart(2, '0')}-${String(d).padStart(2, '0')}`;
  // The date rule of the whole API: a misread day (31.02) or year (2205) prefills nothing.
  return isAcceptedDate(iso) ? iso : null;
}

function digits(v: unknown, min: number, max: number): string | null {
  const s = str(v, 40);
  if (!s) return null;
  const d = s.replace(/\D/g, '');
  return d.length >= min && d.length <= max ? d : null;
}

/** An allocation number the model read (spaces and dashes dropped), when it has the one form (platform/allocation-number.ts). */
function allocationNumberOf(v: unknown): string | null {
  const d = digits(v, 9, 9);
  return d !== null && isAllocationNumber(d) ? d : null;
}

/**
 * Turns the model's JSON into draft fields. Anything malformed becomes null (the caller sees the
 * raw extraction too). Amounts are kept only when they agree (ex + VAT = total, within one agora
 * of rounding, then the total wins); otherwise only the total is kept: OCR amounts are suggestions.
 */
export function prefillFrom(raw: Record<string, unknown>): PrefilledFields {
  const docType = (SUPPLIER_DOC_TYPES as readonly string[]).includes(String(raw.documentType)) ? (raw.documentType as SupplierDocType) : null;
  let ex = toAgorot(raw.amountExVat);
  let vat = toAgorot(raw.vatAmount);
  const inc = toAgorot(raw.amountIncVat);
  if (inc !== null && ex !== null && vat !== null) {
    if (Math.abs(ex + vat - inc) > 1) ex = vat = null;
    else ex = inc - vat;
  } else if (inc === null && ex !== null && vat !== null) {
    // total derived later from the two parts
  } else if (inc !== null) {
    if (ex !== null && vat === null) vat = inc - ex;
    else if (vat !== null && ex === null) ex = inc - vat;
  }
  const signs = [ex, vat, inc].filter((v): v is number => v !== null);
  if (signs.some((v) => v > 0) && signs.some((v) => v < 0)) ex = vat = null;
  if (vat !== null && inc !== null && Math.abs(vat) > Math.abs(inc)) ex = vat = null;
  let total = inc ?? (ex !== null && vat !== null ? ex + vat : null);
  // A derived amount (the total of two parts, a part from the total) within the limit too, or none.
  if (![ex, vat, total].every(fitsAmount)) ex = vat = total = null;
  return {
    supplierName: carriedText(raw.supplierName, 'supplierName'),
    supplierTaxId: digits(raw.supplierTaxId, 8, 9),
    supplierDocType: docType,
    supplierDocNumber: carriedText(raw.documentNumber, 'expenseDocNumber'),
    supplierDocDate: isoDate(raw.documentDate),
    allocationNumber: allocationNumberOf(raw.allocationNumber),
    amountExVat: ex,
    vatAmount: vat,
    amountIncVat: total,
  };
}

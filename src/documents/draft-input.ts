/**
 * Turning a draft body into stored document fields: defaults, payment codes, validation that
 * names the field. Pure: the saved party (if any) is looked up by the caller and passed in.
 */
import { validation, AppError } from '../platform/errors.ts';
import { SHEKEL } from '../platform/currencies.ts';
import { checkedDate } from '../platform/http/formats.ts';
import { normalizeTaxId } from '../platform/tax-id.ts';
import type { DealerType } from '../businesses/dealer-types.ts';
import { type DocumentRow } from './snapshot.ts';
import { PAYMENT_METHOD_NAMES, type DocumentLine, type DocumentParty, type DocumentPayment, type PaymentMethodCode } from './snapshot-types.ts';
import type { LineInputBody, PaymentInputBody } from './schemas.ts';
import { lineAmount, vatRateProblem } from './totals.ts';
import { DOC_TYPES, docTypeAllowed, docTypeRefusal, docTypesWhere, type DocTypeRule } from './doc-types.ts';
import { donorIdProblem } from './donation.ts';
import { decimalsProblemOf, digitsProblemOf, textProblemOf, type CarriedField } from '../openfrmt/index.ts';

/** The Hebrew word for "unit", the default line unit. */
export const DEFAULT_UNIT = 'יחידה';

export function paymentMethodCode(m: number | string): PaymentMethodCode {
  if (typeof m === 'number') return m as PaymentMethodCode;
  const code = (PAYMENT_METHOD_NAMES as Record<string, PaymentMethodCode>)[m];
  if (code === undefined) throw validation('method', `unknown payment method "${m}"`);
  return code;
}

export function normalizeLine(l: LineInputBody): DocumentLine {
  const line = {
    description: l.description.trim(),
    quantity: l.quantity,
    unitPriceExVat: l.unitPriceExVat,
    sku: l.sku ?? null,
    unit: l.unit?.trim() || DEFAULT_UNIT,
    lineDiscount: l.lineDiscount ?? 0,
  };
  return { ...line, amount: lineAmount(line) };
}

export function normalizePayment(p: PaymentInputBody): DocumentPayment {
  return {
    method: paymentMethodCode(p.method),
    amount: p.amount,
    dueDate: p.dueDate ?? null,
    bankCode: p.bankCode ?? null,
    branchCode: p.branchCode ?? null,
    accountNumber: p.accountNumber ?? null,
    checkNumber: p.checkNumber ?? null,
    cardCompany: p.cardCompany ?? null,
    cardName: p.cardName ?? null,
    cardTxType: p.cardTxType ?? null,
    // Only when given, so shekel documents keep the shape they always had.
    ...(p.currency ? { currency: p.currency } : {}),
    ...(p.exchangeRate ? { exchangeRate: p.exchangeRate } : {}),
  };
}

export function normalizeInlineParty(p: {
  name: string;
  taxId?: string | null;
  phone?: string | null;
  email?: string | null;
  address?: string | null;
}): DocumentParty {
  let taxId: string | null = null;
  if (p.taxId && p.taxId.trim() !== '') {
    const r = normalizeTaxId(p.taxId);
    if (!r.ok) throw validation('body.party.taxId', r.problem);
    taxId = r.value;
  }
  return {
    partyId: null,
    key: null,
    name: p.name.trim(),
    taxId,
    phone: p.phone ?? null,
    email: p.email ?? null,
    address: p.address ?? null,
  };
}

/** The stored fields of a draft, merged from the body and (on patch) the current draft. */
export type DraftFields = Pick<
  DocumentRow,
  | 'docType'
  | 'party'
  | 'priceMode'
  | 'lines'
  | 'payments'
  | 'note'
  | 'documentDate'
  | 'valueDate'
  | 'vatRateBp'
  | 'vatExemptionReason'
  | 'discountAmount'
  | 'withholdingAmount'
  | 'allocationNumber'
  | 'currency'
  | 'exchangeRate'
  | 'language'
>;

/**
 * Checks a merged draft. Drafts may be incomplete in one way only: payments of a 320/400 can
 * arrive later (issue answers 422 payments_mismatch). Everything else is refused at once (400).
 */
export function checkDraft(d: DraftFields, dealerType: DealerType): void {
  if (!docTypeAllowed(dealerType, d.docType)) {
    throw new AppError('doc_type_not_allowed', `docType: ${docTypeRefusal(dealerType)}`);
  }
  checkPartsOfType(d, DOC_TYPES[d.docType]);
  checkCurrency(d);
  const rateProblem = vatRateProblem(d.vatRateBp, d.vatExemptionReason);
  if (rateProblem) throw validation(d.vatRateBp === 0 || d.vatRateBp === null ? 'body.vatExemptionReason' : 'body.vatRateBp', rateProblem);
  checkExportable(d);
  d.lines.forEach((l, i) => {
    if (l.amount < 0) throw validation(`body.lines[${i}].lineDiscount`, 'is larger than the line amount');
  });
  const linesTotal = d.lines.reduce((a, l) => a + l.amount, 0);
  if (DOC_TYPES[d.docType].totalsFrom === 'lines' && d.discountAmount > linesTotal) {
    throw validation('body.discountAmount', `is larger than the sum of the lines (${linesTotal} agorot)`);
  }
  // The route schema already refuses these (IsoDate); the merged draft is checked again with the
  // same rule, so no caller that bypasses the schema stores a date the API would refuse.
  checkedDate(d.documentDate, 'body.documentDate');
  checkedDate(d.valueDate, 'body.valueDate');
  d.payments.forEach((p, i) => {
    if (p.dueDate !== null) checkedDate(p.dueDate, `body.payments[${i}].dueDate`);
  });
}

/** What the type requires or refuses (doc-types.ts): lines, payments, withholding, a document discount. */
function checkPartsOfType(d: DraftFields, rule: DocTypeRule): void {
  const a = (r: DocTypeRule) => `a ${r.code} ${r.noun}`;
  if (rule.linesRequired && d.lines.length === 0) {
    throw validation('body.lines', `a ${d.docType} needs at least one line`);
  }
  if (rule.payments === 'none' && d.payments.length > 0) {
    const paid = docTypesWhere((r) => r.createdBy === 'draft' && r.payments !== 'none').map((c) => a(DOC_TYPES[c]));
    throw validation('body.payments', `${a(rule)} carries no payments; use ${paid.join(' or ')}`);
  }
  if (!rule.withholding && d.withholdingAmount !== 0) {
    throw validation(
      'body.withholdingAmount',
      `withholding is recorded on receipts (${docTypesWhere((r) => r.withholding).join(', ')}), not on a ${rule.code}`,
    );
  }
  if (rule.totalsFrom === 'payments' && d.discountAmount !== 0) {
    throw validation('body.discountAmount', `${a(rule)} has no document discount: its total is the sum of the payments`);
  }
  const donor = donorIdProblem(rule.code, d.party);
  if (donor) throw validation('body.party.taxId', donor);
}

/**
 * A shekel document has no rate; a foreign one may carry its own (else it takes one at issue). A
 * payment may name the currency it was made in: its rate is needed only for a third currency (the
 * document's rate and the shekel's are known).
 */
function checkCurrency(d: Pick<DraftFields, 'currency' | 'exchangeRate' | 'payments'>): void {
  if (d.currency === SHEKEL && d.exchangeRate !== null) {
    throw validation('body.exchangeRate', 'a shekel (ILS) document has no exchange rate; leave it out');
  }
  d.payments.forEach((p, i) => {
    const own = p.currency ?? d.currency;
    const third = own !== SHEKEL && own !== d.currency;
    if (third && !p.exchangeRate) {
      throw validation(`body.payments[${i}].exchangeRate`, `is required for a payment in ${own}: shekels for one ${own}`);
    }
    if (!third && p.exchangeRate) {
      throw validation(`body.payments[${i}].exchangeRate`, `a payment in ${own} takes the ${own === SHEKEL ? 'shekel' : "document's"} rate; leave it out`);
    }
  });
}

/** Refuses a text whose folded form would not fit its OPENFRMT field (it would be cut). */
function fitText(value: string | null | undefined, carried: CarriedField, field: string): void {
  if (!value) return;
  const problem = textProblemOf(value, carried);
  if (problem) throw validation(field, problem);
}

/**
 * What the schema cannot say about a draft's values and the export needs (src/openfrmt/limits.ts):
 * quantities of at most 4 decimals (D110/1264 — so the line total is quantity × price exactly as
 * written), texts within their fields as written in
 * ISO-8859-8, bank fields within their digits. The totals are checked where they are computed
 * (totalsOfDraft). A saved party (`{partyId}`) is checked as it is copied into the draft.
 */
export function checkExportable(d: Pick<DraftFields, 'lines' | 'payments' | 'party'>): void {
  d.lines.forEach((l, i) => {
    const at = `body.lines[${i}]`;
    const decimals = decimalsProblemOf(l.quantity, 'quantity');
    if (decimals) throw validation(`${at}.quantity`, decimals);
    fitText(l.description, 'lineDescription', `${at}.description`);
    fitText(l.sku, 'lineSku', `${at}.sku`);
    fitText(l.unit, 'lineUnit', `${at}.unit`);
  });
  d.payments.forEach((p, i) => {
    const at = `body.payments[${i}]`;
    const digits: [string | null, CarriedField, string][] = [
      [p.bankCode, 'bankNo', 'bankCode'],
      [p.branchCode, 'bankBranch', 'branchCode'],
      [p.accountNumber, 'bankAccount', 'accountNumber'],
      [p.checkNumber, 'chequeNo', 'checkNumber'],
    ];
    for (const [value, carried, name] of digits) {
      const problem = value ? digitsProblemOf(value, carried) : null;
      if (problem) throw validation(`${at}.${name}`, problem);
    }
    fitText(p.cardName, 'cardName', `${at}.cardName`);
    // OPENFRMT D120/1310 must carry a cheque's number (the export's verifier refuses a cheque without one).
    if (p.method === 2 && !/[1-9]/.test(p.checkNumber ?? '')) {
      throw validation(`${at}.checkNumber`, 'is required for a cheque (its number, with at least one non-zero digit)');
    }
  });
  if (d.party) {
    fitText(d.party.name, 'partyName', 'body.party.name');
    fitText(d.party.address, 'partyAddress', 'body.party.address');
    fitText(d.party.phone, 'partyPhone', 'body.party.phone');
  }
}

/**
 * The journal entry of each fact (pure): what an issued document or a recorded expense writes to the
 * books, in agorot. Every entry balances by construction; `balanced` checks it again before writing.
 *
 * - 305 tax invoice: Dr customer (total incl. VAT) / Cr revenue (excl. VAT) / Cr output VAT.
 * - 320 tax invoice-receipt: the invoice, and in the same entry the receipt: Dr each means of payment
 *   and the tax withheld / Cr customer. The customer nets to zero.
 * - 330 credit note: the invoice's lines mirrored (Dr revenue, Dr output VAT / Cr customer).
 * - 400 receipt: Dr each means of payment and the tax withheld / Cr customer. A negative receipt (the
 *   credit of a 400) carries negative amounts: each line changes side. A patur or ngo dealer keeps no
 *   customer accounts for receipts: its receipt is its revenue (Cr revenue).
 * - 405 donation receipt (ngo): Dr each means of payment / Cr donation income (4200, outside the VAT
 *   report: a donation is no sale). Its credit, a negative 405, changes sides.
 * - Recorded expense: Dr the category's account (excl. VAT, plus the VAT that may not be deducted) and
 *   Dr input VAT (the deductible share; fixed assets apart) / Cr supplier. Its storno row carries
 *   negative amounts: the same lines on the other side.
 */
import type { DealerType } from '../businesses/dealer-types.ts';
import type { DocumentSnapshot } from '../documents/snapshot-types.ts';
import { ilsPaymentAmounts } from '../documents/currency.ts';
import { DOC_TYPES } from '../documents/doc-types.ts';
import {
  CUSTOMERS,
  DONATION_INCOME,
  FIXED_ASSET_CATEGORIES,
  INPUT_VAT,
  INPUT_VAT_FIXED_ASSETS,
  OCCASIONAL_CUSTOMERS,
  OCCASIONAL_SUPPLIERS,
  OUTPUT_VAT,
  SUPPLIERS,
  WITHHOLDING_RECEIVABLE,
  expenseAccount,
  partyAccountCode,
  paymentAccount,
  revenueAccount,
  taxIdAccountCode,
} from './chart.ts';

export type Side = 1 | 2;
export const DEBIT: Side = 1;
export const CREDIT: Side = 2;

export interface JournalLine {
  account: string;
  side: Side;
  /** Agorot, > 0. */
  amount: number;
  /** A foreign-currency fact's line (B100/1367, 1369): its currency and the amount in it (minor units, > 0). */
  currency?: string;
  foreignAmount?: number;
}

/** A party sub-account the entry needs (created on first use). */
export interface PartyAccount {
  code: string;
  control: typeof CUSTOMERS | typeof SUPPLIERS;
  /** The saved party; null for a sub-account by tax id. */
  partyId: string | null;
  name: string;
}

/** Who a fact is with, as the books see them: a saved party (id and running key) or one named on the fact. */
export interface BookParty {
  partyId: string | null;
  key: string | null;
  name: string;
  taxId: string | null;
}

/**
 * The account of a customer or supplier (decisions.md "Parties in the ledger"; OPENFRMT B110 1419, the
 * party's VAT number, is mandatory on their accounts in double-entry books): a saved party with a tax id
 * has its own sub-account by its running key (`1100-C00001`); a party named on the fact with a tax id
 * but not saved, one by its tax id (`1100-T516179157`); anyone without a tax id shares the occasional
 * account (`1190`, `2190`).
 */
export function partyAccountOf(control: typeof CUSTOMERS | typeof SUPPLIERS, party: BookParty | null): { code: string; account: PartyAccount | null } {
  const taxId = party?.taxId && /^[0-9]{9}$/.test(party.taxId) ? party.taxId : null;
  if (!party || !taxId) return { code: control === CUSTOMERS ? OCCASIONAL_CUSTOMERS : OCCASIONAL_SUPPLIERS, account: null };
  const saved = party.partyId && party.key ? { partyId: party.partyId, key: party.key } : null;
  const code = saved ? partyAccountCode(control, saved.key) : taxIdAccountCode(control, taxId);
  return { code, account: { code, control, partyId: saved?.partyId ?? null, name: party.name.slice(0, 50) } };
}

export interface JournalDraft {
  lines: JournalLine[];
  partyAccounts: PartyAccount[];
}

/** The currency of a foreign line and its signed amount in it (same sign as the shekel amount). */
type Foreign = { currency: string; signed: number } | null;

/** Adds a signed amount on a side: a negative amount goes to the other side; zero writes nothing. */
function post(lines: JournalLine[], { account, side, signed, foreign = null }: { account: string; side: Side; signed: number; foreign?: Foreign }): void {
  if (signed === 0) return;
  const flipped: Side = side === DEBIT ? CREDIT : DEBIT;
  const line: JournalLine = { account, side: signed > 0 ? side : flipped, amount: Math.abs(signed) };
  if (foreign) {
    line.currency = foreign.currency;
    line.foreignAmount = Math.abs(foreign.signed);
  }
  lines.push(line);
}

/** Lines on the same account and side are one line (a receipt paid twice in cash: one cash line). */
function merged(lines: JournalLine[]): JournalLine[] {
  const out = new Map<string, JournalLine>();
  for (const l of lines) {
    const k = `${l.account}\u0000${l.side}\u0000${l.currency ?? ''}`;
    const held = out.get(k);
    if (held) {
      held.amount += l.amount;
      if (held.foreignAmount !== undefined) held.foreignAmount += l.foreignAmount ?? 0;
    } else out.set(k, { ...l });
  }
  return [...out.values()];
}

export function balanced(lines: JournalLine[]): boolean {
  let debit = 0;
  let credit = 0;
  for (const l of lines) {
    if (!Number.isSafeInteger(l.amount) || l.amount <= 0) return false;
    if (l.side === DEBIT) debit += l.amount;
    else credit += l.amount;
  }
  return lines.length >= 2 && debit === credit;
}

export function journalOfDocument(snap: DocumentSnapshot, dealerType: DealerType): JournalDraft {
  const vatDealer = dealerType === 'murshe' || dealerType === 'company';
  const { code: customer, account } = partyAccountOf(CUSTOMERS, snap.party);
  const partyAccounts = account ? [account] : [];
  // The books are in shekels: a foreign-currency document posts its frozen shekel figures, and
  // each line carries the amount in the document's currency beside it (docs/currency.md).
  const t = snap.ils ?? snap.totals;
  const f = snap.totals;
  const currency = snap.currency && snap.currency !== 'ILS' ? snap.currency : null;
  const fx = (signed: number): Foreign => (currency ? { currency, signed } : null);
  const revenue = revenueAccount(vatDealer, snap.vatExemptionReason);
  const lines: JournalLine[] = [];
  const invoice = (sign: 1 | -1) => {
    post(lines, { account: customer, side: DEBIT, signed: sign * t.totalIncVat, foreign: fx(sign * f.totalIncVat) });
    post(lines, { account: revenue, side: CREDIT, signed: sign * t.totalExVat, foreign: fx(sign * f.totalExVat) });
    post(lines, { account: OUTPUT_VAT, side: CREDIT, signed: sign * t.vatAmount, foreign: fx(sign * f.vatAmount) });
  };
  const receipt = (against: string) => {
    const shekels = ilsPaymentAmounts(snap);
    snap.payments.forEach((p, i) => post(lines, { account: paymentAccount(p.method), side: DEBIT, signed: shekels[i], foreign: fx(p.amount) }));
    post(lines, { account: WITHHOLDING_RECEIVABLE, side: DEBIT, signed: t.withholdingAmount, foreign: fx(f.withholdingAmount) });
    const received = shekels.reduce((a, x) => a + x, 0) + t.withholdingAmount;
    post(lines, { account: against, side: CREDIT, signed: received, foreign: fx(snap.payments.reduce((a, p) => a + p.amount, 0) + f.withholdingAmount) });
  };
  // The type's entry (doc-types.ts `journal`): its invoice part, then its receipt part. A receipt on
  // its own is against the customer, or against revenue for an exempt dealer (no customer accounts); a
  // donation receipt against donation income.
  const rule = DOC_TYPES[snap.docType];
  const entry = rule.journal;
  if (entry.invoice !== 0) invoice(entry.invoice);
  if (entry.receipt) receipt(rule.donation ? DONATION_INCOME : entry.invoice !== 0 || vatDealer ? customer : revenue);
  // A patur/ngo receipt books no customer: drop a sub-account it does not use.
  const used = merged(lines);
  return { lines: used, partyAccounts: partyAccounts.filter((a) => used.some((l) => l.account === a.code)) };
}

export interface ExpenseFacts {
  categoryKey: string;
  amountExVat: number;
  vatAmount: number;
  amountIncVat: number;
  deductibleVat: number;
  supplier: BookParty | null;
}

export function journalOfExpense(e: ExpenseFacts): JournalDraft {
  const { code: supplier, account } = partyAccountOf(SUPPLIERS, e.supplier);
  const partyAccounts = account ? [account] : [];
  const lines: JournalLine[] = [];
  post(lines, { account: expenseAccount(e.categoryKey), side: DEBIT, signed: e.amountExVat + (e.vatAmount - e.deductibleVat) });
  post(lines, { account: FIXED_ASSET_CATEGORIES.has(e.categoryKey) ? INPUT_VAT_FIXED_ASSETS : INPUT_VAT, side: DEBIT, signed: e.deductibleVat });
  post(lines, { account: supplier, side: CREDIT, signed: e.amountIncVat });
  const used = merged(lines);
  return { lines: used, partyAccounts: partyAccounts.filter((a) => used.some((l) => l.account === a.code)) };
}

/** A payment to a supplier (issue 29): Dr the supplier's account / Cr cash or the bank (chart.ts paidFromAccount). */
export function journalOfSupplierPayment(p: { supplierAccount: string; paidFrom: string; amount: number }): JournalLine[] {
  const lines: JournalLine[] = [];
  post(lines, { account: p.supplierAccount, side: DEBIT, signed: p.amount });
  post(lines, { account: p.paidFrom, side: CREDIT, signed: p.amount });
  return lines;
}

/** The same entry the other way round (a reversing entry). */
export function reversed(lines: JournalLine[]): JournalLine[] {
  return lines.map((l) => ({ ...l, side: l.side === DEBIT ? CREDIT : DEBIT }));
}

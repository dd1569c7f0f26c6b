/**
 * The generator and the expected books of the ledger property test (ledger.property.test.ts): a seeded
 * PRNG, random drafts of documents and expenses, and the figures each fact must bring to the books,
 * computed here from the decisions (decisions.md: VAT once per document, half away from zero; a 2/3
 * deduction rounded the same way), never from src/.
 */
import { TAX_IDS } from '../helpers/env.ts';

export function mulberry32(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) | 0;
    let t = Math.imul(a ^ (a >>> 15), 1 | a);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

export class Gen {
  private next: () => number;
  constructor(seed: number) {
    this.next = mulberry32(seed);
  }
  float(): number {
    return this.next();
  }
  /** Integer in [lo, hi], both included. */
  int(lo: number, hi: number): number {
    return lo + Math.floor(this.next() * (hi - lo + 1));
  }
  chance(p: number): boolean {
    return this.next() < p;
  }
  pick<T>(xs: readonly T[]): T {
    return xs[Math.floor(this.next() * xs.length)];
  }
}

/** round(n / d) half away from zero, exactly. */
export function divRound(n: bigint, d: bigint): bigint {
  const neg = n < 0n !== d < 0n;
  const an = n < 0n ? -n : n;
  const ad = d < 0n ? -d : d;
  const q = (2n * an + ad) / (2n * ad);
  return neg ? -q : q;
}

export type Dealer = 'company' | 'murshe' | 'patur' | 'ngo';
export const vatDealer = (d: Dealer) => d === 'company' || d === 'murshe';
export type Treatment = 'taxable' | 'zeroRatedExport' | 'eilat' | 'exempt';

export function addDays(date: string, days: number): string {
  return new Date(Date.parse(`${date}T00:00:00Z`) + days * 86_400_000).toISOString().slice(0, 10);
}

/** The totals a 305/320 must have (integer quantities: line = q × price − line discount). */
function invoiceTotals(lines: { q: number; price: number; disc: number }[], discount: number, gross: boolean, rateBp: number) {
  const sum = BigInt(lines.reduce((s, l) => s + l.q * l.price - l.disc, 0) - discount);
  const rate = BigInt(rateBp);
  if (gross) {
    const ex = divRound(sum * 10000n, 10000n + rate);
    return { exVat: Number(ex), vat: Number(sum - ex), incVat: Number(sum) };
  }
  const vat = divRound(sum * rate, 10000n);
  return { exVat: Number(sum), vat: Number(vat), incVat: Number(sum + vat) };
}

function split(g: Gen, total: number, maxParts: number): number[] {
  const k = Math.max(1, Math.min(total, g.int(1, maxParts)));
  const parts: number[] = [];
  let left = total;
  for (let i = 0; i < k - 1; i++) {
    const p = g.int(1, left - (k - 1 - i));
    parts.push(p);
    left -= p;
  }
  parts.push(left);
  return parts;
}

function payment(g: Gen, amount: number, date: string): Record<string, unknown> {
  switch (g.int(0, 4)) {
    case 0:
      return { method: 'cash', amount };
    case 1:
      return {
        method: 'cheque',
        amount,
        bankCode: '12',
        branchCode: '600',
        accountNumber: '123456',
        checkNumber: String(g.int(1000, 9999)),
        dueDate: addDays(date, g.int(0, 60)),
      };
    case 2:
      return { method: 'card', amount, cardCompany: g.pick(['isracard', 'cal', 'max']), cardName: 'ויזה' };
    case 3:
      return { method: 'transfer', amount };
    default:
      return { method: 'bit', amount };
  }
}

export interface DocDraft {
  body: Record<string, unknown>;
  docType: 305 | 320 | 400;
  treatment: Treatment;
  /** Expected totals (a receipt: exVat = incVat = Σ payments, VAT 0). */
  exVat: number;
  vat: number;
  incVat: number;
  withholding: number;
}

export function genDocument(g: Gen, dealer: Dealer, date: string, savedParties: string[]): DocDraft {
  const docType = vatDealer(dealer) ? g.pick([305, 305, 320, 400] as const) : 400;
  const body: Record<string, unknown> = { docType, documentDate: date };
  body.party =
    savedParties.length && g.chance(0.3)
      ? { partyId: g.pick(savedParties) }
      : { name: g.pick(['לקוח מזדמן', 'ACME Ltd', 'חברת "הדוגמה" בע"מ']), ...(g.chance(0.6) ? { taxId: g.pick([TAX_IDS.person2, TAX_IDS.company2]) } : {}) };
  if (docType === 400) {
    const total = g.int(100, 2_000_000);
    const parts = split(g, total, 3);
    body.payments = parts.map((p) => payment(g, p, date));
    const withholding = g.chance(0.25) ? g.int(1, Math.floor(total / 10) + 1) : 0;
    if (withholding) body.withholdingAmount = withholding;
    return { body, docType, treatment: 'exempt', exVat: total, vat: 0, incVat: total, withholding };
  }
  const lines = Array.from({ length: g.int(1, 3) }, () => {
    const q = g.int(1, 5);
    const price = g.int(100, 500_000);
    return { q, price, disc: g.chance(0.2) ? g.int(0, Math.floor((q * price) / 4)) : 0 };
  });
  body.lines = lines.map((l) => ({ description: 'שירות', quantity: l.q, unitPriceExVat: l.price, ...(l.disc ? { lineDiscount: l.disc } : {}) }));
  const linesSum = lines.reduce((s, l) => s + l.q * l.price - l.disc, 0);
  const discount = g.chance(0.2) ? g.int(0, Math.floor(linesSum / 5)) : 0;
  if (discount) body.discountAmount = discount;
  const gross = g.chance(0.3);
  if (gross) body.priceMode = 'gross';
  let treatment: Treatment = 'taxable';
  let rateBp = date >= '2025-01-01' ? 1800 : 1700;
  if (g.chance(0.15)) {
    const reason = g.pick(['export', 'eilat', 'exempt'] as const);
    treatment = reason === 'export' ? 'zeroRatedExport' : reason;
    rateBp = 0;
    body.vatRateBp = 0;
    body.vatExemptionReason = reason;
  }
  const t = invoiceTotals(lines, discount, gross, rateBp);
  let withholding = 0;
  if (docType === 320) {
    withholding = g.chance(0.25) ? g.int(0, Math.floor(t.incVat / 10)) : 0;
    if (withholding) body.withholdingAmount = withholding;
    body.payments = split(g, t.incVat - withholding, 3).map((p) => payment(g, p, date));
  }
  return { body, docType, treatment, ...t, withholding };
}

/** Categories with every VAT rule: full, 2/3, none, fixed assets (one deductible, one not). */
export const CATEGORIES: Record<string, { share: [number, number]; fixedAsset: boolean }> = {
  office: { share: [1, 1], fixedAsset: false },
  rent: { share: [1, 1], fixedAsset: false },
  inventory: { share: [1, 1], fixedAsset: false },
  communication: { share: [2, 3], fixedAsset: false },
  vehicle_private: { share: [2, 3], fixedAsset: false },
  refreshments: { share: [0, 1], fixedAsset: false },
  insurance: { share: [0, 1], fixedAsset: false },
  equipment: { share: [1, 1], fixedAsset: true },
  vehicle_purchase: { share: [0, 1], fixedAsset: true },
};

export interface ExpenseDraft {
  body: Record<string, unknown>;
  category: string;
  exVat: number;
  vat: number;
  /**
   * The deductible share of the VAT, by the rules above (0 for patur/ngo and for a supplier receipt), and 0 for
   * a tax invoice above the allocation threshold of its date without the supplier's allocation number.
   */
  deductible: number;
  /** The supplier invoice's allocation number, when the draft holds one. */
  allocationNumber: string | null;
  /** The allocation rule took the deduction away (the expense carries the warning `input_vat_needs_allocation`). */
  needsAllocation: boolean;
}

/**
 * Israel Invoices thresholds before VAT (israel-tax.md §4.2), written here apart from src: an invoice above
 * the one in force on its date deducts its VAT only with the supplier's allocation number.
 */
export function allocationThresholdOn(date: string): number | null {
  if (date >= '2026-06-01') return 500_000;
  if (date >= '2026-01-01') return 1_000_000;
  if (date >= '2025-01-01') return 2_000_000;
  if (date >= '2024-05-05') return 2_500_000;
  return null;
}

export function genExpense(g: Gen, dealer: Dealer, date: string): ExpenseDraft {
  const category = g.pick(Object.keys(CATEGORIES));
  const docType = g.pick(['tax_invoice', 'tax_invoice', 'tax_invoice', 'tax_invoice_receipt', 'receipt', 'credit_invoice'] as const);
  // A supplier's credit invoice is negative throughout (README "Expenses": one sign per row).
  const sign = docType === 'credit_invoice' ? -1 : 1;
  const exVat = sign * g.int(100, 3_000_000);
  const vat = category === 'insurance' ? 0 : g.chance(0.9) ? Number(divRound(BigInt(exVat) * 1800n, 10000n)) : sign * g.int(0, Math.abs(exVat));
  const supplier = g.chance(0.8)
    ? { name: g.pick(['בזק', 'ספק ציוד', 'משכיר']), ...(g.chance(0.7) ? { taxId: g.pick([TAX_IDS.company2, TAX_IDS.person]) } : {}) }
    : { name: 'ספק מזדמן' };
  const [num, den] = CATEGORIES[category].share;
  const share = !vatDealer(dealer) || docType === 'receipt' ? 0 : Number(divRound(BigInt(vat) * BigInt(num), BigInt(den)));
  // Issue 29: about half the invoices carry the supplier's allocation number.
  const allocationNumber = g.chance(0.5) ? String(g.int(100_000_000, 999_999_999)) : null;
  const threshold = allocationThresholdOn(date);
  const taxInvoice = docType === 'tax_invoice' || docType === 'tax_invoice_receipt';
  const needsAllocation = share > 0 && taxInvoice && !allocationNumber && threshold !== null && exVat > threshold;
  return {
    body: {
      categoryKey: category,
      supplier,
      supplierDocType: docType,
      supplierDocNumber: `S-${g.int(1, 99999)}`,
      supplierDocDate: date,
      amountExVat: exVat,
      vatAmount: vat,
      ...(allocationNumber ? { allocationNumber } : {}),
    },
    category,
    exVat,
    vat,
    deductible: needsAllocation ? 0 : share,
    allocationNumber,
    needsAllocation,
  };
}

/** What one fact brings to the books, signed; summed per month of its entry's date. */
export interface Effect {
  outputVat: number;
  inputVat: number;
  inputVatFixedAssets: number;
  sales: Record<Treatment, number>;
  /** Revenue accounts, credit − debit (the income statement's revenue). */
  revenue: number;
  /** Expense accounts, debit − credit. */
  expenses: number;
  /** Counted in the VAT report: a document with a revenue or VAT line; an expense with deductible VAT; a manual VAT/revenue entry. */
  saleCount: number;
  inputCount: number;
  inputsExVat: number;
  adjustmentCount: number;
  adjustmentOutputVat: number;
}

export const zeroEffect = (): Effect => ({
  outputVat: 0,
  inputVat: 0,
  inputVatFixedAssets: 0,
  sales: { taxable: 0, zeroRatedExport: 0, eilat: 0, exempt: 0 },
  revenue: 0,
  expenses: 0,
  saleCount: 0,
  inputCount: 0,
  inputsExVat: 0,
  adjustmentCount: 0,
  adjustmentOutputVat: 0,
});

export function addEffect(into: Effect, e: Effect): void {
  for (const k of [
    'outputVat',
    'inputVat',
    'inputVatFixedAssets',
    'revenue',
    'expenses',
    'saleCount',
    'inputCount',
    'inputsExVat',
    'adjustmentCount',
    'adjustmentOutputVat',
  ] as const)
    into[k] += e[k];
  for (const t of Object.keys(into.sales) as Treatment[]) into.sales[t] += e.sales[t];
}

/** A document as the API answered it (sign: −1 for a 330, whose amounts are positive but reduce). */
export function documentEffect(
  dealer: Dealer,
  doc: { docType: number; totalExVat: number; vatAmount: number; totalIncVat: number; withholdingAmount: number },
  treatment: Treatment,
): Effect {
  const e = zeroEffect();
  if (doc.docType === 400) {
    if (vatDealer(dealer)) return e; // money against the customer: no revenue, no VAT
    const received = doc.totalIncVat + doc.withholdingAmount; // negative for the credit of a receipt
    e.revenue = received;
    e.sales.exempt = received;
    e.saleCount = 1;
    return e;
  }
  const sign = doc.docType === 330 ? -1 : 1;
  e.outputVat = sign * doc.vatAmount;
  e.sales[treatment] = sign * doc.totalExVat;
  e.revenue = sign * doc.totalExVat;
  e.saleCount = 1;
  return e;
}

export function expenseEffect(x: ExpenseDraft, sign: 1 | -1): Effect {
  const e = zeroEffect();
  const { fixedAsset } = CATEGORIES[x.category];
  if (fixedAsset) e.inputVatFixedAssets = sign * x.deductible;
  else e.inputVat = sign * x.deductible;
  if (!fixedAsset) e.expenses = sign * (x.exVat + x.vat - x.deductible);
  if (x.deductible !== 0) {
    e.inputCount = 1;
    e.inputsExVat = sign * x.exVat;
  }
  return e;
}

/** Manual entries by kind: what they post, and what that does to the figures. */
export interface ManualTemplate {
  name: string;
  vatOnly: boolean;
  lines: (x: number, dealer: Dealer) => { account: string; debit?: number; credit?: number }[];
  effect: (x: number) => Partial<Effect>;
}
export const MANUAL_TEMPLATES: ManualTemplate[] = [
  {
    name: 'opening balance',
    vatOnly: false,
    lines: (x) => [
      { account: '1230', debit: x },
      { account: '3000', credit: x },
    ],
    effect: () => ({}),
  },
  {
    name: 'bank charge',
    vatOnly: false,
    lines: (x) => [
      { account: '6000', debit: x },
      { account: '1200', credit: x },
    ],
    effect: (x) => ({ expenses: x }),
  },
  {
    name: 'revenue adjustment',
    vatOnly: false,
    lines: (x, d) => [
      { account: '1200', debit: x },
      { account: vatDealer(d) ? '4000' : '4100', credit: x },
    ],
    effect: (x) => ({ revenue: x, adjustmentCount: 1 }),
  },
  {
    name: 'output VAT adjustment',
    vatOnly: true,
    lines: (x) => [
      { account: '2200', debit: x },
      { account: '1200', credit: x },
    ],
    effect: (x) => ({ outputVat: -x, adjustmentOutputVat: -x, adjustmentCount: 1 }),
  },
];

export function manualEffect(t: ManualTemplate, x: number, sign: 1 | -1, dealer: Dealer): Effect {
  const e = zeroEffect();
  const part = t.effect(x);
  for (const [k, v] of Object.entries(part)) (e as any)[k] = k === 'adjustmentCount' ? v : sign * (v as number);
  if (t.name === 'revenue adjustment') e.sales[vatDealer(dealer) ? 'taxable' : 'exempt'] = sign * x;
  return e;
}

/** Agorot to whole shekels, half away from zero (docs/vat.md), written here apart from src/vat. */
export function toShekels(agorot: number): number {
  return Number(divRound(BigInt(agorot), 100n)) + 0;
}

const nineDigits = (taxId: string | null | undefined) => (taxId && /^\d{9}$/.test(taxId) && !/^0+$/.test(taxId) ? taxId : null);
const ymd = (d: string) => d.replace(/-/g, '');

/**
 * The PCN874 entry a fact must have (docs/vat.md "What goes in"), as `type counterparty date group number vat exVat allocation`
 * (the documents here hold no allocation number: the allocation job does not run in the test):
 * S/L/Y for a 305/320/330 of a VAT dealer, T/K for an expense or storno with deductible VAT; null: none.
 */
export function pcnOfDocument(
  dealer: Dealer,
  doc: { docType: number; docNumber: number; documentDate: string; totalExVat: number; vatAmount: number; party: { taxId: string | null } | null },
  treatment: Treatment,
): string | null {
  if (!vatDealer(dealer) || doc.docType === 400) return null;
  const sign = doc.docType === 330 ? -1 : 1;
  const id = nineDigits(doc.party?.taxId);
  const type = treatment === 'zeroRatedExport' ? 'Y' : id ? 'S' : 'L';
  // Appendix C: L has zeros; Y the export entry number, or 999999999 without one (pinkas holds none).
  const counterparty = type === 'L' ? '000000000' : type === 'Y' ? '999999999' : (id ?? '000000000');
  // Issue 29: the reference group is the series (the type code), so 305 #1 and 330 #1 are two references.
  const reference = `${String(doc.docType).padStart(4, '0')} ${String(doc.docNumber).padStart(9, '0')}`;
  return `${type} ${counterparty} ${ymd(doc.documentDate)} ${reference} ${Math.abs(toShekels(sign * doc.vatAmount))} ${toShekels(sign * doc.totalExVat)} 000000000`;
}

export function pcnOfExpense(x: ExpenseDraft, sign: 1 | -1, date: string): string | null {
  if (x.deductible === 0) return null;
  const id = nineDigits((x.body.supplier as { taxId?: string }).taxId);
  // T carries the supplier invoice's allocation number (zeros without one: then it is at most the threshold).
  const allocation = id ? (x.allocationNumber ?? '000000000') : '000000000';
  // An input's reference: group zeros, the supplier's number's digits (K: the count of invoices, one).
  const number = id ? String(x.body.supplierDocNumber).replace(/\D/g, '').slice(-9).padStart(9, '0') : '000000001';
  return `${id ? 'T' : 'K'} ${id ?? '000000000'} ${ymd(date)} 0000 ${number} ${Math.abs(toShekels(sign * x.deductible))} ${toShekels(sign * x.exVat)} ${allocation}`;
}

/** What the credits of a document took so far (issue 29, partial credits): totals and each line's quantity in ten-thousandths. */
export interface CreditedSoFar {
  ex: number;
  vat: number;
  inc: number;
  quantities: number[];
}

export interface CreditRequest {
  body: Record<string, unknown>;
  kind: 'whole' | 'lines' | 'amount' | 'remainder';
  /** The amount asked for, for `amount`. */
  amount?: number;
}

/**
 * A credit of an issued document (docs/documents.md "Partial credit notes"): a receipt whole; an invoice whole,
 * by chosen lines and quantities, by an amount before VAT (now and then beyond what is left), or, after
 * earlier credits, with no body for what they left.
 */
export function genCreditRequest(g: Gen, doc: any, soFar: CreditedSoFar | undefined): CreditRequest {
  const body: Record<string, unknown> = { reason: 'החזרה' };
  if (doc.docType === 400 || (!soFar && g.chance(0.35))) return { body, kind: 'whole' };
  const r = g.float();
  if (soFar && r < 0.25) return { body, kind: 'remainder' };
  if (r < 0.6) {
    const open = doc.lines
      .map((l: any, index: number) => ({ index, left: Math.round(l.quantity * 10_000) - (soFar?.quantities[index] ?? 0) }))
      .filter((x: { left: number }) => x.left > 0);
    if (open.length) {
      const { index, left } = g.pick(open) as { index: number; left: number };
      const choices = [left / 10_000, ...(left >= 5_000 ? [0.5] : []), ...(left >= 10_000 ? [g.int(1, Math.floor(left / 10_000))] : [])];
      return { body: { ...body, lines: [{ index, quantity: g.pick(choices) }] }, kind: 'lines' };
    }
  }
  const leftEx = doc.totalExVat - (soFar?.ex ?? 0);
  const amount = g.chance(0.1) ? leftEx + g.int(3, 1_000) : g.int(1, Math.max(1, leftEx));
  return { body: { ...body, amount }, kind: 'amount', amount };
}

/**
 * A credit note's VAT, rounded over the credits of its document so far (docs/documents.md "Partial credit notes"):
 * round(VAT of everything credited with it) − round(VAT of what was credited before); in `gross` mode the amount
 * before VAT is rounded so. Written here apart from src.
 */
export function creditVatOf(doc: any, before: CreditedSoFar, credit: { totalExVat: number; totalIncVat: number }): number {
  const r = BigInt(doc.vatRateBp);
  if (doc.priceMode === 'gross') {
    const exOf = (inc: number) => divRound(BigInt(inc) * 10_000n, 10_000n + r);
    return credit.totalIncVat - Number(exOf(before.inc + credit.totalIncVat) - exOf(before.inc));
  }
  const vatOf = (ex: number) => divRound(BigInt(ex) * r, 10_000n);
  return Number(vatOf(before.ex + credit.totalExVat) - vatOf(before.ex));
}

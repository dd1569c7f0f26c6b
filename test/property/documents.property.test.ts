/**
 * Issue 15 item 8, first step: a seeded property test over the document API.
 *
 * A small PRNG (mulberry32, fixed seed) generates random VALID drafts of every type the API
 * issues (305, 320, 400, and credit notes: 330 of a 305/320, negative 400 of a 400) for
 * businesses of every dealer type allowed to issue them (company and murshe: all; patur and
 * ngo: 400 only), issues them through the API, checks each answer against an independent
 * recomputation of the totals from the document's own lines/payments (decisions.md: line =
 * round(quantity × price) − lineDiscount; VAT once per document, half away from zero; gross
 * mode brings the total to ex-VAT once; a receipt's total is Σ payments, VAT 0), then exports
 * each business's whole range and requires a verified OPENFRMT run.
 *
 * PROPERTY_DOCS (default 300) sets the number of documents issued, credit notes included;
 * PROPERTY_SEED overrides the seed.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestEnv, TAX_IDS, type TestAccount, type TestEnv } from '../helpers/env.ts';

const SEED = Number(process.env.PROPERTY_SEED ?? 0x15_0008) >>> 0;
const DOCS = Math.max(1, Number(process.env.PROPERTY_DOCS ?? 300));

// ---------------------------------------------------------------- PRNG

function mulberry32(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) | 0;
    let t = Math.imul(a ^ (a >>> 15), 1 | a);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

class Gen {
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

// ---------------------------------------------------------------- independent arithmetic (BigInt)

/** round(n / d) half away from zero, exactly. */
function divRound(n: bigint, d: bigint): bigint {
  const neg = n < 0n !== d < 0n;
  const an = n < 0n ? -n : n;
  const ad = d < 0n ? -d : d;
  const q = (2n * an + ad) / (2n * ad);
  return neg ? -q : q;
}

interface GenLine {
  description: string;
  /** quantity in ten-thousandths (the generator never makes more than 4 decimals). */
  q4: number;
  unitPriceExVat: number;
  lineDiscount: number;
}

const lineGross = (l: { q4: number; unitPriceExVat: number }) => Number(divRound(BigInt(l.q4) * BigInt(l.unitPriceExVat), 10000n));
const lineAmountOf = (l: GenLine) => lineGross(l) - l.lineDiscount;

interface Expected {
  lineAmounts: number[];
  totalExVat: number;
  vatAmount: number;
  totalIncVat: number;
  vatRateBp: number;
}

function expectedTotals(d: { docType: number; priceMode: 'net' | 'gross'; rateBp: number; lines: GenLine[]; discount: number; payments: number[] }): Expected {
  const lineAmounts = d.lines.map(lineAmountOf);
  if (d.docType === 400) {
    const p = d.payments.reduce((a, b) => a + b, 0);
    return { lineAmounts, totalExVat: p, vatAmount: 0, totalIncVat: p, vatRateBp: 0 };
  }
  const sum = BigInt(lineAmounts.reduce((a, b) => a + b, 0)) - BigInt(d.discount);
  const rate = BigInt(d.rateBp);
  if (d.priceMode === 'gross') {
    const ex = divRound(sum * 10000n, 10000n + rate);
    return { lineAmounts, totalExVat: Number(ex), vatAmount: Number(sum - ex), totalIncVat: Number(sum), vatRateBp: d.rateBp };
  }
  const vat = divRound(sum * rate, 10000n);
  return { lineAmounts, totalExVat: Number(sum), vatAmount: Number(vat), totalIncVat: Number(sum + vat), vatRateBp: d.rateBp };
}

// ---------------------------------------------------------------- generator

const statutory = (date: string) => (date >= '2025-01-01' ? 1800 : 1700);
const pad = (n: number) => String(n).padStart(2, '0');
const monthEnd = (y: number, m: number) => new Date(Date.UTC(y, m, 0)).getUTCDate();

function genDate(g: Gen): string {
  const r = g.float();
  if (r < 0.06) return '2024-02-29';
  if (r < 0.1) return g.pick(['2024-12-31', '2025-01-01', '2025-12-31', '2026-01-01', '2026-12-31']);
  const y = g.pick([2025, 2026]);
  const m = g.int(1, 12);
  if (r < 0.4) return `${y}-${pad(m)}-${pad(monthEnd(y, m))}`; // month ends (28/29/30/31)
  return `${y}-${pad(m)}-${pad(g.int(1, monthEnd(y, m)))}`;
}

function addDays(date: string, days: number): string {
  const t = new Date(`${date}T00:00:00Z`).getTime() + days * 86_400_000;
  return new Date(t).toISOString().slice(0, 10);
}

const DESCRIPTIONS = ['ייעוץ', 'שעות עבודה', 'Consulting', 'משלוח', 'רישיון תוכנה שנתי', 'Widget A-17', 'תיקון', 'Design "v2"', 'הדרכה ₪', 'ק"ג עגבניות'];
const PARTY_NAMES = ['לקוח', 'ישראל ישראלי', 'ACME Ltd', 'חברת "הדוגמה" בע"מ', 'דני', 'Café Noir'];
const BUYER_TAX_IDS = [TAX_IDS.person, TAX_IDS.person2, TAX_IDS.company2, null];

function genQ4(g: Gen): number {
  const r = g.float();
  if (r < 0.45) return g.int(1, 20) * 10000; // whole units
  if (r < 0.7) return g.int(1, 5000) * 100; // up to 2 decimals
  if (r < 0.8) return g.pick([5000, 2500, 1, 5, 15, 9999, 10005]); // halves, ten-thousandths
  return g.int(1, 10_000_000); // 4 decimals, up to 1000
}

function genPrice(g: Gen, big: boolean): number {
  if (big) return g.int(1, 1_000_000_000_000);
  const r = g.float();
  if (r < 0.55) return g.int(1, 100_000);
  if (r < 0.85) return g.int(1, 10_000_000);
  return g.pick([1, 3, 5, 11, 25, 99, 118, 117, 1_000_001]);
}

function genLines(g: Gen): GenLine[] {
  const big = g.chance(0.03);
  const n = big ? g.int(1, 3) : g.pick([1, 1, 1, 2, 2, 3, 4, 7]);
  const lines: GenLine[] = [];
  for (let i = 0; i < n; i++) {
    const q4 = big ? g.int(1, 100_000) : genQ4(g);
    const unitPriceExVat = genPrice(g, big);
    const gross = lineGross({ q4, unitPriceExVat });
    const lineDiscount = g.chance(0.25) ? g.int(0, gross) : 0;
    lines.push({ description: g.pick(DESCRIPTIONS), q4, unitPriceExVat, lineDiscount });
  }
  return lines;
}

const CARD_COMPANIES = ['isracard', 'cal', 'Diners', 'amex', 'max', 'לאומי קארד', 'ישראכרט', 'unknown', null];
const DEAL_TYPES = ['regular', 'installments', 'credit', 'deferred', 'other', 'רגיל', '2', null];

function genPayment(g: Gen, amount: number, docDate: string): Record<string, unknown> {
  const kind = g.pick(['cash', 'cheque', 'card', 'transfer', 'app', 'other'] as const);
  const digits = (n: number) => Array.from({ length: n }, () => g.int(0, 9)).join('');
  switch (kind) {
    case 'cash':
      return { method: g.pick(['cash', 1]), amount };
    case 'cheque':
      return {
        method: g.pick(['cheque', 'check', 2]),
        amount,
        bankCode: digits(g.int(1, 3)),
        branchCode: digits(g.int(1, 4)),
        accountNumber: digits(g.int(4, 15)),
        // A cheque needs a number with a non-zero digit (refused at the door otherwise: known-defects.test.ts).
        checkNumber: String(g.int(1, 9)) + digits(g.int(0, 9)),
        dueDate: g.chance(0.2) ? '2024-02-29' : addDays(docDate, g.int(0, 120)),
      };
    case 'card':
      return {
        method: g.pick(['card', 'credit', 3]),
        amount,
        cardCompany: g.pick(CARD_COMPANIES),
        cardName: g.pick(['Visa', 'Mastercard', 'ויזה', 'אמריקן אקספרס', null]),
        cardTxType: g.pick(DEAL_TYPES),
      };
    case 'transfer':
      return g.chance(0.5)
        ? { method: g.pick(['transfer', 'bank_transfer', 4]), amount, bankCode: digits(2), branchCode: digits(3), accountNumber: digits(g.int(5, 12)), dueDate: docDate }
        : { method: g.pick(['transfer', 'bank_transfer', 4]), amount };
    case 'app':
      return { method: g.pick(['bit', 'paybox', 'payment_app', 'app', 91, 92, 93]), amount };
    default:
      return { method: g.pick(['voucher', 'standing_order', 'other', 5, 8, 9]), amount };
  }
}

/** total split into 1..maxParts parts, each ≥ 1 agora. */
function split(g: Gen, total: number, maxParts: number): number[] {
  const k = Math.max(1, Math.min(total, g.int(1, maxParts)));
  if (k === 1) return [total];
  const weights = Array.from({ length: k }, () => g.float() + 0.05);
  const w = weights.reduce((a, b) => a + b, 0);
  const rest = total - k;
  const parts = weights.map((x) => 1 + Math.floor((rest * x) / w));
  parts[k - 1] += total - parts.reduce((a, b) => a + b, 0);
  return parts;
}

interface GenDoc {
  body: Record<string, unknown>;
  docType: 305 | 320 | 400;
  expected: Expected;
  withholding: number;
  paymentsTotal: number;
}

type Dealer = 'company' | 'murshe' | 'patur' | 'ngo';

function genDoc(g: Gen, dealer: Dealer, savedParties: string[] = [], defaultVatRateBp: number | null = null): GenDoc {
  const docType: 305 | 320 | 400 = dealer === 'patur' || dealer === 'ngo' ? 400 : g.pick([305, 305, 320, 320, 400] as const);
  const documentDate = genDate(g);
  const body: Record<string, unknown> = { docType, documentDate };
  if (savedParties.length && g.chance(0.25)) {
    body.party = { partyId: g.pick(savedParties) };
  } else if (g.chance(0.9) || docType !== 400) {
    const name = g.pick(PARTY_NAMES);
    const taxId = g.pick(BUYER_TAX_IDS);
    body.party = { name, ...(taxId ? { taxId } : {}), ...(g.chance(0.3) ? { address: 'הרצל 1, תל אביב', phone: '03-5555555' } : {}) };
  }
  if (g.chance(0.2)) body.note = 'הערה ' + g.int(1, 999);

  if (docType === 400) {
    const payTotal = g.chance(0.1) ? g.int(1, 50) : g.int(1, 5_000_000);
    const parts = split(g, payTotal, 4);
    body.payments = parts.map((p) => genPayment(g, p, documentDate));
    const withholding = g.chance(0.3) ? g.int(0, Math.max(1, Math.floor(payTotal / 5))) : 0;
    if (withholding || g.chance(0.2)) body.withholdingAmount = withholding;
    const expected = expectedTotals({ docType, priceMode: 'net', rateBp: 0, lines: [], discount: 0, payments: parts });
    return { body, docType, expected, withholding, paymentsTotal: payTotal };
  }

  const priceMode = g.chance(0.35) ? 'gross' : 'net';
  if (priceMode === 'gross' || g.chance(0.3)) body.priceMode = priceMode;
  const exempt = dealer !== 'patur' && dealer !== 'ngo' && g.chance(0.12);
  // null follows the business default, else the statutory rate of the date; a draft may also name
  // either of those explicitly, or 0 with an exemption reason (README "Drafts are validated at once").
  let rateBp = defaultVatRateBp ?? statutory(documentDate);
  if (exempt) {
    rateBp = 0;
    body.vatRateBp = 0;
    body.vatExemptionReason = g.pick(['eilat', 'export', 'exempt']);
  } else if (g.chance(0.2)) {
    rateBp = g.pick([rateBp, statutory(documentDate)]);
    body.vatRateBp = rateBp;
  }

  // Lines, a total that leaves room for payments (320 needs total − withholding ≥ number of payments ≥ 1).
  let lines = genLines(g);
  while (lines.reduce((a, l) => a + lineAmountOf(l), 0) < 10) lines = genLines(g);
  const linesSum = lines.reduce((a, l) => a + lineAmountOf(l), 0);
  const discount = g.chance(0.25) ? g.int(0, Math.floor((linesSum - 5) * g.pick([0.05, 0.3, 0.99]))) : 0;
  body.lines = lines.map((l) => ({
    description: l.description,
    quantity: l.q4 / 10000,
    unitPriceExVat: l.unitPriceExVat,
    ...(l.lineDiscount || g.chance(0.1) ? { lineDiscount: l.lineDiscount } : {}),
    ...(g.chance(0.2) ? { sku: `SKU-${g.int(1, 99999)}`, unit: g.pick(['יחידה', 'שעה', 'ק"ג', 'kg']) } : {}),
  }));
  if (discount || g.chance(0.1)) body.discountAmount = discount;
  const expected = expectedTotals({ docType, priceMode, rateBp, lines, discount, payments: [] });

  let withholding = 0;
  let paymentsTotal = 0;
  if (docType === 320) {
    const max = Math.min(99_999_999_999, expected.totalIncVat - 1);
    withholding = g.chance(0.3) && max > 0 ? g.int(0, Math.floor(max / 10)) : 0;
    if (withholding || g.chance(0.2)) body.withholdingAmount = withholding;
    paymentsTotal = expected.totalIncVat - withholding;
    body.payments = split(g, paymentsTotal, 4).map((p) => genPayment(g, p, documentDate));
  }
  return { body, docType, expected, withholding, paymentsTotal };
}

// ---------------------------------------------------------------- the test

let env: TestEnv;
let a: TestAccount;
beforeAll(async () => {
  env = await createTestEnv();
  a = await env.account();
});
afterAll(async () => env?.close());

const BUSINESSES: { key: string; dealerType: Dealer; taxId: string; defaultVatRateBp?: number }[] = [
  { key: 'company', dealerType: 'company', taxId: TAX_IDS.company },
  { key: 'company-default-17', dealerType: 'company', taxId: TAX_IDS.company, defaultVatRateBp: 1700 },
  { key: 'company2', dealerType: 'company', taxId: TAX_IDS.company2 },
  { key: 'murshe', dealerType: 'murshe', taxId: TAX_IDS.person },
  { key: 'murshe2', dealerType: 'murshe', taxId: TAX_IDS.person2 },
  { key: 'patur', dealerType: 'patur', taxId: TAX_IDS.person3 },
  { key: 'ngo', dealerType: 'ngo', taxId: TAX_IDS.ngo },
];

function checkTotals(where: string, doc: any, exp: Expected, withholding: number, sign = 1) {
  const got = { totalExVat: doc.totalExVat, vatAmount: doc.vatAmount, totalIncVat: doc.totalIncVat, withholdingAmount: doc.withholdingAmount };
  const z = (n: number) => sign * n || 0; // no -0
  const want = { totalExVat: z(exp.totalExVat), vatAmount: z(exp.vatAmount), totalIncVat: z(exp.totalIncVat), withholdingAmount: z(withholding) };
  expect(got, where).toEqual(want);
  if (doc.status === 'issued') expect(doc.vatRateBp, where).toBe(exp.vatRateBp);
  if (exp.lineAmounts.length) expect(doc.lines.map((l: any) => l.amount), where).toEqual(exp.lineAmounts);
}

describe('property: random valid documents issue, total and export verified', () => {
  it(`seed ${SEED} (0x${SEED.toString(16)}), ${DOCS} documents`, { timeout: Math.max(120_000, DOCS * 400) }, async () => {
    const g = new Gen(SEED);
    const started = Date.now();
    type Sums = { count: number; exVat: number; vat: number; incVat: number; withholding: number };
    const bs: { key: string; dealerType: Dealer; taxId: string; defaultVatRateBp?: number; id: string; parties: string[]; sums: Map<number, Sums> }[] = [];
    for (const b of BUSINESSES) {
      const business = await env.business(a.test, {
        name: `עסק ${b.key}`,
        dealerType: b.dealerType,
        taxId: b.taxId,
        ...(b.defaultVatRateBp !== undefined ? { defaultVatRateBp: b.defaultVatRateBp } : {}),
      });
      const parties: string[] = [];
      for (const [name, taxId] of [['לקוח קבוע', TAX_IDS.person2], ['Saved Customer Ltd', TAX_IDS.company2], ['בלי מספר', null]] as const) {
        const p = await env.call('POST', `/v1/businesses/${business.id}/parties`, { key: a.test, body: { name, kind: 'customer', ...(taxId ? { taxId } : {}) } });
        expect(p.status, JSON.stringify(p.body)).toBe(201);
        parties.push(p.body.party.id);
      }
      bs.push({ ...b, id: business.id as string, parties, sums: new Map() });
    }
    /** What the export should count per doc type, from the documents as the API answered them. */
    const bump = (b: (typeof bs)[number], doc: any) => {
      const s = b.sums.get(doc.docType) ?? { count: 0, exVat: 0, vat: 0, incVat: 0, withholding: 0 };
      s.count++;
      s.exVat += doc.totalExVat;
      s.vat += doc.vatAmount;
      s.incVat += doc.totalIncVat;
      s.withholding += doc.withholdingAmount;
      b.sums.set(doc.docType, s);
    };

    let issuedTotal = 0;
    let issuesToday = 0;
    let drafts = 0;
    let credits = 0;
    const failures: string[] = [];
    while (issuedTotal < DOCS) {
      // the daily backstop is 300 issues per business per Israel day: move on a day well before any business could reach it
      if (issuesToday >= 250) {
        env.clock.advance(86_400_000);
        issuesToday = 0;
      }
      const b = g.pick(bs);
      const d = genDoc(g, b.dealerType, b.parties, b.defaultVatRateBp ?? null);
      drafts++;
      const tag = `seed ${SEED} draft #${drafts} (${b.key}) ${JSON.stringify(d.body)}`;
      const created = await env.call('POST', `/v1/businesses/${b.id}/documents`, { key: a.test, body: d.body });
      if (created.status !== 201) {
        failures.push(`draft refused ${created.status}: ${JSON.stringify(created.body)} — ${tag}`);
        continue;
      }
      checkTotals(`preview ${tag}`, created.body.document, d.expected, d.withholding);
      const issued = await env.call('POST', `/v1/businesses/${b.id}/documents/${created.body.document.id}/issue`, { key: a.test });
      if (issued.status !== 201) {
        failures.push(`issue refused ${issued.status}: ${JSON.stringify(issued.body)} — ${tag}`);
        continue;
      }
      const doc = issued.body.document;
      expect(doc.status, tag).toBe('issued');
      expect(doc.docType, tag).toBe(d.docType);
      checkTotals(`issued ${tag}`, doc, d.expected, d.withholding);
      if (d.docType !== 305) expect(doc.payments.reduce((s: number, p: any) => s + p.amount, 0), tag).toBe(d.paymentsTotal);
      bump(b, doc);
      issuedTotal++;
      issuesToday++;

      if (issuedTotal < DOCS && g.chance(0.2)) {
        const cn = await env.call('POST', `/v1/businesses/${b.id}/documents/${doc.id}/credit-note`, {
          key: a.test,
          body: g.chance(0.5) ? { reason: 'בוטל' } : undefined,
        });
        if (cn.status !== 201) {
          failures.push(`credit note refused ${cn.status}: ${JSON.stringify(cn.body)} — of ${tag}`);
          continue;
        }
        const c = cn.body.document;
        credits++;
        issuedTotal++;
        if (d.docType === 400) {
          expect(c.docType, tag).toBe(400);
          checkTotals(`reversal of ${tag}`, c, d.expected, d.withholding, -1);
          expect(c.payments.reduce((s: number, p: any) => s + p.amount, 0), tag).toBe(-d.paymentsTotal);
        } else {
          expect(c.docType, tag).toBe(330);
          checkTotals(`330 of ${tag}`, c, d.expected, 0);
          expect(c.payments, tag).toEqual([]);
        }
        bump(b, c);
      }
    }
    expect(failures, failures.slice(0, 5).join('\n')).toEqual([]);
    const issuing = Date.now() - started;

    for (const b of bs) {
      env.clock.advance(60_000); // one production per business per minute
      const ex = await env.call('POST', `/v1/businesses/${b.id}/exports/openfrmt`, { key: a.test, body: { from: '2024-01-01', to: '2027-12-31' } });
      expect(ex.status, `${b.key}: ${JSON.stringify(ex.body)}`).toBe(201);
      const v = ex.body.exportRun.verification;
      const brief = JSON.stringify({ ...v, issues: v.issues?.slice(0, 10) });
      expect(v.ok, `${b.key} seed ${SEED}: ${brief}`).toBe(true);
      expect(ex.body.exportRun.status).toBe('completed');
      for (const t of v.byDocType) expect(t.match, `${b.key} ${t.docType}: ${JSON.stringify(t)}`).toBe(true);
      const got = Object.fromEntries(
        v.byDocType.map((t: any) => [t.docType, { count: t.file.count, exVat: t.file.exVat, vat: t.file.vat, incVat: t.file.incVat, withholding: t.file.withholding }]),
      );
      expect(got, `${b.key}: the export's per-type sums against the documents issued`).toEqual(Object.fromEntries(b.sums));
    }
    console.log(
      `property seed ${SEED}: ${drafts} drafts, ${issuedTotal} issued (${credits} credit notes) in ${issuing} ms; ` +
        `exports done at ${Date.now() - started} ms; per business ${bs.map((b) => `${b.key} ${JSON.stringify(Object.fromEntries([...b.sums].map(([t, x]) => [t, x.count])))}`).join('; ')}`,
    );
  });
});

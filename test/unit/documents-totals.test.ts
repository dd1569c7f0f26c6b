import { describe, expect, it } from 'vitest';
import {
  buyerTaxIdRequired,
  computeTotals,
  docTypeAllowed,
  lineAmount,
  paymentsProblem,
  resolveVatRateBp,
  statutoryVatRateBp,
  vatRateProblem,
  type TotalsInput,
} from '../../src/documents/totals.ts';
import { continuityOf } from '../../src/documents/list.ts';
import { checkDraft, paymentMethodCode, realDay, type DraftFields } from '../../src/documents/draft-input.ts';

const base = (over: Partial<TotalsInput>): TotalsInput => ({
  docType: 305,
  priceMode: 'net',
  vatRateBp: 1800,
  lines: [],
  payments: [],
  discountAmount: 0,
  withholdingAmount: 0,
  ...over,
});
const L = (quantity: number, unitPriceExVat: number, lineDiscount = 0) => ({ quantity, unitPriceExVat, lineDiscount });

describe('line amount = round(quantity × unitPrice) − lineDiscount, half away from zero', () => {
  const cases: [number, number, number, number][] = [
    [1, 10_000, 0, 10_000],
    [2.5, 333, 0, 833], // 832.5 → 833
    [0.5, 1, 0, 1], // 0.5 → 1
    [1.5, 1, 0, 2],
    [0.333, 1000, 0, 333],
    [0.3335, 1000, 0, 334], // 333.5 → 334
    [3, 1999, 500, 5497],
    [1.005, 100, 0, 101], // 100.5 (binary noise 100.49999…) → 101
    [0.1, 5, 0, 1], // 0.5 → 1
    [0.1, 4, 0, 0], // 0.4 → 0
    [12, 0, 0, 0],
    [1000000, 99, 0, 99_000_000],
    [0.25, 2, 0, 1], // 0.5 → 1
    [7, 142_857, 0, 999_999],
  ];
  for (const [q, p, d, want] of cases) {
    it(`${q} × ${p} − ${d} = ${want}`, () => expect(lineAmount(L(q, p, d))).toBe(want));
  }
});

describe('net mode', () => {
  const cases: [string, Partial<TotalsInput>, [number, number, number]][] = [
    ['one line 100 NIS at 18%', { lines: [L(1, 10_000)] }, [10_000, 1_800, 11_800]],
    ['17% in 2024', { vatRateBp: 1700, lines: [L(1, 10_000)] }, [10_000, 1_700, 11_700]],
    ['VAT rounds half up: 0.5 agora', { lines: [L(1, 25)] }, [25, 5, 30]], // 4.5 → 5
    ['VAT rounds down below half', { lines: [L(1, 24)] }, [24, 4, 28]], // 4.32 → 4
    ['VAT on 1 agora', { lines: [L(1, 1)] }, [1, 0, 1]], // 0.18 → 0
    ['VAT on 3 agorot', { lines: [L(1, 3)] }, [3, 1, 4]], // 0.54 → 1
    ['several lines + document discount', { lines: [L(2, 5_000), L(1, 2_549, 50)], discountAmount: 500 }, [11_999, 2_160, 14_159]], // 2159.82 → 2160
    ['VAT computed once on the document, not per line', { lines: [L(1, 25), L(1, 25)] }, [50, 9, 59]], // per line would be 5+5
    ['rate 0 (export)', { vatRateBp: 0, lines: [L(1, 10_000)] }, [10_000, 0, 10_000]],
    ['15.5% (spec example rate)', { vatRateBp: 1550, lines: [L(1, 10_000)] }, [10_000, 1_550, 11_550]],
    ['fractional quantity', { lines: [L(1.5, 1_999)] }, [2_999, 540, 3_539]], // 2998.5 → 2999; 539.82 → 540
    ['israel-tax §3.4 convention: net 117 incl. 17%', { vatRateBp: 1700, lines: [L(1, 10_000)] }, [10_000, 1_700, 11_700]],
    ['large amount', { lines: [L(1, 2_500_001)] }, [2_500_001, 450_000, 2_950_001]], // 450000.18 → 450000
    ['discount equal to lines', { lines: [L(1, 1_000)], discountAmount: 1_000 }, [0, 0, 0]],
  ];
  for (const [name, input, [ex, vat, inc]] of cases) {
    it(name, () => {
      const t = computeTotals(base(input));
      expect([t.totalExVat, t.vatAmount, t.totalIncVat]).toEqual([ex, vat, inc]);
      expect(t.totalIncVat).toBe(t.totalExVat + t.vatAmount);
    });
  }
});

describe('gross mode: the total anchors to the gross sum, VAT derived', () => {
  const cases: [string, Partial<TotalsInput>, [number, number, number]][] = [
    ['118 incl. 18%', { lines: [L(1, 11_800)] }, [10_000, 1_800, 11_800]],
    ['117 incl. 17%', { vatRateBp: 1700, lines: [L(1, 11_700)] }, [10_000, 1_700, 11_700]],
    ['100 incl. 18%', { lines: [L(1, 10_000)] }, [8_475, 1_525, 10_000]], // 8474.58 → 8475
    ['1 agora', { lines: [L(1, 1)] }, [1, 0, 1]], // 0.847 → 1
    ['with document discount', { lines: [L(2, 5_900)], discountAmount: 1_800 }, [8_475, 1_525, 10_000]],
    ['rate 0', { vatRateBp: 0, lines: [L(1, 10_000)] }, [10_000, 0, 10_000]],
    ['half-agora case rounds away from zero', { vatRateBp: 1800, lines: [L(1, 59)] }, [50, 9, 59]], // 50.0 exact
    ['fractional quantity and line discount', { lines: [L(0.5, 2_361, 1)] }, [1_000, 180, 1_180]], // 1180.5 → 1181 − 1 = 1180
  ];
  for (const [name, input, [ex, vat, inc]] of cases) {
    it(name, () => {
      const t = computeTotals(base({ priceMode: 'gross', ...input }));
      expect([t.totalExVat, t.vatAmount, t.totalIncVat]).toEqual([ex, vat, inc]);
    });
  }
});

describe('320 and 400: payments and withholding', () => {
  it('320: payments must equal total − withholding', () => {
    const t = computeTotals(base({ docType: 320, lines: [L(1, 10_000)], payments: [{ amount: 11_000 }], withholdingAmount: 800 }));
    expect(paymentsProblem(320, t, 1)).toBeNull();
    const off = computeTotals(base({ docType: 320, lines: [L(1, 10_000)], payments: [{ amount: 11_800 }], withholdingAmount: 800 }));
    expect(paymentsProblem(320, off, 1)).toMatch(/11000/);
    expect(paymentsProblem(320, computeTotals(base({ docType: 320, lines: [L(1, 100)] })), 0)).toMatch(/needs payments/);
  });
  it('320 with several payment methods', () => {
    const t = computeTotals(base({ docType: 320, lines: [L(3, 10_000)], payments: [{ amount: 20_000 }, { amount: 15_400 }] }));
    expect(t.totalIncVat).toBe(35_400);
    expect(paymentsProblem(320, t, 2)).toBeNull();
  });
  it('400: OPENFRMT clarification 4 — paid 1,000 of a 1,250 debt, 250 withheld', () => {
    const t = computeTotals(base({ docType: 400, payments: [{ amount: 100_000 }], withholdingAmount: 25_000 }));
    expect(t).toMatchObject({ totalExVat: 100_000, vatAmount: 0, totalIncVat: 100_000, discountAmount: 0, withholdingAmount: 25_000 });
    expect(t.totalIncVat + t.withholdingAmount).toBe(125_000); // amount settled
    expect(paymentsProblem(400, t, 1)).toBeNull();
  });
  it('400: total = Σ payments whatever the lines say; OPENFRMT §4.5 five cheques of 1,000', () => {
    const t = computeTotals(base({ docType: 400, lines: [L(1, 999)], payments: Array.from({ length: 5 }, () => ({ amount: 100_000 })) }));
    expect(t.totalIncVat).toBe(500_000);
  });
  it('400: needs a non-zero payment', () => {
    expect(paymentsProblem(400, computeTotals(base({ docType: 400 })), 0)).toMatch(/needs payments/);
  });
  it('305 has no payment rule', () => {
    expect(paymentsProblem(305, computeTotals(base({ lines: [L(1, 1)] })), 0)).toBeNull();
  });
});

describe('VAT rate', () => {
  it('statutory by date', () => {
    expect(statutoryVatRateBp('2024-12-31')).toBe(1700);
    expect(statutoryVatRateBp('2025-01-01')).toBe(1800);
    expect(statutoryVatRateBp('2026-03-01')).toBe(1800);
  });
  const r = (over: Partial<Parameters<typeof resolveVatRateBp>[0]>) =>
    resolveVatRateBp({ docType: 305, dealerType: 'company', businessDefaultBp: null, draftRateBp: null, documentDate: '2026-03-01', ...over });
  it('business default wins over the date, draft wins over both', () => {
    expect(r({})).toBe(1800);
    expect(r({ documentDate: '2024-06-01' })).toBe(1700);
    expect(r({ businessDefaultBp: 1700 })).toBe(1700);
    expect(r({ businessDefaultBp: 1700, draftRateBp: 0 })).toBe(0);
  });
  it('exempt dealers and receipts carry no VAT', () => {
    expect(r({ dealerType: 'patur', docType: 400 })).toBe(0);
    expect(r({ dealerType: 'ngo', docType: 400 })).toBe(0);
    expect(r({ docType: 400 })).toBe(0);
  });
  it('0 needs an exemption reason and a reason needs 0', () => {
    expect(vatRateProblem(0, null)).toMatch(/vatExemptionReason/);
    expect(vatRateProblem(0, 'eilat')).toBeNull();
    expect(vatRateProblem(1800, 'export')).toMatch(/only with vatRateBp 0/);
    expect(vatRateProblem(null, null)).toBeNull();
  });
});

describe('rules', () => {
  it('dealer types', () => {
    expect(docTypeAllowed('patur', 400)).toBe(true);
    expect(docTypeAllowed('patur', 305)).toBe(false);
    expect(docTypeAllowed('ngo', 320)).toBe(false);
    expect(docTypeAllowed('murshe', 330)).toBe(true);
    expect(docTypeAllowed('company', 320)).toBe(true);
  });
  it('buyer tax id from 5,000 NIS before VAT on 305/320', () => {
    expect(buyerTaxIdRequired(305, 499_999)).toBe(false);
    expect(buyerTaxIdRequired(305, 500_000)).toBe(true);
    expect(buyerTaxIdRequired(320, 600_000)).toBe(true);
    expect(buyerTaxIdRequired(400, 600_000)).toBe(false);
  });
  it('payment aliases map to codes', () => {
    expect(['cash', 'check', 'cheque', 'card', 'credit', 'transfer', 'bank_transfer', 'voucher', 'standing_order', 'other', 'bit', 'paybox', 'payment_app', 'app'].map(paymentMethodCode)).toEqual([
      1, 2, 2, 3, 3, 4, 4, 5, 8, 9, 91, 92, 93, 93,
    ]);
    expect(paymentMethodCode(91)).toBe(91);
  });
  it('calendar dates', () => {
    expect(realDay('2026-02-28')).toBe(true);
    expect(realDay('2026-02-29')).toBe(false);
    expect(realDay('2028-02-29')).toBe(true);
  });
  const draft = (over: Partial<DraftFields>): DraftFields => ({
    docType: 305, party: null, priceMode: 'net', lines: [{ description: 'x', quantity: 1, unitPriceExVat: 100, sku: null, unit: 'u', lineDiscount: 0, amount: 100 }],
    payments: [], note: null, documentDate: '2026-03-01', valueDate: '2026-03-01', vatRateBp: null, vatExemptionReason: null, discountAmount: 0,
    withholdingAmount: 0, allocationNumber: null, ...over,
  });
  it('draft checks name the field', () => {
    expect(() => checkDraft(draft({}), 'company')).not.toThrow();
    expect(() => checkDraft(draft({ lines: [] }), 'company')).toThrow(/body\.lines/);
    expect(() => checkDraft(draft({ discountAmount: 101 }), 'company')).toThrow(/body\.discountAmount/);
    expect(() => checkDraft(draft({ documentDate: '2026-02-30' }), 'company')).toThrow(/body\.documentDate/);
    expect(() => checkDraft(draft({ docType: 400, lines: [], discountAmount: 5 }), 'company')).toThrow(/body\.discountAmount/);
    expect(() => checkDraft(draft({}), 'patur')).toThrow(/400/);
    expect(() => checkDraft(draft({ payments: [{ method: 1, amount: 1 } as never] }), 'company')).toThrow(/body\.payments/);
  });
});

describe('continuity of a series', () => {
  it('finds gaps and duplicates', () => {
    expect(continuityOf(305, [1, 2, 3])).toEqual({ docType: 305, first: 1, last: 3, count: 3, gaps: [], duplicates: [] });
    expect(continuityOf(305, [3, 1, 5, 5, 6])).toEqual({ docType: 305, first: 1, last: 6, count: 5, gaps: [2, 4], duplicates: [5] });
    expect(continuityOf(400, [])).toEqual({ docType: 400, first: null, last: null, count: 0, gaps: [], duplicates: [] });
    expect(continuityOf(330, [1001, 1002])).toMatchObject({ first: 1001, last: 1002, gaps: [] });
    expect(continuityOf(330, [7, 7, 7])).toMatchObject({ count: 3, duplicates: [7] });
  });
});

describe('credit-note reversal (pure)', async () => {
  const { reversalOf } = await import('../../src/documents/credit-note.ts');
  const snapshot = {
    docType: 320, docNumber: 7, documentDate: '2026-03-01', valueDate: '2026-03-01', issuedAt: '2026-03-01T08:00:00.000Z',
    dealer: { name: 'd', taxId: '516179157', dealerType: 'company', address: null, phone: null, email: null },
    branding: { logoRef: null, accentColor: null, tagline: null, website: null, footerText: null, template: 'classic' },
    party: { partyId: null, key: null, name: 'p', taxId: null, phone: null, email: null, address: null },
    lines: [{ description: 'x', quantity: 1, unitPriceExVat: 10_000, sku: null, unit: 'u', lineDiscount: 0, amount: 10_000 }],
    payments: [{ method: 1, amount: 11_000, dueDate: null, bankCode: null, branchCode: null, accountNumber: null, checkNumber: null, cardCompany: null, cardName: null, cardTxType: null }],
    priceMode: 'net', vatRateBp: 1700, vatExemptionReason: null,
    totals: { totalExVat: 10_000, vatAmount: 1_700, totalIncVat: 11_700, discountAmount: 0, withholdingAmount: 700 },
    note: 'orig', allocationNumber: 'A1', linkedDocument: null,
  } as any;
  const row = (docType: number) => ({ id: 'doc_o', docType, docNumber: 7, snapshot: { ...snapshot, docType } }) as any;
  it('a 330 mirrors the invoice part with positive amounts and the original rate', () => {
    const r = reversalOf(row(320), 'why');
    expect(r).toMatchObject({ docType: 330, vatRateBp: 1700, payments: [], note: 'why', allocationNumber: null, linkedDocument: { id: 'doc_o', docType: 320, docNumber: 7 } });
    expect(r.totals).toEqual({ totalExVat: 10_000, vatAmount: 1_700, totalIncVat: 11_700, discountAmount: 0, withholdingAmount: 0 });
    expect(r.lines).toEqual(snapshot.lines);
  });
  it('a 400 becomes a negative receipt', () => {
    const r = reversalOf(row(400), null);
    expect(r.docType).toBe(400);
    expect(r.payments[0].amount).toBe(-11_000);
    expect(r.totals).toMatchObject({ totalIncVat: -11_700, withholdingAmount: -700 });
    expect(r.linkedDocument).toEqual({ id: 'doc_o', docType: 400, docNumber: 7 });
  });
});

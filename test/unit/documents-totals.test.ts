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
import { continuityOf, continuityOk, MAX_LISTED } from '../../src/documents/list.ts';
import { checkDraft, paymentMethodCode, type DraftFields } from '../../src/documents/draft-input.ts';
import { isCalendarDate as realDay } from '../../src/platform/http/formats.ts';

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
    expect(buyerTaxIdRequired(305, 499_999, null)).toBe(false);
    expect(buyerTaxIdRequired(305, 500_000, null)).toBe(true);
    expect(buyerTaxIdRequired(320, 600_000, null)).toBe(true);
    expect(buyerTaxIdRequired(400, 600_000, null)).toBe(false);
    // An export invoice's buyer is abroad: no Israeli registration number to ask for (issue 29).
    expect(buyerTaxIdRequired(305, 600_000, 'export')).toBe(false);
    expect(buyerTaxIdRequired(320, 600_000, 'export')).toBe(false);
    expect(buyerTaxIdRequired(305, 600_000, 'eilat')).toBe(true);
    expect(buyerTaxIdRequired(305, 600_000, 'exempt')).toBe(true);
    expect(buyerTaxIdRequired(305, 600_000, null)).toBe(true);
  });
  it('payment aliases map to codes', () => {
    expect(
      [
        'cash',
        'check',
        'cheque',
        'card',
        'credit',
        'transfer',
        'bank_transfer',
        'voucher',
        'standing_order',
        'other',
        'bit',
        'paybox',
        'payment_app',
        'app',
      ].map(paymentMethodCode),
    ).toEqual([1, 2, 2, 3, 3, 4, 4, 5, 8, 9, 91, 92, 93, 93]);
    expect(paymentMethodCode(91)).toBe(91);
  });
  it('calendar dates', () => {
    expect(realDay('2026-02-28')).toBe(true);
    expect(realDay('2026-02-29')).toBe(false);
    expect(realDay('2028-02-29')).toBe(true);
  });
  const draft = (over: Partial<DraftFields>): DraftFields => ({
    docType: 305,
    party: null,
    priceMode: 'net',
    lines: [{ description: 'x', quantity: 1, unitPriceExVat: 100, sku: null, unit: 'u', lineDiscount: 0, amount: 100 }],
    payments: [],
    note: null,
    documentDate: '2026-03-01',
    valueDate: '2026-03-01',
    vatRateBp: null,
    vatExemptionReason: null,
    discountAmount: 0,
    withholdingAmount: 0,
    allocationNumber: null,
    currency: 'ILS',
    exchangeRate: null,
    language: 'he',
    ...over,
  });
  it('draft checks name the field', () => {
    expect(() => checkDraft(draft({}), 'company')).not.toThrow();
    expect(() => checkDraft(draft({ lines: [] }), 'company')).toThrow(/body\.lines/);
    expect(() => checkDraft(draft({ discountAmount: 101 }), 'company')).toThrow(/body\.discountAmount/);
    expect(() => checkDraft(draft({ documentDate: '2026-02-30' }), 'company')).toThrow(/body\.documentDate/);
    expect(() => checkDraft(draft({ valueDate: '2023-02-29' }), 'company')).toThrow(/body\.valueDate/);
    expect(() => checkDraft(draft({ documentDate: '1999-12-31' }), 'company')).toThrow(/body\.documentDate: must be between 2000-01-01 and 2099-12-31/);
    const cheque = (dueDate: string | null) =>
      ({
        method: 2,
        amount: 100,
        dueDate,
        bankCode: null,
        branchCode: null,
        accountNumber: null,
        checkNumber: '1001',
        cardCompany: null,
        cardName: null,
        cardTxType: null,
      }) as never;
    expect(() => checkDraft(draft({ docType: 400, lines: [], payments: [cheque('2026-04-01'), cheque(null)] }), 'company')).not.toThrow();
    expect(() => checkDraft(draft({ docType: 400, lines: [], payments: [cheque('2026-04-01'), cheque('2026-04-31')] }), 'company')).toThrow(
      /body\.payments\[1\]\.dueDate/,
    );
    expect(() => checkDraft(draft({ docType: 400, lines: [], payments: [cheque('2100-01-01')] }), 'company')).toThrow(/body\.payments\[0\]\.dueDate/);
    expect(() => checkDraft(draft({ docType: 400, lines: [], discountAmount: 5 }), 'company')).toThrow(/body\.discountAmount/);
    expect(() => checkDraft(draft({}), 'patur')).toThrow(/400/);
    expect(() => checkDraft(draft({ payments: [{ method: 1, amount: 1 } as never] }), 'company')).toThrow(/body\.payments/);
  });
});

describe('continuity of a series', () => {
  const series = (startNumber: number, lastNumber: number | null) => ({ startNumber, lastNumber });
  const clean = { gaps: [], gapCount: 0, duplicates: [], outOfSeries: [] };

  it('finds gaps and duplicates', () => {
    expect(continuityOf(305, [1, 2, 3], series(1, 3))).toEqual({
      docType: 305,
      first: 1,
      last: 3,
      count: 3,
      expectedFirst: 1,
      counter: 3,
      gaps: [],
      gapCount: 0,
      duplicates: [],
      outOfSeries: [],
    });
    expect(continuityOf(305, [3, 1, 5, 5, 6], series(1, 6))).toEqual({
      docType: 305,
      first: 1,
      last: 6,
      count: 5,
      expectedFirst: 1,
      counter: 6,
      gaps: [2, 4],
      gapCount: 2,
      duplicates: [5],
      outOfSeries: [],
    });
    expect(continuityOf(400, [], series(1, null))).toEqual({
      docType: 400,
      first: null,
      last: null,
      count: 0,
      expectedFirst: 1,
      counter: null,
      gaps: [],
      gapCount: 0,
      duplicates: [],
      outOfSeries: [],
    });
    expect(continuityOf(330, [1001, 1002], series(1001, 1002))).toMatchObject({ first: 1001, last: 1002, gaps: [] });
    expect(continuityOf(330, [7, 7, 7], series(7, 7))).toMatchObject({ count: 3, duplicates: [7] });
  });

  it('a missing first number is a gap: the series starts at 1, the first stored is 3', () => {
    expect(continuityOf(305, [3, 4, 5], series(1, 5))).toMatchObject({
      first: 3,
      last: 5,
      count: 3,
      expectedFirst: 1,
      counter: 5,
      gaps: [1, 2],
      gapCount: 2,
      outOfSeries: [],
    });
    expect(continuityOf(305, [2], series(1, 2))).toMatchObject({ gaps: [1], gapCount: 1 });
  });

  it('a missing first number of a series started at a chosen number is a gap', () => {
    expect(continuityOf(305, [1003, 1004], series(1001, 1004))).toMatchObject({ expectedFirst: 1001, gaps: [1001, 1002], gapCount: 2 });
    expect(continuityOf(305, [1001, 1002], series(1001, 1002))).toMatchObject({ first: 1001, ...clean });
  });

  it('numbers handed out after the last stored one are gaps: the counter says 10, the last stored is 8', () => {
    expect(continuityOf(320, [1, 2, 3, 4, 5, 6, 7, 8], series(1, 10))).toMatchObject({
      last: 8,
      counter: 10,
      gaps: [9, 10],
      gapCount: 2,
      duplicates: [],
      outOfSeries: [],
    });
  });

  it('a counter that ran ahead of an untouched series shows every number it skipped', () => {
    expect(continuityOf(400, [1, 2, 3], series(1, 3))).toMatchObject(clean);
    expect(continuityOf(400, [1, 2, 3], series(1, 7))).toMatchObject({ gaps: [4, 5, 6, 7], gapCount: 4 });
  });

  it('a series that handed out numbers but stored none is all gaps', () => {
    expect(continuityOf(330, [], series(1, 3))).toEqual({
      docType: 330,
      first: null,
      last: null,
      count: 0,
      expectedFirst: 1,
      counter: 3,
      gaps: [1, 2, 3],
      gapCount: 3,
      duplicates: [],
      outOfSeries: [],
    });
    expect(continuityOf(330, [], series(500, 501))).toMatchObject({ expectedFirst: 500, gaps: [500, 501], gapCount: 2 });
  });

  it('a series that has not issued yet is clean, whatever its start number', () => {
    expect(continuityOf(305, [], series(1, null))).toMatchObject({ counter: null, ...clean });
    expect(continuityOf(305, [], series(1001, null))).toMatchObject({ expectedFirst: 1001, counter: null, ...clean });
  });

  it('gaps at the start, in the middle and at the end together, ascending', () => {
    expect(continuityOf(305, [9, 4, 3, 7], series(1, 12))).toMatchObject({ first: 3, last: 9, count: 4, gaps: [1, 2, 5, 6, 8, 10, 11, 12], gapCount: 8 });
  });

  it('stored numbers the series never handed out are out of series: below the start, or past the counter', () => {
    expect(continuityOf(305, [1000, 1001, 1002], series(1001, 1002))).toMatchObject({ first: 1000, gaps: [], gapCount: 0, outOfSeries: [1000] });
    expect(continuityOf(305, [1, 2, 3, 4], series(1, 2))).toMatchObject({ last: 4, gaps: [], gapCount: 0, outOfSeries: [3, 4] });
    // Stored numbers with no counter row at all: the series handed out nothing.
    expect(continuityOf(305, [1, 2], series(1, null))).toMatchObject({ counter: null, gaps: [], outOfSeries: [1, 2] });
    // Out of series and a gap together: 3 was handed out but not stored; 6 was never handed out.
    expect(continuityOf(305, [1, 2, 4, 5, 6], series(1, 5))).toMatchObject({ gaps: [3], gapCount: 1, outOfSeries: [6] });
  });

  it('a duplicate is listed once, and does not hide or fill a gap', () => {
    expect(continuityOf(305, [1, 1, 3, 3, 3], series(1, 4))).toMatchObject({ count: 5, gaps: [2, 4], gapCount: 2, duplicates: [1, 3] });
    expect(continuityOf(305, [2, 2], series(1, 2))).toMatchObject({ gaps: [1], gapCount: 1, duplicates: [2] });
  });

  it('the input order does not matter', () => {
    const a = continuityOf(305, [5, 2, 9, 1, 2], series(1, 10));
    const b = continuityOf(305, [1, 2, 2, 5, 9], series(1, 10));
    expect(a).toEqual(b);
    expect(a.gaps).toEqual([3, 4, 6, 7, 8, 10]);
  });

  it('does not mutate its input', () => {
    const numbers = [3, 1, 2];
    continuityOf(305, numbers, series(1, 3));
    expect(numbers).toEqual([3, 1, 2]);
  });

  it(`lists at most ${MAX_LISTED} gaps but counts them all, without walking a runaway counter`, () => {
    const runaway = continuityOf(305, [1, 2], series(1, 1_000_000_000_000));
    expect(runaway.gaps).toHaveLength(MAX_LISTED);
    expect(runaway.gaps[0]).toBe(3);
    expect(runaway.gaps[MAX_LISTED - 1]).toBe(MAX_LISTED + 2);
    expect(runaway.gapCount).toBe(1_000_000_000_000 - 2);
    const missingStart = continuityOf(305, [5000], series(1, 5000));
    expect(missingStart.gaps).toEqual(Array.from({ length: MAX_LISTED }, (_, i) => i + 1));
    expect(missingStart.gapCount).toBe(4999);
  });

  it('agrees with a brute-force count on random series', () => {
    let seed = 42;
    const rand = (n: number) => {
      seed = (seed * 1103515245 + 12345) % 2 ** 31;
      return seed % n;
    };
    for (let round = 0; round < 300; round++) {
      const start = 1 + rand(20);
      const counter = rand(4) === 0 ? null : start - 1 + rand(40);
      const numbers = Array.from({ length: rand(40) }, () => 1 + rand(70));
      const e = continuityOf(305, numbers, series(start, counter));
      const stored = new Set(numbers);
      const expected = counter === null ? [] : Array.from({ length: Math.max(0, counter - start + 1) }, (_, i) => start + i);
      const gaps = expected.filter((n) => !stored.has(n));
      const outside = [...stored].filter((n) => n < start || counter === null || n > counter).sort((x, y) => x - y);
      const dups = [...stored].filter((n) => numbers.filter((m) => m === n).length > 1).sort((x, y) => x - y);
      expect(e.gaps).toEqual(gaps);
      expect(e.gapCount).toBe(gaps.length);
      expect(e.outOfSeries).toEqual(outside);
      expect(e.duplicates).toEqual(dups);
      expect(e.count).toBe(numbers.length);
      expect(continuityOk(e)).toBe(gaps.length === 0 && outside.length === 0 && dups.length === 0);
    }
  });
});

describe('credit-note reversal (pure)', async () => {
  const { reversalOf } = await import('../../src/documents/credit-note.ts');
  const snapshot = {
    docType: 320,
    docNumber: 7,
    documentDate: '2026-03-01',
    valueDate: '2026-03-01',
    issuedAt: '2026-03-01T08:00:00.000Z',
    dealer: { name: 'd', taxId: '516179157', dealerType: 'company', address: null, phone: null, email: null },
    branding: { logoRef: null, accentColor: null, tagline: null, website: null, footerText: null, template: 'classic' },
    party: { partyId: null, key: null, name: 'p', taxId: null, phone: null, email: null, address: null },
    lines: [{ description: 'x', quantity: 1, unitPriceExVat: 10_000, sku: null, unit: 'u', lineDiscount: 0, amount: 10_000 }],
    payments: [
      {
        method: 1,
        amount: 11_000,
        dueDate: null,
        bankCode: null,
        branchCode: null,
        accountNumber: null,
        checkNumber: null,
        cardCompany: null,
        cardName: null,
        cardTxType: null,
      },
    ],
    priceMode: 'net',
    vatRateBp: 1700,
    vatExemptionReason: null,
    totals: { totalExVat: 10_000, vatAmount: 1_700, totalIncVat: 11_700, discountAmount: 0, withholdingAmount: 700 },
    note: 'orig',
    allocationNumber: 'A1',
    linkedDocument: null,
  } as any;
  const row = (docType: number) => ({ id: 'doc_o', docType, docNumber: 7, snapshot: { ...snapshot, docType } }) as any;
  it('a 330 mirrors the invoice part with positive amounts and the original rate', () => {
    const r = reversalOf(row(320), 'why');
    expect(r).toMatchObject({
      docType: 330,
      vatRateBp: 1700,
      payments: [],
      note: 'why',
      allocationNumber: null,
      linkedDocument: { id: 'doc_o', docType: 320, docNumber: 7 },
    });
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

// Conversions (src/documents/conversion.ts, issue 30): which pairs make sense, the lines a conversion
// takes (all that is left, or a chosen part), shares of the discounts, and the refusals.
import { describe, expect, it } from 'vitest';
import { conversionRefusal, convertedLines, discountShare, quantitiesFrom, stageOf, type ConversionSource } from '../../src/documents/conversion.ts';
import { quantityTenThousandths as q4 } from '../../src/platform/money.ts';
import { DOC_TYPE_CODES, DOC_TYPES, type DocType } from '../../src/documents/doc-types.ts';
import { AppError } from '../../src/platform/errors.ts';
import type { DocumentLine } from '../../src/documents/snapshot-types.ts';

const line = (over: Partial<DocumentLine> = {}): DocumentLine => ({
  description: 'בלוק',
  quantity: 10,
  unitPriceExVat: 1_000,
  sku: 'B-1',
  unit: 'יח׳',
  lineDiscount: 0,
  amount: 10_000,
  ...over,
});
/** An order: 10 blocks at 10.00, 3 bags at 25.00 less 1.50 (73.50), a document discount of 3.00. */
const order: ConversionSource = {
  id: 'doc_order',
  docType: 100,
  docNumber: 7,
  lines: [line(), line({ description: 'מלט', quantity: 3, unitPriceExVat: 2_500, lineDiscount: 150, amount: 7_350, sku: null })],
  discountAmount: 300,
};
const none = [0, 0];
const refusalOf = (f: () => unknown) => {
  try {
    f();
  } catch (e) {
    return e instanceof AppError ? [e.status, e.reason, e.message] : ['not an AppError', String(e)];
  }
  return null;
};

describe('which conversions make sense (decisions.md)', () => {
  const yes: [DocType, DocType][] = [
    [10, 100],
    [10, 200],
    [10, 300],
    [10, 305],
    [10, 320],
    [100, 200],
    [100, 305],
    [200, 210],
    [200, 305],
    [200, 320],
    [300, 320],
    [300, 305],
  ];
  it.each(yes)('%i → %i', (from, to) => expect(conversionRefusal(from, to)).toBeNull());

  const no: [DocType, DocType, string][] = [
    [400, 10, 'a 400 receipt cannot be converted into a 10 price quote: a 400 converts into nothing'],
    [305, 100, 'a 305 tax invoice cannot be converted into a 100 order: a 305 converts into nothing'],
    [320, 330, 'a 320 invoice/receipt cannot be converted into a 330 credit note: a 320 converts into nothing'],
    [100, 10, 'a 100 order cannot be converted into a 10 price quote: a 100 converts into 200, 300, 305 or 320'],
    [300, 300, 'a 300 transaction invoice cannot be converted into a 300 transaction invoice: a 300 converts into 305 or 320'],
    [210, 305, 'a 210 return note cannot be converted into a 305 tax invoice: a 210 converts into nothing'],
    [10, 210, 'a 10 price quote cannot be converted into a 210 return note: a 10 converts into 100, 200, 300, 305 or 320'],
  ];
  it.each(no)('%i ↛ %i', (from, to, why) => expect(conversionRefusal(from, to)).toBe(why));

  it('every target is a draft type with a stage; quotes and tax documents other than invoices are never targets', () => {
    for (const code of DOC_TYPE_CODES) {
      for (const to of DOC_TYPES[code].convertsTo) {
        expect(DOC_TYPES[to].createdBy).toBe('draft');
        expect(DOC_TYPES[to].fulfils).not.toBeNull();
        expect(to).not.toBe(code);
      }
    }
    expect(stageOf(100)).toBe('order');
    expect(stageOf(200)).toBe('delivery');
    expect(stageOf(210)).toBe('return');
    for (const to of [300, 305, 320] as const) expect(stageOf(to)).toBe('invoice');
    expect(() => stageOf(10)).toThrow(/without a stage/);
    expect(() => stageOf(400)).toThrow(/without a stage/);
  });
});

describe('the lines of a conversion', () => {
  it('the whole source: every line, each naming its source line, amounts as the source', () => {
    const lines = convertedLines({ source: order, taken: none, chosen: undefined });
    expect(lines).toEqual([
      { ...order.lines[0], source: { documentId: 'doc_order', docType: 100, docNumber: 7, index: 0 } },
      { ...order.lines[1], source: { documentId: 'doc_order', docType: 100, docNumber: 7, index: 1 } },
    ]);
    expect(discountShare(order, lines)).toBe(300);
  });

  it('a chosen part: the quantities asked, the line discount and the document discount shared by quantity', () => {
    const lines = convertedLines({ source: order, taken: none, chosen: [{ index: 1, quantity: 1 }] });
    // 1 of 3 bags: 25.00 less a third of 1.50 = 0.50 → 24.50.
    expect(lines).toEqual([
      expect.objectContaining({ description: 'מלט', quantity: 1, lineDiscount: 50, amount: 2_450, source: expect.objectContaining({ index: 1 }) }),
    ]);
    // 3.00 × 24.50 / 173.50 = 0.4236… → 0.42.
    expect(discountShare(order, lines)).toBe(42);
  });

  it('after earlier conversions: what is left of each line, shares that add up to the whole', () => {
    const first = convertedLines({ source: order, taken: none, chosen: [{ index: 1, quantity: 1 }] });
    const second = convertedLines({ source: order, taken: [0, q4(1)], chosen: [{ index: 1, quantity: 1 }] });
    const rest = convertedLines({ source: order, taken: [0, q4(2)], chosen: undefined });
    expect(rest.map((l) => [l.source!.index, l.quantity])).toEqual([
      [0, 10],
      [1, 1],
    ]);
    // The line discount of 1.50 splits 0.50 + 0.50 + 0.50 and the line amounts add up to the line.
    expect([first[0].lineDiscount, second[0].lineDiscount, rest[1].lineDiscount]).toEqual([50, 50, 50]);
    expect(first[0].amount + second[0].amount + rest[1].amount).toBe(7_350);
  });

  it('fractions of a unit stay exact in ten-thousandths', () => {
    const src = { ...order, lines: [line({ quantity: 0.3, amount: 300 })], discountAmount: 0 };
    const a = convertedLines({ source: src, taken: [0], chosen: [{ index: 0, quantity: 0.1 }] });
    const b = convertedLines({ source: src, taken: [q4(0.1)], chosen: [{ index: 0, quantity: 0.2 }] });
    expect([a[0].quantity, b[0].quantity]).toEqual([0.1, 0.2]);
    expect(refusalOf(() => convertedLines({ source: src, taken: [q4(0.1) + q4(0.2)], chosen: undefined }))).toEqual([
      409,
      'conflict',
      '100 #7 has nothing left to convert at this stage: every line was taken',
    ]);
  });

  it('refuses beyond what is left (409), a line the source has not, a line named twice, too many decimals (400)', () => {
    expect(refusalOf(() => convertedLines({ source: order, taken: [q4(8), 0], chosen: [{ index: 0, quantity: 3 }] }))).toEqual([
      409,
      'conflict',
      'line 0 ("בלוק"): 2 of its 10 are left to convert, the request asks 3',
    ]);
    expect(refusalOf(() => convertedLines({ source: order, taken: [q4(10), 0], chosen: [{ index: 0, quantity: 1 }] }))?.[2]).toBe(
      'line 0 ("בלוק"): 0 of its 10 are left to convert, the request asks 1',
    );
    expect(refusalOf(() => convertedLines({ source: order, taken: none, chosen: [{ index: 2, quantity: 1 }] }))).toEqual([
      400,
      'validation',
      'body.lines[0].index: the document has 2 lines: index 0 to 1',
    ]);
    expect(
      refusalOf(() =>
        convertedLines({
          source: order,
          taken: none,
          chosen: [
            { index: 0, quantity: 1 },
            { index: 0, quantity: 1 },
          ],
        }),
      )?.[2],
    ).toBe('body.lines[1].index: line 0 is named twice');
    expect(refusalOf(() => convertedLines({ source: order, taken: none, chosen: [{ index: 0, quantity: 1.00001 }] }))?.[1]).toBe('validation');
  });

  it("quantitiesFrom counts a draft's lines of one source only", () => {
    const lines = [
      ...convertedLines({ source: order, taken: none, chosen: [{ index: 0, quantity: 4 }] }),
      ...convertedLines({ source: { ...order, id: 'doc_other' }, taken: none, chosen: [{ index: 0, quantity: 5 }] }),
      line(),
    ];
    expect(quantitiesFrom('doc_order', 2, lines)).toEqual([q4(4), 0]);
    expect(quantitiesFrom('doc_other', 2, lines)).toEqual([q4(5), 0]);
    expect(quantitiesFrom('doc_none', 2, lines)).toEqual([0, 0]);
  });

  it("a converted line drops its source's own source and shekel amount", () => {
    const src = { ...order, lines: [line({ amountIls: 37_000, source: { documentId: 'doc_q', docType: 10, docNumber: 1, index: 0 } })] };
    const [l] = convertedLines({ source: src, taken: [0], chosen: undefined });
    expect(l.amountIls).toBeUndefined();
    expect(l.source).toEqual({ documentId: 'doc_order', docType: 100, docNumber: 7, index: 0 });
  });
});

describe('the printed page names the sources', () => {
  it('"על פי" / "Based on" with each source by title and number, in the page language(s)', async () => {
    const { infoLines } = await import('../../src/pdf/wording.ts');
    const { sampleModel } = await import('../../src/pdf/samples.ts');
    const basedOn = [
      { docType: 200 as const, docNumber: 1 },
      { docType: 200 as const, docNumber: 2 },
    ];
    expect(infoLines(sampleModel(305, 'classic', { basedOn }))).toContain("על פי: תעודת משלוח מס' 1, תעודת משלוח מס' 2");
    expect(infoLines(sampleModel(305, 'classic', { basedOn, language: 'en' }))).toContain('Based on: Delivery Note No. 1, Delivery Note No. 2');
    const bilingual = infoLines(sampleModel(320, 'classic', { basedOn: [{ docType: 300, docNumber: 4 }], language: 'he+en' }));
    expect(bilingual).toContain("על פי: חשבונית עסקה מס' 4");
    expect(bilingual).toContain('Based on: Transaction Invoice No. 4');
    expect(infoLines(sampleModel(305, 'classic')).some((l) => l.includes('על פי'))).toBe(false);
  });
});

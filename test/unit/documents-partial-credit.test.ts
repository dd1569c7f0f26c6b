/**
 * Partial credits, pure (documents/partial-credit.ts and partial-credit-ils.ts): the shares that add up,
 * the remainder, and the shekel figures of a foreign-currency document's credits at its own rate.
 * Worked by hand at 18% and 3.6545 ₪ a dollar (the API-level walk is test/documents/partial-credits.test.ts).
 */
import { describe, expect, it } from 'vitest';
import { creditedSoFar, partialCreditOf, shareOf, type CreditRequest } from '../../src/documents/partial-credit.ts';
import { lineAmount } from '../../src/documents/totals.ts';
import type { Totals } from '../../src/documents/snapshot.ts';
import type { DocumentSnapshot } from '../../src/documents/snapshot-types.ts';
import { AppError } from '../../src/platform/errors.ts';

const line = (description: string, quantity: number, unitPriceExVat: number, lineDiscount = 0) => ({
  description,
  quantity,
  unitPriceExVat,
  lineDiscount,
  sku: null,
  unit: 'יחידה',
  amount: lineAmount({ quantity, unitPriceExVat, lineDiscount }),
});
const totals = (totalExVat: number, vatAmount: number, discountAmount = 0): Totals => ({
  totalExVat,
  vatAmount,
  totalIncVat: totalExVat + vatAmount,
  discountAmount,
  withholdingAmount: 0,
});

/** $30.00 (3 × $10.00) + $25.00 ($25.50 − $0.50) − $1.00 = $54.00 + $9.72; in shekels 197.36 + 35.52. */
const usd = {
  docType: 305,
  priceMode: 'net',
  vatRateBp: 1800,
  currency: 'USD',
  exchangeRate: '3.6545',
  lines: [
    { ...line('Widget', 3, 1_000), amountIls: 10_965 },
    { ...line('Gadget', 1, 2_550, 50), amountIls: 9_136 },
  ],
  totals: totals(5_400, 972, 100),
  ils: totals(19_736, 3_552, 365),
} as unknown as DocumentSnapshot;

/** Credits one after another, each as the API would store it (its figures and shekels). */
function creditInTurn(original: DocumentSnapshot, requests: CreditRequest[]) {
  const written: DocumentSnapshot[] = [];
  return requests.map((request) => {
    const part = partialCreditOf({ original, soFar: creditedSoFar(original, written), request })!;
    written.push({ ...original, lines: part.lines, totals: part.totals, ils: part.ils, credited: part.credited });
    return part;
  });
}

const refusal = (f: () => unknown): [number, string] => {
  try {
    f();
  } catch (e) {
    return [(e as AppError).status, (e as AppError).message];
  }
  return [0, 'not refused'];
};

describe('shares that add up', () => {
  it('round(whole × so far) less what the shares before took', () => {
    // 5.00 in three thirds: 1.67, 1.66, 1.67 (each alone would be 1.67: 5.01 in all).
    expect([shareOf(500, 0, 1, 3), shareOf(500, 1, 1, 3), shareOf(500, 2, 1, 3)]).toEqual([167, 166, 167]);
    expect(shareOf(0, 0, 1, 3)).toBe(0);
  });
});

describe('a foreign-currency document credited in parts, at its own rate', () => {
  it('lines by the line rule, VAT and discount over the credits, the rest closing to the agora', () => {
    const [byLine, byAmount, rest] = creditInTurn(usd, [{ lines: [{ index: 0, quantity: 1 }] }, { amount: 2_000 }, {}]);
    expect([byLine.totals, byLine.ils, byLine.lines[0].amountIls, byLine.full]).toEqual([
      totals(982, 177, 18),
      totals(3_589, 647, 66), // 36.55 − 0.66 (0.18 × 3.6545), VAT 1.77 → 6.47
      3_655,
      false,
    ]);
    expect([byAmount.totals, byAmount.ils]).toEqual([totals(2_000, 360), totals(7_309, 1_315)]); // 19.62 − 6.47
    // The rest is what is left in shekels (88.38), not $24.18 converted (88.37).
    expect([rest.totals, rest.ils, rest.lines[0].amountIls, rest.full, rest.credited]).toEqual([
      totals(2_418, 435),
      totals(8_838, 1_590),
      8_838,
      true,
      { kind: 'remainder' },
    ]);
  });

  it('an amount that takes the whole rest takes the rest in shekels too', () => {
    const [, whole] = creditInTurn(usd, [{ amount: 2_700 }, { amount: 2_700 }]);
    expect([whole.totals.totalExVat, whole.ils.totalExVat + whole.ils.vatAmount, whole.full]).toEqual([2_700, 23_288 - (9_867 + 1_776), true]);
  });

  it('refuses a credit that would end the dollars but not the shekels (or pass the shekels left), naming the rule', () => {
    const pins = {
      ...usd,
      lines: [{ ...line('Pin', 2, 1), amountIls: 8 }],
      totals: totals(2, 0),
      ils: totals(8, 0),
    } as unknown as DocumentSnapshot;
    const [half] = creditInTurn(pins, [{ lines: [{ index: 0, quantity: 0.5 }] }]);
    expect([half.totals.totalExVat, half.ils.totalExVat]).toEqual([1, 2]);
    const soFar = creditedSoFar(pins, [{ ...pins, lines: half.lines, totals: half.totals, ils: half.ils, credited: half.credited }]);
    const [status, message] = refusal(() => partialCreditOf({ original: pins, soFar, request: { lines: [{ index: 0, quantity: 0.5 }] } }));
    expect(status).toBe(409);
    expect(message).toMatch(
      /comes to 2 agorot before VAT and 2 with VAT, and 6 and 6 are left: the credits of a USD document must end in shekels where they end in USD/,
    );
    expect(partialCreditOf({ original: pins, soFar, request: {} })!.ils.totalExVat).toBe(6);
  });

  it('a document priced including VAT: the shekel lines include it, and the amount before VAT is what is left of them', () => {
    // 2 × $11.80 with VAT: $20.00 + $3.60. In shekels 2 × 43.12 (43.1231) = 86.24, VAT 13.16 (13.1562): 73.08 before VAT.
    const gross = {
      ...usd,
      priceMode: 'gross',
      lines: [{ ...line('Box', 2, 1_180), amountIls: 8_624 }],
      totals: totals(2_000, 360),
      ils: totals(7_308, 1_316),
    } as unknown as DocumentSnapshot;
    const [one, rest] = creditInTurn(gross, [{ lines: [{ index: 0, quantity: 1 }] }, {}]);
    expect([one.totals, one.ils]).toEqual([totals(1_000, 180), totals(3_654, 658)]);
    expect([rest.totals, rest.ils, rest.lines[0].amountIls, rest.full]).toEqual([totals(1_000, 180), totals(3_654, 658), 4_312, true]);
  });

  it('a shekel document keeps its totals as its shekels and no line amount in shekels', () => {
    const ils = {
      ...usd,
      currency: 'ILS',
      exchangeRate: null,
      ils: usd.totals,
      lines: usd.lines.map(({ amountIls: _, ...l }) => l),
    } as unknown as DocumentSnapshot;
    const [part] = creditInTurn(ils, [{ lines: [{ index: 0, quantity: 1 }] }]);
    expect(part.ils).toEqual(part.totals);
    expect(part.lines[0].amountIls).toBeUndefined();
  });
});

import { describe, expect, it } from 'vitest';
import { decimalsProblem, maxAgorotOf, maxDigitsOf, maxLengthOf, maxScaledOf, maxValueOf, textProblem } from '../../src/openfrmt/limits.ts';
import { amount12, amount15, quantity17, unsignedScaled } from '../../src/openfrmt/fields.ts';
import { lineAmount } from '../../src/documents/totals.ts';

describe('limits derived from the layouts', () => {
  it('amounts: the largest fits its picture, one more does not', () => {
    for (const [rec, id, write] of [
      ['C100', 1223, amount15],
      ['D110', 1265, amount15],
      ['D120', 1312, amount15],
      ['C100', 1224, amount12],
    ] as const) {
      const max = maxAgorotOf(rec, id);
      expect(() => write(max)).not.toThrow();
      expect(() => write(max + 1)).toThrow();
    }
    expect(maxAgorotOf('C100', 1223)).toBe(99_999_999_999_999);
    expect(maxAgorotOf('C100', 1224)).toBe(99_999_999_999);
  });
  it('quantity: X9(12)v9999 capped to 15 exact digits, 4 decimals', () => {
    expect(maxValueOf('D110', 1264)).toBe(99_999_999_999.9999);
    expect(quantity17(maxValueOf('D110', 1264))).toBe('+0999999999999999');
    expect(maxValueOf('M100', 1462)).toBe(999_999_999.99);
    expect(decimalsProblem(1.2345, 'D110', 1264)).toBeNull();
    expect(decimalsProblem(1.23456, 'D110', 1264)).toMatch(/more than 4 decimals/);
    expect(decimalsProblem(1e-7, 'D110', 1264)).toMatch(/more than 4 decimals/);
  });
  it('VAT rate 9(2)v99, texts and codes', () => {
    expect(maxScaledOf('D110', 1268)).toBe(9999);
    expect(() => unsignedScaled(9999, 2, 2)).not.toThrow();
    expect(maxLengthOf('D110', 1260)).toBe(30);
    expect(maxLengthOf('C100', 1207)).toBe(50);
    expect(maxDigitsOf('D120', 1309)).toBe(15);
    expect(textProblem('₪'.repeat(10), 'D110', 1260)).toBeNull(); // ש"ח × 10 = 30
    expect(textProblem('₪'.repeat(11), 'D110', 1260)).toMatch(/33 characters/);
  });
  it('line amounts are exact for 4-decimal quantities', () => {
    const L = (quantity: number, unitPriceExVat: number) => ({ quantity, unitPriceExVat });
    expect(lineAmount(L(1.0005, 1000))).toBe(1001);
    expect(lineAmount(L(99_999_999_999.9999, 1))).toBe(100_000_000_000);
    expect(lineAmount(L(2.675, 100))).toBe(268);
    expect(lineAmount(L(1.00005, 10_000))).toBe(10_001); // a stored legacy quantity: the floating product
  });
});

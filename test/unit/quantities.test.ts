import { describe, expect, it } from 'vitest';
import { quantityOfTenThousandths, quantityTenThousandths, quantityText, quantityTimesPrice } from '../../src/platform/money.ts';
import { quantity17 } from '../../src/openfrmt/fields.ts';
import { recordText } from '../helpers/openfrmt-records.ts';
import { formatQuantity } from '../../src/pdf/hebrew.ts';
import { tenThousandthsOf } from '../verifier/quantities.ts';

describe('the one rounding of quantities (ten-thousandths, half away from zero)', () => {
  it('keeps quantities of at most 4 decimals exactly', () => {
    const cases: [number, number][] = [
      [0, 0],
      [1, 10_000],
      [2.5, 25_000],
      [0.0001, 1],
      [0.3333, 3_333],
      [1.005, 10_050],
      [123_456_789.1234, 1_234_567_891_234],
      [-1, -10_000],
      [-0.0001, -1],
      [-2.5, -25_000],
    ];
    for (const [q, t] of cases) expect(quantityTenThousandths(q), String(q)).toBe(t);
  });

  it('takes a half away from zero on both sides, where Math.round takes it toward +∞', () => {
    expect(quantityTenThousandths(0.00025)).toBe(3);
    expect(quantityTenThousandths(-0.00025)).toBe(-3);
    expect(Math.round(-0.00025 * 10_000)).toBe(-2);
    expect(quantityTenThousandths(2.00015)).toBe(20_002);
    expect(quantityTenThousandths(-2.00015)).toBe(-20_002);
    expect(quantityTenThousandths(1.23455)).toBe(12_346);
    expect(quantityTenThousandths(-1.23455)).toBe(-12_346);
    expect(quantityTenThousandths(0.00005)).toBe(1);
    expect(quantityTenThousandths(-0.00005)).toBe(-1);
  });

  it('reads the decimal as written, not its binary product', () => {
    for (const [q, t] of [
      [0.00015, 2],
      [0.00145, 15],
      [0.00465, 47],
      [0.00815, 82],
    ] as const) {
      expect(q * 10_000).toBeLessThan(t - 0.5);
      expect(quantityTenThousandths(q), String(q)).toBe(t);
      expect(quantityTenThousandths(-q), String(-q)).toBe(-t);
    }
  });

  it('rounds below a half down and above it up, either sign; never answers −0', () => {
    expect(quantityTenThousandths(0.00014999)).toBe(1);
    expect(quantityTenThousandths(0.00015001)).toBe(2);
    expect(quantityTenThousandths(-0.00014999)).toBe(-1);
    expect(quantityTenThousandths(-0.00015001)).toBe(-2);
    expect(Object.is(quantityTenThousandths(-0.00004), 0)).toBe(true);
    expect(Object.is(quantityTenThousandths(-0), 0)).toBe(true);
    expect(quantityTenThousandths(1e-7)).toBe(0);
    expect(quantityTenThousandths(3.33333333)).toBe(33_333);
  });

  it('turns back into the quantity, and prints to 4 decimals without trailing zeros', () => {
    expect(quantityOfTenThousandths(33_333)).toBe(3.3333);
    expect(quantityOfTenThousandths(-25_000)).toBe(-2.5);
    expect(quantityText(2)).toBe('2');
    expect(quantityText(1.5)).toBe('1.5');
    expect(quantityText(0.33333333)).toBe('0.3333');
    expect(quantityText(0.00015)).toBe('0.0002');
    expect(quantityText(-0.00025)).toBe('-0.0003');
    expect(quantityText(1.23455)).toBe('1.2346');
    expect(quantityText(-0.00004)).toBe('0');
  });

  it('is what the export writes in D110/1264 (both writers), the PDF prints and the verifier expects', () => {
    let seed = 11;
    const qs = [0.00015, -0.00015, 0.00025, -0.00025, 2.00015, -2.00015, 1.005, 0.1 + 0.2];
    for (let i = 0; i < 3_000; i++) {
      seed = (seed * 1_103_515_245 + 12_345) % 2 ** 31;
      const q = Number(((seed % 20_000_001) / 100_000 - 100).toFixed(5));
      qs.push(q);
    }
    for (const q of qs) {
      const t = quantityTenThousandths(q);
      const written = (t < 0 ? '-' : '+') + String(Math.abs(t)).padStart(16, '0');
      expect(quantity17(q), String(q)).toBe(written);
      expect(
        recordText((o) => {
          o.begin(19);
          o.quantity17(q);
          o.end('D110/1264', 17);
        }),
        String(q),
      ).toBe(written);
      expect(formatQuantity(q), String(q)).toBe(quantityText(q));
      expect(tenThousandthsOf(q), String(q)).toBe(BigInt(t));
    }
  });

  it('is the quantity the line amount multiplies', () => {
    expect(quantityTimesPrice(2.5, 333)).toBe(833);
    expect(quantityTimesPrice(-2.5, 333)).toBe(-833);
    expect(quantityTimesPrice(quantityOfTenThousandths(quantityTenThousandths(1.005)), 100)).toBe(101);
  });
});

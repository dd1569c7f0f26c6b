import { describe, expect, it } from 'vitest';
import {
  allocateAgorot,
  formatMinor,
  ilsPayments,
  ilsTotals,
  isExchangeRate,
  paymentInOwnCurrency,
  toAgorot,
  toHundredths,
} from '../../src/documents/currency.ts';
import { currencyOf, isCurrencyCode, minorUnitsOf } from '../../src/platform/currencies.ts';

describe('ISO 4217 list', () => {
  it('knows the minor units of 0-, 2- and 3-decimal currencies', () => {
    expect(minorUnitsOf('JPY')).toBe(0);
    expect(minorUnitsOf('USD')).toBe(2);
    expect(minorUnitsOf('EUR')).toBe(2);
    expect(minorUnitsOf('ILS')).toBe(2);
    expect(minorUnitsOf('KWD')).toBe(3);
    expect(minorUnitsOf('BHD')).toBe(3);
    expect(minorUnitsOf('KRW')).toBe(0);
    expect(currencyOf('GBP')?.name).toBe('Pound Sterling');
  });
  it('leaves out metals, funds and test codes', () => {
    for (const c of ['XAU', 'XAG', 'XTS', 'XXX', 'XDR', 'USN', 'CLF', 'usd', 'US', 'ABC']) expect(isCurrencyCode(c), c).toBe(false);
  });
});

describe('exchange rate text', () => {
  it.each(['3.6540', '1', '0.0243', '145.123456', '999999.9999999999'])('accepts %s', (r) => expect(isExchangeRate(r)).toBe(true));
  it.each(['0', '0.0', '00.000', '-3.6', '3,65', '3.', '.5', '1e3', '1234567', '1.12345678901', ' 3.6', ''])('refuses %j', (r) =>
    expect(isExchangeRate(r)).toBe(false),
  );
});

describe('minor units to agorot at a rate (half away from zero, exact decimals)', () => {
  const cases: [number, string, string, number][] = [
    // $1,000.00 at 3.6540 = 3,654.00 ₪
    [100000, 'USD', '3.6540', 365400],
    // $0.01 at 3.655 = 3.655 agorot → 4
    [1, 'USD', '3.655', 4],
    [-1, 'USD', '3.655', -4],
    // $0.01 at 3.645 = 3.645 → 4 (half away: .645 → 3.645 rounds to 4? 3.645 agorot → nearest agora is 4)
    [1, 'USD', '3.645', 4],
    [1, 'USD', '3.6449', 4],
    [1, 'USD', '3.6', 4],
    [1, 'USD', '3.5', 4],
    [1, 'USD', '3.4999', 3],
    // ¥10,000 at 0.024370 (2.4370 per 100) = 243.70 ₪
    [10000, 'JPY', '0.024370', 24370],
    [1, 'JPY', '0.02437', 2],
    // 1.234 KWD at 12.0165 = 14.8283... ₪ → 1,483 agorot
    [1234, 'KWD', '12.0165', 1483],
    // €1,234.56 at 3.9876 = 4,922.93... → 492,293 (1234.56 × 3.9876 = 4922.931456)
    [123456, 'EUR', '3.9876', 492293],
    [0, 'EUR', '3.9876', 0],
    [12345, 'ILS', '99', 12345],
  ];
  it.each(cases)('%i %s at %s → %i agorot', (minor, cur, rate, agorot) => expect(toAgorot(minor, cur, rate)).toBe(agorot));

  it('exact where floats are not: 1,000,000,000.00 USD × 3.7771 has no binary noise', () => {
    expect(toAgorot(100_000_000_000, 'USD', '3.7771')).toBe(377_710_000_000);
    // 9,999,999,999.99 × 3.3333333333 = 33,333,333,332.966...
    expect(toAgorot(999_999_999_999, 'USD', '3.3333333333')).toBe(3_333_333_333_297);
  });
});

describe('allocation by largest remainder', () => {
  it('adds up to the target and moves no part by more than an agora', () => {
    // three payments of $0.01 at 3.655: 3.655 each, 10.965 total → 11; parts 4, 4, 3 (ties: first first)
    expect(allocateAgorot([1, 1, 1], 'USD', '3.655', 11)).toEqual([4, 4, 3]);
    // $333.33 + $333.33 + $333.34 at 3.6541: exact 1218.0215..., 1218.0215..., 1218.0580... → total 3654.10
    const parts = allocateAgorot([33333, 33333, 33334], 'USD', '3.6541', 365410);
    expect(parts.reduce((a, b) => a + b, 0)).toBe(365410);
    parts.forEach((p, i) => expect(Math.abs(p - [33333, 33333, 33334][i] * 3.6541)).toBeLessThan(1));
  });
  it('handles negative amounts (a negative receipt)', () => {
    const parts = allocateAgorot([-1, -1, -1], 'USD', '3.655', -11);
    expect(parts).toEqual([-4, -4, -3]);
  });
  it('is the identity for shekels', () => {
    expect(allocateAgorot([5, 7], 'ILS', '1', 12)).toEqual([5, 7]);
  });
  it.each([1, 2, 3, 7, 13])('random amounts (seed %i) always sum to the target', (seed) => {
    let x = seed;
    const rnd = () => (x = (x * 1103515245 + 12345) % 2147483648) / 2147483648;
    const amounts = Array.from({ length: 1 + (seed % 9) }, () => Math.floor(rnd() * 1e7));
    const rate = (1 + rnd() * 5).toFixed(4);
    const exactSum = amounts.reduce((a, b) => a + b, 0);
    const target = toAgorot(exactSum, 'USD', rate);
    const parts = allocateAgorot(amounts, 'USD', rate, target);
    expect(parts.reduce((a, b) => a + b, 0)).toBe(target);
    parts.forEach((p, i) => expect(Math.abs(p - toAgorot(amounts[i], 'USD', rate))).toBeLessThanOrEqual(1));
  });
});

describe('shekel totals of a document', () => {
  it('a USD tax invoice: each total on its own, totalIncVat the sum', () => {
    // $1,234.56 ex VAT, VAT 18% = $222.22, total $1,456.78 at 3.6543
    const t = { totalExVat: 123456, vatAmount: 22222, totalIncVat: 145678, discountAmount: 0, withholdingAmount: 0 };
    const ils = ilsTotals(t, 'USD', '3.6543');
    // 1234.56 × 3.6543 = 4511.4526... → 4,511.45; 222.22 × 3.6543 = 812.0585... → 812.06
    expect(ils).toEqual({ totalExVat: 451145, vatAmount: 81206, totalIncVat: 532351, discountAmount: 0, withholdingAmount: 0 });
  });
  it('is the same object for ILS', () => {
    const t = { totalExVat: 100, vatAmount: 18, totalIncVat: 118, discountAmount: 5, withholdingAmount: 0 };
    expect(ilsTotals(t, 'ILS', null)).toEqual(t);
  });
  it('payments of a 320 add up to the total less withholding, in shekels', () => {
    const t = { totalExVat: 10000, vatAmount: 1800, totalIncVat: 11800, discountAmount: 0, withholdingAmount: 1000 };
    const ils = ilsTotals(t, 'EUR', '3.9871');
    const pays = ilsPayments([5400, 5400], 'EUR', '3.9871', ils, 320);
    expect(pays.reduce((a, b) => a + b, 0)).toBe(ils.totalIncVat - ils.withholdingAmount);
  });
  it('payments of a 400 add up to its amount received', () => {
    const t = { totalExVat: 3, vatAmount: 0, totalIncVat: 3, discountAmount: 0, withholdingAmount: 0 };
    const ils = ilsTotals(t, 'USD', '3.655');
    expect(ils.totalIncVat).toBe(11);
    expect(ilsPayments([1, 1, 1], 'USD', '3.655', ils, 400)).toEqual([4, 4, 3]);
  });
});

describe('a payment in its own currency', () => {
  it('converts through the shekel', () => {
    // $100.00 at 3.65 = 365.00 ₪; in EUR at 3.95 = 92.405... → €92.41
    expect(paymentInOwnCurrency(10000, 'USD', '3.65', 'EUR', '3.95')).toBe(9241);
    expect(paymentInOwnCurrency(10000, 'USD', '3.65', 'ILS', null)).toBe(36500);
    expect(paymentInOwnCurrency(36500, 'ILS', null, 'USD', '3.65')).toBe(10000);
    expect(paymentInOwnCurrency(10000, 'USD', '3.65', 'JPY', '0.0245')).toBe(14898);
    expect(paymentInOwnCurrency(10000, 'USD', '3.65', 'USD', null)).toBe(10000);
  });
});

describe('formatting minor units', () => {
  it.each([
    [12345, 'USD', '123.45'],
    [5, 'USD', '0.05'],
    [-5, 'USD', '-0.05'],
    [5, 'JPY', '5'],
    [1234, 'KWD', '1.234'],
    [1, 'KWD', '0.001'],
    [0, 'EUR', '0.00'],
  ])('%i %s → %s', (m, c, s) => expect(formatMinor(m, c)).toBe(s));
  it.each([
    [12345, 'USD', 12345],
    [5, 'JPY', 500],
    [1234, 'KWD', 123],
    [1235, 'KWD', 124],
    [-1235, 'KWD', -124],
  ])('%i %s in hundredths → %i', (m, c, h) => expect(toHundredths(m, c)).toBe(h));
});

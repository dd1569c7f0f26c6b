import { describe, expect, it } from 'vitest';
import {
  allocateAgorot,
  formatMinor,
  ilsLineAmounts,
  ilsPaymentAmounts,
  ilsPayments,
  isExchangeRate,
  paymentInOwnCurrency,
  shekelFigures,
  toAgorot,
  toHundredths,
} from '../../src/documents/currency.ts';
import { currencyOf, isCurrencyCode, minorUnitsOf } from '../../src/platform/currencies.ts';
import type { DocType, Totals } from '../../src/documents/figures.ts';

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

const totals = (over: Partial<Totals>): Totals => ({ totalExVat: 0, vatAmount: 0, totalIncVat: 0, discountAmount: 0, withholdingAmount: 0, ...over });
const ilsTotals = (t: Totals, currency: string, rate: string | null, docType: DocType = 400) =>
  shekelFigures({ docType, priceMode: 'net', lines: [], payments: [], totals: t }, currency, rate).ils;

describe('shekel figures of a document', () => {
  it('a receipt (no lines): each total on its own, totalIncVat the sum', () => {
    // $1,234.56 ex VAT, VAT 18% = $222.22, total $1,456.78 at 3.6543
    const t = totals({ totalExVat: 123456, vatAmount: 22222, totalIncVat: 145678 });
    const ils = ilsTotals(t, 'USD', '3.6543');
    // 1234.56 × 3.6543 = 4511.4526... → 4,511.45; 222.22 × 3.6543 = 812.0585... → 812.06
    expect(ils).toEqual({ totalExVat: 451145, vatAmount: 81206, totalIncVat: 532351, discountAmount: 0, withholdingAmount: 0 });
  });
  it('is the same figures for ILS', () => {
    const t = totals({ totalExVat: 100, vatAmount: 18, totalIncVat: 118, discountAmount: 5 });
    expect(ilsTotals(t, 'ILS', null)).toEqual(t);
    const f = shekelFigures({ docType: 305, priceMode: 'net', lines: [{ quantity: 2, unitPriceExVat: 50 }], payments: [], totals: t }, 'ILS', null);
    expect(f.lineAmounts).toEqual([100]);
  });

  // Issue 29: a USD line of 2 × $37.50 at 3.6545 is 2 × 137.04 = 274.08 ₪ (1264 × 1265), not 75.00 × 3.6545 = 274.09.
  it('a line is quantity × its unit price in shekels − its discount in shekels; the lines make the total', () => {
    const t = totals({ totalExVat: 7500 + 1000 - 200, vatAmount: 1494, totalIncVat: 8300 + 1494, discountAmount: 200 });
    const f = shekelFigures(
      {
        docType: 305,
        priceMode: 'net',
        lines: [
          { quantity: 2, unitPriceExVat: 3750 },
          { quantity: 1, unitPriceExVat: 1050, lineDiscount: 50 },
        ],
        payments: [],
        totals: t,
      },
      'USD',
      '3.6545',
    );
    // 37.50 × 3.6545 = 137.04375 → 137.04, × 2 = 274.08; 10.50 → 38.37 (38.37225), 0.50 → 1.83 (1.82725): 36.54.
    expect(f.lineAmounts).toEqual([27408, 3654]);
    // $2.00 discount → 7.31 (7.309); VAT $14.94 → 54.60 (54.59823).
    expect(f.ils).toEqual({
      totalExVat: 27408 + 3654 - 731,
      vatAmount: 5460,
      totalIncVat: 27408 + 3654 - 731 + 5460,
      discountAmount: 731,
      withholdingAmount: 0,
    });
  });
  it('gross: the lines make the total including VAT; VAT converted on its own', () => {
    const t = totals({ totalExVat: 10000, vatAmount: 1800, totalIncVat: 11800 });
    const f = shekelFigures({ docType: 305, priceMode: 'gross', lines: [{ quantity: 4, unitPriceExVat: 2950 }], payments: [], totals: t }, 'EUR', '3.9871');
    // 29.50 × 3.9871 = 117.61945 → 117.62 × 4 = 470.48; VAT 18.00 → 71.77 (71.7678); ex 398.71.
    expect(f.lineAmounts).toEqual([47048]);
    expect(f.ils).toMatchObject({ totalIncVat: 47048, vatAmount: 7177, totalExVat: 39871 });
  });
  it('payments of a 320 add up to the total less withholding, in shekels', () => {
    const t = totals({ totalExVat: 10000, vatAmount: 1800, totalIncVat: 11800, withholdingAmount: 1000 });
    const f = shekelFigures(
      { docType: 320, priceMode: 'net', lines: [{ quantity: 1, unitPriceExVat: 10000 }], payments: [{ amount: 5400 }, { amount: 5400 }], totals: t },
      'EUR',
      '3.9871',
    );
    expect(f.paymentAmounts.reduce((a, b) => a + b, 0)).toBe(f.ils.totalIncVat - f.ils.withholdingAmount);
  });
  it('payments of a 400 add up to its amount received', () => {
    const ils = ilsTotals(totals({ totalExVat: 3, totalIncVat: 3 }), 'USD', '3.655');
    expect(ils.totalIncVat).toBe(11);
    expect(ilsPayments([1, 1, 1], { currency: 'USD', rate: '3.655', ils, docType: 400 })).toEqual([4, 4, 3]);
  });
});

describe('the shekel amounts of a frozen snapshot', () => {
  const usd = { currency: 'USD', exchangeRate: '3.655', ils: totals({ totalExVat: 11, totalIncVat: 11 }) };
  it('are read as issue stored them', () => {
    const snap = { ...usd, docType: 320 as const, lines: [{ amount: 3, amountIls: 12 }], payments: [{ amount: 3, amountIls: 11 }] };
    expect(ilsLineAmounts(snap)).toEqual([12]);
    expect(ilsPaymentAmounts(snap)).toEqual([11]);
  });
  it('of a snapshot issued before they were stored: computed as issue did then (largest remainder to the frozen totals)', () => {
    const snap = {
      ...usd,
      docType: 320 as const,
      lines: [{ amount: 1 }, { amount: 1 }, { amount: 1 }],
      payments: [{ amount: 1 }, { amount: 1 }, { amount: 1 }],
    };
    expect(ilsLineAmounts(snap)).toEqual([4, 4, 3]);
    expect(ilsPaymentAmounts(snap)).toEqual([4, 4, 3]);
  });
  it('of a shekel document: its own amounts', () => {
    const snap = { docType: 320 as const, lines: [{ amount: 5 }], payments: [{ amount: 6 }] };
    expect(ilsLineAmounts(snap)).toEqual([5]);
    expect(ilsPaymentAmounts(snap)).toEqual([6]);
  });
});

describe('a payment in its own currency', () => {
  it('converts through the shekel', () => {
    // $100.00 at 3.65 = 365.00 ₪; in EUR at 3.95 = 92.405... → €92.41
    expect(paymentInOwnCurrency(10000, { docCurrency: 'USD', docRate: '3.65', payCurrency: 'EUR', payRate: '3.95' })).toBe(9241);
    expect(paymentInOwnCurrency(10000, { docCurrency: 'USD', docRate: '3.65', payCurrency: 'ILS', payRate: null })).toBe(36500);
    expect(paymentInOwnCurrency(36500, { docCurrency: 'ILS', docRate: null, payCurrency: 'USD', payRate: '3.65' })).toBe(10000);
    expect(paymentInOwnCurrency(10000, { docCurrency: 'USD', docRate: '3.65', payCurrency: 'JPY', payRate: '0.0245' })).toBe(14898);
    expect(paymentInOwnCurrency(10000, { docCurrency: 'USD', docRate: '3.65', payCurrency: 'USD', payRate: null })).toBe(10000);
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

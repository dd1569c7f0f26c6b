import { describe, expect, it } from 'vitest';
import { SHEKEL, formatAmount, formatDateIn, formatExchangeRate, formatMinor } from '../../src/pdf/format.ts';
import { both, label, head, named } from '../../src/pdf/language.ts';
import { EN, EN_DOC_TITLES } from '../../src/pdf/english.ts';
import { L, PAYMENT_METHOD_NAMES } from '../../src/pdf/hebrew.ts';
import { DOC_TYPE_CODES } from '../../src/documents/doc-types.ts';

const USD = { code: 'USD', minorUnits: 2 };
const JPY = { code: 'JPY', minorUnits: 0 };
const KWD = { code: 'KWD', minorUnits: 3 };

describe('amounts per currency', () => {
  it.each([
    [0, 2, '0.00'],
    [5, 2, '0.05'],
    [123456, 2, '1,234.56'],
    [-1050, 2, '-10.50'],
    [100000000, 2, '1,000,000.00'],
    [0, 0, '0'],
    [7, 0, '7'],
    [1234567, 0, '1,234,567'],
    [-999, 0, '-999'],
    [0, 3, '0.000'],
    [5, 3, '0.005'],
    [1234567, 3, '1,234.567'],
    [-1000, 3, '-1.000'],
    [123, 4, '0.0123'],
  ])('formatMinor(%i, %i) = %s', (minor, units, out) => expect(formatMinor(minor, units)).toBe(out));

  it('keeps shekels as before issue 21: the sign, then ₪', () => {
    expect(formatAmount(123456)).toBe('₪1,234.56');
    expect(formatAmount(123456, SHEKEL)).toBe('₪1,234.56');
    expect(formatAmount(-300)).toBe('-₪3.00');
    expect(formatAmount(0)).toBe('₪0.00');
  });

  it('prints other currencies by ISO code with their own minor units', () => {
    expect(formatAmount(123456, USD)).toBe('USD 1,234.56');
    expect(formatAmount(-1050, USD)).toBe('USD -10.50');
    expect(formatAmount(123456, JPY)).toBe('JPY 123,456');
    expect(formatAmount(1234567, KWD)).toBe('KWD 1,234.567');
    expect(formatAmount(5, KWD)).toBe('KWD 0.005');
    expect(formatAmount(9_007_199_254_740_991, USD)).toBe('USD 90,071,992,547,409.91');
  });
});

describe('dates and rates', () => {
  it.each([
    ['2026-03-01', 'he', '01/03/2026'],
    ['2026-03-01', 'he+en', '01/03/2026'],
    ['2026-03-01', 'en', '1 Mar 2026'],
    ['2026-11-24', 'en', '24 Nov 2026'],
    ['2026-12-31', 'en', '31 Dec 2026'],
    ['2027-01-09T10:00:00Z', 'en', '9 Jan 2027'],
    ['not a date', 'en', 'not a date'],
    ['2026-13-01', 'en', '2026-13-01'],
  ] as const)('formatDateIn(%s, %s) = %s', (iso, lang, out) => expect(formatDateIn(iso, lang)).toBe(out));

  it('prints the rate exactly as recorded, code first', () => {
    expect(formatExchangeRate('3.7210', 'USD')).toBe('USD 1 = ₪3.7210');
    expect(formatExchangeRate(' 0.024531 ', 'JPY')).toBe('JPY 1 = ₪0.024531');
    expect(formatExchangeRate('12.1034000', 'KWD')).toBe('KWD 1 = ₪12.1034000');
  });
});

describe('wording lookup', () => {
  it('has an English twin for every Hebrew label', () => {
    for (const key of Object.keys(L) as (keyof typeof L)[]) {
      expect(EN[key], key).toBeTruthy();
      expect(EN[key], key).not.toMatch(/[\u0590-\u05FF]/);
    }
  });

  it('picks Hebrew, English or both', () => {
    expect(label('he', 'totalIncVat')).toBe('סה"כ כולל מע"מ');
    expect(label('en', 'totalIncVat')).toBe('Total incl. VAT');
    expect(label('he+en', 'totalIncVat')).toBe('סה"כ כולל מע"מ / Total incl. VAT');
    expect(head('he+en', 'quantity')).toBe('כמות\nQuantity');
    expect(head('en', 'quantity')).toBe('Quantity');
    expect(both('he+en', '#', '#')).toBe('#');
    // Every type has its English title (test/pdf/languages.test.ts pins each one).
    expect(
      Object.keys(EN_DOC_TITLES)
        .map(Number)
        .sort((x, y) => x - y),
    ).toEqual([...DOC_TYPE_CODES].sort((x, y) => x - y));
  });

  it('names coded values and keeps free text', () => {
    const en = { 1: 'Cash' } as Record<string, string>;
    expect(named('en', { he: PAYMENT_METHOD_NAMES, en }, '1')).toBe('Cash');
    expect(named('he', { he: PAYMENT_METHOD_NAMES, en }, '1')).toBe('מזומן');
    expect(named('he+en', { he: PAYMENT_METHOD_NAMES, en }, '1')).toBe('מזומן / Cash');
    expect(named('en', { he: PAYMENT_METHOD_NAMES, en }, 'Max', 'Max')).toBe('Max');
  });
});

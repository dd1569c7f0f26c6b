import { describe, expect, it } from 'vitest';
import { alpha, amount12, amount15, date8, num, quantity17, signed, time4, unsignedScaled, FieldError } from '../../src/openfrmt/fields.ts';
import { encodeIso88598, foldToRepertoire } from '../../src/openfrmt/charset.ts';

describe('amount pictures (reference §11 table and spec §2.3(ו))', () => {
  it.each([
    [100000, '+00000000100000'],
    [-10000, '-00000000010000'],
    [0, '+00000000000000'],
  ])('X9(12)v99 %d agorot → %s', (agorot, bytes) => {
    expect(amount15(agorot)).toBe(bytes);
    expect(amount15(agorot)).toHaveLength(15);
  });
  it('X9(9)v99 zero is 12 chars with a plus sign', () => expect(amount12(0)).toBe('+00000000000'));
  it.each([
    [-1234565, '-1234565'],
    [124565, '+0124565'],
    [124500, '+0124500'],
  ])('spec X9(5)v99 example %d → %s', (scaled, bytes) => expect(signed(scaled, 5, 2)).toBe(bytes));
  it.each([
    [10, '+0000000000100000'],
    [1, '+0000000000010000'],
    [2.5, '+0000000000025000'],
    [0.3333, '+0000000000003333'],
    [-1, '-0000000000010000'],
  ])('quantity %d → %s', (q, bytes) => expect(quantity17(q)).toBe(bytes));
  it('VAT 18% as 9(2)v99 is 1800, 15.5% is 1550, exempt 0000', () => {
    expect(unsignedScaled(1800, 2, 2)).toBe('1800');
    expect(unsignedScaled(1550, 2, 2)).toBe('1550');
    expect(unsignedScaled(0, 2, 2)).toBe('0000');
  });
  it('cost 12.50 as 9(8)v99 is 0000001250', () => expect(unsignedScaled(1250, 8, 2)).toBe('0000001250'));
  it('refuses amounts that do not fit or are not whole agorot', () => {
    expect(() => amount12(100_000_000_000)).toThrow(FieldError);
    expect(() => amount15(12.5)).toThrow(FieldError);
    expect(amount15(99_999_999_999_999)).toBe('+99999999999999');
    expect(() => amount15(100_000_000_000_000)).toThrow(FieldError);
  });
});

describe('numeric and alphanumeric pictures', () => {
  it('9(n) right-aligns with zeros, empty is zeros', () => {
    expect(num('2233445', 9)).toBe('002233445');
    expect(num(7, 4)).toBe('0007');
    expect(num(null, 9)).toBe('000000000');
    expect(num('', 3)).toBe('000');
  });
  it('9(n) refuses non-digits and overflow instead of cutting', () => {
    expect(() => num('12a', 5)).toThrow(FieldError);
    expect(() => num('-1', 5)).toThrow(FieldError);
    expect(() => num('1234567890', 9)).toThrow(FieldError);
  });
  it('X(n) left-aligns with spaces and cuts long text', () => {
    expect(alpha('C-17', 15)).toBe('C-17           ');
    expect(alpha(null, 3)).toBe('   ');
    expect(alpha('abcdef', 4)).toBe('abcd');
  });
  it('X(n) counts Hebrew letters as one character each (logical order, never reversed)', () => {
    const v = alpha('שלום', 6);
    expect(v).toBe('שלום  ');
    expect(encodeIso88598(v)).toEqual(Buffer.from([0xf9, 0xec, 0xe5, 0xed, 0x20, 0x20]));
  });
  it('dates and times', () => {
    expect(date8('2025-01-15')).toBe('20250115');
    expect(date8(null)).toBe('00000000');
    expect(time4('09:30')).toBe('0930');
    expect(time4('23:59')).toBe('2359');
    expect(() => time4('24:00')).toThrow(FieldError);
    expect(() => date8('15/01/2025')).toThrow(FieldError);
  });
});

describe('ISO-8859-8 repertoire', () => {
  it('maps ₪, gershayim, geresh, maqaf and dashes before encoding', () => {
    expect(foldToRepertoire('100 ₪')).toBe('100 ש"ח');
    expect(foldToRepertoire('בע״מ')).toBe('בע"מ');
    expect(foldToRepertoire('צ׳יפס')).toBe("צ'יפס");
    expect(foldToRepertoire('תל־אביב – יפו')).toBe('תל-אביב - יפו');
  });
  it('drops niqqud and bidi marks, turns tabs and newlines into spaces', () => {
    expect(foldToRepertoire('שָׁלוֹם')).toBe('שלום');
    expect(foldToRepertoire('\u200Fאבג\u200E')).toBe('אבג');
    expect(foldToRepertoire('a\tb\r\nc')).toBe('a b  c');
  });
  it('folds accented Latin letters and replaces what has no equivalent with ?', () => {
    expect(foldToRepertoire('Café')).toBe('Cafe');
    expect(foldToRepertoire('ok 😀 €')).toBe('ok ? ?');
  });
  it('encodes Hebrew letters to 0xE0..0xFA, one byte each', () => {
    const letters = 'אבגדהוזחטיךכלםמןנסעףפץצקרשת';
    const bytes = encodeIso88598(letters);
    expect(bytes).toHaveLength(27);
    expect([...bytes]).toEqual(Array.from({ length: 27 }, (_, i) => 0xe0 + i));
  });
  it('the encoder refuses (does not silently replace) a character outside the repertoire', () => {
    expect(() => encodeIso88598('₪')).toThrow(/outside ISO-8859-8/);
    expect(() => encodeIso88598('é')).toThrow(/outside ISO-8859-8/);
  });
});

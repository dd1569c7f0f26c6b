// The byte writer (src/openfrmt/out.ts) against the string pictures of fields.ts: the same bytes for every
// value, the same refusals with the same messages. The hot records are written only through the byte writer.
import { describe, expect, it } from 'vitest';
import { alpha, amount12, amount15, date8, num, quantity17, signed, time4, unsignedScaled, FieldError } from '../../src/openfrmt/fields.ts';
import { encodeIso88598 } from '../../src/openfrmt/charset.ts';
import { RecordOut } from '../../src/openfrmt/out.ts';

/** The field as the byte writer writes it, or the error it throws. */
function bytesOf(write: (o: RecordOut) => void): Buffer | Error {
  const o = new RecordOut(16);
  o.begin(600);
  try {
    write(o);
  } catch (err) {
    return err as Error;
  }
  return Buffer.from(o.bytes());
}

/** The field as fields.ts gives it, encoded, or the error it throws. */
function stringOf(make: () => string): Buffer | Error {
  try {
    return encodeIso88598(make());
  } catch (err) {
    return err as Error;
  }
}

function same(a: Buffer | Error, b: Buffer | Error): void {
  if (a instanceof Error || b instanceof Error) {
    expect(a).toBeInstanceOf(FieldError);
    expect(b).toBeInstanceOf(FieldError);
    expect((a as Error).message).toBe((b as Error).message);
  } else expect(a.equals(b)).toBe(true);
}

const texts = [
  null,
  undefined,
  '',
  'abc',
  'שלום עולם',
  'לקוח מזדמן',
  'a'.repeat(60),
  'א'.repeat(60),
  'מחיר 5₪ ללא מע״מ',
  'café – “quoted” …',
  'שָׁלוֹם\u200f',
  '\t\r\n',
  '漢字 and 😀 emoji',
  'e\u0301',
];
const numbers = [0, 1, 9, 10, 99, 100, 123456789, 1234567890, 999_999_999, 9_007_199_254_740_991, -1, 1.5, Number.NaN, Infinity, 2 ** 60];
const numericStrings = ['', '0', '007', '12345', '1234567890', '12a', ' 1', '-1', '１２'];
const amounts = [0, 1, -1, 99, -100, 100000, -10000, 99_999_999_999_999, -99_999_999_999_999, 100_000_000_000_000, 12.5, Number.NaN, 2 ** 53];

describe('RecordOut writes the bytes of the fields.ts pictures', () => {
  it('alpha: folding, cutting and padding', () => {
    for (const t of texts)
      for (const n of [1, 2, 15, 50])
        same(
          bytesOf((o) => o.alpha(t, n)),
          stringOf(() => alpha(t, n)),
        );
  });
  it('num: numbers and digit strings, refusals included', () => {
    for (const v of [null, undefined, ...numbers, ...numericStrings])
      for (const n of [1, 3, 9, 15])
        same(
          bytesOf((o) => o.num(v, n, 'f')),
          stringOf(() => num(v, n, 'f')),
        );
  });
  it('signed amounts, quantities and unsigned scaled figures', () => {
    for (const v of amounts) {
      same(
        bytesOf((o) => o.amount15(v, 'x')),
        stringOf(() => amount15(v, 'x')),
      );
      same(
        bytesOf((o) => o.amount12(v, 'x')),
        stringOf(() => amount12(v, 'x')),
      );
      same(
        bytesOf((o) => o.signed(v, 5, 2)),
        stringOf(() => signed(v, 5, 2)),
      );
      same(
        bytesOf((o) => o.unsignedScaled(v, 2, 2, 'u')),
        stringOf(() => unsignedScaled(v, 2, 2, 'u')),
      );
    }
    for (const q of [0, 1, -1, 2.5, 0.3333, 0.33335, -7.25, 1e12, 1e13, Number.NaN])
      same(
        bytesOf((o) => o.quantity17(q, 'q')),
        stringOf(() => quantity17(q, 'q')),
      );
  });
  it('dates and times', () => {
    for (const d of [null, '', '2026-01-31', '2026-1-31', '2026-01-31 ', '20260131', 'abcd-ef-gh', '2026/01/31'])
      same(
        bytesOf((o) => o.date8(d, 'd')),
        stringOf(() => date8(d, 'd')),
      );
    for (const t of [null, '', '09:05', '0905', '23:59', '24:00', '9:05', '12:60'])
      same(
        bytesOf((o) => o.time4(t, 't')),
        stringOf(() => time4(t, 't')),
      );
  });
  it('grows past its first size and checks each record length', () => {
    const o = new RecordOut(16);
    for (let i = 0; i < 100; i++) {
      o.begin(30);
      o.lit('X');
      o.num(i, 9);
      o.end('X', 10);
    }
    expect(o.bytes().toString('latin1')).toBe(Array.from({ length: 100 }, (_, i) => `X${String(i).padStart(9, '0')}\r\n`).join(''));
    o.begin(30);
    o.lit('XY');
    expect(() => o.end('X', 10)).toThrow('X: built 2 characters, layout has 10');
  });
});

/** The CSV writer (platform/http/csv.ts), byte for byte: RFC 4180 quoting, CR LF, BOM, shekels, content negotiation. */
import { describe, expect, it } from 'vitest';
import { csvField, csvFile, csvFileName, money, prefersCsv, shekelsText } from '../../src/platform/http/csv.ts';

describe('shekelsText', () => {
  it('agorot as shekels with two decimals, exact', () => {
    expect([123456, -1200, 0, 5, -5, 100, 99_999_999_999_99].map(shekelsText)).toEqual([
      '1234.56',
      '-12.00',
      '0.00',
      '0.05',
      '-0.05',
      '1.00',
      '99999999999.99',
    ]);
    expect(() => shekelsText(1.5)).toThrow(RangeError);
  });
});

describe('csvField', () => {
  it('quotes a comma, a quote, CR or LF, doubling quotes; leaves the rest as is', () => {
    expect(csvField('לקוח "טוב", בע"מ')).toBe('"לקוח ""טוב"", בע""מ"');
    expect(csvField('שורה\r\nשנייה')).toBe('"שורה\r\nשנייה"');
    expect(csvField('a\nb')).toBe('"a\nb"');
    expect(csvField('plain text')).toBe('plain text');
    expect(csvField(null)).toBe('');
    expect(csvField(undefined)).toBe('');
    expect(csvField(42)).toBe('42');
    expect(csvField(money(-1200))).toBe('-12.00');
  });

  it('a text a spreadsheet would run as a formula gets a leading quote; a negative amount stays a number', () => {
    expect(csvField('=1+2')).toBe("'=1+2");
    expect(csvField('-discount')).toBe("'-discount");
    expect(csvField('@SUM(A1)')).toBe("'@SUM(A1)");
    expect(csvField('+972')).toBe("'+972");
    expect(csvField('=a,b')).toBe('"\'=a,b"');
    expect(csvField(money(-1))).toBe('-0.01');
    expect(csvField(-3)).toBe('-3');
  });
});

describe('csvFile', () => {
  it('BOM, header, rows, each ending CR LF, UTF-8', () => {
    const bytes = csvFile(
      ['name', 'amount'],
      [
        ['חברה, "בע"מ"', money(123456)],
        ['x', money(-1200)],
      ],
    );
    expect([...bytes.subarray(0, 3)]).toEqual([0xef, 0xbb, 0xbf]);
    expect(bytes.toString('utf8')).toBe('\uFEFFname,amount\r\n"חברה, ""בע""מ""",1234.56\r\nx,-12.00\r\n');
  });

  it('refuses a row that does not fit the header', () => {
    expect(() => csvFile(['a', 'b'], [['only one']])).toThrow(RangeError);
  });
});

describe('prefersCsv (Accept)', () => {
  it('CSV only when text/csv is named and weighs more than JSON', () => {
    expect(prefersCsv(undefined)).toBe(false);
    expect(prefersCsv('*/*')).toBe(false);
    expect(prefersCsv('application/json')).toBe(false);
    expect(prefersCsv('text/csv')).toBe(true);
    expect(prefersCsv('Text/CSV; charset=utf-8')).toBe(true);
    expect(prefersCsv('text/csv, application/json')).toBe(false);
    expect(prefersCsv('text/csv, application/json;q=0.5')).toBe(true);
    expect(prefersCsv('text/csv;q=0.9, */*;q=0.1')).toBe(true);
    expect(prefersCsv('text/csv;q=0')).toBe(false);
    expect(prefersCsv('application/json;q=0.4, text/csv;q=0.8')).toBe(true);
  });
});

describe('csvFileName', () => {
  it('keeps ASCII letters, digits, dot, hyphen, underscore', () => {
    expect(csvFileName('vat', '516179157', '2026-03/2026-04')).toBe('vat-516179157-2026-03-2026-04.csv');
    expect(csvFileName('account', 'a"b\r\nc')).toBe('account-a-b-c.csv');
  });
});

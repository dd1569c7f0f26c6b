import { describe, expect, it } from 'vitest';
import { Ajv } from 'ajv';
import addFormats from 'ajv-formats';
import { Type } from 'typebox';
import { checkDateRange, checkedDate, DATE_MAX, DATE_MIN, dateProblem, isCalendarDate, isLeapYear } from '../../src/platform/http/formats.ts';
import { IsoDate, Nullable } from '../../src/platform/http/schemas.ts';
import { prefillFrom } from '../../src/expenses/ocr/extraction.ts';

/** Not real dates: the day, the month or the leap day does not exist. */
const NOT_CALENDAR = [
  '2025-02-30',
  '2025-02-29',
  '2023-02-29',
  '2100-02-29',
  '1900-02-29',
  '2025-13-01',
  '2025-00-10',
  '2025-01-00',
  '2025-01-32',
  '2025-04-31',
  '2025-06-31',
  '2025-09-31',
  '2025-11-31',
];
/** Real dates in range, including leap days and the ends of the range. */
const REAL = ['2024-02-29', '2000-02-29', '2028-02-29', '2025-02-28', '2025-12-31', '2025-01-01', '2025-04-30', DATE_MIN, DATE_MAX];
/** Real dates outside the range. */
const OUT_OF_RANGE = ['1999-12-31', '1970-01-01', '0001-01-01', '2100-01-01', '9999-12-31'];
/** Not of the shape YYYY-MM-DD at all. */
const MALFORMED = [
  '',
  '2025-1-01',
  '2025-01-1',
  '25-01-01',
  '2025/01/01',
  '20250101',
  '2025-01-01T00:00:00Z',
  ' 2025-01-01',
  '2025-01-01 ',
  '+2025-01-01',
  '٢٠٢٥-٠١-٠١',
];

describe('the date rule (formats.ts)', () => {
  it('leap years follow the Gregorian rule', () => {
    expect([2000, 2004, 2024, 2028, 2400].every(isLeapYear)).toBe(true);
    expect([1900, 2023, 2025, 2100, 2200].some(isLeapYear)).toBe(false);
  });

  it.each(NOT_CALENDAR)('%s is not a calendar date', (d) => {
    expect(isCalendarDate(d)).toBe(false);
    expect(dateProblem(d)).toBe(`"${d}" is not a calendar date`);
  });
  it.each(REAL)('%s is accepted', (d) => {
    expect(isCalendarDate(d)).toBe(true);
    expect(dateProblem(d)).toBeNull();
    expect(checkedDate(d, 'body.x')).toBe(d);
  });
  it.each(OUT_OF_RANGE)('%s is a real date outside the range', (d) => {
    expect(isCalendarDate(d)).toBe(true);
    expect(dateProblem(d)).toBe('must be between 2000-01-01 and 2099-12-31');
  });
  it.each(MALFORMED)('%j is not a date', (d) => {
    expect(isCalendarDate(d)).toBe(false);
    expect(dateProblem(d)).toBe('must be a date YYYY-MM-DD');
  });

  it('every day of 2000..2099 is accepted and agrees with the JS calendar; nothing else is', () => {
    let accepted = 0;
    const wrong: string[] = [];
    for (let y = 1999; y <= 2100; y++) {
      for (let m = 0; m <= 13; m++) {
        for (let d = 0; d <= 32; d++) {
          const s = `${y}-${String(m).padStart(2, '0')}-${String(d).padStart(2, '0')}`;
          const t = new Date(Date.UTC(y, m - 1, d));
          const real = m >= 1 && m <= 12 && d >= 1 && t.getUTCMonth() === m - 1 && t.getUTCDate() === d;
          const ok = dateProblem(s) === null;
          if (isCalendarDate(s) !== real || ok !== (real && y >= 2000 && y <= 2099)) wrong.push(s);
          if (ok) accepted++;
        }
      }
    }
    expect(wrong).toEqual([]);
    expect(accepted).toBe(36_525); // 100 years, 25 of them leap
  });

  it('checkedDate names the field in a 400 validation', () => {
    expect(() => checkedDate('2025-02-30', 'body.payments[0].dueDate')).toThrow(
      expect.objectContaining({ status: 400, reason: 'validation', message: 'body.payments[0].dueDate: "2025-02-30" is not a calendar date' }),
    );
  });

  it('a range needs real ends in range and from not after to', () => {
    expect(() => checkDateRange({ from: '2025-01-01', to: '2025-12-31' }, 'body')).not.toThrow();
    expect(() => checkDateRange({ from: '2025-01-01', to: '2025-01-01' }, 'body')).not.toThrow();
    expect(() => checkDateRange({ from: '2025-02-01', to: '2025-01-31' }, 'body')).toThrow(
      expect.objectContaining({ status: 400, reason: 'validation', message: 'body.to: must not be before body.from' }),
    );
    expect(() => checkDateRange({ from: '2025-02-30', to: '2025-03-31' }, 'querystring')).toThrow(/^querystring\.from: /);
    expect(() => checkDateRange({ from: '2025-01-01', to: '2100-01-01' }, 'querystring')).toThrow(/^querystring\.to: must be between/);
  });
});

describe('IsoDate, the schema of every date field', () => {
  // The same set-up as src/app.ts `ajv(coerce)`: ajv-formats with its defaults (full mode, keywords).
  const ajv = new Ajv({ coerceTypes: false, allErrors: false, strict: false });
  (addFormats as unknown as (a: Ajv) => void)(ajv);
  const check = ajv.compile(Type.Object({ d: IsoDate, n: Type.Optional(Nullable(IsoDate)) }));
  const errorOf = (d: unknown) => (check({ d }) ? null : check.errors![0]);

  it('is a string of format date with the documented range', () => {
    expect(IsoDate).toMatchObject({ type: 'string', format: 'date', formatMinimum: DATE_MIN, formatMaximum: DATE_MAX });
    expect((IsoDate as { description?: string }).description).toContain('2000-01-01 through 2099-12-31');
  });
  it.each(REAL)('accepts %s', (d) => expect(errorOf(d)).toBeNull());
  it.each([...NOT_CALENDAR, ...MALFORMED])('refuses %j as a date', (d) => expect(errorOf(d)).toMatchObject({ instancePath: '/d', keyword: 'format' }));
  it.each(OUT_OF_RANGE)('refuses %s as out of range', (d) =>
    expect(errorOf(d)).toMatchObject({ instancePath: '/d', keyword: expect.stringMatching(/^format(Minimum|Maximum)$/) }),
  );
  it('refuses what is not a string, and checks the nullable form too', () => {
    expect(errorOf(20250101)).toMatchObject({ keyword: 'type' });
    expect(check({ d: '2025-01-01', n: null })).toBe(true);
    expect(check({ d: '2025-01-01', n: '2025-02-30' })).toBe(false);
    expect(check({ d: '2025-01-01', n: '2024-02-29' })).toBe(true);
  });
});

describe('OCR prefill uses the same rule', () => {
  it.each([
    ['29/02/2024', '2024-02-29'],
    ['29.02.23', null],
    ['2023-02-29', null],
    ['31/04/2026', null],
    ['01/01/1999', null],
    ['2205-01-01', null],
    ['1.1.00', '2000-01-01'],
  ])('%s → %s', (d, out) => expect(prefillFrom({ documentDate: d }).supplierDocDate).toBe(out));
});

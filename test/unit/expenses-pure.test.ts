import { describe, expect, it } from 'vitest';
import { completeAmounts, requireCompleteAmounts } from '../../src/expenses/amounts.ts';
import { deductibleVat, EXPENSE_CATEGORIES } from '../../src/expenses/categories.ts';
import { checkReceiptBytes, looksLikeCompletePdf, normalizeMime, parseDataUri, sniffMime } from '../../src/expenses/receipt-bytes.ts';
import { prefillFrom, toAgorot } from '../../src/expenses/ocr/extraction.ts';
import { loadConfig } from '../../src/platform/config.ts';
import { AppError } from '../../src/platform/errors.ts';
import type { DealerType } from '../../src/businesses/dealer-types.ts';

const n = null;
const errorOf = (f: () => unknown): AppError => {
  try {
    f();
  } catch (e) {
    return e as AppError;
  }
  throw new Error('did not throw');
};

describe('completeAmounts', () => {
  it.each([
    [
      { amountExVat: 100, vatAmount: 18, amountIncVat: n },
      { amountExVat: 100, vatAmount: 18, amountIncVat: 118 },
    ],
    [
      { amountExVat: 100, vatAmount: n, amountIncVat: 118 },
      { amountExVat: 100, vatAmount: 18, amountIncVat: 118 },
    ],
    [
      { amountExVat: n, vatAmount: 18, amountIncVat: 118 },
      { amountExVat: 100, vatAmount: 18, amountIncVat: 118 },
    ],
    [
      { amountExVat: 100, vatAmount: 18, amountIncVat: 118 },
      { amountExVat: 100, vatAmount: 18, amountIncVat: 118 },
    ],
    [
      { amountExVat: n, vatAmount: n, amountIncVat: 118 },
      { amountExVat: n, vatAmount: n, amountIncVat: 118 },
    ],
    [
      { amountExVat: -100, vatAmount: -18, amountIncVat: n },
      { amountExVat: -100, vatAmount: -18, amountIncVat: -118 },
    ],
    [
      { amountExVat: 500, vatAmount: 0, amountIncVat: n },
      { amountExVat: 500, vatAmount: 0, amountIncVat: 500 },
    ],
    [
      { amountExVat: n, vatAmount: n, amountIncVat: n },
      { amountExVat: n, vatAmount: n, amountIncVat: n },
    ],
  ])('%j → %j', (input, out) => expect(completeAmounts(input)).toEqual(out));

  it.each([
    [{ amountExVat: 100, vatAmount: 18, amountIncVat: 119 }, 'body.amountIncVat'],
    [{ amountExVat: 100, vatAmount: -18, amountIncVat: n }, 'body.vatAmount'],
    [{ amountExVat: n, vatAmount: 200, amountIncVat: 100 }, 'body.'],
    [{ amountExVat: -5, vatAmount: n, amountIncVat: 10 }, 'body.'],
  ])('refuses %j naming %s', (input, field) => {
    const e = errorOf(() => completeAmounts(input));
    expect(e.reason).toBe('validation');
    expect(e.message.startsWith(field)).toBe(true);
  });

  it('recording needs two amounts', () => {
    expect(errorOf(() => requireCompleteAmounts({ amountExVat: n, vatAmount: n, amountIncVat: 5 })).message).toMatch(/^expense\.amountExVat/);
    expect(errorOf(() => requireCompleteAmounts({ amountExVat: n, vatAmount: n, amountIncVat: n })).message).toMatch(/^expense\.amountIncVat/);
    expect(requireCompleteAmounts({ amountExVat: n, vatAmount: 0, amountIncVat: 5 })).toEqual({ amountExVat: 5, vatAmount: 0, amountIncVat: 5 });
  });
});

describe('deductibleVat', () => {
  const base = { categoryKey: 'office', dealerType: 'murshe' as DealerType, supplierDocType: 'tax_invoice' as string | null };
  it.each<[{ vatAmount: number; categoryKey?: string; dealerType?: DealerType; supplierDocType?: string | null }, number]>([
    [{ vatAmount: 1800 }, 1800],
    [{ vatAmount: 1800, categoryKey: 'vehicle_private' }, 1200],
    [{ vatAmount: 1000, categoryKey: 'vehicle_private' }, 667],
    [{ vatAmount: 1, categoryKey: 'communication' }, 1],
    [{ vatAmount: -1000, categoryKey: 'vehicle_private' }, -667],
    [{ vatAmount: 1800, categoryKey: 'refreshments' }, 0],
    [{ vatAmount: 1800, categoryKey: 'gifts' }, 0],
    [{ vatAmount: 1800, categoryKey: 'vehicle_purchase' }, 0],
    [{ vatAmount: 1800, dealerType: 'patur' }, 0],
    [{ vatAmount: 1800, dealerType: 'ngo' }, 0],
    [{ vatAmount: 1800, dealerType: 'company' }, 1800],
    [{ vatAmount: 1800, supplierDocType: 'receipt' }, 0],
    [{ vatAmount: 1800, supplierDocType: 'other' }, 0],
    [{ vatAmount: 1800, supplierDocType: 'import_entry' }, 1800],
    [{ vatAmount: 1800, supplierDocType: null }, 1800],
  ])('%j → %i', (over, expected) => {
    const v = deductibleVat({ ...base, ...over });
    expect(v).toBe(expected);
    expect(Object.is(v, -0)).toBe(false);
  });

  it('every category has a sane fraction and a rule', () => {
    const keys = new Set<string>();
    for (const c of EXPENSE_CATEGORIES) {
      expect(keys.has(c.key)).toBe(false);
      keys.add(c.key);
      expect(c.vatDeductible.numerator).toBeGreaterThanOrEqual(0);
      expect(c.vatDeductible.numerator).toBeLessThanOrEqual(c.vatDeductible.denominator);
      expect(c.vatRule.length).toBeGreaterThan(5);
    }
  });
});

describe('receipt bytes', () => {
  const jpegHead = Buffer.from([0xff, 0xd8, 0xff, 0xe0, 0, 0x10]);
  const pngHead = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0, 0]);
  const webpHead = Buffer.concat([Buffer.from('RIFF'), Buffer.alloc(4), Buffer.from('WEBPVP8 ')]);
  const goodPdf = Buffer.from('%PDF-1.4\n1 0 obj\n<<>>\nendobj\ntrailer\n%%EOF\n');

  it('sniffs the real type from magic numbers', () => {
    expect(sniffMime(jpegHead)).toBe('image/jpeg');
    expect(sniffMime(pngHead)).toBe('image/png');
    expect(sniffMime(webpHead)).toBe('image/webp');
    expect(sniffMime(goodPdf)).toBe('application/pdf');
    expect(sniffMime(Buffer.from('GIF89a'))).toBeNull();
    expect(sniffMime(Buffer.from('RIFF\0\0\0\0WAVE'))).toBeNull();
    expect(sniffMime(Buffer.alloc(0))).toBeNull();
  });

  it('a PDF must end with %%EOF and hold an object', () => {
    expect(looksLikeCompletePdf(goodPdf)).toBe(true);
    expect(looksLikeCompletePdf(goodPdf.subarray(0, 20))).toBe(false);
    expect(looksLikeCompletePdf(Buffer.from('%PDF-1.4\n%%EOF'))).toBe(false);
  });

  it('normalizes declared types', () => {
    expect(normalizeMime('IMAGE/JPG; charset=x')).toBe('image/jpeg');
    expect(normalizeMime('application/octet-stream')).toBeNull();
    expect(normalizeMime(undefined)).toBeNull();
  });

  it('parses data URIs', () => {
    expect(parseDataUri(`data:image/png;base64,${pngHead.toString('base64')}`, 'f')).toEqual({ bytes: pngHead, declaredMime: 'image/png' });
    expect(parseDataUri(`data:;base64,${pngHead.toString('base64')}`, 'f').declaredMime).toBeNull();
    expect(errorOf(() => parseDataUri('data:image/png,abc', 'body.file')).message).toMatch(/^body\.file: must be a base64 data URI/);
    expect(errorOf(() => parseDataUri('data:image/png;base64,a$b', 'f')).message).toMatch(/malformed/);
    expect(errorOf(() => parseDataUri('data:image/png;base64,', 'f')).message).toMatch(/empty/);
  });

  it('checks size, type and agreement', () => {
    expect(checkReceiptBytes(jpegHead, 'image/jpeg', 100)).toBe('image/jpeg');
    expect(checkReceiptBytes(jpegHead, null, 100)).toBe('image/jpeg');
    expect(errorOf(() => checkReceiptBytes(jpegHead, 'image/jpeg', 3)).status).toBe(413);
    expect(errorOf(() => checkReceiptBytes(jpegHead, 'image/png', 100)).message).toMatch(/declared as image\/png/);
    expect(errorOf(() => checkReceiptBytes(Buffer.from('%PDF-1.4 junk'), 'application/pdf', 100)).message).toMatch(/PDF/);
    expect(errorOf(() => checkReceiptBytes(Buffer.from('hello'), 'text/plain', 100)).message).toMatch(/not accepted/);
  });
});

describe('OCR extraction → draft fields', () => {
  it.each([
    [118, 11800],
    [118.5, 11850],
    ['1,234.50', 123450],
    ['₪ 99.9', 9990],
    ['12 NIS', 1200],
    [-5, -500],
    ['abc', null],
    [null, null],
    [Number.NaN, null],
    [1e12, null],
    [0.1 + 0.2, 30],
  ])('toAgorot(%j) = %j', (v, out) => expect(toAgorot(v)).toBe(out));

  it('prefills consistent fields', () => {
    expect(
      prefillFrom({
        supplierName: '  רמי לוי  ',
        supplierTaxId: '51-220050-2',
        documentType: 'tax_invoice',
        documentNumber: 12345,
        documentDate: '2026-02-28',
        amountExVat: 100,
        vatAmount: 18,
        amountIncVat: 118,
        allocationNumber: '123 456 789',
      }),
    ).toEqual({
      supplierName: 'רמי לוי',
      supplierTaxId: '512200502',
      supplierDocType: 'tax_invoice',
      supplierDocNumber: '12345',
      supplierDocDate: '2026-02-28',
      allocationNumber: '123456789',
      amountExVat: 10000,
      vatAmount: 1800,
      amountIncVat: 11800,
    });
  });

  it.each([
    ['31/12/2025', '2025-12-31'],
    ['1.2.26', '2026-02-01'],
    ['2026-02-30', null],
    ['31/02/2026', null],
    ['yesterday', null],
  ])('date %s → %s', (d, out) => expect(prefillFrom({ documentDate: d }).supplierDocDate).toBe(out));

  it('amounts: a one-agora rounding gap is absorbed, a contradiction keeps the total only, two parts give the total', () => {
    expect(prefillFrom({ amountExVat: 100.01, vatAmount: 18, amountIncVat: 118 })).toMatchObject({ amountExVat: 10000, vatAmount: 1800, amountIncVat: 11800 });
    expect(prefillFrom({ amountExVat: 50, vatAmount: 18, amountIncVat: 118 })).toMatchObject({ amountExVat: null, vatAmount: null, amountIncVat: 11800 });
    expect(prefillFrom({ amountExVat: 100, vatAmount: 18, amountIncVat: null })).toMatchObject({ amountExVat: 10000, vatAmount: 1800, amountIncVat: 11800 });
    expect(prefillFrom({ amountExVat: 100, amountIncVat: 118 })).toMatchObject({ vatAmount: 1800 });
    expect(prefillFrom({ vatAmount: 300, amountIncVat: 118 })).toMatchObject({ amountExVat: null, vatAmount: null, amountIncVat: 11800 });
    expect(prefillFrom({ documentType: 'invoice', allocationNumber: '12' })).toMatchObject({ supplierDocType: null, allocationNumber: null });
  });
});

describe('expenses configuration', () => {
  it('defaults: 10 MB uploads, OCR unconfigured', () => {
    expect(loadConfig({}).expenses).toEqual({ uploadMaxBytes: 10 * 1_048_576, ocr: null });
  });
  it('OCR needs all three variables and an http(s) URL', () => {
    expect(() => loadConfig({ OCR_BASE_URL: 'https://api.example.com/v1' })).toThrow(/OCR_API_KEY/);
    expect(() => loadConfig({ OCR_BASE_URL: 'ftp://x', OCR_API_KEY: 'k', OCR_MODEL: 'm' })).toThrow(/OCR_BASE_URL/);
    expect(() => loadConfig({ UPLOAD_MAX_BYTES: '10MB' })).toThrow(/UPLOAD_MAX_BYTES/);
    expect(loadConfig({ OCR_BASE_URL: 'https://api.example.com/v1/', OCR_API_KEY: 'k', OCR_MODEL: 'm' }).expenses.ocr).toEqual({
      baseUrl: 'https://api.example.com/v1',
      apiKey: 'k',
      model: 'm',
      timeoutMs: 60_000,
    });
  });
});

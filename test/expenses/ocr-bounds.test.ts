/**
 * The OCR prefill never stores what the expense API itself would refuse: a model's overlong supplier
 * name or document number (beyond OPENFRMT B110/1404, B100/1357, as written to the file), an
 * amount beyond B100/1368 (given, or derived from the others), an impossible date. Such a value is
 * left empty (never cut: a cut number is a wrong number); the raw extraction keeps what the model
 * said. Every prefilled draft can be sent back through PATCH unchanged.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestEnv, TAX_IDS, type TestEnv } from '../helpers/env.ts';
import { dataUri, jpeg } from './fixtures.ts';
import { FakeChatCompletions } from './fake-openai.ts';
import { EXPENSE_LIMITS } from '../../src/expenses/schemas.ts';
import { PREFILL_LIMITS, prefillFrom } from '../../src/expenses/ocr/extraction.ts';

let env: TestEnv;
let fake: FakeChatCompletions;
let key: string;
let bid: string;

const extraction = {
  supplierName: 'סופר פארם בע"מ',
  supplierTaxId: TAX_IDS.company2,
  documentType: 'tax_invoice',
  documentNumber: '004512',
  documentDate: '2026-02-27',
  amountExVat: 100,
  vatAmount: 18,
  amountIncVat: 118,
  allocationNumber: null,
};

beforeAll(async () => {
  fake = await FakeChatCompletions.start();
  env = await createTestEnv({ env: { OCR_BASE_URL: fake.baseUrl, OCR_API_KEY: 'sk-test-123', OCR_MODEL: 'vision-test-1', OCR_TIMEOUT_MS: '2000' } });
  const a = await env.account({ ocr: true });
  key = (await a.mint({ mode: 'test', scopes: ['businesses', 'expenses', 'ocr'] })).secret;
  bid = (await env.business(key)).id;
});
afterAll(async () => {
  await env?.close();
  await fake?.close();
});

let width = 100;
/** One scan (a new image each time: the same file would be deduplicated) answered with `content`. */
async function scan(content: Record<string, unknown>) {
  fake.answer({ kind: 'json', content });
  const r = await env.call('POST', `/v1/businesses/${bid}/expenses/scan`, { key, body: { file: dataUri('image/jpeg', await jpeg(width++, 120)) } });
  expect(r.status, JSON.stringify(r.body)).toBe(201);
  return r.body.expense;
}

/** The prefilled draft, sent back unchanged through the API: accepted (nothing stored that PATCH would refuse). */
async function roundTrips(e: any) {
  const body = {
    supplier: e.supplierName ? { name: e.supplierName, taxId: e.supplierTaxId } : null,
    supplierDocType: e.supplierDocType,
    supplierDocNumber: e.supplierDocNumber,
    supplierDocDate: e.supplierDocDate,
    allocationNumber: e.allocationNumber,
    amountExVat: e.amountExVat,
    vatAmount: e.vatAmount,
    amountIncVat: e.amountIncVat,
  };
  const r = await env.call('PATCH', `/v1/businesses/${bid}/expenses/${e.id}`, { key, body });
  expect(r.status, JSON.stringify(r.body)).toBe(200);
}

describe('OCR prefill within the expense API limits', () => {
  it("the limits are the API's own", () => {
    expect(PREFILL_LIMITS.amountAgorot).toBe(EXPENSE_LIMITS.amountAgorot);
  });

  it('a value at the limits is kept', async () => {
    const name = 'א'.repeat(EXPENSE_LIMITS.supplierNameChars);
    const number = '9'.repeat(EXPENSE_LIMITS.docNumberChars);
    const e = await scan({ ...extraction, supplierName: name, documentNumber: number });
    expect(e).toMatchObject({ supplierName: name, supplierDocNumber: number, amountIncVat: 11800, supplierDocDate: '2026-02-27' });
    await roundTrips(e);
  });

  it('overlong texts (as sent, or as written to the file) are left empty, the raw extraction keeps them', async () => {
    const longName = 'א'.repeat(EXPENSE_LIMITS.supplierNameChars + 1);
    const longNumber = '9'.repeat(EXPENSE_LIMITS.docNumberChars + 1);
    const e = await scan({ ...extraction, supplierName: longName, documentNumber: longNumber });
    expect(e.supplierName).toBeNull();
    expect(e.supplierDocNumber).toBeNull();
    expect(e.ocrExtraction.result).toMatchObject({ supplierName: longName, documentNumber: longNumber });
    expect(e.amountIncVat).toBe(11800);
    await roundTrips(e);
    // ₪ is three characters as written (ש"ח): short as sent, too long as written.
    const folded = await scan({ ...extraction, supplierName: '₪'.repeat(Math.ceil(EXPENSE_LIMITS.supplierNameChars / 3) + 1) });
    expect(folded.supplierName).toBeNull();
    await roundTrips(folded);
  });

  it('amounts beyond what the API accepts are left empty: given, derived, or inexact', async () => {
    const max = EXPENSE_LIMITS.amountAgorot; // agorot
    const over = (max + 1) / 100;
    for (const amounts of [
      { amountExVat: null, vatAmount: null, amountIncVat: over },
      { amountExVat: over, vatAmount: 0, amountIncVat: null },
      // Each part fits; their sum (the derived total) does not.
      { amountExVat: Math.floor(max / 100) * 0.6, vatAmount: Math.floor(max / 100) * 0.6, amountIncVat: null },
      { amountExVat: null, vatAmount: null, amountIncVat: 1e309 },
      { amountExVat: null, vatAmount: null, amountIncVat: '99999999999999999999' },
    ]) {
      const e = await scan({ ...extraction, ...amounts });
      // What is beyond is not kept; a part that fits on its own (a VAT of 0) may stay.
      expect({ ex: e.amountExVat, inc: e.amountIncVat }, JSON.stringify(amounts)).toEqual({ ex: null, inc: null });
      expect(e.vatAmount === null || Math.abs(e.vatAmount) <= max, JSON.stringify(amounts)).toBe(true);
      await roundTrips(e);
    }
    const atMax = await scan({ ...extraction, amountExVat: null, vatAmount: null, amountIncVat: max / 100 });
    expect(atMax.amountIncVat).toBe(max);
    await roundTrips(atMax);
  });

  it('impossible or out-of-range dates are left empty', async () => {
    for (const documentDate of ['2026-02-30', '31/02/2026', '1899-12-31', '2205-01-01', '0000-00-00', '2026-13-01']) {
      const e = await scan({ ...extraction, documentDate });
      expect(e.supplierDocDate, documentDate).toBeNull();
      await roundTrips(e);
    }
  });

  it('prefillFrom, pure: every output fits the API whatever the model says', () => {
    const hostile = [
      { supplierName: 'x'.repeat(10_000), documentNumber: 12345678901234567890, amountIncVat: -1e300, documentDate: '2026-02-29' },
      { supplierName: 42, documentNumber: { a: 1 }, amountExVat: '1,000,000,000,000.00', vatAmount: '1', amountIncVat: null },
      { amountExVat: Number.MAX_SAFE_INTEGER, vatAmount: 0, amountIncVat: Number.MAX_SAFE_INTEGER },
    ];
    for (const raw of hostile) {
      const p = prefillFrom(raw);
      expect(p.supplierName === null || p.supplierName.length <= EXPENSE_LIMITS.supplierNameChars).toBe(true);
      expect(p.supplierDocNumber === null || p.supplierDocNumber.length <= EXPENSE_LIMITS.docNumberChars).toBe(true);
      expect(p.supplierDocDate).toBeNull();
      for (const v of [p.amountExVat, p.vatAmount, p.amountIncVat]) {
        expect(v === null || (Number.isSafeInteger(v) && Math.abs(v) <= EXPENSE_LIMITS.amountAgorot), JSON.stringify(raw)).toBe(true);
      }
    }
  });
});

/**
 * Issue 29, item 1: input VAT follows the allocation rule (decisions.md "Books"; israel-tax.md §4.1–4.2). A
 * supplier's tax invoice above the threshold of its date deducts its VAT only with the supplier's allocation
 * number: without one the expense records with deductibleVat 0 and a warning, a strict business is refused
 * 422 allocation_required with nothing written, and a storno with redraft brings the number in later. The
 * journal, the VAT report, PCN874 (T carries the number, no T claims VAT with 000000000) and the OPENFRMT
 * export follow the deductible figure. The number's form is one rule for sales and purchases.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { unzipSync } from 'fflate';
import iconv from 'iconv-lite';
import { ManualClock } from '../../src/platform/clock.ts';
import { readPcn874 } from '../../src/vat/pcn874.ts';
import { parseRecord, signedValue } from '../../src/openfrmt/record-parse.ts';
import { createTestEnv, TAX_IDS, type TestAccount, type TestEnv } from '../helpers/env.ts';
import { createOpenapiValidator, validateTraffic } from '../contract/openapi-validator.ts';

let env: TestEnv;
let a: TestAccount;
let bid: string;
let strictId: string;
let problems: string[];
const rec: Record<string, any> = {};

beforeAll(async () => {
  env = await createTestEnv({ clock: new ManualClock('2026-04-05T08:00:00.000Z') });
  a = await env.account();
  bid = (await env.business(a.test)).id; // a company: double-entry books
  strictId = (await env.business(a.test, { name: 'קפדנית בע"מ', requireAllocation: true })).id;
  problems = validateTraffic(env, createOpenapiValidator((await env.call('GET', '/v1/openapi.json')).body));
});
afterAll(async () => env?.close());

async function call(method: string, path: string, body?: unknown, business = bid) {
  return env.call(method, `/v1/businesses/${business}${path}`, { key: a.test, body });
}
async function ok(method: string, path: string, body?: unknown, status = method === 'GET' ? 200 : 201) {
  const r = await call(method, path, body);
  expect(r.status, `${method} ${path}: ${JSON.stringify(r.body)}`).toBe(status);
  return r.body;
}

const supplier = { name: 'ספק גדול בע"מ', taxId: TAX_IDS.company2 };
/** 12,000.00 ₪ + 2,160.00 VAT on 2026-03-12: above the 10,000 ₪ threshold in force since 2026-01-01. */
const big = { categoryKey: 'office', supplier, supplierDocType: 'tax_invoice', supplierDocDate: '2026-03-12', amountExVat: 1_200_000, vatAmount: 216_000 };

async function record(body: Record<string, unknown>, business = bid) {
  const draft = await call('POST', '/expenses', body, business);
  expect(draft.status, JSON.stringify(draft.body)).toBe(201);
  return call('POST', `/expenses/${draft.body.expense.id}/record`, undefined, business);
}
async function recorded(body: Record<string, unknown>) {
  const r = await record(body);
  expect(r.status, JSON.stringify(r.body)).toBe(201);
  return r.body.expense;
}
async function entryOf(expenseId: string) {
  const { entries } = await ok('GET', '/ledger/entries?from=2026-01-01&to=2026-12-31&take=500');
  return entries.find((e: any) => e.expenseId === expenseId);
}

describe('a tax invoice above the threshold', () => {
  it('without the allocation number: deductibleVat 0 and a warning; the journal books the VAT as cost', async () => {
    rec.without = await recorded({ ...big, supplierDocNumber: 'INV-1' });
    expect(rec.without).toMatchObject({ status: 'recorded', deductibleVat: 0, allocationNumber: null });
    expect(rec.without.warnings).toEqual([
      { code: 'input_vat_needs_allocation', message: expect.stringMatching(/of 2026-03-12 is 12000\.00 NIS before VAT, above the 10000\.00 NIS/) },
    ]);
    const entry = await entryOf(rec.without.id);
    // Dr the category 14,160.00 (the VAT it may not deduct is cost) / Cr the supplier 14,160.00: no input VAT line.
    expect(entry.lines.map((l: any) => [l.debit, l.credit])).toEqual([
      [1_416_000, 0],
      [0, 1_416_000],
    ]);
    expect(entry.lines.map((l: any) => l.account)).not.toContain('1400');
  });

  it("with the supplier's allocation number: the VAT is deducted, no warning", async () => {
    rec.with = await recorded({ ...big, supplierDocNumber: 'INV-2', allocationNumber: '202603777' });
    expect(rec.with).toMatchObject({ deductibleVat: 216_000, warnings: [], allocationNumber: '202603777' });
    const entry = await entryOf(rec.with.id);
    expect(entry.lines.find((l: any) => l.account === '1400')).toMatchObject({ debit: 216_000 });
  });

  it.each([
    ['exactly at the threshold (strictly greater is needed)', { amountExVat: 1_000_000, vatAmount: 180_000 }, 180_000, false],
    ['dated 2025-12-31: the 20,000 ₪ threshold', { supplierDocDate: '2025-12-31' }, 216_000, false],
    ['dated 2026-06-01: the 5,000 ₪ threshold', { supplierDocDate: '2026-06-01', amountExVat: 600_000, vatAmount: 108_000 }, 0, true],
    ['dated 2024-05-04: before the model', { supplierDocDate: '2024-05-04', amountExVat: 9_000_000, vatAmount: 1_530_000 }, 1_530_000, false],
    ['an invoice-receipt', { supplierDocType: 'tax_invoice_receipt' }, 0, true],
    ['no supplier document type (counts as a tax invoice)', { supplierDocType: null }, 0, true],
    ['2/3 deductible (communication)', { categoryKey: 'communication' }, 0, true],
    ['a category with nothing to deduct: nothing taken away, no warning', { categoryKey: 'refreshments' }, 0, false],
    ['a receipt: no input VAT anyway, no warning', { supplierDocType: 'receipt' }, 0, false],
    ['an import entry: not an invoice the model numbers', { supplierDocType: 'import_entry' }, 216_000, false],
    ['a supplier credit invoice', { supplierDocType: 'credit_invoice', amountExVat: -1_200_000, vatAmount: -216_000 }, -216_000, false],
  ])('%s', async (_name, over, deductible, warned) => {
    const e = await recorded({ ...big, ...over });
    expect(e.deductibleVat).toBe(deductible);
    expect(e.warnings.map((w: any) => w.code)).toEqual(warned ? ['input_vat_needs_allocation'] : []);
  });

  it('a strict business is refused 422 allocation_required at record, and nothing is written', async () => {
    const before = (await env.sql('sandbox', `SELECT count(*)::int AS n FROM journal_entries WHERE business_id = '${strictId}'`))[0].n;
    const r = await record(big, strictId);
    expect(r.status).toBe(422);
    expect(r.body).toMatchObject({ reason: 'allocation_required', error: expect.stringMatching(/allocation number.*set allocationNumber/) });
    const { expenses } = (await call('GET', '/expenses', undefined, strictId)).body;
    expect(expenses.map((e: any) => [e.status, e.deductibleVat])).toEqual([['draft', null]]);
    expect((await env.sql('sandbox', `SELECT count(*)::int AS n FROM journal_entries WHERE business_id = '${strictId}'`))[0].n).toBe(before);
    // With the number it records.
    const patched = await call('PATCH', `/expenses/${expenses[0].id}`, { allocationNumber: '202603778' }, strictId);
    expect(patched.status).toBe(200);
    const done = await call('POST', `/expenses/${expenses[0].id}/record`, undefined, strictId);
    expect(done.body.expense).toMatchObject({ status: 'recorded', deductibleVat: 216_000 });
  });

  it('a storno with redraft brings the number in later', async () => {
    const corrected = await ok('POST', `/expenses/${rec.without.id}/correction`, { redraft: true });
    expect(corrected.expense).toMatchObject({ source: 'reversal', deductibleVat: 0, amountExVat: -1_200_000 });
    expect(corrected.draft).toMatchObject({ status: 'draft', source: 'redraft', allocationNumber: null, amountExVat: 1_200_000 });
    await ok('PATCH', `/expenses/${corrected.draft.id}`, { allocationNumber: '202603779' }, 200);
    rec.redrafted = (await ok('POST', `/expenses/${corrected.draft.id}/record`)).expense;
    expect(rec.redrafted).toMatchObject({ deductibleVat: 216_000, warnings: [], supplierDocDate: '2026-03-12' });
  });
});

describe("the number's form: one rule for sales and purchases", () => {
  it.each(['12345678', '1234567890', '00000000A', '000000000', ' 12345678'])('%j is refused on an expense and on a document draft', async (bad) => {
    const e = await call('POST', '/expenses', { ...big, allocationNumber: bad });
    expect([e.status, e.body.reason, e.body.error]).toEqual([400, 'validation', expect.stringMatching(/^body\.allocationNumber/)]);
    const d = await call('POST', '/documents', { docType: 305, lines: [{ description: 'x', quantity: 1, unitPriceExVat: 100 }], allocationNumber: bad });
    expect([d.status, d.body.reason, d.body.error]).toEqual([400, 'validation', expect.stringMatching(/^body\.allocationNumber/)]);
  });
});

describe('the books follow the deductible figure', () => {
  it("the VAT report of March: only the deductible VAT (one invoice with its number, the redraft, the strict one's other business aside)", async () => {
    const { report } = await ok('GET', '/reports/vat?period=2026-03');
    // 2,160.00 (with its number) + 1,800.00 (at the threshold) + 2,160.00 (import entry) + 2,160.00 (the redraft) − 2,160.00 (supplier credit).
    expect(report.inputVat).toBe(216_000 + 180_000 + 216_000 + 216_000 - 216_000);
    const { lines } = await ok('GET', '/reports/vat/lines?period=2026-03');
    const withNumber = lines.find((l: any) => l.expense?.id === rec.with.id);
    expect(withNumber.expense.allocationNumber).toBe('202603777');
    expect(lines.some((l: any) => l.expense?.id === rec.without.id)).toBe(false);
  });

  it('PCN874 of March: T entries carry their allocation numbers; none claims VAT with 000000000 above the threshold', async () => {
    const made = await ok('POST', '/exports/pcn874', { period: '2026-03' });
    expect(made.exportRun.verification).toMatchObject({ ok: true, problems: [] });
    const read = readPcn874((await env.call('GET', `/v1/files/${made.file.id}`, { key: a.test })).raw);
    const t = read.entries.filter((e) => e.type === 'T').map((e) => `${e.vat} ${e.exVat} ${e.allocation}`);
    expect(t.sort()).toEqual(['1800 10000 000000000', '2160 -12000 000000000', '2160 12000 000000000', '2160 12000 202603777', '2160 12000 202603779'].sort());
    // Above the threshold and claiming VAT: always a number (the import entry is not a tax invoice).
    const above = read.entries.filter((e) => e.type === 'T' && e.exVat > 10_000 && e.vat > 0);
    expect(above.filter((e) => e.allocation === '000000000')).toHaveLength(1);
  });

  it('the OPENFRMT export of March: B100 lines on input VAT are the deductible VAT; it verifies', async () => {
    const r = await ok('POST', '/exports/openfrmt', { from: '2026-03-01', to: '2026-03-31' });
    expect(r.exportRun.verification).toMatchObject({ ok: true });
    const files = unzipSync(new Uint8Array((await env.call('GET', `/v1/files/${r.file.id}`, { key: a.test })).raw));
    const bkmv = iconv.decode(Buffer.from(files[Object.keys(files).find((n) => n.endsWith('BKMVDATA.TXT'))!]), 'iso-8859-8');
    const b100 = bkmv
      .split('\r\n')
      .filter((x) => x.startsWith('B100'))
      .map((x) => parseRecord('B100', x).fields);
    const inputVat = b100.filter((f) => f[1364].trim() === '1400').reduce((s, f) => s + (f[1366] === '1' ? 1 : -1) * signedValue(f[1368]), 0);
    const { report } = await ok('GET', '/reports/vat?period=2026-03');
    expect(inputVat).toBe(report.inputVat);
  });

  it('every answer of this file matches the OpenAPI document', () => expect(problems).toEqual([]));
});

import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestEnv, TAX_IDS, type TestAccount, type TestEnv } from '../helpers/env.ts';
import { creditNote, issueDoc } from '../exports/fixture.ts';

let env: TestEnv;
let a: TestAccount;
beforeAll(async () => {
  env = await createTestEnv();
  a = await env.account();
});
afterAll(async () => env?.close());

let seq = 0;
/** A recorded expense row written directly (the expenses area computes deductible VAT; here it is given). */
async function expense(bid: string, e: { category: string; date: string; exVat: number; vat: number; deductible: number; status?: string; reverses?: string }) {
  const id = `exp_test${String(++seq).padStart(6, '0')}`;
  const recorded = (e.status ?? 'recorded') === 'recorded';
  await env.sql(
    'sandbox',
    `INSERT INTO expenses(id, business_id, status, source, category_key, supplier_name, supplier_doc_type, supplier_doc_date,
                          amount_ex_vat, vat_amount, amount_inc_vat, deductible_vat, reverses_expense_id, recorded_at, created_at, updated_at)
     VALUES ('${id}', '${bid}', '${recorded ? 'recorded' : 'draft'}', '${e.reverses ? 'reversal' : 'manual'}', '${e.category}', 'ספק', 'tax_invoice',
             '${e.date}', ${e.exVat}, ${e.vat}, ${e.exVat + e.vat}, ${e.deductible}, ${e.reverses ? `'${e.reverses}'` : 'NULL'},
             ${recorded ? `'2026-03-01T08:00:00Z'` : 'NULL'}, '2026-03-01T08:00:00Z', '2026-03-01T08:00:00Z')`,
  );
  if (e.reverses) await env.sql('sandbox', `UPDATE expenses SET reversed_by_expense_id = '${id}' WHERE id = '${e.reverses}'`);
  return id;
}

const line = (price: number) => ({ description: 'שירות', quantity: 1, unitPriceExVat: price });

describe('management reports against a hand-computed fixture', () => {
  let bid: string;
  beforeAll(async () => {
    const b = await env.business(a.test, { taxId: TAX_IDS.person, dealerType: 'murshe', name: 'עוסק' });
    bid = b.id;
    const party = { name: 'לקוח', taxId: TAX_IDS.company2 };
    // Out of range, and first: a series' dates follow its numbers.
    await issueDoc(env, a.test, bid, { docType: 305, documentDate: '2025-12-31', party, lines: [line(999_900)] }); // out of range
    const inv = await issueDoc(env, a.test, bid, { docType: 305, documentDate: '2026-01-10', party, lines: [line(100_000)] });
    await issueDoc(env, a.test, bid, {
      docType: 320,
      documentDate: '2026-02-05',
      party,
      lines: [line(50_000)],
      payments: [{ method: 'cash', amount: 59_000 }],
    });
    await issueDoc(env, a.test, bid, { docType: 305, documentDate: '2026-02-20', party, lines: [line(20_000)], vatRateBp: 0, vatExemptionReason: 'export' });
    await issueDoc(env, a.test, bid, { docType: 400, party, payments: [{ method: 'cash', amount: 30_000 }] });
    // Commercial papers (issue 30): counted by type, never income, output VAT or VAT figures.
    await issueDoc(env, a.test, bid, { docType: 300, documentDate: '2026-02-06', party, lines: [line(40_000)] });
    await issueDoc(env, a.test, bid, { docType: 200, documentDate: '2026-02-06', party, lines: [line(40_000)] });
    await creditNote(env, a.test, bid, inv.id); // dated 2026-03-01
    const office = await expense(bid, { category: 'office', date: '2026-01-15', exVat: 10_000, vat: 1_800, deductible: 1_800 });
    await expense(bid, { category: 'office', date: '2026-01-15', exVat: -10_000, vat: -1_800, deductible: -1_800, reverses: office });
    await expense(bid, { category: 'equipment', date: '2026-02-10', exVat: 500_000, vat: 90_000, deductible: 90_000 });
    await expense(bid, { category: 'refreshments', date: '2026-02-11', exVat: 20_000, vat: 3_600, deductible: 0 });
    await expense(bid, { category: 'rent', date: '2026-04-01', exVat: 300_000, vat: 54_000, deductible: 54_000 }); // out of range
    await expense(bid, { category: 'rent', date: '2026-02-01', exVat: 1, vat: 0, deductible: 0, status: 'draft' }); // not recorded
  });

  it('summary: income by type and month, output VAT, expenses by category, input VAT, profit', async () => {
    const r = await env.call('GET', `/v1/businesses/${bid}/reports/summary?from=2026-01-01&to=2026-03-31`, { key: a.test });
    expect(r.status, JSON.stringify(r.body)).toBe(200);
    expect(r.body.report).toEqual({
      from: '2026-01-01',
      to: '2026-03-31',
      currency: 'ILS',
      income: {
        byMonth: [
          { month: '2026-01', docType: 305, count: 1, amountExVat: 100_000, vatAmount: 18_000 },
          { month: '2026-02', docType: 305, count: 1, amountExVat: 20_000, vatAmount: 0 },
          { month: '2026-02', docType: 320, count: 1, amountExVat: 50_000, vatAmount: 9_000 },
          { month: '2026-03', docType: 330, count: 1, amountExVat: -100_000, vatAmount: -18_000 },
        ],
        totalExVat: 70_000,
      },
      outputVat: 9_000,
      receipts: { count: 1, total: 30_000 },
      // Every type, zeros included; the credit note counts against its invoice.
      documents: {
        byDocType: [
          { docType: 10, taxDocument: false, count: 0, totalIncVat: 0 },
          { docType: 100, taxDocument: false, count: 0, totalIncVat: 0 },
          { docType: 200, taxDocument: false, count: 1, totalIncVat: 47_200 },
          { docType: 210, taxDocument: false, count: 0, totalIncVat: 0 },
          { docType: 300, taxDocument: false, count: 1, totalIncVat: 47_200 },
          { docType: 305, taxDocument: true, count: 2, totalIncVat: 138_000 },
          { docType: 320, taxDocument: true, count: 1, totalIncVat: 59_000 },
          { docType: 330, taxDocument: true, count: 1, totalIncVat: -118_000 },
          { docType: 400, taxDocument: true, count: 1, totalIncVat: 30_000 },
          { docType: 405, taxDocument: true, count: 0, totalIncVat: 0 },
        ],
      },
      expenses: {
        byCategory: [
          { category: 'equipment', nameHe: 'ציוד (רכוש קבוע)', count: 1, amountExVat: 500_000, vatAmount: 90_000, deductibleVat: 90_000 },
          { category: 'office', nameHe: 'משרדיות וציוד משרדי', count: 2, amountExVat: 0, vatAmount: 0, deductibleVat: 0 },
          { category: 'refreshments', nameHe: 'כיבוד ואירוח', count: 1, amountExVat: 20_000, vatAmount: 3_600, deductibleVat: 0 },
        ],
        totalExVat: 520_000,
      },
      inputVat: 90_000,
      profit: -450_000,
    });
  });

  it('vat: the periodic figures', async () => {
    const r = await env.call('GET', `/v1/businesses/${bid}/reports/vat?from=2026-01-01&to=2026-03-31`, { key: a.test });
    expect(r.status).toBe(200);
    expect(r.body.report).toEqual({
      from: '2026-01-01',
      to: '2026-03-31',
      currency: 'ILS',
      taxableSales: 50_000,
      outputVat: 9_000,
      zeroRatedOrExemptSales: 20_000,
      fixedAssetInputVat: 90_000,
      otherInputVat: 0,
      inputVat: 90_000,
      vatPayable: -81_000,
      documents: 4,
      expenses: 4,
    });
  });

  it('a single month (February): VAT to pay on sales, refund on the equipment', async () => {
    const r = await env.call('GET', `/v1/businesses/${bid}/reports/vat?from=2026-02-01&to=2026-02-28`, { key: a.test });
    expect(r.body.report).toMatchObject({
      taxableSales: 50_000,
      outputVat: 9_000,
      zeroRatedOrExemptSales: 20_000,
      inputVat: 90_000,
      vatPayable: -81_000,
      documents: 2,
      expenses: 2,
    });
  });

  it('an empty period is all zeros', async () => {
    const s = await env.call('GET', `/v1/businesses/${bid}/reports/summary?from=2024-01-01&to=2024-01-31`, { key: a.test });
    expect(s.body.report).toMatchObject({ income: { byMonth: [], totalExVat: 0 }, outputVat: 0, receipts: { count: 0, total: 0 }, inputVat: 0, profit: 0 });
    const v = await env.call('GET', `/v1/businesses/${bid}/reports/vat?from=2024-01-01&to=2024-01-31`, { key: a.test });
    expect(v.body.report).toMatchObject({ taxableSales: 0, outputVat: 0, inputVat: 0, vatPayable: 0, documents: 0 });
  });

  it('validates the range and needs the export scope', async () => {
    const back = await env.call('GET', `/v1/businesses/${bid}/reports/vat?from=2026-02-01&to=2026-01-01`, { key: a.test });
    expect(back.status).toBe(400);
    expect(back.body.error).toMatch(/querystring\.to/);
    const missing = await env.call('GET', `/v1/businesses/${bid}/reports/summary?from=2026-02-01`, { key: a.test });
    expect(missing.status).toBe(400);
    const bad = await env.call('GET', `/v1/businesses/${bid}/reports/summary?from=2026-02-01&to=tomorrow`, { key: a.test });
    expect(bad.status).toBe(400);
    const noScope = (await a.mint({ mode: 'test', scopes: ['documents'] })).secret;
    expect((await env.call('GET', `/v1/businesses/${bid}/reports/summary?from=2026-01-01&to=2026-01-31`, { key: noScope })).status).toBe(403);
  });
});

describe('an exempt dealer', () => {
  it('counts its receipts as income, with no VAT', async () => {
    const b = await env.business(a.test, { taxId: TAX_IDS.person3, dealerType: 'patur', name: 'עוסק פטור' });
    await issueDoc(env, a.test, b.id, { docType: 400, payments: [{ method: 'cash', amount: 10_000 }] });
    await issueDoc(env, a.test, b.id, { docType: 400, payments: [{ method: 'transfer', amount: 2_550 }] });
    const r = await env.call('GET', `/v1/businesses/${b.id}/reports/summary?from=2026-03-01&to=2026-03-31`, { key: a.test });
    expect(r.body.report.income).toEqual({ byMonth: [{ month: '2026-03', docType: 400, count: 2, amountExVat: 12_550, vatAmount: 0 }], totalExVat: 12_550 });
    expect(r.body.report).toMatchObject({ outputVat: 0, receipts: { count: 2, total: 12_550 }, profit: 12_550 });
  });
});

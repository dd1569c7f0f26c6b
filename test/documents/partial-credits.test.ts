/**
 * Partial credit notes (issue 29, decisions.md "Books: … credits"): chosen lines and quantities or an
 * amount, one after another up to the original's total; beyond the remainder 409; cancelledByDocumentId
 * only when the credits reach the whole; racing credits never pass the total; the journal, the VAT
 * report, PCN874 and OPENFRMT (with the base-document fields) follow. Worked by hand at 18%.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestEnv, TAX_IDS, type TestAccount, type TestEnv } from '../helpers/env.ts';
import { issueDoc } from '../exports/fixture.ts';
import { verifyExportThroughApi } from '../verifier/api.ts';
import { formatDefect } from '../verifier/openfrmt-verifier.ts';
import { readPcn874 } from '../../src/vat/pcn874.ts';

let env: TestEnv;
let a: TestAccount;
beforeAll(async () => {
  env = await createTestEnv();
  a = await env.account();
});
afterAll(async () => env?.close());

const credit = (bid: string, id: string, body: Record<string, unknown> = {}) =>
  env.call('POST', `/v1/businesses/${bid}/documents/${id}/credit-note`, { key: a.test, body });
const read = async (bid: string, id: string) => (await env.call('GET', `/v1/businesses/${bid}/documents/${id}`, { key: a.test })).body.document;
const figures = (d: any) => [d.totalExVat, d.vatAmount, d.totalIncVat];

/**
 * 305: 2 × 100.00 + 1.5 × 200.00 − 10.00 line discount = 490.00; − 5.00 document discount = 485.00;
 * VAT 87.30; total 572.30.
 */
const invoice = (partyTaxId: string | null = TAX_IDS.company2) => ({
  docType: 305,
  party: { name: 'לקוח בע"מ', ...(partyTaxId ? { taxId: partyTaxId } : {}) },
  lines: [
    { description: 'מוצר א', quantity: 2, unitPriceExVat: 10_000 },
    { description: 'מוצר ב', quantity: 1.5, unitPriceExVat: 20_000, lineDiscount: 1_000 },
  ],
  discountAmount: 500,
});

describe('partial credits of a 305', () => {
  it('a line, then an amount, then what is left: figures by hand, cancelledByDocumentId only at the whole', async () => {
    const bid = (await env.business(a.test)).id;
    const inv = await issueDoc(env, a.test, bid, invoice());
    expect(figures(inv)).toEqual([48_500, 8_730, 57_230]);
    // Line 1, 0.5 of 1.5: 100.00 less a third of the 10.00 discount (3.33) = 96.67; its share of the 5.00
    // document discount 5.00 × 96.67 / 490.00 = 0.99 → 95.68; VAT round(17.2224) = 17.22; 112.90.
    const one = await credit(bid, inv.id, { reason: 'החזרה חלקית', lines: [{ index: 1, quantity: 0.5 }] });
    expect(one.status, JSON.stringify(one.body)).toBe(201);
    const c1 = one.body.document;
    expect(c1).toMatchObject({ docType: 330, docNumber: 1, linkedDocumentId: inv.id, discountAmount: 99 });
    expect(c1.lines).toEqual([expect.objectContaining({ description: 'מוצר ב', quantity: 0.5, unitPriceExVat: 20_000, lineDiscount: 333, amount: 9_667 })]);
    expect(figures(c1)).toEqual([9_568, 1_722, 11_290]);
    expect((await read(bid, inv.id)).cancelledByDocumentId).toBeNull();
    // An amount of 200.00 before VAT: VAT round((95.68 + 200.00) × 18%) − 17.22 = 53.22 − 17.22 = 36.00.
    const two = await credit(bid, inv.id, { amount: 20_000 });
    expect(two.status, JSON.stringify(two.body)).toBe(201);
    expect(figures(two.body.document)).toEqual([20_000, 3_600, 23_600]);
    expect(two.body.document.lines).toEqual([expect.objectContaining({ quantity: 1, unitPriceExVat: 20_000, amount: 20_000 })]);
    // Beyond the remainder (485.00 − 295.68 = 189.32 left): 409, nothing written.
    const over = await credit(bid, inv.id, { amount: 18_933 });
    expect(over.status).toBe(409);
    expect(over.body).toMatchObject({ reason: 'conflict' });
    expect(over.body.error).toMatch(/18933 agorot before VAT.*18932 before VAT/);
    // A line's quantity beyond what is left of it: 409 naming the line.
    const line = await credit(bid, inv.id, { lines: [{ index: 1, quantity: 1.5 }] });
    expect(line.status).toBe(409);
    expect(line.body.error).toMatch(/line 1 \("מוצר ב"\): 1 of its 1.5 are left/);
    // No body: what is left, to the agora: 189.32 and the VAT that closes 87.30.
    const rest = await credit(bid, inv.id);
    expect(rest.status, JSON.stringify(rest.body)).toBe(201);
    expect(figures(rest.body.document)).toEqual([18_932, 3_408, 22_340]);
    const credits = [c1, two.body.document, rest.body.document];
    expect([0, 1, 2].map((k) => credits.reduce((s, c) => s + figures(c)[k], 0))).toEqual(figures(inv));
    expect((await read(bid, inv.id)).cancelledByDocumentId).toBe(rest.body.document.id);
    const again = await credit(bid, inv.id, { amount: 1 });
    expect(again.status).toBe(409);
    expect(again.body.error).toMatch(/credited in full/);
  });

  it('refuses what the document cannot take with 400 naming the field', async () => {
    const bid = (await env.business(a.test)).id;
    const inv = await issueDoc(env, a.test, bid, invoice());
    const cases: [Record<string, unknown>, RegExp][] = [
      [{ lines: [{ index: 2, quantity: 1 }] }, /body\.lines\[0\]\.index: the document has 2 lines/],
      [
        {
          lines: [
            { index: 0, quantity: 1 },
            { index: 0, quantity: 1 },
          ],
        },
        /body\.lines\[1\]\.index: line 0 is named twice/,
      ],
      [{ lines: [{ index: 0, quantity: 0.00001 }] }, /body\.lines\[0\]\.quantity/],
      [{ lines: [{ index: 0, quantity: 1 }], amount: 100 }, /lines or amount, not both/],
      [{ amount: 0 }, /amount/],
    ];
    for (const [body, message] of cases) {
      const r = await credit(bid, inv.id, body);
      expect(r.status, JSON.stringify(body)).toBe(400);
      expect(r.body.reason).toBe('validation');
      expect(r.body.error).toMatch(message);
    }
    const receipt = await issueDoc(env, a.test, bid, { docType: 400, payments: [{ method: 'cash', amount: 10_000 }] });
    const r = await credit(bid, receipt.id, { amount: 5_000 });
    expect(r.status).toBe(400);
    expect(r.body.error).toMatch(/body\.amount: a 400 is reversed whole by a negative receipt/);
    const counters = await env.sql('sandbox', `SELECT doc_type, last_number FROM document_counters WHERE business_id = '${bid}' AND doc_type = 330`);
    expect(counters).toHaveLength(0);
  });

  it('racing partial credits never pass the total: of two credits of 60% each, one is written', async () => {
    const bid = (await env.business(a.test)).id;
    const inv = await issueDoc(env, a.test, bid, invoice());
    const [x, y] = await Promise.all([credit(bid, inv.id, { amount: 29_100 }), credit(bid, inv.id, { amount: 29_100 })]);
    expect([x.status, y.status].sort()).toEqual([201, 409]);
    const rows = await env.sql('sandbox', `SELECT sum(total_ex_vat)::int AS ex FROM documents WHERE linked_document_id = '${inv.id}'`);
    expect(rows[0].ex).toBe(29_100);
  });
});

describe('the books, the VAT report, PCN874 and OPENFRMT follow partial credits', () => {
  it('tie in a month that mixes a partial credit, a full credit, a party account by tax id and a supplier payment', async () => {
    env.clock.set('2026-03-10T08:00:00.000Z');
    const bid = (await env.business(a.test)).id;
    const base = `/v1/businesses/${bid}`;
    const inv = await issueDoc(env, a.test, bid, invoice());
    const other = await issueDoc(env, a.test, bid, { ...invoice(null), discountAmount: 0 });
    const c1 = (await credit(bid, inv.id, { lines: [{ index: 0, quantity: 1 }] })).body.document;
    const c2 = (await credit(bid, other.id)).body.document;
    expect((await read(bid, other.id)).cancelledByDocumentId).toBe(c2.id);
    // 3 × 0.25 = 0.75, VAT round(0.135) = 0.14, credited a unit at a time: each alone would round its
    // 0.045 up to 0.05 (0.15 in all); rounded with the credits before it, 0.05, 0.04, 0.05 = 0.14.
    const tiny = await issueDoc(env, a.test, bid, {
      docType: 305,
      party: { name: 'מזדמן' },
      lines: [{ description: 'בורג', quantity: 3, unitPriceExVat: 25 }],
    });
    expect(figures(tiny)).toEqual([75, 14, 89]);
    const units = [];
    for (let i = 0; i < 3; i++) units.push((await credit(bid, tiny.id, { lines: [{ index: 0, quantity: 1 }] })).body.document);
    expect(units.map(figures)).toEqual([
      [25, 5, 30],
      [25, 4, 29],
      [25, 5, 30],
    ]);
    expect((await read(bid, tiny.id)).cancelledByDocumentId).toBe(units[2].id);
    // A supplier's invoice in the same month, half of it paid by transfer: Dr the supplier / Cr the bank.
    const draft = await env.call('POST', `${base}/expenses`, {
      key: a.test,
      body: {
        categoryKey: 'office',
        supplier: { name: 'ספק', taxId: TAX_IDS.company },
        supplierDocType: 'tax_invoice',
        supplierDocNumber: 'S-1',
        supplierDocDate: '2026-03-05',
        amountExVat: 10_000,
        vatAmount: 1_800,
      },
    });
    const recorded = await env.call('POST', `${base}/expenses/${draft.body.expense.id}/record`, { key: a.test });
    expect(recorded.status, JSON.stringify(recorded.body)).toBe(201);
    const paid = await env.call('POST', `${base}/supplier-payments`, {
      key: a.test,
      body: { expenseId: draft.body.expense.id, method: 'transfer', amount: 5_900, date: '2026-03-08' },
    });
    expect(paid.status, JSON.stringify(paid.body)).toBe(201);
    const customer = `1100-T${TAX_IDS.company2}`;
    const tb = (await env.call('GET', `${base}/ledger/trial-balance?at=2026-03-31`, { key: a.test })).body;
    const bal = Object.fromEntries(tb.accounts.map((r: any) => [r.code, r.balance]));
    expect(bal[customer]).toBe(inv.totalIncVat - c1.totalIncVat);
    expect(bal['1190']).toBe(0);
    expect(bal['2200']).toBe(-(inv.vatAmount - c1.vatAmount));
    expect(bal[`2100-T${TAX_IDS.company}`]).toBe(-(11_800 - 5_900));
    expect(bal['1230']).toBe(-5_900);
    const { report } = (await env.call('GET', `${base}/reports/vat?period=2026-03`, { key: a.test })).body;
    expect(report).toMatchObject({ outputVat: inv.vatAmount - c1.vatAmount, sales: { taxable: inv.totalExVat - c1.totalExVat } });
    env.clock.set('2026-04-02T08:00:00.000Z');
    const run = (await env.call('POST', `${base}/exports/pcn874`, { key: a.test, body: { period: '2026-03' } })).body;
    const pcn = readPcn874((await env.call('GET', `/v1/files/${run.file.id}`, { key: a.test })).raw);
    expect(pcn.entries.filter((e) => e.counterpartyId === TAX_IDS.company2).map((e) => [e.exVat, e.vat])).toEqual([
      [Math.round(inv.totalExVat / 100), Math.round(inv.vatAmount / 100)],
      [-Math.round(c1.totalExVat / 100), Math.round(c1.vatAmount / 100)],
    ]);
    const exp = await env.call('POST', `${base}/exports/openfrmt`, { key: a.test, body: { from: '2026-03-01', to: '2026-03-31' } });
    expect(exp.status, JSON.stringify(exp.body)).toBe(201);
    expect(exp.body.exportRun.verification.ok).toBe(true);
    const iv = await verifyExportThroughApi(env, a.test, bid, { fileId: exp.body.file.id, from: '2026-03-01', to: '2026-03-31' });
    expect(iv.defects.map(formatDefect)).toEqual([]);
  });
});

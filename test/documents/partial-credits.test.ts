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
import { parseRecord, signedValue } from '../../src/openfrmt/record-parse.ts';
import { unzipSync } from 'fflate';
import iconv from 'iconv-lite';

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
/** The records of an OPENFRMT run's BKMVDATA.TXT. */
async function exportRecords(fileId: string): Promise<string[]> {
  const files = unzipSync(new Uint8Array((await env.call('GET', `/v1/files/${fileId}`, { key: a.test })).raw));
  const name = Object.keys(files).find((n) => n.endsWith('BKMVDATA.TXT'))!;
  return iconv.decode(Buffer.from(files[name]), 'iso-8859-8').split('\r\n').slice(0, -1);
}

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
    const counters = await env.sql('sandbox', `SELECT doc_type, last_number FROM document_counters WHERE business_id = '${bid}' AND doc_type = 330`);
    expect(counters).toHaveLength(0);
  });

  it('a receipt (400) is reversed whole only: a part answers 400 naming the rule, and nothing is written', async () => {
    const bid = (await env.business(a.test)).id;
    const receipt = await issueDoc(env, a.test, bid, { docType: 400, payments: [{ method: 'cheque', amount: 10_000, checkNumber: '1234' }] });
    for (const body of [{ amount: 5_000 }, { lines: [{ index: 0, quantity: 1 }] }]) {
      const r = await credit(bid, receipt.id, body);
      expect([r.status, r.body.reason], JSON.stringify(body)).toEqual([400, 'validation']);
      expect(r.body.error).toMatch(/reversed whole by a negative receipt that hands back its means of payment; money returned in part is a new payment/);
    }
    expect(await env.sql('sandbox', `SELECT 1 FROM documents WHERE linked_document_id = '${receipt.id}'`)).toHaveLength(0);
    const whole = await credit(bid, receipt.id);
    expect(whole.status, JSON.stringify(whole.body)).toBe(201);
    expect(whole.body.document).toMatchObject({ docType: 400, totalIncVat: -10_000 });
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

describe('partial credits of a document in a foreign currency, at its own rate', () => {
  const fx = { currency: 'USD', exchangeRate: '3.6545', party: { name: 'Acme Ltd', taxId: TAX_IDS.person2 } };

  it('lines, an amount, then the rest: shekels by the line rule, VAT and discount over the credits, the rest closing to the agora', async () => {
    env.clock.set('2026-04-15T08:00:00.000Z');
    const bid = (await env.business(a.test)).id;
    // $30.00 (3 × $10.00) + $25.00 ($25.50 − $0.50) − $1.00 = $54.00, VAT $9.72, $63.72. In shekels at 3.6545:
    // 3 × 36.55 = 109.65, 93.19 − 1.83 = 91.36, less 3.65 = 197.36; VAT 35.52 (35.52174); 232.88.
    const inv = await issueDoc(env, a.test, bid, {
      docType: 305,
      ...fx,
      lines: [
        { description: 'Widget', quantity: 3, unitPriceExVat: 1_000 },
        { description: 'Gadget', quantity: 1, unitPriceExVat: 2_550, lineDiscount: 50 },
      ],
      discountAmount: 100,
    });
    expect([figures(inv), inv.ils]).toEqual([
      [5_400, 972, 6_372],
      { totalExVat: 19_736, vatAmount: 3_552, totalIncVat: 23_288, discountAmount: 365, withholdingAmount: 0 },
    ]);
    // One widget: $10.00 less its share of the discount $0.18 = $9.82, VAT $1.77. Shekels: 36.55 less the
    // discount's share 0.66 (0.65781) = 35.89, VAT 6.47 (6.468465): 42.36. Same currency and rate as the original.
    const c1 = (await credit(bid, inv.id, { lines: [{ index: 0, quantity: 1 }] })).body.document;
    expect(c1).toMatchObject({ docType: 330, currency: 'USD', exchangeRate: '3.6545', discountAmount: 18 });
    expect([figures(c1), c1.ils]).toEqual([
      [982, 177, 1_159],
      { totalExVat: 3_589, vatAmount: 647, totalIncVat: 4_236, discountAmount: 66, withholdingAmount: 0 },
    ]);
    expect(c1.lines[0]).toMatchObject({ quantity: 1, unitPriceExVat: 1_000, amount: 1_000, amountIls: 3_655 });
    // $20.00: VAT round(29.82 × 18%) − 1.77 = 3.60. Shekels 73.09 (73.09), VAT conv(5.37) − conv(1.77) = 19.62 − 6.47 = 13.15.
    const c2 = (await credit(bid, inv.id, { amount: 2_000 })).body.document;
    expect([figures(c2), c2.ils]).toEqual([
      [2_000, 360, 2_360],
      { totalExVat: 7_309, vatAmount: 1_315, totalIncVat: 8_624, discountAmount: 0, withholdingAmount: 0 },
    ]);
    // The rest: $24.18 + $4.35. In shekels what is left, 88.38 + 15.90 = 104.28 — not conv($24.18) = 88.37: the
    // credits end on the original's shekels to the agora.
    const c3 = (await credit(bid, inv.id)).body.document;
    expect([figures(c3), c3.ils]).toEqual([
      [2_418, 435, 2_853],
      { totalExVat: 8_838, vatAmount: 1_590, totalIncVat: 10_428, discountAmount: 0, withholdingAmount: 0 },
    ]);
    expect(c3.lines[0]).toMatchObject({ quantity: 1, unitPriceExVat: 2_418, amountIls: 8_838 });
    expect((await read(bid, inv.id)).cancelledByDocumentId).toBe(c3.id);
    const credits = [c1, c2, c3];
    for (const k of ['totalExVat', 'vatAmount', 'totalIncVat'] as const)
      expect(
        credits.reduce((x, c) => x + c.ils[k], 0),
        k,
      ).toBe(inv.ils[k]);

    // The books: the customer's account nets to zero in shekels; the VAT report and PCN874 of April are the shekels.
    const base = `/v1/businesses/${bid}`;
    const tb = (await env.call('GET', `${base}/ledger/trial-balance?at=2026-04-30`, { key: a.test })).body;
    const bal = Object.fromEntries(tb.accounts.map((r: any) => [r.code, r.balance]));
    expect([bal[`1100-T${TAX_IDS.person2}`], bal['2200'], bal['4000']]).toEqual([0, 0, 0]);
    const lines = await env.sql<{ code: string; amount: number; currency: string; fx: number }>(
      'sandbox',
      `SELECT l.account_code AS code, l.amount::int AS amount, l.currency, l.foreign_amount::int AS fx FROM journal_lines l
         JOIN journal_entries e ON e.id = l.entry_id WHERE e.document_id = '${c3.id}' ORDER BY l.account_code`,
    );
    expect(lines.map((l) => [l.code, l.amount, l.currency, l.fx])).toEqual([
      [`1100-T${TAX_IDS.person2}`, 10_428, 'USD', 2_853],
      ['2200', 1_590, 'USD', 435],
      ['4000', 8_838, 'USD', 2_418],
    ]);
    env.clock.set('2026-05-03T08:00:00.000Z');
    const run = (await env.call('POST', `${base}/exports/pcn874`, { key: a.test, body: { period: '2026-04' } })).body;
    expect(run.exportRun.verification.ok, JSON.stringify(run.exportRun.verification)).toBe(true);
    const pcn = readPcn874((await env.call('GET', `/v1/files/${run.file.id}`, { key: a.test })).raw);
    expect(pcn.entries.map((e) => [e.refGroup, e.exVat, e.vat])).toEqual([
      ['0305', 197, 36],
      ['0330', -36, 6],
      ['0330', -73, 13],
      ['0330', -88, 16],
    ]);
    // OPENFRMT: each credit's D110 in shekels names the original (1256/1257) and says 1267 = 1264 × 1265 − 1266.
    const exp = await env.call('POST', `${base}/exports/openfrmt`, { key: a.test, body: { from: '2026-04-01', to: '2026-04-30' } });
    expect(exp.body.exportRun?.verification, JSON.stringify(exp.body)).toMatchObject({ ok: true });
    const iv = await verifyExportThroughApi(env, a.test, bid, { fileId: exp.body.file.id, from: '2026-04-01', to: '2026-04-30' });
    expect(iv.defects.map(formatDefect)).toEqual([]);
    const d110 = (await exportRecords(exp.body.file.id)).filter((x) => x.startsWith('D110')).map((x) => parseRecord('D110', x).fields);
    const of330 = d110.filter((l) => l[1253] === '330').map((l) => [l[1256], l[1257].trim(), ...[1264, 1265, 1266, 1267].map((f) => signedValue(l[f]))]);
    expect(of330).toEqual([
      ['305', String(inv.docNumber), 10_000, 3_655, 0, 3_655],
      ['305', String(inv.docNumber), 10_000, 7_309, 0, 7_309],
      ['305', String(inv.docNumber), 10_000, 8_838, 0, 8_838],
    ]);
  });

  it('a line split over credits whose shekels round apart: the credit that would end one currency and not the other is refused; no body closes both', async () => {
    const bid = (await env.business(a.test)).id;
    // 2 × $0.01: $0.02, VAT 0. In shekels 2 × 0.04 (0.036545) = 0.08.
    const inv = await issueDoc(env, a.test, bid, { docType: 305, ...fx, lines: [{ description: 'Pin', quantity: 2, unitPriceExVat: 1 }] });
    expect([figures(inv), inv.ils.totalIncVat]).toEqual([[2, 0, 2], 8]);
    // Half a pin: $0.01 (0.005 rounded away from zero) but 0.02 ₪ (0.5 × 0.04): the dollars are half gone, the shekels a quarter.
    const c1 = (await credit(bid, inv.id, { lines: [{ index: 0, quantity: 0.5 }] })).body.document;
    expect([c1.totalIncVat, c1.ils.totalIncVat, c1.lines[0].amountIls]).toEqual([1, 2, 2]);
    // Another half would end the dollars and leave 0.06 ₪: refused, naming the rule, and nothing written.
    const last = await credit(bid, inv.id, { lines: [{ index: 0, quantity: 0.5 }] });
    expect([last.status, last.body.reason]).toEqual([409, 'conflict']);
    expect(last.body.error).toMatch(/must end in shekels where they end in USD.*a credit with no body takes exactly what is left in both/);
    expect((await read(bid, inv.id)).cancelledByDocumentId).toBeNull();
    // No body: $0.01 and the 0.06 ₪ left, on one line whose shekel price is its amount.
    const rest = (await credit(bid, inv.id)).body.document;
    expect([rest.totalIncVat, rest.ils.totalIncVat, rest.lines[0].amountIls]).toEqual([1, 6, 6]);
    expect((await read(bid, inv.id)).cancelledByDocumentId).toBe(rest.id);
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

/**
 * The VAT report of a period from the ledger and its PCN874 file: a month of mixed documents, a credit,
 * expenses, a storno, a manual VAT adjustment and a late expense moved into the month by a closed
 * period — worked by hand, tied to the ledger's accounts, traced line by line, and the file read back
 * with the layout's reader tied to the report.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ManualClock } from '../../src/platform/clock.ts';
import { readPcn874, shekels } from '../../src/vat/pcn874.ts';
import { createTestEnv, TAX_IDS, type TestAccount, type TestEnv } from '../helpers/env.ts';
import { creditNote, issueDoc } from '../exports/fixture.ts';

let env: TestEnv;
let a: TestAccount;
let bid: string;
const docs: Record<string, any> = {};
beforeAll(async () => {
  env = await createTestEnv({ clock: new ManualClock('2026-02-15T08:00:00.000Z') });
  a = await env.account();
  bid = (await env.business(a.test)).id; // a company, 516179157
  await seedMonth();
});
afterAll(async () => env?.close());

const base = () => `/v1/businesses/${bid}`;
async function ok(method: string, path: string, body?: unknown, status = method === 'GET' ? 200 : 201) {
  const r = await env.call(method, `${base()}${path}`, { key: a.test, body });
  expect(r.status, `${method} ${path}: ${JSON.stringify(r.body)}`).toBe(status);
  return r.body;
}
async function expense(body: Record<string, unknown>) {
  const draft = await ok('POST', '/expenses', { supplierDocType: 'tax_invoice', ...body });
  await ok('POST', `/expenses/${draft.expense.id}/record`);
  return draft.expense;
}
const line = (unitPriceExVat: number) => ({ description: 'שירות', quantity: 1, unitPriceExVat });

/**
 * By hand (18% VAT), February 2026:
 *   sales   305 #1 customer 1,000.00 / VAT 180.00        taxable  100,000   2200  +18,000
 *           320 #2 no tax id  500.00 / VAT  90.00        taxable   50,000   2200   +9,000
 *           305 #3 export     200.00 / VAT   0 (0%)      export    20,000
 *           330 #1 credit of 305 #1                      taxable −100,000   2200  −18,000
 *           400 receipt: no VAT, no revenue line (not in the report)
 *   inputs  communication 300.00 + 54.00, 2/3 deductible             1400   +3,600
 *           equipment 5,000.00 + 900.00, no supplier tax id (K)       1410  +90,000
 *           office 100.00 + 18.00, and its storno                     1400   +1,800 −1,800
 *           rent 1,000.00 + 180.00 dated 2026-01-25, January closed:  1400  +18,000 (entry dated 2026-02-01)
 *   manual  Dr 2200 1.00 / Cr cash 1.00                                2200     −100
 *   output VAT 8,900; input VAT 21,600; fixed assets 90,000; payable 8,900 − 21,600 − 90,000 = −102,700 (to reclaim).
 *   January (outside): 305 dated 2026-01-20, 100.00 / VAT 18.00.
 */
async function seedMonth() {
  const customer = (await ok('POST', '/parties', { name: 'לקוח קבוע בע"מ', kind: 'customer', taxId: TAX_IDS.company2 })).party;
  docs.january = await issueDoc(env, a.test, bid, { docType: 305, documentDate: '2026-01-20', party: { name: 'ינואר' }, lines: [line(10_000)] });
  await ok('POST', '/ledger/periods/2026-01/close');
  docs.inv = await issueDoc(env, a.test, bid, { docType: 305, documentDate: '2026-02-05', party: { partyId: customer.id }, lines: [line(100_000)] });
  docs.invReceipt = await issueDoc(env, a.test, bid, {
    docType: 320,
    documentDate: '2026-02-10',
    party: { name: 'לקוח מזדמן' },
    lines: [line(50_000)],
    payments: [{ method: 'cash', amount: 59_000 }],
  });
  docs.exportInv = await issueDoc(env, a.test, bid, {
    docType: 305,
    documentDate: '2026-02-12',
    party: { name: 'Foreign Ltd' },
    lines: [line(20_000)],
    vatRateBp: 0,
    vatExemptionReason: 'export',
  });
  docs.receipt = await issueDoc(env, a.test, bid, { docType: 400, payments: [{ method: 'cash', amount: 11_800 }] });
  docs.credit = await creditNote(env, a.test, bid, docs.inv.id);
  docs.phone = await expense({
    categoryKey: 'communication',
    supplier: { name: 'בזק', taxId: TAX_IDS.company2 },
    supplierDocNumber: 'B-77',
    supplierDocDate: '2026-02-10',
    amountExVat: 30_000,
    vatAmount: 5_400,
  });
  docs.equipment = await expense({
    categoryKey: 'equipment',
    supplier: { name: 'ספק ציוד' },
    supplierDocNumber: '5501',
    supplierDocDate: '2026-02-11',
    amountExVat: 500_000,
    vatAmount: 90_000,
  });
  docs.office = await expense({
    categoryKey: 'office',
    supplier: { name: 'כלי כתיבה', taxId: TAX_IDS.person },
    supplierDocNumber: 'O-9',
    supplierDocDate: '2026-02-12',
    amountExVat: 10_000,
    vatAmount: 1_800,
  });
  docs.officeStorno = (await ok('POST', `/expenses/${docs.office.id}/correction`, {})).expense;
  docs.rent = await expense({
    categoryKey: 'rent',
    supplier: { name: 'משכיר', taxId: TAX_IDS.person2 },
    supplierDocNumber: 'R-1',
    supplierDocDate: '2026-01-25',
    amountExVat: 100_000,
    vatAmount: 18_000,
  });
  await ok('POST', '/ledger/entries', {
    date: '2026-02-14',
    description: 'תיקון מע"מ',
    lines: [
      { account: '2200', debit: 100 },
      { account: '1200', credit: 100 },
    ],
  });
}

/** Σ over the ledger's February entries, per account: debit − credit. */
async function ledgerNet(): Promise<Record<string, number>> {
  const { entries } = await ok('GET', '/ledger/entries?from=2026-02-01&to=2026-02-28&take=500');
  const net: Record<string, number> = {};
  for (const e of entries) for (const l of e.lines) net[l.account] = (net[l.account] ?? 0) + l.debit - l.credit;
  return net;
}

describe('GET reports/vat?period=', () => {
  it('February worked by hand', async () => {
    const { report } = await ok('GET', '/reports/vat?period=2026-02');
    expect(report).toMatchObject({
      period: '2026-02',
      kind: 'monthly',
      from: '2026-02-01',
      to: '2026-02-28',
      source: 'ledger',
      outputVat: 8_900,
      inputVat: 21_600,
      inputVatFixedAssets: 90_000,
      vatPayable: -102_700,
      sales: { taxable: 50_000, zeroRatedExport: 20_000, eilat: 0, exempt: 0, count: 4 },
      inputs: { exVat: 30_000 + 500_000 + 10_000 - 10_000 + 100_000, count: 5 },
      adjustments: { outputVat: -100, inputVat: 0, inputVatFixedAssets: 0, count: 1 },
      taxableSales: 50_000,
      zeroRatedOrExemptSales: 20_000,
      documents: 4,
      expenses: 5,
    });
  });

  it('ties exactly to the ledger: 2200 credit − debit, 1400 and 1410 debit − credit, revenue by account', async () => {
    const { report } = await ok('GET', '/reports/vat?period=2026-02');
    const net = await ledgerNet();
    expect(report.outputVat).toBe(-(net['2200'] ?? 0));
    expect(report.inputVat).toBe(net['1400'] ?? 0);
    expect(report.inputVatFixedAssets).toBe(net['1410'] ?? 0);
    expect(report.sales.taxable).toBe(-(net['4000'] ?? 0));
    expect(report.sales.zeroRatedExport).toBe(-(net['4010'] ?? 0));
  });

  it('each figure traces to its documents and expenses, a page at a time', async () => {
    const lines: any[] = [];
    let after = 0;
    for (;;) {
      const page = await ok('GET', `/reports/vat/lines?period=2026-02&take=3&after=${after}`);
      lines.push(...page.lines);
      if (page.nextAfter === null) break;
      after = page.nextAfter;
    }
    expect(lines).toHaveLength(4 + 5 + 1);
    const byDoc = (id: string) => lines.find((l) => l.document?.id === id);
    expect(byDoc(docs.inv.id)).toMatchObject({
      treatment: 'taxable',
      exVat: 100_000,
      outputVat: 18_000,
      document: { docType: 305, date: '2026-02-05', partyTaxId: TAX_IDS.company2 },
    });
    expect(byDoc(docs.credit.id)).toMatchObject({ exVat: -100_000, outputVat: -18_000, document: { docType: 330, docNumber: docs.credit.docNumber } });
    expect(byDoc(docs.exportInv.id)).toMatchObject({ treatment: 'zeroRatedExport', exVat: 20_000, outputVat: 0 });
    expect(byDoc(docs.receipt.id)).toBeUndefined();
    expect(byDoc(docs.january.id)).toBeUndefined();
    const rent = lines.find((l) => l.expense?.id === docs.rent.id);
    expect(rent).toMatchObject({ entryDate: '2026-02-01', inputVat: 18_000, expense: { date: '2026-01-25', supplierDocNumber: 'R-1', storno: false } });
    expect(lines.find((l) => l.expense?.id === docs.officeStorno.id)).toMatchObject({ inputVat: -1_800, exVat: -10_000, expense: { storno: true } });
    expect(lines.find((l) => l.source === 'manual')).toMatchObject({ outputVat: -100, document: null, expense: null });
    const { report } = await ok('GET', '/reports/vat?period=2026-02');
    const sum = (k: string) => lines.reduce((s, l) => s + l[k], 0);
    expect([sum('outputVat'), sum('inputVat'), sum('inputVatFixedAssets')]).toEqual([report.outputVat, report.inputVat, report.inputVatFixedAssets]);
  });

  it('a bimonthly period holds both months', async () => {
    const { report } = await ok('GET', `/reports/vat?period=${encodeURIComponent('2026-01/2026-02')}`);
    expect(report).toMatchObject({ kind: 'bimonthly', from: '2026-01-01', to: '2026-02-28', outputVat: 8_900 + 1_800, sales: { taxable: 60_000, count: 5 } });
  });

  it('period and from/to are exclusive; a bad period is 400; from/to keeps answering the management figures', async () => {
    for (const q of ['period=2026-02&from=2026-02-01&to=2026-02-28', '', 'from=2026-02-01', 'period=2026-02/2026-03', 'period=2026-13']) {
      const r = await env.call('GET', `${base()}/reports/vat?${q}`, { key: a.test });
      expect(r.status, q).toBe(400);
      expect(r.body.reason).toBe('validation');
    }
    const { report } = await ok('GET', '/reports/vat?from=2026-02-01&to=2026-02-28');
    expect(report.period).toBeUndefined();
    expect(report).toMatchObject({ taxableSales: 50_000, zeroRatedOrExemptSales: 20_000, outputVat: 9_000 });
  });
});

describe('POST exports/pcn874', () => {
  it('refuses a period that has not ended, and a dealer who charges no VAT', async () => {
    const r = await env.call('POST', `${base()}/exports/pcn874`, { key: a.test, body: { period: '2026-02' } });
    expect(r.status).toBe(409);
    expect(r.body.error).toContain('ends on 2026-02-28');
    const patur = (await env.business(a.test, { dealerType: 'patur', taxId: TAX_IDS.person3 })).id;
    const p = await env.call('POST', `/v1/businesses/${patur}/exports/pcn874`, { key: a.test, body: { period: '2026-01' } });
    expect(p.status).toBe(409);
    const bad = await env.call('POST', `${base()}/exports/pcn874`, { key: a.test, body: { period: '2026-02/2026-03' } });
    expect(bad.status).toBe(400);
  });

  it('the file of February: verified, stored, downloaded, and its totals tie to the VAT report', async () => {
    env.clock.set('2026-03-02T08:00:00.000Z');
    const made = await ok('POST', '/exports/pcn874', { period: '2026-02' });
    expect(made.exportRun).toMatchObject({ kind: 'pcn874', status: 'completed', from: '2026-02-01', to: '2026-02-28', error: null });
    expect(made.exportRun.verification).toMatchObject({ ok: true, problems: [] });
    expect(made.file).toMatchObject({ name: 'PCN874.TXT' });

    const download = await env.call('GET', `/v1/files/${made.file.id}`, { key: a.test });
    expect(download.status).toBe(200);
    const bytes = download.raw;
    expect(bytes.toString('latin1').endsWith('\r\nX516179157\r\n')).toBe(true);
    const read = readPcn874(bytes);
    expect(read.problems).toEqual([]);

    const { report } = await ok('GET', '/reports/vat?period=2026-02');
    expect(read.header).toEqual({
      vatId: '516179157',
      period: '202602',
      generated: '20260302',
      taxableSales: shekels(report.sales.taxable),
      taxableVat: shekels(report.outputVat),
      zeroOrExemptSales: shekels(report.zeroRatedOrExemptSales),
      otherInputsVat: shekels(report.inputVat),
      equipmentInputsVat: shekels(report.inputVatFixedAssets),
      vatPayable: shekels(report.vatPayable),
      salesCount: report.sales.count,
      inputsCount: report.inputs.count,
    });
    // By hand: 500 / 89 / 200 / 216 / 900 / −1,027 shekels.
    expect(read.header).toMatchObject({
      taxableSales: 500,
      taxableVat: 89,
      zeroOrExemptSales: 200,
      otherInputsVat: 216,
      equipmentInputsVat: 900,
      vatPayable: -1_027,
    });
    expect(read.entries.map((e) => `${e.type} ${e.counterpartyId} ${e.date} ${e.vat} ${e.exVat}`)).toEqual([
      `S ${TAX_IDS.company2} 20260205 180 1000`,
      'L 000000000 20260210 90 500',
      'Y 999999999 20260212 0 200',
      `S ${TAX_IDS.company2} 20260215 180 -1000`,
      `T ${TAX_IDS.company2} 20260210 36 300`,
      'K 000000000 20260211 900 5000',
      `T ${TAX_IDS.person} 20260212 18 100`,
      `T ${TAX_IDS.person} 20260212 18 -100`,
      `T ${TAX_IDS.person2} 20260125 180 1000`,
    ]);
    // Issue 29: the reference group is the series, so 320 #1 and 330 #1 (and 305 #1 in January) are not one reference.
    expect(read.entries.slice(0, 4).map((e) => `${e.refGroup} ${e.refNumber}`)).toEqual([
      '0305 000000002',
      '0320 000000001',
      '0305 000000003',
      '0330 000000001',
    ]);
    expect(read.entries[4].refGroup).toBe('0000');
    expect(read.entries[4].refNumber).toBe('000000077');
    expect(read.entries[5].refNumber).toBe('000000001'); // K: the number of invoices in the entry

    const audit = await env.sql('sandbox', `SELECT action FROM audit_log WHERE business_id = '${bid}' AND action = 'export.pcn874'`);
    expect(audit).toHaveLength(1);
    const { exportRuns } = await ok('GET', '/exports');
    expect(exportRuns[0]).toMatchObject({ id: made.exportRun.id, kind: 'pcn874', fileId: made.file.id });
  });

  it('a figure wider than its field fails the run with a reason, recorded and audited (409, never a cut number)', async () => {
    const other = (await env.business(a.test, { taxId: TAX_IDS.company2 })).id;
    // 1,000,000,000.00 shekels of output VAT: ten digits, the header's field holds nine.
    const big = await env.call('POST', `/v1/businesses/${other}/ledger/entries`, {
      key: a.test,
      body: {
        date: '2026-02-10',
        description: 'x',
        lines: [
          { account: '1200', debit: 100_000_000_000 },
          { account: '2200', credit: 100_000_000_000 },
        ],
      },
    });
    expect(big.status, JSON.stringify(big.body)).toBe(201);
    const r = await env.call('POST', `/v1/businesses/${other}/exports/pcn874`, { key: a.test, body: { period: '2026-02' } });
    expect(r.status).toBe(409);
    expect(r.body.error).toContain('taxableVat');
    const runs = await env.sql<any>('sandbox', `SELECT kind, status, error, file_id FROM export_runs WHERE business_id = '${other}'`);
    expect(runs).toEqual([{ kind: 'pcn874', status: 'failed', error: expect.stringContaining('cannot hold'), file_id: null }]);
    const audit = await env.sql<any>('sandbox', `SELECT after FROM audit_log WHERE business_id = '${other}' AND action = 'export.pcn874'`);
    expect(audit).toHaveLength(1);
    expect(JSON.stringify(audit[0].after)).toContain('failed');
  });

  it('an Idempotency-Key replays the run instead of producing another', async () => {
    const send = () =>
      env.call('POST', `${base()}/exports/pcn874`, { key: a.test, body: { period: '2026-01/2026-02' }, headers: { 'Idempotency-Key': 'pcn-1' } });
    const first = await send();
    expect(first.status, JSON.stringify(first.body)).toBe(201);
    const again = await send();
    expect(again.status).toBe(201);
    expect(again.body.exportRun.id).toBe(first.body.exportRun.id);
    expect(again.headers['idempotent-replayed']).toBeTruthy();
    const read = readPcn874((await env.call('GET', `/v1/files/${first.body.file.id}`, { key: a.test })).raw);
    expect(read.problems).toEqual([]);
    expect(read.header).toMatchObject({ period: '202601', taxableVat: 89 + 18, salesCount: 5 });
  });
});

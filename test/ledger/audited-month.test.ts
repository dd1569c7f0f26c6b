/**
 * The month the auditor signed (issue 29, "Done when"): one company's March 2026 built through the API with
 * every finding of the audit in it, and the four reports of the month tied to each other — the trial
 * balance, the VAT report, the PCN874 file and the OPENFRMT export (its own verification and the
 * independent verifier).
 *
 * In the month: a 305 with a fractional quantity and discounts to a saved customer, credited by a line,
 * by an amount and then by the rest; a 320 paid by card and cheque with tax withheld; a 400 against the
 * 305; a 305 credited whole; a USD export invoice at 0% to a foreign buyer credited by a line, an amount
 * and the rest; expenses at
 * full, fixed-asset, 2/3 and zero recognition, one above the allocation threshold without the supplier's
 * number, its storno and redraft with the number, one dated in the closed February; a supplier payment;
 * and the refusals (a date in the closed month, a date after today, a date before its series).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { unzipSync } from 'fflate';
import iconv from 'iconv-lite';
import { createTestEnv, TAX_IDS, type TestAccount, type TestEnv } from '../helpers/env.ts';
import { ManualClock } from '../../src/platform/clock.ts';
import { readPcn874, shekels } from '../../src/vat/pcn874.ts';
import { verifyExportThroughApi } from '../verifier/api.ts';
import { formatDefect } from '../verifier/openfrmt-verifier.ts';

let env: TestEnv;
let a: TestAccount;
let bid: string;
const docs: Record<string, any> = {};

const call = (method: string, path: string, body?: unknown) => env.call(method, `/v1/businesses/${bid}${path}`, { key: a.test, body });
async function ok(method: string, path: string, body?: unknown, status = method === 'GET' ? 200 : 201) {
  const r = await call(method, path, body);
  expect(r.status, `${method} ${path} ${JSON.stringify(body ?? null)}: ${JSON.stringify(r.body)}`).toBe(status);
  return r.body;
}
const on = (day: string) => env.clock.set(`2026-${day}T08:00:00.000Z`);
async function issue(body: Record<string, unknown>) {
  const draft = await ok('POST', '/documents', body);
  return call('POST', `/documents/${draft.document.id}/issue`);
}
async function issued(body: Record<string, unknown>) {
  const r = await issue(body);
  expect(r.status, JSON.stringify(r.body)).toBe(201);
  return r.body.document;
}
const credit = async (id: string, body: Record<string, unknown> = {}) =>
  (await ok('POST', `/documents/${id}/credit-note`, { reason: 'זיכוי', ...body })).document;
async function expense(body: Record<string, unknown>) {
  const draft = await ok('POST', '/expenses', { supplierDocType: 'tax_invoice', ...body });
  return (await ok('POST', `/expenses/${draft.expense.id}/record`)).expense;
}
const supplier = { name: 'ספק בע"מ', taxId: TAX_IDS.company2 };

beforeAll(async () => {
  env = await createTestEnv({ clock: new ManualClock('2026-03-01T08:00:00.000Z') });
  a = await env.account();
  bid = (await env.business(a.test)).id; // a company: double-entry books, monthly VAT
  await ok('POST', '/ledger/periods/2026-02/close');
  const customer = await ok('POST', '/parties', { name: 'לקוח קבוע בע"מ', kind: 'customer', taxId: TAX_IDS.person2 });
  docs.customer = customer.party;

  on('03-02');
  // Dated in the closed February (before any document of its series, so the month is what refuses it).
  const closed = { docType: 305, documentDate: '2026-02-27', party: { name: 'x' }, lines: [{ description: 'x', quantity: 1, unitPriceExVat: 100 }] };
  docs.refused = { closed: await issue(closed) };
  // 2.5 × 199.90 = 499.75; 3 × 50.00 − 10.00 = 140.00; − 20.00 = 619.75 + VAT 111.56 = 731.31.
  docs.inv = await issued({
    docType: 305,
    party: { partyId: docs.customer.id },
    lines: [
      { description: 'עבודה', quantity: 2.5, unitPriceExVat: 19_990 },
      { description: 'חומר', quantity: 3, unitPriceExVat: 5_000, lineDiscount: 1_000 },
    ],
    discountAmount: 2_000,
  });
  docs.refused.future = await issue({ ...closed, documentDate: '2026-03-25' });
  await expense({ categoryKey: 'office', supplier, supplierDocNumber: 'A-1', supplierDocDate: '2026-03-02', amountExVat: 100_000, vatAmount: 18_000 });

  on('03-05');
  docs.paid = await issued({
    docType: 320,
    party: { name: 'קונה בע"מ', taxId: TAX_IDS.company },
    lines: [{ description: 'ייעוץ', quantity: 1, unitPriceExVat: 100_000 }],
    withholdingAmount: 5_000,
    payments: [
      { method: 'card', amount: 60_000, cardCompany: 'isracard', cardTxType: 'regular' },
      { method: 'cheque', amount: 53_000, bankCode: '12', branchCode: '600', accountNumber: '123456', checkNumber: '1001', dueDate: '2026-04-05' },
    ],
  });
  docs.refused.before = await issue({ ...closed, documentDate: '2026-03-01' });
  await expense({ categoryKey: 'equipment', supplier, supplierDocNumber: 'A-2', supplierDocDate: '2026-03-04', amountExVat: 500_000, vatAmount: 90_000 });
  await expense({ categoryKey: 'communication', supplier, supplierDocNumber: 'A-3', supplierDocDate: '2026-03-05', amountExVat: 30_000, vatAmount: 5_400 });
  await expense({ categoryKey: 'refreshments', supplier, supplierDocNumber: 'A-4', supplierDocDate: '2026-03-05', amountExVat: 20_000, vatAmount: 3_600 });

  on('03-06');
  docs.receipt = await issued({ docType: 400, party: { partyId: docs.customer.id }, payments: [{ method: 'transfer', amount: 40_000 }] });
  docs.byLine = await credit(docs.inv.id, { lines: [{ index: 1, quantity: 1 }] });

  on('03-12');
  docs.byAmount = await credit(docs.inv.id, { amount: 10_000 });
  docs.small = await issued({ docType: 305, party: { name: 'מזדמן' }, lines: [{ description: 'בורג', quantity: 3, unitPriceExVat: 25 }] });
  docs.smallCredit = await credit(docs.small.id);
  docs.big = await expense({
    categoryKey: 'office',
    supplier,
    supplierDocNumber: 'B-1',
    supplierDocDate: '2026-03-12',
    amountExVat: 1_200_000,
    vatAmount: 216_000,
  });
  docs.late = await expense({
    categoryKey: 'office',
    supplier,
    supplierDocNumber: 'F-1',
    supplierDocDate: '2026-02-20',
    amountExVat: 50_000,
    vatAmount: 9_000,
  });

  on('03-15');
  // $2,000.00 at 3.6545, 0% export to a buyer abroad: 7,309.00 ₪, no buyer-id warning.
  docs.usd = await issued({
    docType: 305,
    currency: 'USD',
    exchangeRate: '3.6545',
    party: { name: 'Acme Inc.', address: 'New York' },
    vatRateBp: 0,
    vatExemptionReason: 'export',
    lines: [{ description: 'Software licence', quantity: 4, unitPriceExVat: 50_000 }],
  });
  docs.usdByLine = await credit(docs.usd.id, { lines: [{ index: 0, quantity: 1 }] });
  docs.usdByAmount = await credit(docs.usd.id, { amount: 33_333 });
  const corrected = await ok('POST', `/expenses/${docs.big.id}/correction`, { redraft: true });
  await ok('PATCH', `/expenses/${corrected.draft.id}`, { allocationNumber: '202603779' }, 200);
  docs.redrafted = (await ok('POST', `/expenses/${corrected.draft.id}/record`)).expense;

  on('03-20');
  docs.rest = await credit(docs.inv.id);
  docs.usdRest = await credit(docs.usd.id);
  docs.expenses = (await ok('GET', '/expenses?take=100')).expenses;
  const first = docs.expenses.find((e: any) => e.supplierDocNumber === 'A-1');
  await ok('POST', '/supplier-payments', { expenseId: first.id, method: 'transfer', amount: 118_000, date: '2026-03-20' });

  on('04-02');
});
afterAll(async () => env?.close());

describe('the findings, as the API answers them', () => {
  it('refusals name their rule and write nothing', () => {
    expect([docs.refused.closed.status, docs.refused.closed.body.reason]).toEqual([422, 'period_closed']);
    expect([docs.refused.future.status, docs.refused.future.body.error]).toEqual([409, expect.stringMatching(/after today \(2026-03-02/)]);
    expect([docs.refused.before.status, docs.refused.before.body.error]).toEqual([409, expect.stringMatching(/before 2026-03-02, the date of 305 #1/)]);
  });

  it('figures and warnings: fractional quantity and discounts, input VAT by the allocation rule, the late expense, the export buyer', () => {
    expect([docs.inv.lines[0].amount, docs.inv.totalExVat, docs.inv.vatAmount, docs.inv.totalIncVat]).toEqual([49_975, 61_975, 11_156, 73_131]);
    expect(docs.big).toMatchObject({ deductibleVat: 0, warnings: [expect.objectContaining({ code: 'input_vat_needs_allocation' })] });
    expect(docs.redrafted).toMatchObject({ deductibleVat: 216_000, warnings: [] });
    expect(docs.late.warnings.map((w: any) => w.code)).toEqual(['posted_in_open_period']);
    expect(docs.usd.warnings).toEqual([]);
    expect(docs.usd.ils.totalIncVat).toBe(730_900);
    // The 305 and the USD invoice credited by a line, an amount and the rest: both whole, to the agora in shekels.
    for (const [orig, credits] of [
      [docs.inv, [docs.byLine, docs.byAmount, docs.rest]],
      [docs.usd, [docs.usdByLine, docs.usdByAmount, docs.usdRest]],
    ] as const) {
      const ils = (d: any) => d.ils ?? d;
      expect(credits.reduce((s: number, c: any) => s + ils(c).totalIncVat, 0)).toBe(ils(orig).totalIncVat);
    }
  });
});

describe('the trial balance, the VAT report, PCN874 and OPENFRMT of March tie', () => {
  it('they tie', async () => {
    const tb = await ok('GET', '/ledger/trial-balance?at=2026-03-31');
    expect(tb.totals.debit).toBe(tb.totals.credit);
    expect((await ok('GET', '/ledger/trial-balance?at=2026-02-28')).accounts.every((r: any) => r.balance === 0)).toBe(true);
    const bal = (code: string) => tb.accounts.find((r: any) => r.code === code)?.balance ?? 0;
    // Credited in full: the customers' accounts hold only the receipt and the 320's withholding.
    expect(bal('1100-C00001')).toBe(-40_000);
    expect(bal('1190')).toBe(0);

    // The VAT report is the ledger's month.
    const { report } = await ok('GET', '/reports/vat?period=2026-03');
    expect(report).toMatchObject({
      outputVat: 0 - bal('2200'),
      inputVat: bal('1400'),
      inputVatFixedAssets: bal('1410'),
      sales: expect.objectContaining({ taxable: 0 - bal('4000'), zeroRatedExport: 0 - bal('4010') }),
    });
    // Output VAT: the 320's 180.00 (the 305s are credited whole, the export is at 0%). Input VAT: 180.00, 2/3 of
    // 54.00, the redraft's 2,160.00 and February's 90.00 (its entry is in March); equipment 900.00.
    expect([report.outputVat, report.inputVat, report.inputVatFixedAssets]).toEqual([18_000, 18_000 + 3_600 + 216_000 + 9_000, 90_000]);

    // PCN874: the file's header is the report in whole shekels; its entries add up to it.
    const run = await ok('POST', '/exports/pcn874', { period: '2026-03' });
    expect(run.exportRun.verification.ok, JSON.stringify(run.exportRun.verification)).toBe(true);
    const pcn = readPcn874((await env.call('GET', `/v1/files/${run.file.id}`, { key: a.test })).raw);
    expect(pcn.problems ?? []).toEqual([]);
    expect(pcn.header).toMatchObject({
      taxableSales: shekels(report.sales.taxable),
      taxableVat: shekels(report.outputVat),
      otherInputsVat: shekels(report.inputVat),
      equipmentInputsVat: shekels(report.inputVatFixedAssets),
      vatPayable: shekels(report.vatPayable),
    });
    const sum = (xs: number[]) => xs.reduce((s, x) => s + x, 0);
    const sales = pcn.entries.filter((e) => 'SLY'.includes(e.type));
    const inputs = pcn.entries.filter((e) => 'TK'.includes(e.type));
    expect(Math.abs(sum(sales.map((e) => e.vat * (e.exVat < 0 ? -1 : 1))) - pcn.header!.taxableVat)).toBeLessThanOrEqual(sales.length);
    expect(
      Math.abs(sum(inputs.map((e) => e.vat * (e.exVat < 0 ? -1 : 1))) - (pcn.header!.otherInputsVat + pcn.header!.equipmentInputsVat)),
    ).toBeLessThanOrEqual(inputs.length);
    // Every sale has its own reference (series and number); no input claims VAT above the threshold without a number.
    const refs = sales.map((e) => `${e.refGroup} ${e.refNumber}`);
    expect(new Set(refs).size).toBe(refs.length);
    expect(inputs.filter((e) => e.exVat >= 10_000 && e.vat > 0 && e.allocation === '000000000')).toEqual([]);
    expect(inputs.find((e) => e.vat === 2_160)?.allocation).toBe('202603779');

    // OPENFRMT: verified by the run and by the independent verifier; each B110 is the trial balance, and a
    // party's account carries its VAT number in 1419.
    const exp = await ok('POST', '/exports/openfrmt', { from: '2026-03-01', to: '2026-03-31' });
    expect(exp.exportRun.verification.ok, JSON.stringify(exp.exportRun.verification)).toBe(true);
    const iv = await verifyExportThroughApi(env, a.test, bid, { fileId: exp.file.id, from: '2026-03-01', to: '2026-03-31' });
    expect(iv.defects.map(formatDefect)).toEqual([]);
    const files = unzipSync(new Uint8Array((await env.call('GET', `/v1/files/${exp.file.id}`, { key: a.test })).raw));
    const bkmv = iconv
      .decode(Buffer.from(files[Object.keys(files).find((n) => n.endsWith('BKMVDATA.TXT'))!]), 'iso-8859-8')
      .split('\r\n')
      .slice(0, -1);
    const col = (r: string, from: number, to: number) => r.slice(from - 1, to);
    const b110 = new Map(bkmv.filter((r) => r.startsWith('B110')).map((r) => [col(r, 23, 37).trimEnd(), r]));
    const signed = (s: string) => Number(s.slice(0, 1) + s.slice(1));
    for (const acc of tb.accounts) {
      const r = b110.get(acc.code)!;
      expect(r, acc.code).toBeTruthy();
      expect(signed(col(r, 278, 292)) + signed(col(r, 293, 307)) - signed(col(r, 308, 322)), acc.code).toBe(acc.balance);
    }
    expect(col(b110.get('1100-C00001')!, 327, 335)).toBe(TAX_IDS.person2);
    expect(col(b110.get(`1100-T${TAX_IDS.company}`)!, 327, 335)).toBe(TAX_IDS.company);
    expect(col(b110.get(`2100-T${TAX_IDS.company2}`)!, 327, 335)).toBe(TAX_IDS.company2);
    expect(col(b110.get('1190')!, 327, 335)).toBe('000000000');
    const c100 = bkmv.filter((r) => r.startsWith('C100'));
    const issuedDocs = (await ok('GET', '/documents?status=issued&take=100')).documents;
    expect(c100).toHaveLength(issuedDocs.length);
  });
});

/**
 * The VAT report of a period and its traceable lines as CSV (src/vat/csv.ts), byte for byte on a small
 * worked example, February 2026 at 18%: a tax invoice of 1,000.00 to a customer whose Hebrew name holds a
 * comma and quotes, an office expense of 300.00 + 54.00 from a supplier named the same way, and a manual
 * correction of output VAT by 1.00. The CSV's totals are the JSON report's figures; a bimonthly
 * business's month gives the CSV of its two months.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { getBusinessById } from '../../src/businesses/records.ts';
import { vatLinesCsvOf, vatReportCsv, vatReportCsvName } from '../../src/vat/csv.ts';
import { createTestEnv, TAX_IDS, type TestAccount, type TestEnv } from '../helpers/env.ts';
import { issueDoc } from '../exports/fixture.ts';

let env: TestEnv;
let a: TestAccount;
let bid: string;
let doc: any;
const BOM = '\uFEFF';

beforeAll(async () => {
  env = await createTestEnv();
  a = await env.account();
  bid = (await env.business(a.test)).id;
  const call = async (method: string, path: string, body?: unknown) => {
    const r = await env.call(method, `/v1/businesses/${bid}${path}`, { key: a.test, body });
    expect(r.status, JSON.stringify(r.body)).toBeLessThan(300);
    return r.body;
  };
  const party = (await call('POST', '/parties', { name: 'לקוח "טוב", בע"מ', kind: 'customer', taxId: TAX_IDS.company2 })).party;
  doc = await issueDoc(env, a.test, bid, {
    docType: 305,
    documentDate: '2026-02-10',
    party: { partyId: party.id },
    lines: [{ description: 'שירות', quantity: 1, unitPriceExVat: 100_000 }],
  });
  const draft = await call('POST', '/expenses', {
    supplierDocType: 'tax_invoice',
    categoryKey: 'office',
    supplier: { name: 'ספק "אלף", בע"מ', taxId: TAX_IDS.person },
    supplierDocNumber: 'A-17',
    supplierDocDate: '2026-02-12',
    amountExVat: 30_000,
    vatAmount: 5_400,
  });
  await call('POST', `/expenses/${draft.expense.id}/record`);
  await call('POST', '/ledger/entries', {
    date: '2026-02-14',
    description: 'תיקון מע"מ',
    lines: [
      { account: '2200', debit: 100 },
      { account: '1200', credit: 100 },
    ],
  });
});
afterAll(async () => env?.close());

async function report(q: string) {
  const r = await env.call('GET', `/v1/businesses/${bid}/reports/vat?${q}`, { key: a.test });
  expect(r.status, JSON.stringify(r.body)).toBe(200);
  return r.body.report;
}
const business = async () => (await getBusinessById(env.db.sandbox.db, bid))!;

describe('GET reports/vat as CSV (vatReportCsv)', () => {
  it("one figure a row, byte for byte, each the JSON report's figure", async () => {
    const r = await report('period=2026-02');
    expect(vatReportCsv(r).toString('utf8')).toBe(
      BOM +
        'figure,value\r\n' +
        'period,2026-02\r\nkind,monthly\r\nfrom,2026-02-01\r\nto,2026-02-28\r\ncurrency,ILS\r\nsource,ledger\r\n' +
        'outputVat,179.00\r\ninputVat,54.00\r\ninputVatFixedAssets,0.00\r\nvatPayable,125.00\r\n' +
        'sales.taxable,1000.00\r\nsales.zeroRatedExport,0.00\r\nsales.eilat,0.00\r\nsales.exempt,0.00\r\nsales.count,1\r\n' +
        'inputs.exVat,300.00\r\ninputs.count,1\r\n' +
        'adjustments.outputVat,-1.00\r\nadjustments.inputVat,0.00\r\nadjustments.inputVatFixedAssets,0.00\r\nadjustments.count,1\r\n' +
        'taxableSales,1000.00\r\nzeroRatedOrExemptSales,0.00\r\nfixedAssetInputVat,0.00\r\notherInputVat,54.00\r\ndocuments,1\r\nexpenses,1\r\n',
    );
    expect(vatReportCsvName({ taxId: '516179157' }, r)).toBe('vat-516179157-2026-02.csv');
  });

  it('the management form (from/to) too', async () => {
    const r = await report('from=2026-02-01&to=2026-02-28');
    expect(vatReportCsv(r).toString('utf8')).toBe(
      BOM +
        'figure,value\r\nfrom,2026-02-01\r\nto,2026-02-28\r\ncurrency,ILS\r\noutputVat,180.00\r\ninputVat,54.00\r\nvatPayable,126.00\r\n' +
        'taxableSales,1000.00\r\nzeroRatedOrExemptSales,0.00\r\nfixedAssetInputVat,0.00\r\notherInputVat,54.00\r\ndocuments,1\r\nexpenses,1\r\n',
    );
    expect(vatReportCsvName({ taxId: '516179157' }, r)).toBe('vat-516179157-2026-02-01-2026-02-28.csv');
  });
});

describe('GET reports/vat/lines as CSV (vatLinesCsvOf)', () => {
  it('every line, byte for byte: names with a comma and quotes quoted, a total row equal to the report', async () => {
    const { name, bytes } = await vatLinesCsvOf(env.db.sandbox, await business(), '2026-02');
    expect(name).toBe('vat-lines-516179157-2026-02.csv');
    expect([...bytes.subarray(0, 3)]).toEqual([0xef, 0xbb, 0xbf]);
    expect(bytes.toString('utf8')).toBe(
      BOM +
        'entryNo,entryDate,source,treatment,docType,reference,date,counterparty,counterpartyTaxId,allocationNumber,salesExVat,inputsExVat,outputVat,inputVat,inputVatFixedAssets\r\n' +
        `1,2026-02-10,document,taxable,305,${doc.docNumber},2026-02-10,"לקוח ""טוב"", בע""מ",512200502,,1000.00,,180.00,0.00,0.00\r\n` +
        '2,2026-02-12,expense,,,A-17,2026-02-12,"ספק ""אלף"", בע""מ",123456782,,,300.00,0.00,54.00,0.00\r\n' +
        '3,2026-02-14,manual,,,,,,,,0.00,,-1.00,0.00,0.00\r\n' +
        ',,total,,,,,,,,1000.00,300.00,179.00,54.00,0.00\r\n',
    );
    const r = await report('period=2026-02');
    const total = bytes.toString('utf8').trimEnd().split('\r\n').at(-1)!.split(',');
    const agorot = (x: string) => Math.round(Number(x) * 100);
    expect(total.slice(10).map(agorot)).toEqual([
      r.sales.taxable + r.sales.zeroRatedExport + r.sales.eilat + r.sales.exempt,
      r.inputs.exVat,
      r.outputVat,
      r.inputVat,
      r.inputVatFixedAssets,
    ]);
  });

  it('carries every line, past the JSON page size', async () => {
    const pageOfOne = await env.call('GET', `/v1/businesses/${bid}/reports/vat/lines?period=2026-02&take=1`, { key: a.test });
    expect(pageOfOne.body.lines).toHaveLength(1);
    const { bytes } = await vatLinesCsvOf(env.db.sandbox, await business(), '2026-02');
    expect(bytes.toString('utf8').trimEnd().split('\r\n')).toHaveLength(1 + 3 + 1);
  });

  it("a bimonthly business's month gives the CSV of its two months; a bad period is 400", async () => {
    const patched = await env.call('PATCH', `/v1/businesses/${bid}`, { key: a.test, body: { vatReportingPeriod: 'bimonthly' } });
    expect(patched.status).toBe(200);
    const month = await vatLinesCsvOf(env.db.sandbox, await business(), '2026-02');
    const explicit = await vatLinesCsvOf(env.db.sandbox, await business(), '2026-01/2026-02');
    expect(month.name).toBe('vat-lines-516179157-2026-01-2026-02.csv');
    expect(month.bytes.equals(explicit.bytes)).toBe(true);
    await expect(vatLinesCsvOf(env.db.sandbox, await business(), '2026-13')).rejects.toMatchObject({ status: 400, reason: 'validation' });
    await env.call('PATCH', `/v1/businesses/${bid}`, { key: a.test, body: { vatReportingPeriod: 'monthly' } });
  });
});

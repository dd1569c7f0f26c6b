/**
 * Foreign-currency documents (issue 21), worked by hand (docs/currency.md): USD at the Bank of
 * Israel rate of the document's date, EUR at the request's rate with a payment in shekels, JPY at
 * the business's agreed rate with partial receipts, credits mirroring the original's currency and
 * rate; the export, the ledger and the VAT report in shekels.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { unzipSync } from 'fflate';
import iconv from 'iconv-lite';
import { createTestEnv, TAX_IDS, type TestAccount, type TestEnv } from '../helpers/env.ts';
import { ManualClock } from '../../src/platform/clock.ts';
import { parseRecord, signedValue } from '../../src/openfrmt/record-parse.ts';
import { FakeBoi, publishMarch2026 } from '../exchange-rates/fake-boi.ts';
import { createOpenapiValidator, validateTraffic } from '../contract/openapi-validator.ts';

let env: TestEnv;
let fake: FakeBoi;
let a: TestAccount;
let bid: string;
let problems: string[];

const call = (method: string, path: string, body?: unknown) => env.call(method, `/v1/businesses/${bid}${path}`, { key: a.test, body });

async function issue(body: Record<string, unknown>): Promise<any> {
  const d = await call('POST', '/documents', body);
  expect(d.status, JSON.stringify(d.body)).toBe(201);
  const i = await call('POST', `/documents/${d.body.document.id}/issue`);
  expect(i.status, JSON.stringify(i.body)).toBe(201);
  return i.body.document;
}

async function credit(id: string): Promise<any> {
  const r = await call('POST', `/documents/${id}/credit-note`, { reason: 'return' });
  expect(r.status, JSON.stringify(r.body)).toBe(201);
  return r.body.document;
}

const party = { name: 'Acme Inc.', taxId: TAX_IDS.company2, address: '1 Main St, New York' };
const docs: Record<string, any> = {};

beforeAll(async () => {
  // Friday 2026-03-20, 14:00 in Israel.
  const clock = new ManualClock('2026-03-20T12:00:00.000Z');
  fake = await new FakeBoi().start();
  publishMarch2026(fake);
  env = await createTestEnv({ clock, env: { EXCHANGE_RATES_URL: fake.url } });
  a = await env.account();
  bid = (await env.business(a.test)).id;
  problems = validateTraffic(env, createOpenapiValidator((await env.call('GET', '/v1/openapi.json')).body));
});
afterAll(async () => {
  await env?.close();
  await fake?.close();
});

describe('a USD tax invoice at the Bank of Israel rate of its date', () => {
  it('takes the last rate published on or before the date (Saturday 14 March → Friday 13 March, 3.1)', async () => {
    // 2 × $500.00 = $1,000.00; VAT 18% $180.00; $1,180.00. In shekels: 3,100.00 + 558.00 = 3,658.00.
    const doc = await issue({
      docType: 305,
      party,
      currency: 'USD',
      language: 'en',
      documentDate: '2026-03-14',
      lines: [{ description: 'Consulting', quantity: 2, unitPriceExVat: 50_000 }],
    });
    docs.usd = doc;
    expect(doc).toMatchObject({
      currency: 'USD',
      exchangeRate: '3.1',
      exchangeRateDate: '2026-03-13',
      exchangeRateSource: 'boi',
      language: 'en',
      totalExVat: 100_000,
      vatAmount: 18_000,
      totalIncVat: 118_000,
      ils: { totalExVat: 310_000, vatAmount: 55_800, totalIncVat: 365_800, discountAmount: 0, withholdingAmount: 0 },
    });
  });

  it('a credit note mirrors its currency, rate and shekel figures', async () => {
    const cn = await credit(docs.usd.id);
    docs.usdCredit = cn;
    expect(cn).toMatchObject({
      docType: 330,
      currency: 'USD',
      exchangeRate: '3.1',
      exchangeRateDate: '2026-03-13',
      exchangeRateSource: 'boi',
      language: 'en',
      totalIncVat: 118_000,
      ils: { totalExVat: 310_000, vatAmount: 55_800, totalIncVat: 365_800 },
    });
  });

  it('the allocation threshold and the buyer tax id rule go by the shekel figures', async () => {
    // $1,500.00 ex VAT is 4,650.00 ₪: under 5,000 ₪, no buyer tax id warning; the same in shekels would be over nothing.
    const small = await issue({
      docType: 305,
      party: { name: 'No id Ltd' },
      currency: 'USD',
      exchangeRate: '3.1',
      documentDate: '2026-03-16',
      lines: [{ description: 'x', quantity: 1, unitPriceExVat: 150_000 }],
    });
    expect(small.warnings).toEqual([]);
    // $1,700.00 is 5,270.00 ₪: the warning is given.
    const big = await issue({
      docType: 305,
      party: { name: 'No id Ltd' },
      currency: 'USD',
      exchangeRate: '3.1',
      documentDate: '2026-03-16',
      lines: [{ description: 'x', quantity: 1, unitPriceExVat: 170_000 }],
    });
    expect(big.warnings.map((w: any) => w.code)).toContain('buyer_tax_id_missing');
    docs.small = small;
    docs.big = big;
  });
});

describe("a EUR invoice-receipt at the request's rate, part paid in shekels", () => {
  it('converts each total once; the payments add up to what they settle; the shekel payment states its shekel amount', async () => {
    // €100.00 + VAT €18.00 = €118.00, withholding €10.00, paid €50.00 by transfer and €58.00 in shekels.
    // At 3.9871: 398.71 ₪ + 71.77 (71.7678) = 470.48; withholding 39.87 (39.871); the payments settle
    // 470.48 − 39.87 = 430.61: exact 199.355 and 231.2518 → 199.36 (largest remainder) and 231.25.
    const doc = await issue({
      docType: 320,
      party,
      currency: 'EUR',
      exchangeRate: '3.9871',
      language: 'he+en',
      documentDate: '2026-03-17',
      lines: [{ description: 'שירות / Service', quantity: 1, unitPriceExVat: 10_000 }],
      withholdingAmount: 1_000,
      payments: [
        { method: 'transfer', amount: 5_000 },
        { method: 'cash', amount: 5_800, currency: 'ILS' },
      ],
    });
    docs.eur = doc;
    expect(doc).toMatchObject({
      currency: 'EUR',
      exchangeRate: '3.9871',
      exchangeRateDate: '2026-03-17',
      exchangeRateSource: 'request',
      language: 'he+en',
      totalExVat: 10_000,
      vatAmount: 1_800,
      totalIncVat: 11_800,
      withholdingAmount: 1_000,
      ils: { totalExVat: 39_871, vatAmount: 7_177, totalIncVat: 47_048, withholdingAmount: 3_987 },
    });
    expect(doc.payments[0]).not.toHaveProperty('originalAmount');
    expect(doc.payments[1]).toMatchObject({ amount: 5_800, currency: 'ILS', originalAmount: 23_125 });
  });
});

describe("JPY receipts at the business's agreed rate", () => {
  it("an agreed rate wins over the Bank's; yen have no minor unit", async () => {
    const put = await call('PUT', '/exchange-rates/JPY', { rate: '0.0245', effectiveFrom: '2026-03-01' });
    expect(put.status, JSON.stringify(put.body)).toBeLessThan(300);
    // ¥100,000 at 0.0245 = 2,450.00 ₪; a partial ¥33,333 = 816.6585 → 816.66 ₪.
    docs.jpy1 = await issue({ docType: 400, party, currency: 'JPY', documentDate: '2026-03-18', payments: [{ method: 'transfer', amount: 100_000 }] });
    docs.jpy2 = await issue({ docType: 400, party, currency: 'JPY', documentDate: '2026-03-18', payments: [{ method: 'cash', amount: 33_333 }] });
    expect(docs.jpy1).toMatchObject({
      currency: 'JPY',
      exchangeRate: '0.0245',
      exchangeRateSource: 'business',
      exchangeRateDate: '2026-03-01',
      totalIncVat: 100_000,
      ils: { totalIncVat: 245_000 },
    });
    expect(docs.jpy2.ils.totalIncVat).toBe(81_666);
  });

  it('a negative receipt mirrors the currency and negates the shekel figures', async () => {
    const back = await credit(docs.jpy2.id);
    docs.jpyBack = back;
    expect(back).toMatchObject({ docType: 400, currency: 'JPY', exchangeRate: '0.0245', totalIncVat: -33_333, ils: { totalIncVat: -81_666 } });
  });
});

describe('refusals', () => {
  it('no rate for a shekel document; a third currency needs its own rate; an unknown code is refused', async () => {
    const ils = await call('POST', '/documents', { docType: 305, exchangeRate: '1', lines: [{ description: 'x', quantity: 1, unitPriceExVat: 100 }] });
    expect(ils.status).toBe(400);
    expect(ils.body.error).toMatch(/exchangeRate/);
    const gbp = await call('POST', '/documents', {
      docType: 400,
      currency: 'USD',
      exchangeRate: '3.6',
      payments: [{ method: 'cash', amount: 100, currency: 'GBP' }],
    });
    expect(gbp.status).toBe(400);
    expect(gbp.body.error).toMatch(/payments\[0\]\.exchangeRate/);
    for (const body of [
      { currency: 'XYZ' },
      { currency: 'usd' },
      { currency: 'XAU' },
      { currency: 'USD', exchangeRate: '3,6' },
      { currency: 'USD', exchangeRate: '0' },
      { currency: 'USD', exchangeRate: 3.6 },
      { language: 'fr' },
    ]) {
      const r = await call('POST', '/documents', { docType: 305, lines: [{ description: 'x', quantity: 1, unitPriceExVat: 100 }], ...body });
      expect(r.status, JSON.stringify(body)).toBe(400);
      expect(r.body.reason).toBe('validation');
    }
  });

  it('a rate the Bank never published answers 400 validation and the draft stays a draft', async () => {
    const d = await call('POST', '/documents', {
      docType: 305,
      party,
      currency: 'CHF',
      documentDate: '2026-03-16',
      lines: [{ description: 'x', quantity: 1, unitPriceExVat: 100 }],
    });
    expect(d.status).toBe(201);
    const i = await call('POST', `/documents/${d.body.document.id}/issue`);
    expect([i.status, i.body.reason]).toEqual([400, 'validation']);
    expect((await call('GET', `/documents/${d.body.document.id}`)).body.document.status).toBe('draft');
    await call('DELETE', `/documents/${d.body.document.id}`);
  });

  it('a draft shows its shekel figures when its rate is known, and null until issue otherwise', async () => {
    const known = await call('POST', '/documents', {
      docType: 305,
      currency: 'USD',
      exchangeRate: '3.5',
      lines: [{ description: 'x', quantity: 1, unitPriceExVat: 1_000 }],
    });
    expect(known.body.document.ils).toEqual({ totalExVat: 3_500, vatAmount: 630, totalIncVat: 4_130, discountAmount: 0, withholdingAmount: 0 });
    const later = await call('PATCH', `/documents/${known.body.document.id}`, { currency: 'EUR' });
    expect(later.body.document).toMatchObject({ currency: 'EUR', exchangeRate: null, ils: null });
    await call('DELETE', `/documents/${known.body.document.id}`);
  });
});

describe('the books in shekels', () => {
  it('the journal posts shekels with the currency amount beside each line', async () => {
    const rows = await env.sql(
      'sandbox',
      `SELECT l.account_code, l.side, l.amount::int, l.currency, l.foreign_amount::int FROM journal_lines l JOIN journal_entries e ON e.id = l.entry_id
        WHERE e.document_id = '${docs.usd.id}' ORDER BY l.line_no`,
    );
    expect(rows).toEqual([
      expect.objectContaining({ side: 1, amount: 365_800, currency: 'USD', foreign_amount: 118_000 }),
      expect.objectContaining({ side: 2, amount: 310_000, currency: 'USD', foreign_amount: 100_000 }),
      expect.objectContaining({ side: 2, amount: 55_800, currency: 'USD', foreign_amount: 18_000 }),
    ]);
    const tb = await call('GET', '/ledger/trial-balance?at=2026-03-31');
    expect(tb.body.totals.debit).toBe(tb.body.totals.credit);
  });

  it('the VAT report of March: output VAT in shekels', async () => {
    // USD 558.00 − its credit 558.00; small: $270.00 VAT at 3.1 = 837.00; big: $306.00 at 3.1 = 948.60; EUR 71.77.
    const r = await call('GET', '/reports/vat?period=2026-03');
    expect(r.status).toBe(200);
    expect(r.body.report.outputVat).toBe(55_800 - 55_800 + 83_700 + 94_860 + 7_177);
    expect(r.body.report.sales.taxable).toBe(310_000 - 310_000 + 465_000 + 527_000 + 39_871);
  });

  it('the OPENFRMT export writes shekels, the currency total in 1217/1218, and B100 1367/1369; it verifies', async () => {
    const r = await call('POST', '/exports/openfrmt', { from: '2026-03-01', to: '2026-03-31' });
    expect(r.status, JSON.stringify(r.body)).toBe(201);
    expect(r.body.exportRun.status).toBe('completed');
    expect(r.body.exportRun.verification).toMatchObject({ ok: true, issueCount: 0, documentsMatchSource: true });
    const f = await env.call('GET', `/v1/files/${r.body.file.id}`, { key: a.test });
    const files = unzipSync(new Uint8Array(f.raw));
    const name = Object.keys(files).find((n) => n.endsWith('BKMVDATA.TXT'))!;
    const recs = iconv.decode(Buffer.from(files[name]), 'iso-8859-8').split('\r\n').slice(0, -1);
    const fields = (code: string) => recs.filter((x) => x.startsWith(code)).map((x) => parseRecord(code, x).fields);
    const c100 = fields('C100');
    const usd = c100.find((c) => c[1204].trim() === String(docs.usd.docNumber) && c[1203] === '305')!;
    expect(signedValue(usd[1223])).toBe(365_800);
    expect(signedValue(usd[1222])).toBe(55_800);
    expect(signedValue(usd[1217])).toBe(118_000);
    expect(usd[1218]).toBe('USD');
    const jpy = c100.find((c) => c[1204].trim() === String(docs.jpy1.docNumber) && c[1203] === '400')!;
    // ¥100,000 written with the field's two decimals: 100000.00.
    expect(signedValue(jpy[1217])).toBe(10_000_000);
    expect(signedValue(jpy[1223])).toBe(245_000);
    const eur = c100.find((c) => c[1203] === '320')!;
    const eurPayments = fields('D120')
      .filter((p) => p[1303] === '320')
      .map((p) => signedValue(p[1312]));
    expect(eurPayments).toEqual([19_936, 23_125]);
    expect(signedValue(eur[1223])).toBe(47_048);
    const b100 = fields('B100').filter((b) => b[1367].trim() === 'USD');
    expect(b100.length).toBeGreaterThan(0);
    expect(b100.some((b) => signedValue(b[1368]) === 365_800 && signedValue(b[1369]) === 118_000)).toBe(true);
  });
});

describe('frozen means frozen (issue 29): each line and payment in shekels, computed once at issue', () => {
  const fx = { currency: 'USD', exchangeRate: '3.6545', documentDate: '2026-03-20', party };

  it('a USD line of 2 × $37.50 at 3.6545 is 2 × 137.04 = 274.08 ₪, stored on the line; the export writes it (1264 × 1265 = 1267)', async () => {
    const inv = await issue({ docType: 305, ...fx, lines: [{ description: 'Widget', quantity: 2, unitPriceExVat: 3_750 }] });
    // $75.00 + VAT $13.50; in shekels the line 274.08, VAT 49.34 (49.33575), total 323.42.
    expect(inv.lines[0]).toMatchObject({ amount: 7_500, amountIls: 27_408 });
    expect(inv.ils).toEqual({ totalExVat: 27_408, vatAmount: 4_934, totalIncVat: 32_342, discountAmount: 0, withholdingAmount: 0 });
    const paid = await issue({
      docType: 320,
      ...fx,
      lines: [{ description: 'Service', quantity: 1, unitPriceExVat: 10_000 }],
      payments: [
        { method: 'transfer', amount: 5_900 },
        { method: 'card', amount: 5_900 },
      ],
    });
    // $118.00 = 365.45 + 65.78 (65.781) = 431.23 ₪, paid 215.615 + 215.615 → 215.62 and 215.61.
    expect(paid.payments.map((p: any) => p.amountIls)).toEqual([21_562, 21_561]);
    const received = await issue({ docType: 400, ...fx, payments: [{ method: 'cash', amount: 1_001 }] });
    expect(received.payments[0].amountIls).toBe(3_658); // 10.01 × 3.6545 = 36.581545
    docs.frozen = { inv, paid, received };

    const cn = await credit(inv.id);
    expect(cn.lines[0]).toMatchObject({ amount: 7_500, amountIls: 27_408 });
    const back = await credit(received.id);
    expect(back.payments[0]).toMatchObject({ amount: -1_001, amountIls: -3_658 });

    env.clock.advance(60_000); // one OPENFRMT production per minute (spec §2.2)
    const r = await call('POST', '/exports/openfrmt', { from: '2026-03-19', to: '2026-03-20' });
    expect(r.body.exportRun?.verification, JSON.stringify(r.body)).toMatchObject({ ok: true, documentsMatchSource: true });
    const f = await env.call('GET', `/v1/files/${r.body.file.id}`, { key: a.test });
    const files = unzipSync(new Uint8Array(f.raw));
    const recs = iconv
      .decode(Buffer.from(files[Object.keys(files).find((n) => n.endsWith('BKMVDATA.TXT'))!]), 'iso-8859-8')
      .split('\r\n')
      .slice(0, -1);
    const d110 = recs.filter((x) => x.startsWith('D110')).map((x) => parseRecord('D110', x).fields);
    for (const [type, num] of [
      ['305', inv.docNumber],
      ['330', cn.docNumber],
    ]) {
      const line = d110.find((l) => l[1253] === type && l[1254].trim() === String(num))!;
      expect([signedValue(line[1264]), signedValue(line[1265]), signedValue(line[1267])], `${type} #${num}`).toEqual([20_000, 13_704, 27_408]);
    }
    const d120 = recs.filter((x) => x.startsWith('D120')).map((x) => parseRecord('D120', x).fields);
    expect(d120.filter((p) => p[1303] === '320' && p[1304].trim() === String(paid.docNumber)).map((p) => signedValue(p[1312]))).toEqual([21_562, 21_561]);
  });

  it('the journal posts the stored payment amounts', async () => {
    const rows = await env.sql<{ account_code: string; amount: number }>(
      'sandbox',
      `SELECT l.account_code, l.amount::int AS amount FROM journal_lines l JOIN journal_entries e ON e.id = l.entry_id
        WHERE e.document_id = '${docs.frozen.paid.id}' AND l.side = 1 AND l.account_code IN ('1220', '1230') ORDER BY l.account_code`,
    );
    expect(rows.map((r) => [r.account_code, r.amount])).toEqual([
      ['1220', 21_561],
      ['1230', 21_562],
    ]);
  });

  it('every answer of this file matches the OpenAPI document', () => {
    expect(problems).toEqual([]);
  });
});

/**
 * The books' reports as CSV (`Accept: text/csv`), byte for byte on a small worked example: a customer
 * whose Hebrew name holds a comma and quotes, a tax invoice of 1,000.00 + 18% VAT and a cash receipt of
 * 500.00. The CSV's figures tie to the JSON answer, JSON stays the default, and every answer is as the
 * OpenAPI document describes it.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestEnv, TAX_IDS, type TestAccount, type TestEnv } from '../helpers/env.ts';
import { issueDoc } from '../exports/fixture.ts';
import { createOpenapiValidator, validateTraffic } from '../contract/openapi-validator.ts';

let env: TestEnv;
let a: TestAccount;
let bid: string;
let problems: string[];
const CUSTOMER = 'לקוח "טוב", בע"מ';
const BOM = '\uFEFF';

beforeAll(async () => {
  env = await createTestEnv();
  a = await env.account();
  problems = validateTraffic(env, createOpenapiValidator((await env.call('GET', '/v1/openapi.json')).body));
  bid = (await env.business(a.test)).id;
  const party = await env.call('POST', `/v1/businesses/${bid}/parties`, { key: a.test, body: { name: CUSTOMER, kind: 'customer', taxId: TAX_IDS.company2 } });
  expect(party.status).toBe(201);
  const partyId = party.body.party.id;
  await issueDoc(env, a.test, bid, {
    docType: 305,
    documentDate: '2026-02-10',
    party: { partyId },
    lines: [{ description: 'שירות', quantity: 1, unitPriceExVat: 100_000 }],
  });
  await issueDoc(env, a.test, bid, { docType: 400, documentDate: '2026-02-20', party: { partyId }, payments: [{ method: 'cash', amount: 50_000 }] });
});
afterAll(async () => env?.close());

const url = (path: string) => `/v1/businesses/${bid}/ledger/${path}`;
async function csv(path: string) {
  const r = await env.call('GET', url(path), { key: a.test, headers: { accept: 'text/csv' } });
  expect(r.status, r.raw.toString()).toBe(200);
  expect(r.headers['content-type']).toBe('text/csv; charset=utf-8; header=present');
  return { text: r.raw.toString('utf8'), bytes: r.raw, disposition: String(r.headers['content-disposition']) };
}
async function json(path: string) {
  const r = await env.call('GET', url(path), { key: a.test });
  expect(r.status).toBe(200);
  return r.body;
}
/** The records of a CSV without its BOM, split on CR LF outside quotes (enough for these files). */
function records(text: string): string[][] {
  const out: string[][] = [];
  let row: string[] = [];
  let field = '';
  let quoted = false;
  for (let i = text.startsWith(BOM) ? 1 : 0; i < text.length; i++) {
    const c = text[i];
    if (quoted) {
      if (c === '"' && text[i + 1] === '"') ((field += '"'), i++);
      else if (c === '"') quoted = false;
      else field += c;
    } else if (c === '"') quoted = true;
    else if (c === ',') (row.push(field), (field = ''));
    else if (c === '\r' && text[i + 1] === '\n') (row.push(field), out.push(row), (row = []), (field = ''), i++);
    else field += c;
  }
  return out;
}
const agorot = (shekels: string) => Math.round(Number(shekels) * 100);

describe('ledger reports as CSV', () => {
  it('the trial balance, byte for byte: BOM, CR LF, the name with a comma and quotes quoted, shekels with 2 decimals', async () => {
    const { bytes, text, disposition } = await csv('trial-balance?at=2026-02-28');
    expect([...bytes.subarray(0, 3)]).toEqual([0xef, 0xbb, 0xbf]);
    expect(text).toBe(
      BOM +
        'code,name,trialBalanceCode,debit,credit,balance\r\n' +
        '1100-C00001,"לקוח ""טוב"", בע""מ",100,1180.00,500.00,680.00\r\n' +
        '1200,קופה — מזומן,100,500.00,0.00,500.00\r\n' +
        '2200,"מע""מ עסקאות",200,0.00,180.00,-180.00\r\n' +
        '4000,"הכנסות חייבות במע""מ",400,0.00,1000.00,-1000.00\r\n' +
        'totals,,,1680.00,1680.00,0.00\r\n',
    );
    expect(disposition).toBe('attachment; filename="trial-balance-516179157-2026-02-28.csv"');
    const tb = await json('trial-balance?at=2026-02-28');
    const rows = records(text).slice(1);
    expect(rows.slice(0, -1).map((r) => [r[0], r[1], agorot(r[3]), agorot(r[4]), agorot(r[5])])).toEqual(
      tb.accounts.map((x: any) => [x.code, x.name, x.debit, x.credit, x.balance]),
    );
    expect([agorot(rows.at(-1)![3]), agorot(rows.at(-1)![4])]).toEqual([tb.totals.debit, tb.totals.credit]);
  });

  it("an account's ledger: the opening row, each line with its running balance, the last balance the closing", async () => {
    const { text, disposition } = await csv('accounts/1100-C00001?from=2026-02-01&to=2026-02-28');
    expect(text).toBe(
      BOM +
        'entryNo,date,description,reference,debit,credit,balance\r\n' +
        ',2026-02-01,opening balance,,,,0.00\r\n' +
        '1,2026-02-10,"חשבונית מס 1 — לקוח ""טוב"", בע""מ",1,1180.00,0.00,1180.00\r\n' +
        '2,2026-02-20,"קבלה 1 — לקוח ""טוב"", בע""מ",1,0.00,500.00,680.00\r\n',
    );
    expect(disposition).toBe('attachment; filename="account-516179157-1100-C00001-2026-02-01-2026-02-28.csv"');
    const j = await json('accounts/1100-C00001?from=2026-02-01&to=2026-02-28');
    const rows = records(text).slice(1);
    expect(agorot(rows[0][6])).toBe(j.opening);
    expect(agorot(rows.at(-1)![6])).toBe(j.closing);
    expect(rows.slice(1).map((r) => [Number(r[0]), r[2], agorot(r[4]), agorot(r[5]), agorot(r[6])])).toEqual(
      j.lines.map((l: any) => [l.entryNo, l.description, l.debit, l.credit, l.balance]),
    );
  });

  it('the income statement and the balance sheet: one row per group, totals and profit under their JSON names', async () => {
    const is = await csv('income-statement?from=2026-01-01&to=2026-02-28');
    expect(is.text).toBe(
      BOM +
        'line,trialBalanceCode,trialBalanceName,amount\r\nrevenue,400,הכנסות,1000.00\r\ntotalRevenue,,,1000.00\r\ntotalExpenses,,,0.00\r\nprofit,,,1000.00\r\n',
    );
    const isJson = await json('income-statement?from=2026-01-01&to=2026-02-28');
    const isRows = Object.fromEntries(
      records(is.text)
        .slice(1)
        .filter((r) => r[0] !== 'revenue' && r[0] !== 'expenses')
        .map((r) => [r[0], agorot(r[3])]),
    );
    expect(isRows).toEqual({ totalRevenue: isJson.totalRevenue, totalExpenses: isJson.totalExpenses, profit: isJson.profit });

    const bs = await csv('balance-sheet?at=2026-02-28');
    expect(bs.text).toBe(
      BOM +
        'line,trialBalanceCode,trialBalanceName,amount\r\n' +
        'assets,100,רכוש שוטף,1180.00\r\ntotalAssets,,,1180.00\r\n' +
        'liabilities,200,התחייבויות שוטפות,180.00\r\ntotalLiabilities,,,180.00\r\n' +
        'totalEquity,,,0.00\r\nprofitToDate,,,1000.00\r\n',
    );
    expect(bs.disposition).toBe('attachment; filename="balance-sheet-516179157-2026-02-28.csv"');
    const bsJson = await json('balance-sheet?at=2026-02-28');
    const bsRows = Object.fromEntries(
      records(bs.text)
        .slice(1)
        .map((r) => [r[0], agorot(r[3])]),
    );
    expect([bsRows.totalAssets, bsRows.totalLiabilities, bsRows.totalEquity, bsRows.profitToDate]).toEqual([
      bsJson.totalAssets,
      bsJson.totalLiabilities,
      bsJson.totalEquity,
      bsJson.profitToDate,
    ]);
  });

  it('JSON unless text/csv is preferred; errors stay JSON', async () => {
    for (const accept of [undefined, '*/*', 'application/json', 'text/csv, application/json', 'text/csv;q=0']) {
      const r = await env.call('GET', url('trial-balance?at=2026-02-28'), { key: a.test, headers: accept ? { accept } : {} });
      expect([r.status, r.headers['content-type']], String(accept)).toEqual([200, 'application/json; charset=utf-8']);
    }
    const preferred = await env.call('GET', url('trial-balance?at=2026-02-28'), { key: a.test, headers: { accept: 'application/json;q=0.5, text/csv' } });
    expect(preferred.headers['content-type']).toMatch(/^text\/csv/);
    const bad = await env.call('GET', url('income-statement?from=2026-03-01&to=2026-02-01'), { key: a.test, headers: { accept: 'text/csv' } });
    expect([bad.status, bad.body?.reason]).toEqual([400, 'validation']);
    const missing = await env.call('GET', url('accounts/9999'), { key: a.test, headers: { accept: 'text/csv' } });
    expect([missing.status, missing.body?.reason]).toEqual([404, 'not_found']);
  });

  it('every answer above is as the OpenAPI document describes it (text/csv as bytes)', () => {
    expect(problems).toEqual([]);
  });
});

/**
 * The books (issue 20, first step): journal entries written with each fact, worked by hand; the chart;
 * manual entries and their reversal; the trial balance and an account's running balance; and the
 * database refusing every change to what was written.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import pg from 'pg';
import { createTestEnv, TAX_IDS, type TestAccount, type TestEnv } from '../helpers/env.ts';
import { creditNote, issueDoc } from '../exports/fixture.ts';
import { rememberAccounts, unknownAccounts } from '../../src/ledger/known-accounts.ts';

let env: TestEnv;
let a: TestAccount;
beforeAll(async () => {
  env = await createTestEnv();
  a = await env.account();
});
afterAll(async () => env?.close());

const ledger = (bid: string, path: string) => `/v1/businesses/${bid}/ledger/${path}`;
async function get(bid: string, path: string) {
  const r = await env.call('GET', ledger(bid, path), { key: a.test });
  expect(r.status, JSON.stringify(r.body)).toBe(200);
  return r.body;
}
/** The entry of a document, its lines as `account: ±amount` (debit +, credit −), sorted. */
async function entryOf(bid: string, documentId: string) {
  const { entries } = await get(bid, 'entries?take=500');
  const e = entries.find((x: any) => x.documentId === documentId);
  expect(e, `no entry for ${documentId}`).toBeTruthy();
  return { entry: e, lines: net(e.lines) };
}
/** Lines as `account: Σ debit − credit`. */
function net(lines: { account: string; debit: number; credit: number }[]): Record<string, number> {
  const out: Record<string, number> = {};
  for (const l of lines) out[l.account] = (out[l.account] ?? 0) + l.debit - l.credit;
  return out;
}
async function party(bid: string, name: string) {
  const r = await env.call('POST', `/v1/businesses/${bid}/parties`, { key: a.test, body: { name, kind: 'customer', taxId: TAX_IDS.company2 } });
  expect(r.status, JSON.stringify(r.body)).toBe(201);
  return r.body.party;
}

describe('entries written with each document (company, 18% VAT)', () => {
  let bid: string;
  let customer: any;
  beforeAll(async () => {
    bid = (await env.business(a.test)).id;
    customer = await party(bid, 'לקוח קבוע בע"מ');
  });

  it("305: Dr the party's own sub-account 1,180.00 / Cr revenue 1,000.00 / Cr output VAT 180.00", async () => {
    const inv = await issueDoc(env, a.test, bid, {
      docType: 305,
      party: { partyId: customer.id },
      lines: [{ description: 'ייעוץ', quantity: 1, unitPriceExVat: 100_000 }],
    });
    const { entry, lines } = await entryOf(bid, inv.id);
    expect(lines).toEqual({ [`1100-${customer.key}`]: 118_000, '4000': -100_000, '2200': -18_000 });
    expect(entry).toMatchObject({ source: 'document', reference: String(inv.docNumber), referenceDocType: 305 });
    const { account } = await get(bid, `accounts/1100-${customer.key}`);
    expect(account).toMatchObject({ partyId: customer.id, kind: 'asset', trialBalanceCode: '100' });
  });

  it('320 with withholding: the invoice and the receipt in one entry; the occasional customer nets to zero', async () => {
    const d = await issueDoc(env, a.test, bid, {
      docType: 320,
      party: { name: 'מזדמן' },
      lines: [{ description: 'x', quantity: 1, unitPriceExVat: 100_000 }],
      withholdingAmount: 5_000,
      payments: [{ method: 'card', amount: 113_000, cardCompany: 'isracard', cardName: 'ישראכרט' }],
    });
    const { lines } = await entryOf(bid, d.id);
    // Dr 1190 1,180.00 and Cr 1190 1,180.00: two lines (a debit and a credit are never netted), summing to 0.
    expect(lines).toEqual({ '1190': 0, '4000': -100_000, '2200': -18_000, '1220': 113_000, '1300': 5_000 });
    const { entries } = await get(bid, 'entries?take=500');
    const e = entries.find((x: any) => x.documentId === d.id);
    expect(e.lines.filter((l: any) => l.account === '1190')).toEqual([
      { account: '1190', debit: 118_000, credit: 0 },
      { account: '1190', debit: 0, credit: 118_000 },
    ]);
  });

  it('400 and its credit: Dr cheque and withholding / Cr the customer; the negative receipt the other way round', async () => {
    const r = await issueDoc(env, a.test, bid, {
      docType: 400,
      party: { partyId: customer.id },
      withholdingAmount: 2_500,
      payments: [{ method: 'cheque', amount: 30_000, bankCode: '12', branchCode: '600', accountNumber: '123456', checkNumber: '1001', dueDate: '2026-04-01' }],
    });
    expect((await entryOf(bid, r.id)).lines).toEqual({ '1210': 30_000, '1300': 2_500, [`1100-${customer.key}`]: -32_500 });
    const neg = await creditNote(env, a.test, bid, r.id);
    expect((await entryOf(bid, neg.id)).lines).toEqual({ '1210': -30_000, '1300': -2_500, [`1100-${customer.key}`]: 32_500 });
  });

  it('330: the invoice mirrored; the trial balance ties and the customer owes nothing after the credit', async () => {
    const inv = await issueDoc(env, a.test, bid, {
      docType: 305,
      party: { partyId: customer.id },
      lines: [{ description: 'y', quantity: 2, unitPriceExVat: 25_000 }],
    });
    const credit = await creditNote(env, a.test, bid, inv.id);
    expect((await entryOf(bid, credit.id)).lines).toEqual({ [`1100-${customer.key}`]: -59_000, '4000': 50_000, '2200': 9_000 });
    const tb = await get(bid, 'trial-balance');
    expect(tb.totals.debit).toBe(tb.totals.credit);
    const byCode = Object.fromEntries(tb.accounts.map((x: any) => [x.code, x.balance]));
    // The first 305 (1,180.00) is still owed; the receipt and its credit cancel; the second 305 and its 330 cancel.
    expect(byCode[`1100-${customer.key}`]).toBe(118_000);
    expect(byCode['2200']).toBe(-(18_000 + 18_000));
    expect(byCode['4000']).toBe(-(100_000 + 100_000));
    // Entry numbers run 1, 2, 3… without gaps.
    const { entries } = await get(bid, 'entries?take=500');
    expect(entries.map((e: any) => e.entryNo)).toEqual(entries.map((_: any, i: number) => i + 1));
  });

  it('the income statement and the balance sheet by trial-balance group; assets = liabilities + equity + profit', async () => {
    const is = await get(bid, 'income-statement');
    // 4000: 1,000 (305) + 1,000 (320) + 500 (305) − 500 (its 330).
    expect(is).toMatchObject({
      revenue: [{ trialBalanceCode: '400', amount: 200_000 }],
      totalRevenue: 200_000,
      expenses: [],
      totalExpenses: 0,
      profit: 200_000,
    });
    const bs = await get(bid, 'balance-sheet');
    // Customer 1,180 + card 1,130 + withheld 50 (the receipt and its credit cancel); output VAT 180 + 180.
    expect(bs).toMatchObject({
      assets: [{ trialBalanceCode: '100', amount: 236_000 }],
      totalAssets: 236_000,
      liabilities: [{ trialBalanceCode: '200', amount: 36_000 }],
      totalLiabilities: 36_000,
      equity: [],
      totalEquity: 0,
      profitToDate: 200_000,
      balanced: true,
    });
  });

  it("an account's lines carry the running balance, with the opening balance before the range", async () => {
    const code = `1100-${customer.key}`;
    const all = await get(bid, `accounts/${code}`);
    expect(all.opening).toBe(0);
    expect(all.lines.map((l: any) => l.balance)).toEqual([118_000, 85_500, 118_000, 177_000, 118_000]);
    expect(all.closing).toBe(118_000);
  });
});

describe('a patur dealer and expenses', () => {
  it('a patur receipt is revenue: Dr cash / Cr 4100, no customer account, no VAT', async () => {
    const bid = (await env.business(a.test, { dealerType: 'patur', taxId: TAX_IDS.person })).id;
    const r = await issueDoc(env, a.test, bid, { docType: 400, party: { name: 'לקוח' }, payments: [{ method: 'cash', amount: 40_000 }] });
    expect((await entryOf(bid, r.id)).lines).toEqual({ '1200': 40_000, '4100': -40_000 });
    const chart = (await get(bid, 'accounts')).accounts.map((x: any) => x.code);
    expect(chart).toContain('4100');
    expect(chart).not.toContain('4000');
  });

  it('a recorded expense: Dr the category (with the VAT it may not deduct) and input VAT / Cr the supplier; its storno reverses it', async () => {
    const bid = (await env.business(a.test)).id;
    const base = `/v1/businesses/${bid}/expenses`;
    const body = {
      categoryKey: 'communication',
      supplier: { name: 'בזק', taxId: TAX_IDS.company2 },
      supplierDocType: 'tax_invoice',
      supplierDocNumber: 'B-77',
      supplierDocDate: '2026-02-10',
      amountExVat: 30_000,
      vatAmount: 5_400,
    };
    const draft = await env.call('POST', base, { key: a.test, body });
    expect(draft.status, JSON.stringify(draft.body)).toBe(201);
    const rec = await env.call('POST', `${base}/${draft.body.expense.id}/record`, { key: a.test });
    expect(rec.status, JSON.stringify(rec.body)).toBe(201);
    const { entries } = await get(bid, 'entries');
    const e = entries.find((x: any) => x.expenseId === draft.body.expense.id);
    // 2/3 of 54.00 deductible = 36.00; the other 18.00 is cost. The supplier is named with a tax id but
    // not saved: its own account by the tax id, not the occasional suppliers' 2190.
    const supplierAccount = `2100-T${TAX_IDS.company2}`;
    expect(net(e.lines)).toEqual({ '6080': 31_800, '1400': 3_600, [supplierAccount]: -35_400 });
    expect(e).toMatchObject({ date: '2026-02-10', reference: 'B-77', source: 'expense' });
    const storno = await env.call('POST', `${base}/${draft.body.expense.id}/correction`, { key: a.test, body: {} });
    expect(storno.status, JSON.stringify(storno.body)).toBe(201);
    const after = (await get(bid, 'entries')).entries;
    const reversal = after.find((x: any) => x.expenseId === storno.body.expense.id);
    expect(net(reversal.lines)).toEqual({ '6080': -31_800, '1400': -3_600, [supplierAccount]: 35_400 });
    const tb = await get(bid, 'trial-balance');
    expect(tb.accounts.every((x: any) => x.balance === 0)).toBe(true);
  });
});

describe('manual entries and accounts', () => {
  let bid: string;
  beforeAll(async () => {
    bid = (await env.business(a.test)).id;
  });
  const post = (body: unknown) => env.call('POST', ledger(bid, 'entries'), { key: a.test, body });

  it('opening balances: balanced, numbered, audited; unbalanced, unknown or closed accounts answer 422', async () => {
    const ok = await post({
      date: '2026-01-01',
      description: 'יתרות פתיחה',
      lines: [
        { account: '1230', debit: 500_000 },
        { account: '3000', credit: 500_000 },
      ],
    });
    expect(ok.status, JSON.stringify(ok.body)).toBe(201);
    expect(ok.body.entry).toMatchObject({ source: 'manual', entryNo: 1, date: '2026-01-01' });
    const unbalanced = await post({
      date: '2026-01-01',
      description: 'x',
      lines: [
        { account: '1230', debit: 100 },
        { account: '3000', credit: 99 },
      ],
    });
    expect(unbalanced.status).toBe(422);
    expect(unbalanced.body.reason).toBe('unbalanced');
    const both = await post({
      date: '2026-01-01',
      description: 'x',
      lines: [
        { account: '1230', debit: 100, credit: 100 },
        { account: '3000', credit: 100 },
      ],
    });
    expect(both.status).toBe(400);
    const unknown = await post({
      date: '2026-01-01',
      description: 'x',
      lines: [
        { account: '9999', debit: 100 },
        { account: '3000', credit: 100 },
      ],
    });
    expect(unknown.status).toBe(422);
    expect(unknown.body.reason).toBe('unknown_account');
    expect(unknown.body.error).toMatch(/^account 9999 does not exist/);
    const added = await env.call('POST', ledger(bid, 'accounts'), {
      key: a.test,
      body: { code: '1235', name: 'בנק דיסקונט', kind: 'asset', trialBalanceCode: '100' },
    });
    expect(added.status, JSON.stringify(added.body)).toBe(201);
    expect(
      (
        await post({
          date: '2026-01-02',
          description: 'העברה',
          lines: [
            { account: '1235', debit: 100 },
            { account: '1230', credit: 100 },
          ],
        })
      ).status,
    ).toBe(201);
    const closed = await env.call('PATCH', ledger(bid, 'accounts/1235'), { key: a.test, body: { closed: true } });
    expect(closed.body.account.closed).toBe(true);
    const onClosed = await post({
      date: '2026-01-03',
      description: 'x',
      lines: [
        { account: '1235', debit: 100 },
        { account: '1230', credit: 100 },
      ],
    });
    expect(onClosed.status).toBe(422);
    expect(onClosed.body.reason).toBe('account_closed');
    const audit = await env.sql('sandbox', `SELECT action FROM audit_log WHERE business_id = '${bid}' AND action LIKE 'ledger.%' ORDER BY seq`);
    expect(audit.map((r: any) => r.action)).toEqual(['ledger.entry.create', 'ledger.account.create', 'ledger.entry.create', 'ledger.account.update']);
    // Failed attempts took no number.
    expect((await get(bid, 'entries')).entries.map((e: any) => e.entryNo)).toEqual([1, 2]);
  });

  it("a manual entry is corrected by its reversal, once; a document's entry is not reversed by hand", async () => {
    const e = (
      await post({
        date: '2026-01-05',
        description: 'תיקון',
        lines: [
          { account: '6000', debit: 1_000 },
          { account: '1200', credit: 1_000 },
        ],
      })
    ).body.entry;
    const rev = await env.call('POST', ledger(bid, `entries/${e.id}/reverse`), { key: a.test, body: { date: '2026-01-06' } });
    expect(rev.status, JSON.stringify(rev.body)).toBe(201);
    expect(rev.body.entry).toMatchObject({
      source: 'reversal',
      reversesEntryId: e.id,
      lines: [
        { account: '6000', debit: 0, credit: 1_000 },
        { account: '1200', debit: 1_000, credit: 0 },
      ],
    });
    expect((await env.call('POST', ledger(bid, `entries/${e.id}/reverse`), { key: a.test, body: { date: '2026-01-06' } })).status).toBe(409);
    const doc = await issueDoc(env, a.test, bid, { docType: 305, party: { name: 'ק' }, lines: [{ description: 'z', quantity: 1, unitPriceExVat: 1_000 }] });
    const { entry } = await entryOf(bid, doc.id);
    expect((await env.call('POST', ledger(bid, `entries/${entry.id}/reverse`), { key: a.test, body: { date: '2026-01-06' } })).status).toBe(409);
    // The trial balance at a date leaves out what came later.
    const early = await get(bid, 'trial-balance?at=2026-01-05');
    expect(Object.fromEntries(early.accounts.map((x: any) => [x.code, x.balance]))).toMatchObject({ '6000': 1_000, '1200': -1_000 });
    expect(early.totals.debit).toBe(early.totals.credit);
  });

  it('a manual entry sent twice with one Idempotency-Key is written once', async () => {
    const body = {
      date: '2026-01-07',
      description: 'פעם אחת',
      lines: [
        { account: '6000', debit: 700 },
        { account: '1200', credit: 700 },
      ],
    };
    const headers = { 'idempotency-key': 'ledger-once-1' };
    const first = await env.call('POST', ledger(bid, 'entries'), { key: a.test, body, headers });
    const again = await env.call('POST', ledger(bid, 'entries'), { key: a.test, body, headers });
    expect(first.status).toBe(201);
    expect(again.status).toBe(201);
    expect(again.body).toMatchObject({ deduped: true, entry: { id: first.body.entry.id } });
    const rows = await env.sql('sandbox', `SELECT count(*)::int AS n FROM journal_entries WHERE business_id = '${bid}' AND description = 'פעם אחת'`);
    expect(rows[0]).toEqual({ n: 1 });
  });

  it('another tenant sees nothing', async () => {
    const b = await env.account();
    expect((await env.call('GET', ledger(bid, 'entries'), { key: b.test })).status).toBe(404);
    expect((await env.call('GET', ledger(bid, 'trial-balance'), { key: b.test })).status).toBe(404);
  });
});

describe('the database protects the journal', () => {
  let bid: string;
  let entryId: string;
  beforeAll(async () => {
    bid = (await env.business(a.test)).id;
    await get(bid, 'accounts'); // the whole default chart
    const doc = await issueDoc(env, a.test, bid, { docType: 305, party: { name: 'ק' }, lines: [{ description: 'z', quantity: 1, unitPriceExVat: 1_000 }] });
    entryId = (await entryOf(bid, doc.id)).entry.id;
  });
  const refused = (text: string) => expect(env.sql('sandbox', text)).rejects.toThrow();

  it('refuses updates, deletes and truncation of entries, lines and accounts, and moving the counter', async () => {
    await refused(`UPDATE journal_lines SET amount = amount + 1 WHERE entry_id = '${entryId}'`);
    await refused(`DELETE FROM journal_lines WHERE entry_id = '${entryId}'`);
    await refused(`UPDATE journal_entries SET entry_date = '2020-01-01' WHERE id = '${entryId}'`);
    await refused(`DELETE FROM journal_entries WHERE id = '${entryId}'`);
    await refused(`TRUNCATE journal_lines, journal_entries CASCADE`);
    await refused(`DELETE FROM ledger_accounts WHERE business_id = '${bid}' AND code = '4000'`);
    await refused(`UPDATE ledger_accounts SET kind = 'expense' WHERE business_id = '${bid}' AND code = '4000'`);
    await refused(`UPDATE ledger_counters SET last_entry_no = last_entry_no + 5 WHERE business_id = '${bid}'`);
  });

  it('refuses an unbalanced entry at commit, lines added to an entry written earlier, and lines of another business or a closed account', async () => {
    const client = new pg.Client({ connectionString: env.urls.sandbox });
    await client.connect();
    try {
      await client.query('BEGIN');
      await client.query(
        `INSERT INTO journal_entries(id, business_id, entry_no, entry_date, source, description, created_at)
         VALUES ('je_raw0000000000000001', $1, 999, '2026-01-01', 'manual', 'x', now())`,
        [bid],
      );
      await client.query(
        `INSERT INTO journal_lines VALUES ('je_raw0000000000000001', 1, $1, '1200', 1, 100), ('je_raw0000000000000001', 2, $1, '3000', 2, 99)`,
        [bid],
      );
      await expect(client.query('COMMIT')).rejects.toThrow(/not balanced/);
      // The same lines balanced go through: the refusal was the balance, nothing else.
      await client.query('BEGIN');
      await client.query(
        `INSERT INTO journal_entries(id, business_id, entry_no, entry_date, source, description, created_at)
         VALUES ('je_raw0000000000000002', $1, 999, '2026-01-01', 'manual', 'x', now())`,
        [bid],
      );
      await client.query(
        `INSERT INTO journal_lines VALUES ('je_raw0000000000000002', 1, $1, '1200', 1, 100), ('je_raw0000000000000002', 2, $1, '3000', 2, 100)`,
        [bid],
      );
      await client.query('COMMIT');
      // Lines added later to an entry already written, even balanced, are refused.
      await expect(
        client.query(`INSERT INTO journal_lines VALUES ('${entryId}', 10, $1, '1200', 1, 100), ('${entryId}', 11, $1, '3000', 2, 100)`, [bid]),
      ).rejects.toThrow(/already written/);
      // In the entry's own transaction: a line of another business, and a line on a closed account, are refused.
      const other = (await env.business(a.test)).id;
      const lineOf = async (n: number, lineBusiness: string, account: string) => {
        await client.query('BEGIN');
        try {
          await client.query(
            `INSERT INTO journal_entries(id, business_id, entry_no, entry_date, source, description, created_at)
             VALUES ('je_raw000000000000000${n}', $1, ${1000 + n}, '2026-01-01', 'manual', 'x', now())`,
            [bid],
          );
          await client.query(`INSERT INTO journal_lines VALUES ('je_raw000000000000000${n}', 1, $1, $2, 1, 100)`, [lineBusiness, account]);
        } finally {
          await client.query('ROLLBACK');
        }
      };
      await expect(lineOf(3, other, '1200')).rejects.toThrow(/business is not its entry's/);
      await client.query(`UPDATE ledger_accounts SET closed_at = now() WHERE business_id = $1 AND code = '4000'`, [bid]);
      try {
        await expect(lineOf(4, bid, '4000')).rejects.toThrow(/account 4000 is closed/);
      } finally {
        await client.query(`UPDATE ledger_accounts SET closed_at = NULL WHERE business_id = $1 AND code = '4000'`, [bid]);
      }
      // A line whose account or entry does not exist is refused as a foreign key refuses it: code 23503, the table named.
      await expect(lineOf(5, bid, '9999')).rejects.toMatchObject({
        code: '23503',
        table: 'journal_lines',
        message: expect.stringMatching(/account 9999 does not exist/),
      });
      await expect(client.query(`INSERT INTO journal_lines VALUES ('je_none', 1, $1, '1200', 1, 100)`, [bid])).rejects.toMatchObject({
        code: '23503',
        table: 'journal_lines',
        message: expect.stringMatching(/entry je_none does not exist/),
      });
    } finally {
      await client.end();
    }
    const rows = await env.sql('sandbox', `SELECT id FROM journal_entries WHERE id LIKE 'je_raw%'`);
    expect(rows).toEqual([{ id: 'je_raw0000000000000002' }]);
  });
});

describe('closed periods', () => {
  it('a closed month takes no manual entry; a late expense is dated the first open day; a close is final', async () => {
    const bid = (await env.business(a.test)).id;
    const base = `/v1/businesses/${bid}`;
    // The test clock is 2026-03-01: February has ended, March has not.
    expect((await env.call('POST', `${base}/ledger/periods/2026-03/close`, { key: a.test })).status).toBe(400);
    const close = await env.call('POST', `${base}/ledger/periods/2026-02/close`, { key: a.test });
    expect(close.status, JSON.stringify(close.body)).toBe(201);
    expect(close.body.period.period).toBe('2026-02');
    expect((await env.call('POST', `${base}/ledger/periods/2026-02/close`, { key: a.test })).status).toBe(409);
    expect((await get(bid, 'periods')).closed.map((p: any) => p.period)).toEqual(['2026-02']);

    const inFebruary = await env.call('POST', ledger(bid, 'entries'), {
      key: a.test,
      body: {
        date: '2026-02-15',
        description: 'x',
        lines: [
          { account: '6000', debit: 100 },
          { account: '1200', credit: 100 },
        ],
      },
    });
    expect(inFebruary.status).toBe(422);
    expect(inFebruary.body.reason).toBe('period_closed');
    const inJanuary = await env.call('POST', ledger(bid, 'entries'), {
      key: a.test,
      body: {
        date: '2026-01-31',
        description: 'x',
        lines: [
          { account: '6000', debit: 100 },
          { account: '1200', credit: 100 },
        ],
      },
    });
    expect(inJanuary.status).toBe(201); // January is not closed

    const draft = await env.call('POST', `${base}/expenses`, {
      key: a.test,
      body: {
        categoryKey: 'office',
        supplier: { name: 'ספק' },
        supplierDocType: 'tax_invoice',
        supplierDocNumber: 'L-1',
        supplierDocDate: '2026-02-20',
        amountExVat: 1_000,
        vatAmount: 180,
      },
    });
    const recorded = await env.call('POST', `${base}/expenses/${draft.body.expense.id}/record`, { key: a.test });
    expect(recorded.status).toBe(201);
    expect(recorded.body.expense.warnings).toEqual([
      {
        code: 'posted_in_open_period',
        message:
          'the invoice date 2026-02-20 is in 2026-02, a closed period of the books: the expense is posted on 2026-03-01, the first open day, and its input VAT is claimed in that period',
      },
    ]);
    const late = (await get(bid, 'entries')).entries.find((e: any) => e.expenseId === draft.body.expense.id);
    expect(late).toMatchObject({ date: '2026-03-01', reference: 'L-1' });

    await expect(env.sql('sandbox', `DELETE FROM ledger_periods WHERE business_id = '${bid}'`)).rejects.toThrow();
    const audit = await env.sql('sandbox', `SELECT action FROM audit_log WHERE business_id = '${bid}' AND action = 'ledger.period.close'`);
    expect(audit).toHaveLength(1);
  });
});

describe('parties in the ledger (issue 29)', () => {
  it('an account per identified party: a tax id gives one (saved: by key, named on the document: by tax id); no tax id shares 1190', async () => {
    const bid = (await env.business(a.test)).id;
    const noTaxId = await env.call('POST', `/v1/businesses/${bid}/parties`, { key: a.test, body: { name: 'לקוח בלי מספר', kind: 'customer' } });
    expect(noTaxId.status).toBe(201);
    const line = [{ description: 'x', quantity: 1, unitPriceExVat: 10_000 }];
    const saved = await issueDoc(env, a.test, bid, { docType: 305, party: { partyId: noTaxId.body.party.id }, lines: line });
    expect((await entryOf(bid, saved.id)).lines).toEqual({ '1190': 11_800, '4000': -10_000, '2200': -1_800 });
    const named = await issueDoc(env, a.test, bid, { docType: 305, party: { name: 'חברה מזדמנת בע"מ', taxId: TAX_IDS.company }, lines: line });
    const code = `1100-T${TAX_IDS.company}`;
    expect((await entryOf(bid, named.id)).lines).toEqual({ [code]: 11_800, '4000': -10_000, '2200': -1_800 });
    const { account } = await get(bid, `accounts/${code}`);
    expect(account).toMatchObject({ name: 'חברה מזדמנת בע"מ', partyId: null, kind: 'asset', trialBalanceCode: '100' });
    // The same tax id on a later document books to the same account.
    const again = await issueDoc(env, a.test, bid, { docType: 305, party: { name: 'אותה חברה', taxId: TAX_IDS.company }, lines: line });
    expect((await entryOf(bid, again.id)).lines[code]).toBe(11_800);
  });
});

describe("the accounts an issue's journal call leaves out (ledger/known-accounts.ts, migration 0069)", () => {
  const DOC = {
    docType: 320,
    party: { name: 'מזדמן' },
    lines: [{ description: 'x', quantity: 1, unitPriceExVat: 10_000 }],
    payments: [{ method: 'card', amount: 11_800 }],
  };

  it('after an issue the process sends its accounts no more, and the next entry is whole', async () => {
    const bid = (await env.business(a.test)).id;
    const first = await issueDoc(env, a.test, bid, DOC);
    const codes = Object.keys((await entryOf(bid, first.id)).lines);
    const rows = codes.map((code) => ({ code }));
    expect(unknownAccounts('sandbox', bid, rows)).toEqual([]);
    expect(unknownAccounts('live', bid, rows)).toEqual(rows);
    const second = await issueDoc(env, a.test, bid, DOC);
    expect((await entryOf(bid, second.id)).lines).toEqual((await entryOf(bid, first.id)).lines);
  });

  it('an account remembered but missing from the database: the issue sends them all again and succeeds', async () => {
    const bid = (await env.business(a.test)).id;
    // The business has no accounts yet (the chart is made on the first entry or read).
    rememberAccounts('sandbox', bid, ['1190', '4000', '2200', '1220']);
    const d = await issueDoc(env, a.test, bid, DOC);
    expect((await entryOf(bid, d.id)).lines).toEqual({ '1190': 0, '4000': -10_000, '2200': -1_800, '1220': 11_800 });
    const { rows } = await env.db.sandbox.pool.query(`SELECT code FROM ledger_accounts WHERE business_id = $1 ORDER BY code`, [bid]);
    expect(rows.map((r: { code: string }) => r.code)).toEqual(['1190', '1220', '2200', '4000']);
  });
});

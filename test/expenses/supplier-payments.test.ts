/**
 * Payments to suppliers (issue 29, item 4): through the API against a recorded expense or a saved
 * supplier, by method; Dr the supplier's account / Cr cash or the bank with no manual entry; idempotent,
 * audited, in the party's account; the database keeps the payment and its entry together and unchanged.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestEnv, TAX_IDS, type TestAccount, type TestEnv } from '../helpers/env.ts';

let env: TestEnv;
let a: TestAccount;
beforeAll(async () => {
  env = await createTestEnv();
  a = await env.account();
});
afterAll(async () => env?.close());

async function ok(method: string, path: string, body?: unknown, headers: Record<string, string> = {}) {
  const r = await env.call(method, path, { key: a.test, body, headers });
  expect(r.status, `${method} ${path} ${JSON.stringify(r.body)}`).toBeLessThan(300);
  return r.body;
}
const pay = (bid: string, body: unknown, headers: Record<string, string> = {}) =>
  env.call('POST', `/v1/businesses/${bid}/supplier-payments`, { key: a.test, body, headers });

/** A recorded expense of 300.00 + 54.00 VAT (communication, 2/3 deductible) from a supplier named with a tax id. */
async function recordedExpense(bid: string, over: Record<string, unknown> = {}) {
  const draft = await ok('POST', `/v1/businesses/${bid}/expenses`, {
    categoryKey: 'communication',
    supplier: { name: 'בזק', taxId: TAX_IDS.company2 },
    supplierDocType: 'tax_invoice',
    supplierDocNumber: 'B-77',
    supplierDocDate: '2026-02-10',
    amountExVat: 30_000,
    vatAmount: 5_400,
    ...over,
  });
  return (await ok('POST', `/v1/businesses/${bid}/expenses/${draft.expense.id}/record`)).expense;
}
async function entry(bid: string, id: string) {
  return (await ok('GET', `/v1/businesses/${bid}/ledger/entries/${id}`)).entry;
}

describe('paying a supplier', () => {
  it('against an expense: Dr the account the expense booked to / Cr the bank or the till, up to its total; idempotent and audited', async () => {
    env.clock.set('2026-03-01T08:00:00.000Z');
    const bid = (await env.business(a.test)).id;
    const exp = await recordedExpense(bid);
    const supplier = `2100-T${TAX_IDS.company2}`;
    const first = await pay(
      bid,
      { expenseId: exp.id, method: 'transfer', amount: 20_000, date: '2026-02-20', reference: 'TR-7731' },
      { 'idempotency-key': 'p-1' },
    );
    expect(first.status, JSON.stringify(first.body)).toBe(201);
    expect(first.body.payment).toMatchObject({
      date: '2026-02-20',
      method: 4,
      amount: 20_000,
      expenseId: exp.id,
      supplierAccount: supplier,
      paidFromAccount: '1230',
    });
    const e1 = await entry(bid, first.body.payment.journalEntryId);
    expect(e1).toMatchObject({ source: 'payment', date: '2026-02-20', reference: 'TR-7731', expenseId: null, documentId: null });
    expect(e1.lines).toEqual([
      { account: supplier, debit: 20_000, credit: 0 },
      { account: '1230', debit: 0, credit: 20_000 },
    ]);
    // The same key and body: the same payment, nothing written twice.
    const replay = await pay(
      bid,
      { expenseId: exp.id, method: 'transfer', amount: 20_000, date: '2026-02-20', reference: 'TR-7731' },
      { 'idempotency-key': 'p-1' },
    );
    expect(replay.body.payment.id).toBe(first.body.payment.id);
    // 354.00 − 200.00 = 154.00 left: 154.01 is refused, 154.00 in cash closes it.
    const over = await pay(bid, { expenseId: exp.id, method: 'cash', amount: 15_401 });
    expect(over.status).toBe(409);
    expect(over.body.error).toMatch(/15400 agorot left to pay of 35400/);
    const rest = await pay(bid, { expenseId: exp.id, method: 'cash', amount: 15_400 });
    expect(rest.status).toBe(201);
    expect(rest.body.payment).toMatchObject({ date: '2026-03-01', paidFromAccount: '1200' });
    // The supplier's account: credited 354.00 by the expense, debited by the two payments: nothing owed.
    const account = await ok('GET', `/v1/businesses/${bid}/ledger/accounts/${supplier}?from=2026-02-01&to=2026-03-31`);
    expect(account.lines.map((l: any) => [l.debit, l.credit])).toEqual([
      [0, 35_400],
      [20_000, 0],
      [15_400, 0],
    ]);
    expect(account.closing).toBe(0);
    const listed = await ok('GET', `/v1/businesses/${bid}/supplier-payments?expenseId=${exp.id}`);
    expect(listed.payments.map((p: any) => p.amount)).toEqual([15_400, 20_000]);
    const audit = await env.sql('sandbox', `SELECT count(*)::int AS n FROM audit_log WHERE business_id = '${bid}' AND action = 'supplier_payment.create'`);
    expect(audit[0].n).toBe(2);
    const tb = await ok('GET', `/v1/businesses/${bid}/ledger/trial-balance?at=2026-03-31`);
    expect(tb.totals.debit).toBe(tb.totals.credit);
  });

  it('a saved supplier on account by cheque: its own account, created on first use', async () => {
    const bid = (await env.business(a.test)).id;
    const party = (await ok('POST', `/v1/businesses/${bid}/parties`, { name: 'ספק ציוד בע"מ', kind: 'supplier', taxId: TAX_IDS.company })).party;
    const r = await pay(bid, { partyId: party.id, method: 'cheque', amount: 50_000, reference: '000123' });
    expect(r.status, JSON.stringify(r.body)).toBe(201);
    const code = `2100-${party.key}`;
    expect(r.body.payment).toMatchObject({ partyId: party.id, supplierAccount: code, paidFromAccount: '1230', method: 2 });
    const { account } = await ok('GET', `/v1/businesses/${bid}/ledger/accounts/${code}`);
    expect(account).toMatchObject({ partyId: party.id, kind: 'liability' });
    expect(account.lines ?? []).toBeDefined();
    const byParty = await ok('GET', `/v1/businesses/${bid}/supplier-payments?partyId=${party.id}`);
    expect(byParty.payments).toHaveLength(1);
    expect((await ok('GET', `/v1/businesses/${bid}/supplier-payments/${r.body.payment.id}`)).payment).toEqual(r.body.payment);
  });

  it('refuses what it cannot record, clearly, and writes nothing', async () => {
    env.clock.set('2026-03-05T08:00:00.000Z');
    const bid = (await env.business(a.test)).id;
    const exp = await recordedExpense(bid);
    const customer = (await ok('POST', `/v1/businesses/${bid}/parties`, { name: 'לקוח', kind: 'customer' })).party;
    const draft = (await ok('POST', `/v1/businesses/${bid}/expenses`, { categoryKey: 'office', supplier: { name: 'x' } })).expense;
    await ok('POST', `/v1/businesses/${bid}/ledger/periods/2026-02/close`);
    const cases: [unknown, number, string, RegExp][] = [
      [{ method: 'cash', amount: 100 }, 400, 'validation', /expenseId .* or partyId/],
      [{ expenseId: exp.id, partyId: customer.id, method: 'cash', amount: 100 }, 400, 'validation', /one of them/],
      [{ expenseId: exp.id, method: 'voucher', amount: 100 }, 400, 'validation', /method/],
      [{ expenseId: exp.id, method: 'cash', amount: 100, date: '2026-03-06' }, 400, 'validation', /after today/],
      [{ partyId: customer.id, method: 'cash', amount: 100 }, 400, 'validation', /is a customer/],
      [{ expenseId: draft.id, method: 'cash', amount: 100 }, 409, 'not_draft', /record it first/],
      [{ expenseId: exp.id, method: 'cash', amount: 100, date: '2026-02-27' }, 422, 'period_closed', /2026-02-27 is in a closed period/],
    ];
    for (const [body, status, reason, message] of cases) {
      const r = await pay(bid, body);
      expect([r.status, r.body.reason], JSON.stringify(body)).toEqual([status, reason]);
      expect(r.body.error).toMatch(message);
    }
    const written = await env.sql('sandbox', `SELECT count(*)::int AS n FROM supplier_payments WHERE business_id = '${bid}'`);
    expect(written[0].n).toBe(0);
    const entries = await env.sql('sandbox', `SELECT count(*)::int AS n FROM journal_entries WHERE business_id = '${bid}' AND source = 'payment'`);
    expect(entries[0].n).toBe(0);
  });

  it('the database keeps a payment and its entry together: no change, no delete, no row its entry does not record', async () => {
    env.clock.set('2026-03-05T08:00:00.000Z');
    const bid = (await env.business(a.test)).id;
    const exp = await recordedExpense(bid);
    const p = (await pay(bid, { expenseId: exp.id, method: 'transfer', amount: 1_000 })).body.payment;
    const refused = (text: string) => expect(env.sql('sandbox', text)).rejects.toThrow();
    await refused(`UPDATE supplier_payments SET amount = 999 WHERE id = '${p.id}'`);
    await refused(`DELETE FROM supplier_payments WHERE id = '${p.id}'`);
    await refused(`TRUNCATE supplier_payments`);
    // A second row naming the same entry, or a row whose amount its entry does not record.
    await refused(
      `INSERT INTO supplier_payments(id, business_id, payment_date, method, amount, expense_id, supplier_account, paid_from_account, journal_entry_id, created_at)
       VALUES ('spay_raw1', '${bid}', '${p.date}', 4, 1000, '${exp.id}', '${p.supplierAccount}', '1230', '${p.journalEntryId}', now())`,
    );
    const manual = await ok('POST', `/v1/businesses/${bid}/ledger/entries`, {
      date: '2026-03-02',
      description: 'x',
      lines: [
        { account: p.supplierAccount, debit: 5_000 },
        { account: '1230', credit: 5_000 },
      ],
    });
    const err = await env
      .sql(
        'sandbox',
        `INSERT INTO supplier_payments(id, business_id, payment_date, method, amount, expense_id, supplier_account, paid_from_account, journal_entry_id, created_at)
         VALUES ('spay_raw2', '${bid}', '2026-03-02', 4, 5000, '${exp.id}', '${p.supplierAccount}', '1230', '${manual.entry.id}', now())`,
      )
      .then(
        () => null,
        (e: any) => String(e?.cause?.message ?? e?.message),
      );
    expect(err).toMatch(/not the one its journal entry records/);
  });
});

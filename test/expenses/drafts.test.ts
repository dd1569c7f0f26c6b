import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestEnv, TAX_IDS, type TestAccount, type TestEnv } from '../helpers/env.ts';
import { verifyAuditChains } from '../../src/platform/audit.ts';

let env: TestEnv;
let a: TestAccount;
let bid: string;
const base = () => `/v1/businesses/${bid}/expenses`;

beforeAll(async () => {
  env = await createTestEnv();
  a = await env.account();
  bid = (await env.business(a.test)).id;
});
afterAll(async () => env?.close());

const full = {
  categoryKey: 'office',
  supplier: { name: 'אופיס דיפו', taxId: TAX_IDS.company2 },
  supplierDocType: 'tax_invoice',
  supplierDocNumber: 'INV-1001',
  supplierDocDate: '2026-02-27',
  amountExVat: 10000,
  vatAmount: 1800,
  note: 'נייר',
};

async function draft(body: Record<string, unknown> = full, headers?: Record<string, string>) {
  const res = await env.call('POST', base(), { key: a.test, body, headers });
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  return res.body.expense;
}

describe('expense categories', () => {
  it('publishes the categories with their VAT deduction share', async () => {
    const res = await env.call('GET', '/v1/expense-categories', { key: a.test });
    expect(res.status).toBe(200);
    const byKey = Object.fromEntries(res.body.categories.map((c: any) => [c.key, c]));
    expect(byKey.vehicle_private.vatDeductible).toEqual({ numerator: 2, denominator: 3 });
    expect(byKey.refreshments.vatDeductible).toEqual({ numerator: 0, denominator: 1 });
    expect(byKey.office.vatDeductible).toEqual({ numerator: 1, denominator: 1 });
  });
});

describe('drafts', () => {
  it('creates a draft, derives the missing amount and reads it back', async () => {
    const e = await draft();
    expect(e).toMatchObject({
      status: 'draft',
      source: 'manual',
      categoryKey: 'office',
      supplierName: 'אופיס דיפו',
      supplierTaxId: TAX_IDS.company2,
      supplierDocDate: '2026-02-27',
      amountExVat: 10000,
      vatAmount: 1800,
      amountIncVat: 11800,
      deductibleVat: null,
      recordedAt: null,
      createdAt: '2026-03-01T08:00:00.000Z',
    });
    expect(e.id).toMatch(/^exp_/);
    const read = await env.call('GET', `${base()}/${e.id}`, { key: a.test });
    expect(read.status).toBe(200);
    expect(read.body.expense).toEqual(e);
    const audit = await env.sql('sandbox', `SELECT action FROM audit_log WHERE entity_id = '${e.id}'`);
    expect(audit.map((r: any) => r.action)).toEqual(['expense.create.manual']);
  });

  it('refuses unknown fields, unknown categories, bad tax ids and inconsistent amounts, naming the field', async () => {
    const cases: [Record<string, unknown>, string][] = [
      [{ bogus: 1 }, 'body.bogus'],
      [{ categoryKey: 'yachts' }, 'body.categoryKey'],
      [{ supplier: { name: 'x', taxId: '123456789' } }, 'body.supplier.taxId'],
      [{ amountExVat: 100, vatAmount: 18, amountIncVat: 119 }, 'body.amountIncVat'],
      [{ amountExVat: 100, vatAmount: -18 }, 'body.vatAmount'],
      [{ supplierDocDate: '2026-02-30' }, 'body.supplierDocDate'],
      [{ amountIncVat: 1.5 }, 'body.amountIncVat'],
      [{ supplier: { partyId: 'pty_nope' } }, 'body.supplier.partyId'],
    ];
    for (const [body, field] of cases) {
      const res = await env.call('POST', base(), { key: a.test, body });
      expect(res.status, JSON.stringify(body)).toBe(400);
      expect(res.body.reason).toBe('validation');
      expect(res.body.error.startsWith(field), res.body.error).toBe(true);
    }
  });

  it('takes the supplier from a saved party', async () => {
    const p = await env.call('POST', `/v1/businesses/${bid}/parties`, { key: a.test, body: { name: 'ספק שמור', kind: 'supplier', taxId: TAX_IDS.person } });
    const e = await draft({ supplier: { partyId: p.body.party.id } });
    expect(e).toMatchObject({ partyId: p.body.party.id, supplierName: 'ספק שמור', supplierTaxId: TAX_IDS.person });
  });

  it('dedupes on Idempotency-Key or externalRef, and refuses a reused key with another body', async () => {
    const first = await draft({ ...full, supplierDocNumber: 'IDEM-1' }, { 'idempotency-key': 'k-1' });
    const again = await env.call('POST', base(), { key: a.test, body: { ...full, supplierDocNumber: 'IDEM-1', externalRef: 'k-1' } });
    expect(again.status).toBe(201);
    expect(again.body.deduped).toBe(true);
    expect(again.body.expense.id).toBe(first.id);
    const other = await env.call('POST', base(), { key: a.test, body: { ...full, supplierDocNumber: 'IDEM-2' }, headers: { 'idempotency-key': 'k-1' } });
    expect(other.status).toBe(409);
    expect(other.body.reason).toBe('conflict');
    const mismatch = await env.call('POST', base(), { key: a.test, body: { externalRef: 'a' }, headers: { 'idempotency-key': 'b' } });
    expect(mismatch.status).toBe(400);
    const rows = await env.sql('sandbox', `SELECT count(*)::int AS n FROM expenses WHERE external_ref = 'k-1'`);
    expect(rows[0].n).toBe(1);
  });

  it('concurrent creates with one idempotency key open exactly one row', async () => {
    const results = await Promise.all(
      Array.from({ length: 6 }, () => env.call('POST', base(), { key: a.test, body: { note: 'race' }, headers: { 'idempotency-key': 'race-1' } })),
    );
    expect(results.map((r) => r.status)).toEqual(Array(6).fill(201));
    expect(new Set(results.map((r) => r.body.expense.id)).size).toBe(1);
    expect(results.filter((r) => r.body.deduped === false)).toHaveLength(1);
    const rows = await env.sql('sandbox', `SELECT count(*)::int AS n FROM expenses WHERE external_ref = 'race-1'`);
    expect(rows[0].n).toBe(1);
  });

  it('the OpenAPI document lists the expense endpoints', async () => {
    const res = await env.call('GET', '/v1/openapi.json');
    expect(res.status).toBe(200);
    for (const p of [
      '/v1/expense-categories',
      '/v1/businesses/{bid}/expenses',
      '/v1/businesses/{bid}/expenses/{id}/correction',
      '/v1/businesses/{bid}/expenses/upload',
      '/v1/businesses/{bid}/expenses/scan',
      '/v1/businesses/{bid}/files/thumbs',
    ]) {
      expect(res.body.paths[p], p).toBeDefined();
    }
  });

  it('patches a draft: omitted fields stay, null clears, an amount edit replaces the three', async () => {
    const e = await draft();
    const res = await env.call('PATCH', `${base()}/${e.id}`, { key: a.test, body: { amountIncVat: 23600, vatAmount: 3600, note: null } });
    expect(res.status).toBe(200);
    expect(res.body.expense).toMatchObject({ amountExVat: 20000, vatAmount: 3600, amountIncVat: 23600, note: null, categoryKey: 'office' });
    const bad = await env.call('PATCH', `${base()}/${e.id}`, { key: a.test, body: { status: 'recorded' } });
    expect(bad.status).toBe(400);
    expect(bad.body.error).toMatch(/^body\.status/);
  });

  it('deletes a draft; a recorded expense answers 404 on delete and 409 not_draft on patch', async () => {
    const d = await draft();
    const del = await env.call('DELETE', `${base()}/${d.id}`, { key: a.test });
    expect(del.status).toBe(200);
    expect(del.body).toEqual({ ok: true });
    expect((await env.call('GET', `${base()}/${d.id}`, { key: a.test })).status).toBe(404);

    const r = await draft();
    expect((await env.call('POST', `${base()}/${r.id}/record`, { key: a.test })).status).toBe(201);
    const del2 = await env.call('DELETE', `${base()}/${r.id}`, { key: a.test });
    expect(del2.status).toBe(404);
    expect(del2.body.reason).toBe('not_found');
    const patch = await env.call('PATCH', `${base()}/${r.id}`, { key: a.test, body: { note: 'x' } });
    expect(patch.status).toBe(409);
    expect(patch.body.reason).toBe('not_draft');
  });

  it("another account's business and expense are not found", async () => {
    const other = await env.account();
    const e = await draft();
    expect((await env.call('GET', `${base()}/${e.id}`, { key: other.test })).status).toBe(404);
    expect((await env.call('GET', base(), { key: other.test })).status).toBe(404);
    const live = await env.call('GET', `${base()}/${e.id}`, { key: a.live });
    expect(live.status).toBe(404);
  });
});

describe('recording', () => {
  it('records: 201, deductible VAT from the category, event expense.recorded, audit', async () => {
    const e = await draft({ ...full, categoryKey: 'vehicle_private', amountExVat: 30000, vatAmount: 5400 });
    env.clock.advance(1000);
    const res = await env.call('POST', `${base()}/${e.id}/record`, { key: a.test });
    expect(res.status).toBe(201);
    expect(res.body.deduped).toBe(false);
    expect(res.body.expense).toMatchObject({ status: 'recorded', amountIncVat: 35400, deductibleVat: 3600, recordedAt: '2026-03-01T08:00:01.000Z' });
    const events = await env.sql('sandbox', `SELECT event, data FROM outbox_events WHERE data->>'expenseId' = '${e.id}'`);
    expect(events).toEqual([{ event: 'expense.recorded', data: { expenseId: e.id, amountIncVat: 35400, supplierName: 'אופיס דיפו' } }]);
    const again = await env.call('POST', `${base()}/${e.id}/record`, { key: a.test });
    expect(again.status).toBe(201);
    expect(again.body.deduped).toBe(true);
    expect((await env.sql('sandbox', `SELECT count(*)::int AS n FROM outbox_events WHERE data->>'expenseId' = '${e.id}'`))[0].n).toBe(1);
  });

  it('no deductible VAT for refreshments, receipts, or an exempt dealer', async () => {
    const refresh = await draft({ ...full, categoryKey: 'refreshments' });
    expect((await env.call('POST', `${base()}/${refresh.id}/record`, { key: a.test })).body.expense.deductibleVat).toBe(0);
    const receipt = await draft({ ...full, supplierDocType: 'receipt' });
    expect((await env.call('POST', `${base()}/${receipt.id}/record`, { key: a.test })).body.expense.deductibleVat).toBe(0);
    const patur = await env.business(a.test, { dealerType: 'patur', taxId: TAX_IDS.person2 });
    const d = await env.call('POST', `/v1/businesses/${patur.id}/expenses`, { key: a.test, body: full });
    const rec = await env.call('POST', `/v1/businesses/${patur.id}/expenses/${d.body.expense.id}/record`, { key: a.test });
    expect(rec.body.expense.deductibleVat).toBe(0);
  });

  it('refuses to record an incomplete draft, naming the missing field', async () => {
    const e = await draft({ categoryKey: 'office', amountIncVat: 1000 });
    const res = await env.call('POST', `${base()}/${e.id}/record`, { key: a.test });
    expect(res.status).toBe(400);
    expect(res.body.error).toMatch(/^expense\.supplierName/);
    await env.call('PATCH', `${base()}/${e.id}`, { key: a.test, body: { supplier: { name: 'ספק' }, supplierDocDate: '2026-02-01' } });
    const res2 = await env.call('POST', `${base()}/${e.id}/record`, { key: a.test });
    expect(res2.status).toBe(400);
    expect(res2.body.error).toMatch(/^expense\.amountExVat/);
  });

  it('a pending or suspended business answers 403 approval_required on record', async () => {
    const b2 = await env.business(a.test, { taxId: TAX_IDS.company });
    const d = await env.call('POST', `/v1/businesses/${b2.id}/expenses`, { key: a.test, body: full });
    expect(d.status).toBe(201);
    await env.sql('sandbox', `UPDATE businesses SET approval_status = 'suspended' WHERE id = '${b2.id}'`);
    const res = await env.call('POST', `/v1/businesses/${b2.id}/expenses/${d.body.expense.id}/record`, { key: a.test });
    expect(res.status).toBe(403);
    expect(res.body.reason).toBe('approval_required');
  });
});

describe('storno', () => {
  it('writes a reversing row, links the original once, and refuses a second correction', async () => {
    const e = await draft({ ...full, categoryKey: 'communication', amountExVat: 10000, vatAmount: 1800 });
    const rec = await env.call('POST', `${base()}/${e.id}/record`, { key: a.test });
    expect(rec.body.expense.deductibleVat).toBe(1200);
    const res = await env.call('POST', `${base()}/${e.id}/correction`, { key: a.test });
    expect(res.status).toBe(201);
    expect(res.body.draft).toBeUndefined();
    expect(res.body.expense).toMatchObject({
      status: 'recorded',
      source: 'reversal',
      reversesExpenseId: e.id,
      amountExVat: -10000,
      vatAmount: -1800,
      amountIncVat: -11800,
      deductibleVat: -1200,
      supplierDocNumber: 'INV-1001',
    });
    const original = (await env.call('GET', `${base()}/${e.id}`, { key: a.test })).body.expense;
    expect(original.reversedByExpenseId).toBe(res.body.expense.id);
    expect(original.updatedAt).toBe(rec.body.expense.updatedAt);
    const events = await env.sql('sandbox', `SELECT data FROM outbox_events WHERE data->>'expenseId' = '${res.body.expense.id}'`);
    expect(events[0].data).toMatchObject({ amountIncVat: -11800 });
    const twice = await env.call('POST', `${base()}/${e.id}/correction`, { key: a.test });
    expect(twice.status).toBe(409);
    expect(twice.body.reason).toBe('conflict');
    const ofReversal = await env.call('POST', `${base()}/${res.body.expense.id}/correction`, { key: a.test });
    expect(ofReversal.status).toBe(409);
  });

  it('a draft cannot be corrected (409 not_draft)', async () => {
    const e = await draft();
    const res = await env.call('POST', `${base()}/${e.id}/correction`, { key: a.test, body: { redraft: true } });
    expect(res.status).toBe(409);
    expect(res.body.reason).toBe('not_draft');
  });

  it('redraft also opens a new draft cloned from the row with the same receipt file', async () => {
    const e = await draft();
    await env.call('POST', `${base()}/${e.id}/record`, { key: a.test });
    const res = await env.call('POST', `${base()}/${e.id}/correction`, { key: a.test, body: { redraft: true } });
    expect(res.status).toBe(201);
    expect(res.body.draft).toMatchObject({
      status: 'draft',
      source: 'redraft',
      supplierName: 'אופיס דיפו',
      amountIncVat: 11800,
      deductibleVat: null,
      reversesExpenseId: null,
    });
  });

  it('the reversal stands when the redraft cannot be opened (monthly ceiling reached between the two)', async () => {
    const b3 = await env.business(a.test);
    const p = `/v1/businesses/${b3.id}/expenses`;
    const d = await env.call('POST', p, { key: a.test, body: full });
    await env.call('POST', `${p}/${d.body.expense.id}/record`, { key: a.test });
    // Ceiling: 2 rows this month for the account; one used, the reversal takes the second.
    await env.sql('live', `UPDATE accounts SET max_expenses_per_month = 2 WHERE id = '${a.id}'`);
    const res = await env.call('POST', `${p}/${d.body.expense.id}/correction`, { key: a.test, body: { redraft: true } });
    await env.sql('live', `UPDATE accounts SET max_expenses_per_month = NULL WHERE id = '${a.id}'`);
    expect(res.status).toBe(201);
    expect(res.body.expense.source).toBe('reversal');
    expect(res.body.draft).toBeUndefined();
    expect(res.body.draftError.reason).toBe('limit_reached');
    const rows = await env.sql('sandbox', `SELECT source FROM expenses WHERE business_id = '${b3.id}' ORDER BY created_at, source`);
    expect(rows.map((r: any) => r.source).sort()).toEqual(['manual', 'reversal']);
  });
});

describe('listing', () => {
  it('filters, pages with before/skip/take, searches q and counts', async () => {
    const b4 = (await env.business(a.test)).id;
    const p = `/v1/businesses/${b4}/expenses`;
    const made: any[] = [];
    for (let i = 0; i < 5; i++) {
      env.clock.advance(1000);
      const res = await env.call('POST', p, {
        key: a.test,
        body: {
          ...full,
          supplier: { name: i % 2 ? 'Paz דלק' : 'Shufersal' },
          supplierDocNumber: `N-${i}`,
          supplierDocDate: `2026-01-0${i + 1}`,
          categoryKey: i % 2 ? 'vehicle_private' : 'office',
        },
      });
      made.push(res.body.expense);
    }
    await env.call('POST', `${p}/${made[0].id}/record`, { key: a.test });
    await env.call('POST', `${p}/${made[1].id}/record`, { key: a.test });

    const all = await env.call('GET', `${p}?counts=1`, { key: a.test });
    expect(all.body.expenses.map((e: any) => e.id)).toEqual(made.map((e) => e.id).reverse());
    expect(all.body.counts).toEqual({ total: 5, byStatus: { draft: 3, recorded: 2 } });

    const recorded = await env.call('GET', `${p}?status=recorded&counts=1`, { key: a.test });
    expect(recorded.body.expenses.map((e: any) => e.id)).toEqual([made[1].id, made[0].id]);
    expect(recorded.body.counts.total).toBe(5);

    const cat = await env.call('GET', `${p}?categoryKey=vehicle_private`, { key: a.test });
    expect(cat.body.expenses).toHaveLength(2);
    const dates = await env.call('GET', `${p}?from=2026-01-02&to=2026-01-03`, { key: a.test });
    expect(dates.body.expenses.map((e: any) => e.supplierDocNumber).sort()).toEqual(['N-1', 'N-2']);
    const q = await env.call('GET', `${p}?q=paz`, { key: a.test });
    expect(q.body.expenses).toHaveLength(2);
    const qNum = await env.call('GET', `${p}?q=N-3`, { key: a.test });
    expect(qNum.body.expenses.map((e: any) => e.id)).toEqual([made[3].id]);
    const qWild = await env.call('GET', `${p}?q=%25`, { key: a.test });
    expect(qWild.body.expenses).toHaveLength(0);

    const page1 = await env.call('GET', `${p}?take=2`, { key: a.test });
    expect(page1.body.expenses.map((e: any) => e.id)).toEqual([made[4].id, made[3].id]);
    const page2 = await env.call('GET', `${p}?take=2&before=${encodeURIComponent(page1.body.expenses[1].createdAt)}`, { key: a.test });
    expect(page2.body.expenses.map((e: any) => e.id)).toEqual([made[2].id, made[1].id]);
    const skipped = await env.call('GET', `${p}?take=2&skip=4`, { key: a.test });
    expect(skipped.body.expenses.map((e: any) => e.id)).toEqual([made[0].id]);

    const bad = await env.call('GET', `${p}?status=open`, { key: a.test });
    expect(bad.status).toBe(400);
    expect(bad.body.error).toMatch(/^querystring\.status/);
  });
});

describe('limits', () => {
  it('300 rows per business per day, then 429 limit_reached until the next Israel day', async () => {
    const b5 = (await env.business(a.test)).id;
    const p = `/v1/businesses/${b5}/expenses`;
    await env.sql('sandbox', `INSERT INTO usage_daily(day, subject, metric, count) VALUES ('2026-03-01', 'biz:${b5}', 'expense_rows_opened', 299)`);
    expect((await env.call('POST', p, { key: a.test, body: {} })).status).toBe(201);
    const res = await env.call('POST', p, { key: a.test, body: {} });
    expect(res.status).toBe(429);
    expect(res.body.reason).toBe('limit_reached');
    const rows = await env.sql('sandbox', `SELECT count(*)::int AS n FROM expenses WHERE business_id = '${b5}'`);
    expect(rows[0].n).toBe(1);
    env.clock.set('2026-03-01T22:30:00.000Z'); // 00:30 on March 2nd in Israel
    expect((await env.call('POST', p, { key: a.test, body: {} })).status).toBe(201);
    env.clock.set('2026-03-01T08:10:00.000Z');
  });

  it('the monthly ceiling (maxExpensesPerMonth) answers 429 limit_reached, and counts usage', async () => {
    const acct = await env.account();
    const b6 = (await env.business(acct.test)).id;
    await env.sql('live', `UPDATE accounts SET max_expenses_per_month = 2 WHERE id = '${acct.id}'`);
    const p = `/v1/businesses/${b6}/expenses`;
    expect((await env.call('POST', p, { key: acct.test, body: {} })).status).toBe(201);
    expect((await env.call('POST', p, { key: acct.test, body: {} })).status).toBe(201);
    const res = await env.call('POST', p, { key: acct.test, body: {} });
    expect(res.status).toBe(429);
    expect(res.body.reason).toBe('limit_reached');
    expect(res.body.error).toMatch(/monthly/);
    const usage = await env.sql('sandbox', `SELECT count FROM usage_daily WHERE subject = 'acct:${acct.id}' AND metric = 'expense_rows'`);
    expect(Number(usage[0].count)).toBe(2);
  });
});

describe('audit', () => {
  it('every expense write left an audit row and the chains verify', async () => {
    const actions = await env.sql('sandbox', `SELECT DISTINCT action FROM audit_log WHERE entity_type = 'expense' ORDER BY action`);
    expect(actions.map((r: any) => r.action)).toEqual(
      expect.arrayContaining([
        'expense.create.manual',
        'expense.create.reversal',
        'expense.create.redraft',
        'expense.delete',
        'expense.record',
        'expense.reverse',
        'expense.update',
      ]),
    );
    const check = await verifyAuditChains(env.db.sandbox.db);
    expect(check.problems).toEqual([]);
    expect(check.ok).toBe(true);
  });
});

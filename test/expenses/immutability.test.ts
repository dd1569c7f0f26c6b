import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestEnv, type TestAccount, type TestEnv } from '../helpers/env.ts';
import { dataUri, jpeg } from './fixtures.ts';

let env: TestEnv;
let a: TestAccount;
let bid: string;
let recorded: any;
let reversal: any;
let draftId: string;

beforeAll(async () => {
  env = await createTestEnv();
  a = await env.account();
  bid = (await env.business(a.test)).id;
  const p = `/v1/businesses/${bid}/expenses`;
  const up = await env.call('POST', `${p}/upload`, { key: a.test, body: { file: dataUri('image/jpeg', await jpeg()) } });
  const id = up.body.expense.id;
  await env.call('PATCH', `${p}/${id}`, {
    key: a.test,
    body: { categoryKey: 'office', supplier: { name: 'ספק' }, supplierDocDate: '2026-02-01', amountIncVat: 11800, vatAmount: 1800 },
  });
  recorded = (await env.call('POST', `${p}/${id}/record`, { key: a.test })).body.expense;
  const other = await env.call('POST', p, {
    key: a.test,
    body: { categoryKey: 'office', supplier: { name: 'x' }, supplierDocDate: '2026-02-02', amountIncVat: 500, vatAmount: 0 },
  });
  await env.call('POST', `${p}/${other.body.expense.id}/record`, { key: a.test });
  reversal = (await env.call('POST', `${p}/${other.body.expense.id}/correction`, { key: a.test })).body.expense;
  draftId = (await env.call('POST', p, { key: a.test, body: { note: 'draft' } })).body.expense.id;
});
afterAll(async () => env?.close());

async function refused(statement: string, why?: RegExp) {
  const err = await env.sql('sandbox', statement).then(
    () => null,
    (e: unknown) => e,
  );
  expect(err, statement).not.toBeNull();
  if (why) expect(String((err as { cause?: { message?: string } }).cause?.message ?? (err as Error).message), statement).toMatch(why);
}

describe('the database protects recorded expenses', () => {
  it('refuses any change to a recorded row', async () => {
    for (const set of [
      `amount_inc_vat = 1`,
      `note = 'edited'`,
      `status = 'draft', recorded_at = NULL`,
      `category_key = 'gifts'`,
      `deductible_vat = 0`,
      `receipt_file_id = NULL`,
      `updated_at = now()`,
    ]) {
      await refused(`UPDATE expenses SET ${set} WHERE id = '${recorded.id}'`, /immutable|violates/);
    }
    const row = (await env.sql('sandbox', `SELECT amount_inc_vat, note, status FROM expenses WHERE id = '${recorded.id}'`))[0];
    expect(row).toMatchObject({ amount_inc_vat: 11800, status: 'recorded' });
  });

  it('the reversal link is set once only, and never together with another change', async () => {
    await refused(`UPDATE expenses SET reversed_by_expense_id = NULL WHERE id = '${reversal.reversesExpenseId}'`);
    await refused(`UPDATE expenses SET reversed_by_expense_id = '${recorded.id}' WHERE id = '${reversal.reversesExpenseId}'`);
    await refused(`UPDATE expenses SET reversed_by_expense_id = '${reversal.id}', note = 'x' WHERE id = '${recorded.id}'`);
  });

  it('refuses deleting a recorded row, a storno row, or truncating', async () => {
    await refused(`DELETE FROM expenses WHERE id = '${recorded.id}'`);
    await refused(`DELETE FROM expenses WHERE id = '${reversal.id}'`);
    await refused(`DELETE FROM expenses WHERE status = 'recorded'`);
    await refused(`TRUNCATE expenses CASCADE`);
    expect((await env.sql('sandbox', `SELECT count(*)::int AS n FROM expenses WHERE status = 'recorded'`))[0].n).toBe(3);
  });

  it('refuses a recorded row whose amounts do not add up, or without its required fields', async () => {
    await refused(
      `INSERT INTO expenses(id, business_id, status, source, category_key, supplier_name, supplier_doc_date, amount_ex_vat, vat_amount, amount_inc_vat, deductible_vat, recorded_at, created_at, updated_at)
       VALUES ('exp_bad1', '${bid}', 'recorded', 'manual', 'office', 's', '2026-01-01', 100, 18, 119, 18, now(), now(), now())`,
    );
    await refused(
      `INSERT INTO expenses(id, business_id, status, source, amount_inc_vat, recorded_at, created_at, updated_at)
       VALUES ('exp_bad2', '${bid}', 'recorded', 'manual', 100, now(), now(), now())`,
    );
    await refused(`UPDATE expenses SET status = 'recorded', recorded_at = now() WHERE id = '${draftId}'`);
  });

  it('a second reversal of the same row is refused by the database', async () => {
    await refused(
      `INSERT INTO expenses(id, business_id, status, source, category_key, supplier_name, supplier_doc_date, amount_ex_vat, vat_amount, amount_inc_vat, deductible_vat, reverses_expense_id, recorded_at, created_at, updated_at)
       VALUES ('exp_bad3', '${bid}', 'recorded', 'reversal', 'office', 's', '2026-01-01', -500, 0, -500, 0, '${reversal.reversesExpenseId}', now(), now(), now())`,
    );
  });

  it('drafts stay free to change and delete', async () => {
    await env.sql('sandbox', `UPDATE expenses SET note = 'changed' WHERE id = '${draftId}'`);
    await env.sql('sandbox', `DELETE FROM expenses WHERE id = '${draftId}'`);
    expect(await env.sql('sandbox', `SELECT 1 FROM expenses WHERE id = '${draftId}'`)).toEqual([]);
  });
});

describe('the database protects stored files', () => {
  it('file content, hash, size, mime and owner never change', async () => {
    const f = recorded.receiptFileId;
    const other = (await env.business(a.test)).id;
    for (const set of [`content = '\\x00'::bytea`, `sha256 = 'x'`, `size = 1`, `mime = 'text/plain'`, `business_id = '${other}'`]) {
      await refused(`UPDATE files SET ${set} WHERE id = '${f}'`, /immutable/);
    }
  });

  it('the receipt of a recorded expense cannot be deleted; an unused file can', async () => {
    await refused(`DELETE FROM files WHERE id = '${recorded.receiptFileId}'`, /receipt of a recorded expense/);
    await env.sql(
      'sandbox',
      `INSERT INTO files(id, business_id, sha256, mime, size, name, content, created_at) VALUES ('file_loose', '${bid}', 'abc', 'text/plain', 1, 'x', '\\x41'::bytea, now())`,
    );
    await env.sql('sandbox', `DELETE FROM files WHERE id = 'file_loose'`);
  });
});

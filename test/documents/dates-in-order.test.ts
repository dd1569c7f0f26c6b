/**
 * Dates in order and closed months closed to sales (issue 29, decisions.md "Books: dates, periods"):
 * a document is not dated after the day it is issued (Israel time), nor before the latest issued
 * document of its series; a draft without a date takes the day it is issued; a document dated in a
 * closed month is refused 422 `period_closed`; months close in order and the last one reopens with a
 * reason, audited, with the event `ledger.period_reopened`. The database holds the rules against raw SQL.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestEnv, type TestAccount, type TestEnv } from '../helpers/env.ts';
import { ManualClock } from '../../src/platform/clock.ts';

let env: TestEnv;
let a: TestAccount;
// Tuesday 2026-05-12, 23:30 in Israel (20:30 UTC): the Israel day is already the 12th, not the 11th in UTC terms.
const clock = new ManualClock('2026-05-12T20:30:00.000Z');
beforeAll(async () => {
  env = await createTestEnv({ clock });
  a = await env.account();
});
afterAll(async () => env?.close());

const line = { description: 'ייעוץ', quantity: 1, unitPriceExVat: 10_000 };
const docs = (bid: string) => `/v1/businesses/${bid}/documents`;

async function draft(bid: string, body: Record<string, unknown> = {}) {
  const r = await env.call('POST', docs(bid), { key: a.test, body: { docType: 305, lines: [line], ...body } });
  expect(r.status, JSON.stringify(r.body)).toBe(201);
  return r.body.document;
}
const issue = (bid: string, id: string) => env.call('POST', `${docs(bid)}/${id}/issue`, { key: a.test });

describe('document dates at issue', () => {
  it('a date after today (Israel time) is refused 409 naming the rule; today itself is taken', async () => {
    const bid = (await env.business(a.test)).id;
    const tomorrow = await draft(bid, { documentDate: '2026-05-13' });
    const r = await issue(bid, tomorrow.id);
    expect(r.status).toBe(409);
    expect(r.body).toMatchObject({ reason: 'conflict' });
    expect(r.body.error).toContain('2026-05-13 is after today (2026-05-12, Israel time)');
    const today = await draft(bid, { documentDate: '2026-05-12' });
    expect((await issue(bid, today.id)).status).toBe(201);
    // Nothing was taken by the refusal: the series goes on from 1.
    expect((await env.call('GET', `${docs(bid)}/${today.id}`, { key: a.test })).body.document.docNumber).toBe(1);
  });

  it('a date before the latest issued document of the series is refused naming that document; other series are apart', async () => {
    const bid = (await env.business(a.test)).id;
    const later = await draft(bid, { documentDate: '2026-04-11' });
    expect((await issue(bid, later.id)).status).toBe(201);
    const earlier = await draft(bid, { documentDate: '2026-02-15' });
    const r = await issue(bid, earlier.id);
    expect(r.status).toBe(409);
    expect(r.body.error).toContain('2026-02-15 is before 2026-04-11, the date of 305 #1');
    // The refused draft stays a draft, and the counter did not move.
    expect((await env.call('GET', `${docs(bid)}/${earlier.id}`, { key: a.test })).body.document).toMatchObject({ status: 'draft', docNumber: null });
    const sameDay = await draft(bid, { documentDate: '2026-04-11' });
    expect((await issue(bid, sameDay.id)).body.document.docNumber).toBe(2);
    // A receipt (series 400) dated earlier is not held by the 305s.
    const receipt = await draft(bid, { docType: 400, lines: [], payments: [{ method: 'cash', amount: 1_000 }], documentDate: '2026-02-15' });
    expect((await issue(bid, receipt.id)).status).toBe(201);
    // A patched date that keeps the order is taken.
    expect((await env.call('PATCH', `${docs(bid)}/${earlier.id}`, { key: a.test, body: { documentDate: '2026-04-20' } })).status).toBe(200);
    expect((await issue(bid, earlier.id)).body.document).toMatchObject({ docNumber: 3, documentDate: '2026-04-20' });
  });

  it('a draft created without a date takes the day it is issued (its value date with it); a given date stays', async () => {
    const bid = (await env.business(a.test)).id;
    const undated = await draft(bid);
    const dated = await draft(bid, { documentDate: '2026-05-12', valueDate: '2026-05-20' });
    expect(undated.documentDate).toBe('2026-05-12');
    clock.advance(3 * 86_400_000);
    const r = await issue(bid, undated.id);
    expect(r.status, JSON.stringify(r.body)).toBe(201);
    expect(r.body.document).toMatchObject({ documentDate: '2026-05-15', valueDate: '2026-05-15' });
    const [row] = await env.sql<any>('sandbox', `SELECT document_date::text AS d, snapshot->>'documentDate' AS s FROM documents WHERE id = '${undated.id}'`);
    expect(row).toEqual({ d: '2026-05-15', s: '2026-05-15' });
    // The dated draft keeps its dates, though the series went on to the 15th: refused, naming the document.
    const refused = await issue(bid, dated.id);
    expect(refused.status).toBe(409);
    expect(refused.body.error).toContain('before 2026-05-15, the date of 305 #1');
    clock.advance(-3 * 86_400_000);
  });

  it('a credit note is dated the day it is issued', async () => {
    const bid = (await env.business(a.test)).id;
    const d = await draft(bid, { documentDate: '2026-05-01' });
    expect((await issue(bid, d.id)).status).toBe(201);
    const credit = await env.call('POST', `${docs(bid)}/${d.id}/credit-note`, { key: a.test, body: { reason: 'החזרה' } });
    expect(credit.status, JSON.stringify(credit.body)).toBe(201);
    expect(credit.body.document.documentDate).toBe('2026-05-12');
  });
});

describe('closed months', () => {
  const periods = (bid: string) => `/v1/businesses/${bid}/ledger/periods`;
  const close = (bid: string, p: string) => env.call('POST', `${periods(bid)}/${p}/close`, { key: a.test });
  const reopen = (bid: string, p: string, reason?: string) =>
    env.call('POST', `${periods(bid)}/${p}/reopen`, { key: a.test, body: reason === undefined ? {} : { reason } });

  it('a document dated in a closed month is refused 422 period_closed, and nothing is written', async () => {
    const bid = (await env.business(a.test)).id;
    expect((await close(bid, '2026-03')).status).toBe(201);
    const d = await draft(bid, { documentDate: '2026-03-30' });
    const r = await issue(bid, d.id);
    expect(r.status).toBe(422);
    expect(r.body.reason).toBe('period_closed');
    expect(r.body.error).toContain('2026-03-30 is in 2026-03, a closed period');
    const [counts] = await env.sql<any>(
      'sandbox',
      `SELECT (SELECT count(*)::int FROM journal_entries WHERE business_id = '${bid}') AS entries,
              (SELECT count(*)::int FROM document_counters WHERE business_id = '${bid}' AND last_number IS NOT NULL) AS counters`,
    );
    expect(counts).toEqual({ entries: 0, counters: 0 });
    const april = await draft(bid, { documentDate: '2026-04-01' });
    expect((await issue(bid, april.id)).status).toBe(201);
  });

  it('months close in order; only the last closed one reopens, with a reason, audited, with an event; then it takes documents', async () => {
    const bid = (await env.business(a.test)).id;
    expect((await close(bid, '2026-02')).status).toBe(201);
    const skip = await close(bid, '2026-04');
    expect(skip.status).toBe(409);
    expect(skip.body.error).toContain('the next one to close is 2026-03');
    expect((await close(bid, '2026-01')).status).toBe(409);
    expect((await close(bid, '2026-03')).status).toBe(201);

    expect((await reopen(bid, '2026-03')).status).toBe(400);
    expect((await reopen(bid, '2026-03', '   ')).status).toBe(400);
    const notLast = await reopen(bid, '2026-02', 'תיקון');
    expect(notLast.status).toBe(409);
    expect(notLast.body.error).toContain('only the last closed period may be reopened');
    expect((await reopen(bid, '2025-12', 'תיקון')).status).toBe(404);

    const d = await draft(bid, { documentDate: '2026-03-30' });
    expect((await issue(bid, d.id)).body.reason).toBe('period_closed');
    const r = await reopen(bid, '2026-03', 'חשבונית שנשכחה');
    expect(r.status, JSON.stringify(r.body)).toBe(200);
    expect(r.body.period).toMatchObject({ period: '2026-03', reason: 'חשבונית שנשכחה' });
    expect((await env.call('GET', periods(bid), { key: a.test })).body.closed.map((p: any) => p.period)).toEqual(['2026-02']);
    const issued = await issue(bid, d.id);
    expect(issued.status, JSON.stringify(issued.body)).toBe(201);
    const [entry] = await env.sql<any>('sandbox', `SELECT entry_date::text AS d FROM journal_entries WHERE document_id = '${d.id}'`);
    expect(entry.d).toBe('2026-03-30');

    const audit = await env.sql<any>('sandbox', `SELECT after FROM audit_log WHERE business_id = '${bid}' AND action = 'ledger.period.reopen'`);
    expect(audit.map((x) => (typeof x.after === 'string' ? JSON.parse(x.after) : x.after))).toEqual([{ period: '2026-03', reason: 'חשבונית שנשכחה' }]);
    const events = await env.sql<any>('sandbox', `SELECT data FROM outbox_events WHERE business_id = '${bid}' AND event = 'ledger.period_reopened'`);
    expect(events).toHaveLength(1);
    // Closed again later, as a new close.
    clock.advance(1_000);
    expect((await close(bid, '2026-03')).status).toBe(201);
    expect((await env.call('GET', periods(bid), { key: a.test })).body.closed.map((p: any) => p.period)).toEqual(['2026-02', '2026-03']);
  });

  it('raw SQL cannot reopen a month that is not the last, change a close, delete it, or close out of order', async () => {
    const bid = (await env.business(a.test)).id;
    expect((await close(bid, '2026-01')).status).toBe(201);
    expect((await close(bid, '2026-02')).status).toBe(201);
    const where = `business_id = '${bid}' AND period = '2026-01-01'`;
    await expect(env.sql('sandbox', `UPDATE ledger_periods SET reopened_at = now(), reopen_reason = 'x' WHERE ${where}`)).rejects.toThrow();
    await expect(env.sql('sandbox', `UPDATE ledger_periods SET closed_at = now() WHERE ${where}`)).rejects.toThrow();
    await expect(env.sql('sandbox', `DELETE FROM ledger_periods WHERE business_id = '${bid}'`)).rejects.toThrow();
    await expect(env.sql('sandbox', `INSERT INTO ledger_periods(business_id, period, closed_at) VALUES ('${bid}', '2026-04-01', now())`)).rejects.toThrow();
    await expect(env.sql('sandbox', `UPDATE ledger_periods SET reopened_at = now() WHERE business_id = '${bid}' AND period = '2026-02-01'`)).rejects.toThrow(); // a reopening needs its reason
    const rows = await env.sql<any>('sandbox', `SELECT period::text AS p, reopened_at FROM ledger_periods WHERE business_id = '${bid}' ORDER BY period`);
    expect(rows).toEqual([
      { p: '2026-01-01', reopened_at: null },
      { p: '2026-02-01', reopened_at: null },
    ]);
  });
});

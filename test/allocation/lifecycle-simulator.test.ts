import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestEnv, type TestAccount, type TestEnv } from '../helpers/env.ts';
import { JobRunner, getJob } from '../../src/platform/jobs.ts';
import { createServices } from '../../src/services.ts';
import { allJobHandlers } from '../../src/domains.ts';
import { ALLOCATION_MAX_ATTEMPTS, allocationBackoffMs } from '../../src/allocation/lifecycle.ts';
import { docRow, events, insertDraft, insertPendingIssued } from './fixtures.ts';

let env: TestEnv;
let acct: TestAccount;
let biz: any;

const runner = () => new JobRunner({ databases: env.s.databases, clock: env.clock, logger: env.s.logger }, allJobHandlers(env.s));

beforeAll(async () => {
  env = await createTestEnv({ env: { ITA_TIMEOUT_MS: '50' } });
  acct = await env.account();
  biz = await env.business(acct.test);
});
afterAll(async () => env?.close());

describe('allocation lifecycle on the sandbox simulator', () => {
  it('pending → granted: sets the number once, clears the warning, fires document.allocation_assigned', async () => {
    const id = await insertPendingIssued(env, 'sandbox', biz);
    expect((await docRow(env, 'sandbox', id)).allocation.status).toBe('pending');
    await runner().runDue('sandbox');
    const row = await docRow(env, 'sandbox', id);
    expect(row.allocation_number).toMatch(/^[1-9]\d{8}$/);
    expect(row.allocation).toMatchObject({ status: 'granted', number: row.allocation_number, error: null });
    expect(row.allocation.decidedAt).toBe(env.clock.now().toISOString());
    expect(row.warnings.map((w: any) => w.code)).not.toContain('allocation_missing');
    const evts = (await events(env, 'sandbox', 'document.allocation_assigned')).filter((e) => e.data.documentId === id);
    expect(evts).toEqual([{ data: { documentId: id, allocationNumber: row.allocation_number } }]);
    const doc = await env.call('GET', `/v1/businesses/${biz.id}/documents/${id}`, { key: acct.test });
    if (doc.status === 200) expect(doc.body.document.allocationNumber).toBe(row.allocation_number);
  });

  it('the database refuses to change or clear a granted number', async () => {
    const id = await insertPendingIssued(env, 'sandbox', biz);
    await runner().runDue('sandbox');
    await expect(env.sql('sandbox', `UPDATE documents SET allocation_number = '123456789' WHERE id = '${id}'`)).rejects.toThrow();
    await expect(env.sql('sandbox', `UPDATE documents SET allocation_number = NULL WHERE id = '${id}'`)).rejects.toThrow();
  });

  it.each([
    ['a note keyword', { note: 'הערה [sim:432]' }, '432'],
    ['the amount agorot .34', { totalExVat: 1_500_034 }, '434'],
    ['a note keyword 436', { note: '[SIM:436]' }, '436'],
    ['a wrong customer check digit', { partyTaxId: '516179158' }, '432'],
  ])('pending → refused by %s (%s): not retried, warning and document.allocation_failed', async (_what, opts, code) => {
    const id = await insertPendingIssued(env, 'sandbox', biz, opts);
    await runner().runDue('sandbox');
    const row = await docRow(env, 'sandbox', id);
    expect(row.allocation_number).toBeNull();
    expect(row.allocation.status).toBe('refused');
    expect(row.allocation.error).toMatch(new RegExp(`^${code}: `));
    expect(row.warnings.map((w: any) => w.code)).toEqual(['allocation_refused']);
    const job = await getJob(env.db.sandbox.db, 'document.allocation', id);
    expect(job).toMatchObject({ attempts: 1, failedAt: null });
    expect(job!.doneAt).not.toBeNull();
    const evts = (await events(env, 'sandbox', 'document.allocation_failed')).filter((e) => e.data.documentId === id);
    expect(evts).toHaveLength(1);
    expect(evts[0].data).toMatchObject({ status: 'refused', code });
  });

  it('pending → (transport errors) → granted after retries with backoff', async () => {
    const id = await insertPendingIssued(env, 'sandbox', biz, { note: '[sim:flaky]' });
    await runner().runDue('sandbox');
    let row = await docRow(env, 'sandbox', id);
    expect(row.allocation.status).toBe('pending');
    expect(row.allocation.error).toMatch(/^attempt 1: http_503/);
    // Not due again before the backoff.
    env.clock.advance(allocationBackoffMs(1) - 1);
    expect(await runner().runDue('sandbox')).toBe(0);
    env.clock.advance(1);
    await runner().runDue('sandbox');
    expect((await docRow(env, 'sandbox', id)).allocation.error).toMatch(/^attempt 2: /);
    env.clock.advance(allocationBackoffMs(2));
    await runner().runDue('sandbox');
    row = await docRow(env, 'sandbox', id);
    expect(row.allocation).toMatchObject({ status: 'granted', error: null });
    expect(row.allocation_number).toMatch(/^\d{9}$/);
  });

  it('pending → failed when the authority never answers (timeout) until the retries run out', async () => {
    const id = await insertPendingIssued(env, 'sandbox', biz, { note: '[sim:hang]' });
    for (let attempt = 1; attempt <= ALLOCATION_MAX_ATTEMPTS; attempt++) {
      expect(await runner().runDue('sandbox')).toBeGreaterThanOrEqual(1);
      if (attempt < ALLOCATION_MAX_ATTEMPTS) expect((await docRow(env, 'sandbox', id)).allocation).toMatchObject({ status: 'pending' });
      env.clock.advance(allocationBackoffMs(attempt));
    }
    const row = await docRow(env, 'sandbox', id);
    expect(row.allocation.status).toBe('failed');
    expect(row.allocation.error).toMatch(/did not answer within 50 ms/);
    expect(row.warnings.map((w: any) => w.code)).toEqual(['allocation_failed']);
    const evts = (await events(env, 'sandbox', 'document.allocation_failed')).filter((e) => e.data.documentId === id);
    expect(evts.map((e) => e.data.status)).toEqual(['failed']);
    expect((await getJob(env.db.sandbox.db, 'document.allocation', id))!.failedAt).not.toBeNull();
  });

  it('a restart while requests are pending loses none (including a claim whose process died)', async () => {
    const ids = [
      await insertPendingIssued(env, 'sandbox', biz, { totalExVat: 2_000_000 }),
      await insertPendingIssued(env, 'sandbox', biz, { totalExVat: 3_000_000 }),
      await insertPendingIssued(env, 'sandbox', biz, { totalExVat: 4_000_000 }),
    ];
    // The first was claimed by a process that crashed mid-request: its lease is still running.
    const lease = new Date(env.clock.now().getTime() + 120_000).toISOString();
    await env.sql('sandbox', `UPDATE jobs SET attempts = 1, locked_until = '${lease}' WHERE ref_id = '${ids[0]}'`);
    // A new process: new services (a fresh simulator), new runner, same databases.
    const s2 = createServices(env.s.config, env.clock, env.s.logger, env.s.databases);
    const runner2 = new JobRunner({ databases: s2.databases, clock: env.clock, logger: s2.logger }, allJobHandlers(s2));
    await runner2.runDue('sandbox');
    expect((await docRow(env, 'sandbox', ids[0])).allocation.status).toBe('pending');
    expect((await docRow(env, 'sandbox', ids[1])).allocation.status).toBe('granted');
    env.clock.advance(120_000);
    await runner2.runDue('sandbox');
    for (const id of ids) expect((await docRow(env, 'sandbox', id)).allocation.status).toBe('granted');
  });

  it('raw SQL: editing the figures of a draft drops the number it was granted; other edits keep it', async () => {
    const id = await insertDraft(env, 'sandbox', biz);
    const res = await env.call('POST', `/v1/businesses/${biz.id}/documents/${id}/allocation`, { key: acct.test });
    expect(res.body.document.allocationNumber).toMatch(/^\d{9}$/);
    await env.sql('sandbox', `UPDATE documents SET value_date = '2026-03-05' WHERE id = '${id}'`);
    expect((await docRow(env, 'sandbox', id)).allocation_number).toBe(res.body.document.allocationNumber);
    await env.sql('sandbox', `UPDATE documents SET discount_amount = 100 WHERE id = '${id}'`);
    const row = await docRow(env, 'sandbox', id);
    expect(row.allocation_number).toBeNull();
    expect(row.allocation).toMatchObject({ status: 'failed', number: null });
  });

  it('the same invoice always gets the same simulated number (deterministic)', async () => {
    const { simulatedConfirmation } = await import('../../src/allocation/simulator.ts');
    const input = {
      businessId: 'b',
      invoiceId: 'doc_x',
      invoiceType: 305,
      vatNumber: '516179157',
      invoiceReferenceNumber: '7',
      customerVatNumber: '512200502',
      customerName: null,
      invoiceDate: '2026-07-01',
      invoiceIssuanceDate: '2026-07-01',
      amountBeforeDiscount: 600_000,
      discount: 0,
      paymentAmount: 600_000,
      vatAmount: 108_000,
      paymentAmountIncludingVat: 708_000,
      note: null,
    };
    expect(simulatedConfirmation(input)).toBe(simulatedConfirmation({ ...input }));
    expect(simulatedConfirmation(input)).not.toBe(simulatedConfirmation({ ...input, invoiceId: 'doc_y' }));
  });
});

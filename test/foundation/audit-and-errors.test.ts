import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import Fastify from 'fastify';
import { sql } from 'drizzle-orm';
import { createTestEnv, type TestEnv, type TestAccount } from '../helpers/env.ts';
import { verifyAuditChains } from '../../src/platform/audit.ts';
import { installErrorHandler } from '../../src/platform/http/error-handler.ts';

let env: TestEnv;
let a: TestAccount;
beforeAll(async () => {
  env = await createTestEnv();
  a = await env.account();
});
afterAll(async () => env?.close());

describe('audit trail', () => {
  it('is hash-chained per business and the walk verifies it', async () => {
    const b = await env.business(a.test);
    await env.call('PATCH', `/v1/businesses/${b.id}`, { key: a.test, body: { name: 'one' } });
    await env.call('POST', `/v1/businesses/${b.id}/parties`, { key: a.test, body: { name: 'p' } });
    const check = await verifyAuditChains(env.db.sandbox.db, `biz:${b.id}`);
    expect(check).toMatchObject({ ok: true, chains: 1, rows: 3, problems: [] });
    const rows = await env.sql<{ prev_hash: string; hash: string }>(
      'sandbox',
      `SELECT prev_hash, hash FROM audit_log WHERE chain = 'biz:${b.id}' ORDER BY seq`,
    );
    expect(rows[0].prev_hash).toBe('0'.repeat(64));
    expect(rows[1].prev_hash).toBe(rows[0].hash);
    expect(rows[2].prev_hash).toBe(rows[1].hash);
  });

  it.each([
    ['UPDATE', "UPDATE audit_log SET action = 'forged'"],
    ['DELETE', 'DELETE FROM audit_log'],
    ['TRUNCATE', 'TRUNCATE audit_log'],
  ])('the database refuses %s on the audit table', async (op, statement) => {
    await env.business(a.test);
    await expect(env.sql('sandbox', statement)).rejects.toThrow();
    try {
      await env.sql('sandbox', statement);
    } catch (err) {
      expect(String((err as { cause?: Error }).cause?.message ?? err)).toContain(`audit_log is append-only: ${op} refused`);
    }
    expect((await verifyAuditChains(env.db.sandbox.db)).ok).toBe(true);
  });

  it('the walk detects a row changed behind the trigger’s back', async () => {
    const b = await env.business(a.test);
    await env.call('PATCH', `/v1/businesses/${b.id}`, { key: a.test, body: { name: 'two' } });
    // Only the table owner can switch the trigger off; the walk must still catch the forgery.
    await env.db.sandbox.db.transaction(async (tx) => {
      await tx.execute(sql`ALTER TABLE audit_log DISABLE TRIGGER audit_log_no_update`);
      await tx.execute(sql.raw(`UPDATE audit_log SET after = '{"name":"forged"}'::jsonb WHERE chain = 'biz:${b.id}' AND action = 'business.update'`));
      await tx.execute(sql`ALTER TABLE audit_log ENABLE TRIGGER audit_log_no_update`);
    });
    const check = await verifyAuditChains(env.db.sandbox.db, `biz:${b.id}`);
    expect(check.ok).toBe(false);
    expect(check.problems[0]).toMatchObject({ chain: `biz:${b.id}`, problem: 'hash does not match the row' });
  });
});

describe('one error model', () => {
  it('malformed JSON is 400 validation', async () => {
    const r = await env.call('POST', '/v1/businesses', { key: a.test, headers: { 'content-type': 'application/json' }, payload: '{"name": ' });
    expect(r.status).toBe(400);
    expect(r.body).toEqual({ error: 'body: malformed JSON', reason: 'validation', requestId: expect.stringMatching(/^req_/) });
  });

  it('an oversize body is 413 too_large', async () => {
    const r = await env.call('POST', '/v1/businesses', { key: a.test, body: { name: 'x'.repeat(1_100_000) } });
    expect(r.status).toBe(413);
    expect(r.body.reason).toBe('too_large');
  });

  it('an unknown route is 404 not_found', async () => {
    const r = await env.call('GET', '/v1/nothing-here', { key: a.test });
    expect(r.status).toBe(404);
    expect(r.body.reason).toBe('not_found');
  });

  it('a string where a number belongs is refused, not coerced', async () => {
    const r = await env.call('POST', '/v1/businesses', {
      key: a.test,
      body: { name: 'x', taxId: '516179157', dealerType: 'company', requireAllocation: 'true' },
    });
    expect(r.status).toBe(400);
    expect(r.body.error).toContain('body.requireAllocation');
  });

  it('an unexpected error is 500 internal, with no stack and no SQL in the body', async () => {
    const app = Fastify({ logger: false });
    installErrorHandler(app);
    app.get('/boom', async () => {
      const e = new Error('duplicate key value violates unique constraint "secret_idx" at SELECT * FROM accounts');
      (e as { stack?: string }).stack = 'Error: at /work/main/src/x.ts:1:1';
      throw e;
    });
    const r = await app.inject({ method: 'GET', url: '/boom' });
    expect(r.statusCode).toBe(500);
    expect(r.json()).toEqual({ error: 'internal error; it was logged', reason: 'internal', requestId: expect.any(String) });
    expect(r.body).not.toContain('SELECT');
    expect(r.body).not.toContain('src/');
    await app.close();
  });
});

describe('usage', () => {
  it('GET /usage answers per-day counts for the account in the key mode', async () => {
    const acc = await env.account();
    await env.call('GET', '/v1/keys', { key: acc.test });
    await env.call('GET', '/v1/keys', { key: acc.test });
    env.clock.advance(24 * 3600_000);
    await env.call('GET', '/v1/keys', { key: acc.test });
    const r = await env.call('GET', '/v1/usage?days=3', { key: acc.test });
    expect(r.status).toBe(200);
    expect(r.body.mode).toBe('sandbox');
    expect(r.body.days).toHaveLength(3);
    expect(r.body.days.map((d: any) => d.requests)).toEqual([0, 2, 2]);
    expect(r.body.days[2]).toEqual({ date: '2026-03-02', requests: 2, documentsIssued: 0, expenseRows: 0, ocrScans: 0, emailsSent: 0 });
    const live = await env.call('GET', '/v1/usage?days=1', { key: acc.live });
    expect(live.body.days[0].requests).toBe(1);
    expect((await env.call('GET', '/v1/usage', { key: acc.test })).body.days).toHaveLength(30);
    for (const bad of ['0', '91', 'x']) expect((await env.call('GET', `/v1/usage?days=${bad}`, { key: acc.test })).status).toBe(400);
  });
});

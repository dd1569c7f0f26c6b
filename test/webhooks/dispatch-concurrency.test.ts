import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { createTestEnv, type TestAccount, type TestEnv } from '../helpers/env.ts';
import { openPool, type Database } from '../../src/platform/db/engine.ts';
import { recordEvent } from '../../src/platform/outbox.ts';
import { createServices } from '../../src/services.ts';
import type { Services } from '../../src/platform/http/services.ts';
import { closeWebhookSender, setWebhookResolver } from '../../src/webhooks/runtime.ts';
import { WebhookDispatcher } from '../../src/webhooks/dispatcher.ts';
import { Receiver } from './receiver.ts';

let env: TestEnv;
let receiver: Receiver;
let acct: TestAccount;
/** A second "process": its own services and its own connection pool to the same database. */
let second: Services;
let secondDb: Database | null = null;
const resolver = async () => ['127.0.0.1'];

beforeAll(async () => {
  receiver = new Receiver();
  await receiver.start();
  env = await createTestEnv({ env: { WEBHOOK_ALLOW_PRIVATE_TARGETS: 'true', WEBHOOK_CA_FILE: receiver.caFile, WEBHOOK_TIMEOUT_MS: '10000' } });
  setWebhookResolver(env.s, resolver);
  secondDb = await openPool('sandbox', env.urls.sandbox, { poolSize: 4 });
  second = createServices(env.s.config, env.clock, env.s.logger, { live: env.db.live, sandbox: secondDb ?? env.db.sandbox });
  setWebhookResolver(second, resolver);
});
// Each test its own account, so its endpoints see only its own events.
beforeEach(async () => {
  acct = await env.account();
});
afterAll(async () => {
  if (second) await closeWebhookSender(second);
  await secondDb?.close();
  await env?.close();
  await receiver?.stop();
});

async function emitMany(n: number) {
  await env.db.sandbox.db.transaction(async (tx) => {
    for (let i = 0; i < n; i++)
      await recordEvent(tx, env.clock.now(), {
        event: 'expense.recorded',
        accountId: acct.id,
        businessId: null,
        data: { expenseId: `exp_${i}`, amountIncVat: i, supplierName: null },
      });
  });
}

async function endpoint(p: string) {
  const res = await env.call('POST', '/v1/webhooks', { key: acct.test, body: { url: receiver.url(p) } });
  expect(res.status).toBe(201);
  return res.body.webhook;
}

const countsById = (p: string) => {
  const m = new Map<string, number>();
  for (const r of receiver.to(p)) m.set(String(r.headers['x-service-delivery']), (m.get(String(r.headers['x-service-delivery'])) ?? 0) + 1);
  return m;
};

describe('dispatchers sharing one database', () => {
  it('two dispatchers deliver each attempt exactly once', async () => {
    const wh = await endpoint('/two/ok');
    await emitMany(40);
    const a = new WebhookDispatcher(env.s, { batch: 5, concurrency: 3 });
    const b = new WebhookDispatcher(second, { batch: 5, concurrency: 3 });
    const [ra, rb] = await Promise.all([a.runOnce('sandbox'), b.runOnce('sandbox')]);
    expect(ra.fannedOut + rb.fannedOut).toBe(40);
    expect(ra.attempted + rb.attempted).toBe(40);
    const counts = countsById('/two/ok');
    expect(counts.size).toBe(40);
    expect([...counts.values()].every((c) => c === 1)).toBe(true);
    const rows = await env.sql<{ n: number }>(
      'sandbox',
      `SELECT count(*)::int AS n FROM webhook_deliveries WHERE endpoint_id = '${wh.id}' AND status = 'delivered'`,
    );
    expect(rows[0].n).toBe(40);
  });

  it('claims skip rows another process holds locked instead of waiting (PostgreSQL)', async () => {
    await endpoint('/two/locked');
    await emitMany(6);
    const a = new WebhookDispatcher(env.s, { batch: 100 });
    expect(await a.fanOut(env.db.sandbox)).toBe(6);
    await emitMany(2);
    const pool = secondDb!.pool;
    const other = await pool.connect();
    try {
      await other.query('BEGIN');
      const held = (
        await other.query(
          `SELECT d.id FROM webhook_deliveries d JOIN webhook_endpoints e ON e.id = d.endpoint_id
         WHERE e.account_id = $1 ORDER BY d.id LIMIT 2 FOR UPDATE OF d`,
          [acct.id],
        )
      ).rows.map((r) => r.id);
      const heldEvent = (
        await other.query(`SELECT id FROM outbox_events WHERE account_id = $1 AND dispatched_at IS NULL ORDER BY id LIMIT 1 FOR UPDATE`, [acct.id])
      ).rows.map((r) => r.id);
      expect(held).toHaveLength(2);
      expect(heldEvent).toHaveLength(1);
      // The locked event is skipped, the other one fanned out.
      expect(await a.fanOut(env.db.sandbox)).toBe(1);
      const claimed = (await a.claimDue('sandbox')).map((c) => c.id);
      expect(claimed).toHaveLength(5);
      expect(claimed.some((id) => held.includes(id))).toBe(false);
    } finally {
      await other.query('ROLLBACK');
      other.release();
    }
    // Once released and the claim's lease has run out, everything goes out exactly once.
    env.clock.advance(10 * 60_000);
    await a.runOnce('sandbox');
    const counts = countsById('/two/locked');
    expect(counts.size).toBe(8);
    expect([...counts.values()].every((c) => c === 1)).toBe(true);
  });

  it('retries are also claimed once each', async () => {
    receiver.on('/two/fail', { status: 500 });
    await endpoint('/two/fail');
    // 9 events × 2 attempts stay under the 20 consecutive failures that disable an endpoint; with
    // more, whether the last claims come before or after the switch-off depends on timing.
    await emitMany(9);
    const a = new WebhookDispatcher(env.s, { batch: 3, concurrency: 2 });
    const b = new WebhookDispatcher(second, { batch: 3, concurrency: 2 });
    await Promise.all([a.runOnce('sandbox'), b.runOnce('sandbox')]);
    env.clock.advance(60_000);
    await Promise.all([a.runOnce('sandbox'), b.runOnce('sandbox')]);
    const counts = countsById('/two/fail');
    const errors = await env.sql(
      'sandbox',
      `SELECT a.delivery_id, a.n, a.error, a.response_status FROM webhook_attempts a JOIN webhook_deliveries d ON d.id = a.delivery_id JOIN webhook_endpoints e ON e.id = d.endpoint_id WHERE e.url LIKE '%/two/fail' ORDER BY 1, 2`,
    );
    expect(counts.size).toBe(9);
    expect([...counts.values()], JSON.stringify(errors)).toEqual(Array(9).fill(2));
    const attempts = await env.sql<{ n: number }>(
      'sandbox',
      `SELECT count(*)::int AS n FROM webhook_attempts a JOIN webhook_deliveries d ON d.id = a.delivery_id JOIN webhook_endpoints e ON e.id = d.endpoint_id WHERE e.url LIKE '%/two/fail'`,
    );
    expect(attempts[0].n).toBe(18);
  });
});

describe('restart', () => {
  it('events written while no dispatcher runs are delivered by a new one; fanned-out deliveries too', async () => {
    await endpoint('/restart/queued');
    await emitMany(3);
    // The first process fans out and stops before sending anything.
    const first = new WebhookDispatcher(env.s);
    expect(await first.fanOut(env.db.sandbox)).toBe(3);
    await emitMany(2);
    // A new process (new services, new sender) finds both the deliveries and the new events.
    const r = await new WebhookDispatcher(second).runOnce('sandbox');
    expect(r).toEqual({ fannedOut: 2, attempted: 5 });
    expect(countsById('/restart/queued').size).toBe(5);
  });

  it('a claim of a crashed dispatcher is retried by another once its lease ends, with the same delivery id', async () => {
    const wh = await endpoint('/restart/crash');
    await emitMany(2);
    const crashed = new WebhookDispatcher(env.s, { leaseMs: 120_000 });
    await crashed.fanOut(env.db.sandbox);
    const claimed = await crashed.claimDue('sandbox');
    expect(claimed).toHaveLength(2);
    // ...and the process dies here, before sending.
    const survivor = new WebhookDispatcher(second);
    expect((await survivor.runOnce('sandbox')).attempted).toBe(0);
    env.clock.advance(120_000);
    expect((await survivor.runOnce('sandbox')).attempted).toBe(2);
    const counts = countsById('/restart/crash');
    expect([...counts.keys()].sort()).toEqual(claimed.map((c) => c.id).sort());
    expect([...counts.values()]).toEqual([1, 1]);
    const list = (await env.call('GET', `/v1/webhooks/${wh.id}/deliveries`, { key: acct.test })).body.deliveries;
    expect(list.map((d: any) => d.status)).toEqual(['delivered', 'delivered']);
    // The lost attempt was numbered 1; the one that went out is attempt 2.
    expect(list.map((d: any) => d.attempts.map((x: any) => x.n))).toEqual([[2], [2]]);
  });

  it('the worker loop delivers on its own and stops cleanly', async () => {
    await endpoint('/restart/worker');
    await emitMany(1);
    const worker = new WebhookDispatcher(env.s).start(20);
    for (let i = 0; i < 100 && receiver.to('/restart/worker').length === 0; i++) await new Promise((r) => setTimeout(r, 50));
    await worker.stop();
    expect(receiver.to('/restart/worker')).toHaveLength(1);
  });
});

describe('the domain worker', () => {
  it('delivers with its own sender (system DNS path, IP-literal target) and stops cleanly', async () => {
    const res = await env.call('POST', '/v1/webhooks', { key: acct.test, body: { url: `https://127.0.0.1:${receiver.port}/worker/domain` } });
    expect(res.status).toBe(201);
    await emitMany(1);
    const { webhooksDomain } = await import('../../src/webhooks/domain.ts');
    const worker = webhooksDomain.worker!(env.s);
    try {
      for (let i = 0; i < 200 && receiver.to('/worker/domain').length === 0; i++) await new Promise((r) => setTimeout(r, 50));
    } finally {
      await worker.stop();
    }
    expect(receiver.to('/worker/domain')).toHaveLength(1);
  });
});

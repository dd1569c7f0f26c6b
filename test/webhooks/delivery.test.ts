import { createServer as createNetServer } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestEnv, type TestEnv } from '../helpers/env.ts';
import { recordEvent, type OutboxEvent } from '../../src/platform/outbox.ts';
import type { EventName } from '../../src/platform/catalog/events.ts';
import { setWebhookResolver } from '../../src/webhooks/runtime.ts';
import { WebhookDispatcher } from '../../src/webhooks/dispatcher.ts';
import { verifyWebhook } from '../../src/webhooks/signature.ts';
import { DISABLE_AFTER_FAILURES, RETRY_DELAYS_MS } from '../../src/webhooks/schedule.ts';
import { WebhookSender } from '../../src/webhooks/sender.ts';
import { Receiver } from './receiver.ts';

let env: TestEnv;
let receiver: Receiver;
let dispatcher: WebhookDispatcher;

const testResolver = async (host: string) => {
  if (host === 'receiver.test' || host === 'other.test') return ['127.0.0.1'];
  throw Object.assign(new Error('not found'), { code: 'ENOTFOUND' });
};

beforeAll(async () => {
  receiver = new Receiver();
  await receiver.start();
  env = await createTestEnv({
    env: { WEBHOOK_ALLOW_PRIVATE_TARGETS: 'true', WEBHOOK_CA_FILE: receiver.caFile, WEBHOOK_TIMEOUT_MS: '10000' },
  });
  setWebhookResolver(env.s, testResolver);
  dispatcher = new WebhookDispatcher(env.s);
  await env.account();
});
afterAll(async () => {
  await env?.close();
  await receiver?.stop();
});

async function endpoint(key: string, body: Record<string, unknown>) {
  const res = await env.call('POST', '/v1/webhooks', { key, body });
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  return res.body.webhook as { id: string; secret: string; url: string };
}

// Delivery does not read `data`: these tests record synthetic data under real names on purpose (hence the cast).
async function emit(accountId: string, businessId: string | null, event: EventName = 'expense.recorded', data: Record<string, unknown> = { n: 1 }) {
  await env.db.sandbox.db.transaction((tx) => recordEvent(tx, env.clock.now(), { event, accountId, businessId, data } as OutboxEvent));
}

async function deliveries(key: string, id: string) {
  const res = await env.call('GET', `/v1/webhooks/${id}/deliveries`, { key });
  expect(res.status).toBe(200);
  return res.body.deliveries as any[];
}

describe('delivery to a real HTTPS receiver', () => {
  it('delivers a business.status_changed signed, with the envelope and headers', async () => {
    const a = await env.account();
    const b = await env.business(a.test);
    const wh = await endpoint(a.test, { url: receiver.url('/good/1') });
    expect((await env.call('POST', `/v1/businesses/${b.id}/deactivate`, { key: a.test })).status).toBe(200);
    const r = await dispatcher.runOnce('sandbox');
    expect(r.attempted).toBe(1);
    const got = receiver.to('/good/1');
    expect(got).toHaveLength(1);
    const req = got[0];
    expect(req.headers['x-service-event']).toBe('business.status_changed');
    expect(req.headers['x-service-mode']).toBe('sandbox');
    expect(req.headers['x-service-delivery']).toMatch(/^del_/);
    expect(req.body).toMatchObject({ id: req.headers['x-service-delivery'], event: 'business.status_changed', mode: 'sandbox', businessId: b.id });
    expect(req.body.data).toMatchObject({ businessId: b.id });
    expect(req.body.createdAt).toBe('2026-03-01T08:00:00.000Z');
    expect(Object.keys(req.body).sort()).toEqual(['businessId', 'createdAt', 'data', 'event', 'id', 'mode']);
    const sig = String(req.headers['x-service-signature']);
    expect(sig).toMatch(/^t=\d+,v1=[0-9a-f]{64}$/);
    expect(verifyWebhook(wh.secret, req.raw, sig, { now: env.clock.now() })).toEqual({ ok: true, timestamp: env.clock.now().getTime() / 1000 });
    expect(verifyWebhook(wh.secret, Buffer.from(JSON.stringify(req.body, null, 1)), sig, { now: env.clock.now() }).ok).toBe(false);
    expect(verifyWebhook('whsec_other', req.raw, sig, { now: env.clock.now() })).toEqual({ ok: false, reason: 'signature_mismatch' });

    const list = await deliveries(a.test, wh.id);
    expect(list).toHaveLength(1);
    expect(list[0]).toMatchObject({ id: req.headers['x-service-delivery'], status: 'delivered', event: 'business.status_changed', nextAttemptAt: null });
    expect(list[0].attempts).toHaveLength(1);
    expect(list[0].attempts[0]).toMatchObject({ n: 1, responseStatus: 200, error: null, responseBody: 'ok', at: '2026-03-01T08:00:00.000Z' });
    expect(typeof list[0].attempts[0].durationMs).toBe('number');
    // Nothing twice: the event is dispatched, the delivery done.
    expect((await dispatcher.runOnce('sandbox')).attempted).toBe(0);
    expect(receiver.to('/good/1')).toHaveLength(1);
  });

  it('fans out only to matching active endpoints of the same account and mode', async () => {
    const a = await env.account();
    const other = await env.account();
    const b1 = await env.business(a.test);
    const b2 = await env.business(a.test, { name: 'עסק שני' });
    const all = await endpoint(a.test, { url: receiver.url('/fan/all') });
    await endpoint(a.test, { url: receiver.url('/fan/docs'), events: ['document.issued'] });
    await endpoint(a.test, { url: receiver.url('/fan/b2'), businessId: b2.id });
    await endpoint(a.test, { url: receiver.url('/fan/both'), events: ['expense.recorded', 'document.issued'], businessId: b1.id });
    const off = await endpoint(a.test, { url: receiver.url('/fan/off') });
    expect((await env.call('PATCH', `/v1/webhooks/${off.id}`, { key: a.test, body: { active: false } })).body.webhook).toMatchObject({ active: false });
    await endpoint(other.test, { url: receiver.url('/fan/other') });
    await endpoint(a.live, { url: receiver.url('/fan/live') });

    await emit(a.id, b1.id, 'expense.recorded');
    await emit(a.id, b2.id, 'document.issued');
    await dispatcher.runOnce('sandbox');
    const events = (p: string) =>
      receiver
        .to(p)
        .map((r) => `${r.body.event}@${r.body.businessId === b1.id ? 'b1' : 'b2'}`)
        .sort();
    expect(events('/fan/all')).toEqual(['document.issued@b2', 'expense.recorded@b1']);
    expect(events('/fan/docs')).toEqual(['document.issued@b2']);
    expect(events('/fan/b2')).toEqual(['document.issued@b2']);
    expect(events('/fan/both')).toEqual(['expense.recorded@b1']);
    expect(receiver.to('/fan/off')).toHaveLength(0);
    expect(receiver.to('/fan/other')).toHaveLength(0);
    expect(receiver.to('/fan/live')).toHaveLength(0);
    expect(await deliveries(a.test, all.id)).toHaveLength(2);
  });

  it('retries a 500 on the schedule with the same delivery id, then marks it failed', async () => {
    const a = await env.account();
    receiver.on('/retry/', { status: 500, body: 'x'.repeat(10_000) });
    const wh = await endpoint(a.test, { url: receiver.url('/retry/1') });
    await emit(a.id, null);
    const start = env.clock.now().getTime();
    await dispatcher.runOnce('sandbox');
    let elapsed = 0;
    for (const delay of RETRY_DELAYS_MS) {
      env.clock.advance(delay - 1_000);
      expect((await dispatcher.runOnce('sandbox')).attempted).toBe(0);
      env.clock.advance(1_000);
      elapsed += delay;
      expect((await dispatcher.runOnce('sandbox')).attempted).toBe(1);
    }
    const got = receiver.to('/retry/1');
    expect(got).toHaveLength(7);
    expect(new Set(got.map((r) => r.headers['x-service-delivery'])).size).toBe(1);
    expect(new Set(got.map((r) => r.raw.toString())).size).toBe(1);
    const [d] = await deliveries(a.test, wh.id);
    expect(d.status).toBe('failed');
    expect(d.nextAttemptAt).toBeNull();
    expect(d.attempts.map((x: any) => x.responseStatus)).toEqual([500, 500, 500, 500, 500, 500, 500]);
    expect(d.attempts[0].responseBody).toHaveLength(4096);
    let at = start;
    expect(d.attempts[0].at).toBe(new Date(at).toISOString());
    RETRY_DELAYS_MS.forEach((delay, i) => {
      at += delay;
      expect(d.attempts[i + 1].at).toBe(new Date(at).toISOString());
    });
    expect(elapsed).toBe(RETRY_DELAYS_MS.reduce((x, y) => x + y, 0));
    env.clock.advance(48 * 3_600_000);
    expect((await dispatcher.runOnce('sandbox')).attempted).toBe(0);
  });

  it('keeps a binary answer readable in the log (no NUL bytes reach the database)', async () => {
    const a = await env.account();
    receiver.on('/binary/', { status: 200, body: 'ok\u0000\u0001\u00ff' });
    const wh = await endpoint(a.test, { url: receiver.url('/binary/1') });
    await emit(a.id, null);
    await dispatcher.runOnce('sandbox');
    const [d] = await deliveries(a.test, wh.id);
    expect(d.status).toBe('delivered');
    expect(d.attempts[0].responseBody).toBe('ok\uFFFD\u0001\u00ff');
  });

  it('shows a pending retry with its next attempt time', async () => {
    const a = await env.account();
    receiver.on('/pending/', { status: 503 });
    const wh = await endpoint(a.test, { url: receiver.url('/pending/1') });
    await emit(a.id, null);
    await dispatcher.runOnce('sandbox');
    const [d] = await deliveries(a.test, wh.id);
    expect(d.status).toBe('pending');
    expect(d.nextAttemptAt).toBe(new Date(env.clock.now().getTime() + 60_000).toISOString());
    expect(d.attempts).toHaveLength(1);
  });

  it('counts a redirect as a failure and never follows it', async () => {
    const a = await env.account();
    receiver.on('/redirect/', { status: 302, location: receiver.url('/good/target') });
    const wh = await endpoint(a.test, { url: receiver.url('/redirect/1') });
    await emit(a.id, null);
    await dispatcher.runOnce('sandbox');
    expect(receiver.to('/redirect/1')).toHaveLength(1);
    expect(receiver.to('/good/target')).toHaveLength(0);
    const [d] = await deliveries(a.test, wh.id);
    expect(d.status).toBe('pending');
    expect(d.attempts[0]).toMatchObject({ responseStatus: 302, error: 'redirects are not followed' });
  });

  it('counts a receiver slower than the deadline as a failure', async () => {
    const a = await env.account();
    // A short deadline for this test only (the env's is generous so TLS handshakes on a busy machine fit).
    const quick = new WebhookSender({ ...env.s.config.webhooks, timeoutMs: 400 }, testResolver);
    receiver.on('/slow/', { status: 200, delayMs: 1_500 });
    const wh = await endpoint(a.test, { url: receiver.url('/slow/1') });
    await emit(a.id, null);
    try {
      await new WebhookDispatcher(env.s, { sender: quick }).runOnce('sandbox');
    } finally {
      await quick.close();
    }
    // The request arrived whole; the answer did not come in time.
    expect(receiver.to('/slow/1')).toHaveLength(1);
    const [d] = await deliveries(a.test, wh.id);
    expect(d.status).toBe('pending');
    expect(d.attempts[0].responseStatus).toBeNull();
    expect(d.attempts[0].error).toBe('timed out after 400 ms');
    expect(d.attempts[0].durationMs).toBeGreaterThanOrEqual(350);
    expect(d.attempts[0].durationMs).toBeLessThan(1_500);
  });

  it('gives up on a server that accepts the connection but never speaks TLS', async () => {
    const silent = createNetServer(() => {});
    await new Promise<void>((r) => silent.listen(0, '127.0.0.1', r));
    const port = (silent.address() as { port: number }).port;
    const quick = new WebhookSender({ ...env.s.config.webhooks, timeoutMs: 300 }, testResolver);
    try {
      const outcome = await quick.send(`https://receiver.test:${port}/x`, {}, '{}');
      expect(outcome.status).toBeNull();
      expect(outcome.error).toMatch(/timed out after 300 ms/);
      expect(outcome.durationMs).toBeLessThan(3_000);
    } finally {
      await quick.close();
      silent.close();
    }
  });

  it('counts a receiver that is down as a failure', async () => {
    const a = await env.account();
    const down = new Receiver();
    await down.start();
    const port = down.port;
    await down.stop();
    const wh = await endpoint(a.test, { url: `https://receiver.test:${port}/down` });
    await emit(a.id, null);
    await dispatcher.runOnce('sandbox');
    const [d] = await deliveries(a.test, wh.id);
    expect(d.status).toBe('pending');
    expect(d.attempts[0]).toMatchObject({ responseStatus: null, error: 'connection refused' });
  });

  it('refuses a certificate that is not trusted for the host', async () => {
    const a = await env.account();
    // The certificate names receiver.test and other.test, not this name.
    setWebhookResolver(env.s, async () => ['127.0.0.1']);
    try {
      const wh = await endpoint(a.test, { url: receiver.url('/tls/1', 'wrong-name.test') });
      await emit(a.id, null);
      await dispatcher.runOnce('sandbox');
      const [d] = await deliveries(a.test, wh.id);
      expect(d.attempts[0].responseStatus).toBeNull();
      expect(d.attempts[0].error).toMatch(/altnames|hostname|certificate/i);
      expect(receiver.to('/tls/1')).toHaveLength(0);
    } finally {
      setWebhookResolver(env.s, testResolver);
    }
  });

  it(`disables an endpoint after ${DISABLE_AFTER_FAILURES} consecutive failed attempts; active: true re-arms it`, async () => {
    const a = await env.account();
    receiver.on('/flaky/', { status: 500 });
    const wh = await endpoint(a.test, { url: receiver.url('/flaky/1') });
    for (let i = 0; i < DISABLE_AFTER_FAILURES + 1; i++) await emit(a.id, null, 'expense.recorded', { i });
    // One success resets the count: 19 failures, then a delivered one, then failures again.
    const r = await dispatcher.runOnce('sandbox');
    expect(r.attempted).toBe(20);
    let read = (await env.call('GET', `/v1/webhooks/${wh.id}`, { key: a.test })).body.webhook;
    expect(read).toMatchObject({ active: false, disabledAt: env.clock.now().toISOString(), consecutiveFailures: DISABLE_AFTER_FAILURES });
    expect(receiver.to('/flaky/1')).toHaveLength(20);
    // Disabled: retries are due but nothing is sent.
    env.clock.advance(60 * 60_000);
    await dispatcher.runOnce('sandbox');
    expect(receiver.to('/flaky/1')).toHaveLength(20);
    const audit = await env.sql('sandbox', `SELECT action FROM audit_log WHERE entity_id = '${wh.id}' ORDER BY seq`);
    expect(audit.map((x) => x.action)).toEqual(['webhook.create', 'webhook.auto_disable']);

    receiver.on('/flaky/', { status: 204 });
    const patched = await env.call('PATCH', `/v1/webhooks/${wh.id}`, { key: a.test, body: { active: true } });
    expect(patched.status).toBe(200);
    expect(patched.body.webhook).toMatchObject({ active: true, disabledAt: null, consecutiveFailures: 0 });
    await dispatcher.runOnce('sandbox');
    expect(receiver.to('/flaky/1')).toHaveLength(41);
    const list = await deliveries(a.test, wh.id);
    expect(list.map((d) => d.status)).toEqual(Array(21).fill('delivered'));
    read = (await env.call('GET', `/v1/webhooks/${wh.id}`, { key: a.test })).body.webhook;
    expect(read.consecutiveFailures).toBe(0);
  });

  it('audits the auto-disable once even when more attempts of the same batch fail after it', async () => {
    const a = await env.account();
    receiver.on('/burst/', { status: 500 });
    const wh = await endpoint(a.test, { url: receiver.url('/burst/1') });
    for (let i = 0; i < 25; i++) await emit(a.id, null, 'expense.recorded', { i });
    await new WebhookDispatcher(env.s, { batch: 30 }).runOnce('sandbox');
    const read = (await env.call('GET', `/v1/webhooks/${wh.id}`, { key: a.test })).body.webhook;
    expect(read.active).toBe(false);
    expect(read.consecutiveFailures).toBe(25);
    const audit = await env.sql('sandbox', `SELECT action FROM audit_log WHERE entity_id = '${wh.id}' AND action = 'webhook.auto_disable'`);
    expect(audit).toHaveLength(1);
  });

  it('a success resets the consecutive-failure count', async () => {
    const a = await env.account();
    receiver.on('/reset/', { status: 500 });
    const wh = await endpoint(a.test, { url: receiver.url('/reset/1') });
    for (let i = 0; i < 15; i++) await emit(a.id, null, 'expense.recorded', { i });
    await dispatcher.runOnce('sandbox');
    receiver.on('/reset/', { status: 200 });
    await emit(a.id, null);
    await new WebhookDispatcher(env.s, { batch: 1, concurrency: 1 }).runOnce('sandbox');
    const read = (await env.call('GET', `/v1/webhooks/${wh.id}`, { key: a.test })).body.webhook;
    expect(read).toMatchObject({ active: true, consecutiveFailures: 0 });
  });

  it('POST /webhooks/{id}/test delivers webhook.test at once, whatever the filter', async () => {
    const a = await env.account();
    const wh = await endpoint(a.test, { url: receiver.url('/probe/ok'), events: ['document.issued'] });
    const res = await env.call('POST', `/v1/webhooks/${wh.id}/test`, { key: a.test });
    expect(res.status).toBe(200);
    expect(res.body.delivered).toBe(true);
    expect(res.body.delivery).toMatchObject({ event: 'webhook.test', status: 'delivered', webhookId: wh.id });
    const got = receiver.to('/probe/ok');
    expect(got).toHaveLength(1);
    expect(got[0].body).toMatchObject({ id: res.body.delivery.id, event: 'webhook.test', mode: 'sandbox' });
    expect(verifyWebhook(wh.secret, got[0].raw, got[0].headers['x-service-signature'], { now: env.clock.now() }).ok).toBe(true);

    receiver.on('/probe/bad', { status: 500 });
    const bad = await endpoint(a.test, { url: receiver.url('/probe/bad') });
    const res2 = await env.call('POST', `/v1/webhooks/${bad.id}/test`, { key: a.test });
    expect(res2.status).toBe(200);
    expect(res2.body).toMatchObject({ ok: true, delivered: false, delivery: { status: 'failed' } });
    expect(res2.body.delivery.attempts[0].responseStatus).toBe(500);
    // A probe is not traffic: no retry, no count toward auto-disable.
    expect((await env.call('GET', `/v1/webhooks/${bad.id}`, { key: a.test })).body.webhook.consecutiveFailures).toBe(0);
    env.clock.advance(3_600_000);
    await dispatcher.runOnce('sandbox');
    expect(receiver.to('/probe/bad')).toHaveLength(1);
  });

  it('pages deliveries newest first with a before cursor', async () => {
    const a = await env.account();
    const wh = await endpoint(a.test, { url: receiver.url('/page/1') });
    for (let i = 0; i < 5; i++) {
      await emit(a.id, null, 'expense.recorded', { i });
      env.clock.advance(1_000);
      await dispatcher.runOnce('sandbox');
    }
    const first = await env.call('GET', `/v1/webhooks/${wh.id}/deliveries?take=2`, { key: a.test });
    expect(first.body.deliveries.map((d: any) => d.createdAt)).toEqual([...first.body.deliveries.map((d: any) => d.createdAt)].sort().reverse());
    const seen: string[] = first.body.deliveries.map((d: any) => d.id);
    let next = first.body.next;
    while (next) {
      const page = await env.call('GET', `/v1/webhooks/${wh.id}/deliveries?take=2&before=${next}`, { key: a.test });
      seen.push(...page.body.deliveries.map((d: any) => d.id));
      next = page.body.next;
    }
    expect(seen).toHaveLength(5);
    expect(seen).toEqual([...seen].sort().reverse());
    const payloadIs = (await deliveries(a.test, wh.id)).map((d) => d.id);
    expect(payloadIs).toEqual(seen);
  });
});

describe('an endpoint deleted while its delivery is in flight', () => {
  it('drops the result quietly; nothing else is sent', async () => {
    const a = await env.account();
    receiver.on('/deleted/', { status: 200, delayMs: 100 });
    const wh = await endpoint(a.test, { url: receiver.url('/deleted/1') });
    await emit(a.id, null);
    const running = dispatcher.runOnce('sandbox');
    // Delete as soon as the request reached the receiver.
    for (let i = 0; i < 100 && receiver.to('/deleted/1').length === 0; i++) await new Promise((r) => setTimeout(r, 10));
    expect((await env.call('DELETE', `/v1/webhooks/${wh.id}`, { key: a.test })).status).toBe(200);
    await running;
    const left = await env.sql('sandbox', `SELECT count(*)::int AS n FROM webhook_deliveries WHERE endpoint_id = '${wh.id}'`);
    expect(left[0].n).toBe(0);
    env.clock.advance(3_600_000);
    await dispatcher.runOnce('sandbox');
    expect(receiver.to('/deleted/1')).toHaveLength(1);
  });
});

describe('events written by other areas', () => {
  it('an expense recorded through the API reaches a filtered, narrowed endpoint', async () => {
    const a = await env.account();
    const b = await env.business(a.test);
    const wh = await endpoint(a.test, { url: receiver.url('/e2e/expense'), events: ['expense.recorded'], businessId: b.id });
    const draft = await env.call('POST', `/v1/businesses/${b.id}/expenses`, {
      key: a.test,
      body: {
        categoryKey: 'office',
        supplier: { name: 'ספק', taxId: '512200502' },
        supplierDocType: 'tax_invoice',
        supplierDocNumber: 'INV-7',
        supplierDocDate: '2026-02-27',
        amountExVat: 10000,
        vatAmount: 1800,
      },
    });
    expect(draft.status, JSON.stringify(draft.body)).toBe(201);
    const recorded = await env.call('POST', `/v1/businesses/${b.id}/expenses/${draft.body.expense.id}/record`, { key: a.test });
    expect(recorded.status).toBe(201);
    await dispatcher.runOnce('sandbox');
    const got = receiver.to('/e2e/expense');
    expect(got).toHaveLength(1);
    expect(got[0].body).toMatchObject({
      event: 'expense.recorded',
      businessId: b.id,
      mode: 'sandbox',
      data: { expenseId: draft.body.expense.id, amountIncVat: 11800 },
    });
    expect(verifyWebhook(wh.secret, got[0].raw, got[0].headers['x-service-signature'], { now: env.clock.now() }).ok).toBe(true);
  });
});

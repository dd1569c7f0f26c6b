import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestEnv, type TestAccount, type TestEnv } from '../helpers/env.ts';
import { recordEvent, type OutboxEvent } from '../../src/platform/outbox.ts';
import type { EventName } from '../../src/platform/catalog/events.ts';
import { setWebhookResolver } from '../../src/webhooks/runtime.ts';
import { WebhookDispatcher } from '../../src/webhooks/dispatcher.ts';
import { verifyWebhook } from '../../src/webhooks/signature.ts';
import { RETRY_DELAYS_MS } from '../../src/webhooks/schedule.ts';
import { Receiver } from './receiver.ts';

let env: TestEnv;
let receiver: Receiver;
let dispatcher: WebhookDispatcher;

beforeAll(async () => {
  receiver = new Receiver();
  await receiver.start();
  env = await createTestEnv({ env: { WEBHOOK_ALLOW_PRIVATE_TARGETS: '1', WEBHOOK_CA_FILE: receiver.caFile } });
  setWebhookResolver(env.s, async () => ['127.0.0.1']);
  dispatcher = new WebhookDispatcher(env.s);
});
afterAll(async () => {
  await env?.close();
  await receiver?.stop();
});

async function endpoint(key: string, path: string, body: Record<string, unknown> = {}) {
  const res = await env.call('POST', '/v1/webhooks', { key, body: { url: receiver.url(path), ...body } });
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  return res.body.webhook as { id: string; secret: string };
}

// Delivery does not read `data`: synthetic data under real names (hence the cast).
async function emit(a: TestAccount, event: EventName = 'expense.recorded', n = 1) {
  await env.db.sandbox.db.transaction((tx) =>
    recordEvent(tx, env.clock.now(), { event, accountId: a.id, businessId: null, data: { n } } as unknown as OutboxEvent),
  );
}

async function deliveries(key: string, id: string) {
  const res = await env.call('GET', `/v1/webhooks/${id}/deliveries`, { key });
  expect(res.status).toBe(200);
  return res.body.deliveries as { id: string; status: string; event: string; eventId: string; attempts: { n: number; responseStatus: number }[] }[];
}

/** Every attempt the schedule allows, until the delivery is `failed`. */
async function exhaustRetries() {
  await dispatcher.runOnce('sandbox');
  for (const delay of RETRY_DELAYS_MS) {
    env.clock.advance(delay);
    await dispatcher.runOnce('sandbox');
  }
}

describe('POST /v1/webhooks/{id}/deliveries/{deliveryId}/retry', () => {
  it('resends a delivered event under the same delivery id and the same bytes, freshly signed', async () => {
    const a = await env.account();
    const wh = await endpoint(a.test, '/retry/ok');
    await emit(a);
    await dispatcher.runOnce('sandbox');
    const [d] = await deliveries(a.test, wh.id);
    expect(d.status).toBe('delivered');
    env.clock.advance(3_600_000);
    const res = await env.call('POST', `/v1/webhooks/${wh.id}/deliveries/${d.id}/retry`, { key: a.test });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body).toMatchObject({ ok: true, delivered: true, delivery: { id: d.id, status: 'delivered' } });
    expect(res.body.delivery.attempts.map((x: { n: number }) => x.n)).toEqual([1, 2]);
    const got = receiver.to('/retry/ok');
    expect(got).toHaveLength(2);
    expect(got.map((r) => r.headers['x-service-delivery'])).toEqual([d.id, d.id]);
    expect(got[1].raw.equals(got[0].raw)).toBe(true);
    const sig = String(got[1].headers['x-service-signature']);
    expect(verifyWebhook(wh.secret, got[1].raw, sig, { now: env.clock.now() }).ok).toBe(true);
  });

  it('a failed delivery retried after the receiver is fixed becomes delivered; a failure leaves it failed', async () => {
    const a = await env.account();
    receiver.on('/retry/broken', { status: 500 });
    const wh = await endpoint(a.test, '/retry/broken');
    await emit(a);
    await exhaustRetries();
    const [d] = await deliveries(a.test, wh.id);
    expect(d.status).toBe('failed');
    const again = await env.call('POST', `/v1/webhooks/${wh.id}/deliveries/${d.id}/retry`, { key: a.test });
    expect(again.body).toMatchObject({ delivered: false, delivery: { status: 'failed' } });
    receiver.on('/retry/broken', { status: 204 });
    const fixed = await env.call('POST', `/v1/webhooks/${wh.id}/deliveries/${d.id}/retry`, { key: a.test });
    expect(fixed.body).toMatchObject({ delivered: true, delivery: { status: 'delivered', failedAt: null } });
    expect(fixed.body.delivery.attempts).toHaveLength(9);
    // A manual resend is not traffic: the endpoint's failure count is the dispatcher's alone.
    const hook = await env.call('GET', `/v1/webhooks/${wh.id}`, { key: a.test });
    expect(hook.body.webhook.consecutiveFailures).toBe(7);
  });

  it("answers 404 for another account's or mode's endpoint, and for a delivery of another endpoint", async () => {
    const a = await env.account();
    const other = await env.account();
    const mine = await endpoint(a.test, '/retry/mine');
    const second = await endpoint(a.test, '/retry/second');
    await emit(a);
    await dispatcher.runOnce('sandbox');
    const [d] = await deliveries(a.test, mine.id);
    const post = (key: string, path: string) => env.call('POST', path, { key });
    for (const [key, path] of [
      [other.test, `/v1/webhooks/${mine.id}/deliveries/${d.id}/retry`],
      [a.live, `/v1/webhooks/${mine.id}/deliveries/${d.id}/retry`],
      [a.test, `/v1/webhooks/${second.id}/deliveries/${(await deliveries(a.test, mine.id))[0].id.replace(/.$/, '0')}/retry`],
      [a.test, `/v1/webhooks/${second.id}/deliveries/${d.id}/retry`],
    ] as const) {
      const res = await post(key, path);
      expect(res.status, path).toBe(404);
      expect(res.body.reason).toBe('not_found');
    }
    const noScope = await a.mint({ mode: 'test', scopes: ['documents'] });
    expect((await post(noScope.secret, `/v1/webhooks/${mine.id}/deliveries/${d.id}/retry`)).status).toBe(403);
  });

  it('answers 409 while a sender holds the delivery', async () => {
    const a = await env.account();
    const wh = await endpoint(a.test, '/retry/held');
    await emit(a);
    await dispatcher.fanOut(env.db.sandbox);
    const [claimed] = await dispatcher.claimDue('sandbox');
    const res = await env.call('POST', `/v1/webhooks/${wh.id}/deliveries/${claimed.id}/retry`, { key: a.test });
    expect(res.status).toBe(409);
    expect(res.body.reason).toBe('conflict');
  });
});

describe('POST /v1/webhooks/{id}/replay', () => {
  it('failed: true sends every failed delivery again under its id', async () => {
    const a = await env.account();
    receiver.on('/replay/failed', { status: 503 });
    const wh = await endpoint(a.test, '/replay/failed');
    await emit(a, 'expense.recorded', 1);
    await emit(a, 'document.issued', 2);
    await exhaustRetries();
    const failed = await deliveries(a.test, wh.id);
    expect(failed.map((d) => d.status)).toEqual(['failed', 'failed']);
    receiver.on('/replay/failed', { status: 200 });
    const before = receiver.to('/replay/failed').length;
    const res = await env.call('POST', `/v1/webhooks/${wh.id}/replay`, { key: a.test, body: { failed: true } });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body).toEqual({ ok: true, replayed: 2, created: 0, complete: true });
    expect((await dispatcher.runOnce('sandbox')).attempted).toBe(2);
    const resent = receiver.to('/replay/failed').slice(before);
    expect(resent.map((r) => r.headers['x-service-delivery']).sort()).toEqual(failed.map((d) => d.id).sort());
    expect((await deliveries(a.test, wh.id)).map((d) => d.status)).toEqual(['delivered', 'delivered']);
    // Nothing failed is left: a second replay does nothing.
    expect((await env.call('POST', `/v1/webhooks/${wh.id}/replay`, { key: a.test, body: { failed: true } })).body.replayed).toBe(0);
  });

  it('since: every event of the chosen types since then, existing deliveries under their id, the others new', async () => {
    const a = await env.account();
    await emit(a, 'document.issued', 1); // before the endpoint existed
    env.clock.advance(60_000);
    const since = env.clock.now().toISOString();
    await emit(a, 'expense.recorded', 2); // before the endpoint existed, in the window
    await dispatcher.runOnce('sandbox'); // 1 and 2 fanned out to nobody
    const wh = await endpoint(a.test, '/replay/since', { events: ['document.issued'] });
    env.clock.advance(60_000);
    await emit(a, 'document.issued', 3); // delivered normally
    await emit(a, 'export.completed', 4); // outside the endpoint's filter
    await dispatcher.runOnce('sandbox');
    const [delivered] = await deliveries(a.test, wh.id);
    expect(delivered.status).toBe('delivered');
    const count = receiver.to('/replay/since').length;

    const res = await env.call('POST', `/v1/webhooks/${wh.id}/replay`, {
      key: a.test,
      body: { since, events: ['document.issued', 'expense.recorded'] },
    });
    expect(res.body).toEqual({ ok: true, replayed: 2, created: 1, complete: true });
    await dispatcher.runOnce('sandbox');
    const sent = receiver.to('/replay/since').slice(count);
    expect(sent.map((r) => `${r.body.event}:${r.body.data.n}`).sort()).toEqual(['document.issued:3', 'expense.recorded:2']);
    expect(sent.find((r) => r.body.data.n === 3)!.headers['x-service-delivery']).toBe(delivered.id);

    // Without `events`, the endpoint's own filter: only document.issued since then (event 3, again).
    const own = await env.call('POST', `/v1/webhooks/${wh.id}/replay`, { key: a.test, body: { since } });
    expect(own.body).toMatchObject({ replayed: 1, created: 0 });
    await dispatcher.runOnce('sandbox');
    expect(receiver.to('/replay/since').at(-1)!.headers['x-service-delivery']).toBe(delivered.id);
  });

  it("refuses another key's endpoint with 404 and a body that is neither or both with 400", async () => {
    const a = await env.account();
    const other = await env.account();
    const wh = await endpoint(a.test, '/replay/mine');
    for (const key of [other.test, a.live]) {
      const res = await env.call('POST', `/v1/webhooks/${wh.id}/replay`, { key, body: { failed: true } });
      expect(res.status).toBe(404);
      expect(res.body.reason).toBe('not_found');
    }
    const bad = async (body: unknown, field: string) => {
      const res = await env.call('POST', `/v1/webhooks/${wh.id}/replay`, { key: a.test, body });
      expect(res.status, JSON.stringify(body)).toBe(400);
      expect(res.body.reason).toBe('validation');
      expect(res.body.error).toContain(field);
    };
    await bad({}, 'body');
    await bad({ failed: true, since: '2026-01-01T00:00:00Z' }, 'not both');
    await bad({ failed: false }, 'body.failed');
    await bad({ since: 'yesterday' }, 'body.since');
    await bad({ since: '2099-01-01T00:00:00Z' }, 'body.since: is in the future');
    await bad({ since: '2026-01-01T00:00:00Z', events: ['nope'] }, 'body.events[0]');
  });
});

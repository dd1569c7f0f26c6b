import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { WebhookDispatcher } from '../../src/webhooks/dispatcher.ts';
import { RETRY_DELAYS_MS } from '../../src/webhooks/schedule.ts';
import { createTestEnv, TAX_IDS, type TestEnv } from '../helpers/env.ts';
import { issueDoc } from '../prints/helpers.ts';
import { ConsoleClient, textOf } from './browser.ts';
import { FakeTwilio } from './fake-twilio.ts';
import { mintThroughConsole, signedInClient } from './helpers.ts';

/** A local receiver that answers `status` (500 until told otherwise) and remembers each delivery id it got. */
const receiver = { status: 500, got: [] as string[], server: null as Server | null, port: 0 };
let env: TestEnv;
let dispatcher: WebhookDispatcher;
const sms = new FakeTwilio();
let owner: { c: ConsoleClient; key: string; webhookId: string; documentId: string };

beforeAll(async () => {
  receiver.server = createServer((req, res) => {
    receiver.got.push(String(req.headers['x-service-delivery']));
    req.resume();
    req.on('end', () => res.writeHead(receiver.status, { 'content-type': 'text/plain' }).end(`receiver says ${receiver.status}`));
  });
  await new Promise<void>((resolve) => receiver.server!.listen(0, '127.0.0.1', resolve));
  receiver.port = (receiver.server.address() as AddressInfo).port;
  await sms.start();
  env = await createTestEnv({ env: sms.env() });
  dispatcher = new WebhookDispatcher(env.s);
  const { c, account } = await signedInClient(env, sms);
  const key = await mintThroughConsole(c, 'test');
  const bid = (await env.business(key, { taxId: TAX_IDS.company })).id;
  const wh = await env.call('POST', '/v1/webhooks', { key, body: { url: `http://127.0.0.1:${receiver.port}/hooks`, events: ['document.issued'] } });
  expect(wh.status, JSON.stringify(wh.body)).toBe(201);
  const doc = await issueDoc(env, key, bid);
  // Every attempt the schedule allows: the delivery ends `failed`.
  await dispatcher.runOnce('sandbox');
  for (const delay of RETRY_DELAYS_MS) {
    env.clock.advance(delay);
    await dispatcher.runOnce('sandbox');
  }
  // The retries took days of the clock: the first session is over; a new sign-in.
  const again = new ConsoleClient(env.app, c.ip);
  await again.get('/console/sign-in');
  await again.post('/console/sign-in', { email: account.email, password: account.password });
  const verified = await again.post('/console/verify', { code: sms.lastCode(account.phone) });
  expect(verified.location).toBe('/console/keys');
  owner = { c: again, key, webhookId: wh.body.webhook.id, documentId: doc.id };
});

afterAll(async () => {
  await env?.close();
  await sms.stop();
  await new Promise((resolve) => receiver.server?.close(resolve));
});

const deliveryIds = (body: string) => [...body.matchAll(/<tr data-delivery-id="([^"]+)"/g)].map((m) => m[1]);

describe('webhooks in the console', () => {
  it('lists the endpoints and an endpoint’s deliveries: request, attempts with response status and body excerpt', async () => {
    expect((await owner.c.get('/console/webhooks')).location).toBe('/console/sandbox/webhooks');
    const list = await owner.c.get('/console/sandbox/webhooks');
    expect(list.body).toContain(`data-webhook-id="${owner.webhookId}"`);
    expect(textOf(list.body)).toContain(`http://127.0.0.1:${receiver.port}/hooks`);

    const page = await owner.c.get(`/console/sandbox/webhooks/${owner.webhookId}`);
    expect(page.status).toBe(200);
    const api = await env.call('GET', `/v1/webhooks/${owner.webhookId}/deliveries`, { key: owner.key });
    expect(deliveryIds(page.body)).toEqual(api.body.deliveries.map((d: { id: string }) => d.id));
    const [d] = api.body.deliveries;
    expect(d.status).toBe('failed');
    const row = page.body.split(`data-delivery-id="${d.id}"`)[1].split('</tr>\n</tbody>')[0];
    expect(row).toContain('document.issued');
    expect(row).toContain(owner.documentId); // the request's envelope
    expect(row.match(/data-attempt="/g)).toHaveLength(d.attempts.length);
    expect(textOf(row)).toContain('500');
    expect(textOf(row)).toContain('receiver says 500');
  });

  it('resends one delivery under its id, and replays every failed one, as the API does', async () => {
    const [d] = (await env.call('GET', `/v1/webhooks/${owner.webhookId}/deliveries`, { key: owner.key })).body.deliveries;
    await owner.c.get(`/console/sandbox/webhooks/${owner.webhookId}`);
    const stillFailing = await owner.c.post(`/console/sandbox/webhooks/${owner.webhookId}/deliveries/${d.id}/retry`);
    expect(stillFailing.status).toBe(303);
    expect(textOf(stillFailing.next!.body)).toContain('failed again');

    receiver.status = 200;
    const resent = await owner.c.post(`/console/sandbox/webhooks/${owner.webhookId}/deliveries/${d.id}/retry`);
    expect(textOf(resent.next!.body)).toContain('Sent again under the same delivery id: delivered.');
    expect(receiver.got.at(-1)).toBe(d.id);
    const after = (await env.call('GET', `/v1/webhooks/${owner.webhookId}/deliveries`, { key: owner.key })).body.deliveries[0];
    expect(after.status).toBe('delivered');

    // Replay since a time: the same delivery id is due again, and the dispatcher sends it.
    const since = new Date(env.clock.now().getTime() - 30 * 86_400_000).toISOString();
    const replay = await owner.c.post(`/console/sandbox/webhooks/${owner.webhookId}/replay`, { since });
    expect(replay.status).toBe(303);
    expect(textOf(replay.next!.body)).toContain('Deliveries due now: 1 (0 new)');
    const before = receiver.got.length;
    await dispatcher.runOnce('sandbox');
    expect(receiver.got.slice(before)).toEqual([d.id]);
  });

  it('refuses a replay the API refuses, with the API’s message', async () => {
    await owner.c.get(`/console/sandbox/webhooks/${owner.webhookId}`);
    const bad = await owner.c.post(`/console/sandbox/webhooks/${owner.webhookId}/replay`, { since: 'yesterday' });
    const api = await env.call('POST', `/v1/webhooks/${owner.webhookId}/replay`, { key: owner.key, body: { since: 'yesterday' } });
    expect(api.status).toBe(400);
    expect(bad.status).toBe(400);
    expect(textOf(bad.body)).toContain(api.body.error);
    expect(bad.body).toContain('value="yesterday"');
    const future = new Date(env.clock.now().getTime() + 86_400_000).toISOString();
    const later = await owner.c.post(`/console/sandbox/webhooks/${owner.webhookId}/replay`, { since: future });
    expect(later.status).toBe(400);
    expect(textOf(later.body)).toContain('body.since: is in the future');
  });

  it('answers 404 for another account’s endpoint and delivery, and changes nothing', async () => {
    const { c: other } = await signedInClient(env, sms);
    await mintThroughConsole(other, 'test');
    const [d] = (await env.call('GET', `/v1/webhooks/${owner.webhookId}/deliveries`, { key: owner.key })).body.deliveries;
    const attempts = d.attempts.length;
    expect((await other.get(`/console/sandbox/webhooks/${owner.webhookId}`)).status).toBe(404);
    expect((await other.post(`/console/sandbox/webhooks/${owner.webhookId}/deliveries/${d.id}/retry`)).status).toBe(404);
    expect((await other.post(`/console/sandbox/webhooks/${owner.webhookId}/replay`, { failed: 'true' })).status).toBe(404);
    expect((await other.get('/console/sandbox/webhooks')).body).not.toContain(owner.webhookId);
    const again = (await env.call('GET', `/v1/webhooks/${owner.webhookId}/deliveries`, { key: owner.key })).body.deliveries[0];
    expect(again.attempts).toHaveLength(attempts);
  });
});

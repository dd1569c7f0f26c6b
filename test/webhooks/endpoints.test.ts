import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestEnv, type TestEnv } from '../helpers/env.ts';
import { recordEvent } from '../../src/platform/outbox.ts';
import { setWebhookResolver } from '../../src/webhooks/runtime.ts';
import { WebhookDispatcher } from '../../src/webhooks/dispatcher.ts';

// Default configuration: private targets refused. DNS is played by the test.
let env: TestEnv;
let dns: Record<string, string[]> = {};
const lookups: string[] = [];

beforeAll(async () => {
  env = await createTestEnv();
  setWebhookResolver(env.s, async (host) => {
    lookups.push(host);
    const a = dns[host];
    if (!a) throw Object.assign(new Error('not found'), { code: 'ENOTFOUND' });
    return a;
  });
});
afterAll(async () => env?.close());

const PUBLIC = '93.184.216.34';

describe('webhook endpoints API', () => {
  it('creates, lists, reads, patches and deletes; the secret only on create; audited', async () => {
    dns = { 'hooks.example.com': [PUBLIC] };
    const a = await env.account();
    const created = await env.call('POST', '/v1/webhooks', {
      key: a.test,
      body: { url: 'https://hooks.example.com/pinkas', events: ['document.issued', 'document.issued', 'expense.recorded'] },
    });
    expect(created.status).toBe(201);
    const wh = created.body.webhook;
    expect(wh.id).toMatch(/^we_/);
    expect(wh.secret).toMatch(/^whsec_[A-Za-z0-9_-]{43,}$/);
    expect(wh).toMatchObject({
      url: 'https://hooks.example.com/pinkas',
      events: ['document.issued', 'expense.recorded'],
      businessId: null,
      active: true,
      disabledAt: null,
      consecutiveFailures: 0,
    });
    expect(created.headers['x-service-mode']).toBe('sandbox');

    const list = await env.call('GET', '/v1/webhooks', { key: a.test });
    expect(list.body.webhooks).toHaveLength(1);
    expect(list.body.webhooks[0].secret).toBeUndefined();
    const read = await env.call('GET', `/v1/webhooks/${wh.id}`, { key: a.test });
    expect(read.status).toBe(200);
    expect(read.body.webhook.secret).toBeUndefined();
    expect(read.body.webhook.id).toBe(wh.id);

    const patched = await env.call('PATCH', `/v1/webhooks/${wh.id}`, { key: a.test, body: { events: [], url: 'https://hooks.example.com/v2' } });
    expect(patched.status).toBe(200);
    expect(patched.body.webhook).toMatchObject({ events: [], url: 'https://hooks.example.com/v2', active: true });
    expect(patched.body.webhook.secret).toBeUndefined();
    const off = await env.call('PATCH', `/v1/webhooks/${wh.id}`, { key: a.test, body: { active: false } });
    expect(off.body.webhook).toMatchObject({ active: false, disabledAt: env.clock.now().toISOString() });

    expect((await env.call('DELETE', `/v1/webhooks/${wh.id}`, { key: a.test })).body).toEqual({ ok: true });
    expect((await env.call('GET', `/v1/webhooks/${wh.id}`, { key: a.test })).status).toBe(404);
    expect((await env.call('DELETE', `/v1/webhooks/${wh.id}`, { key: a.test })).status).toBe(404);

    const audit = await env.sql('sandbox', `SELECT action, after FROM audit_log WHERE entity_id = '${wh.id}' ORDER BY seq`);
    expect(audit.map((r) => r.action)).toEqual(['webhook.create', 'webhook.update', 'webhook.update', 'webhook.delete']);
    expect(JSON.stringify(audit)).not.toContain(wh.secret);
  });

  it('keeps live and sandbox apart, and accounts apart (404)', async () => {
    dns = { 'hooks.example.com': [PUBLIC] };
    const a = await env.account();
    const other = await env.account();
    const wh = (await env.call('POST', '/v1/webhooks', { key: a.test, body: { url: 'https://hooks.example.com/x' } })).body.webhook;
    expect((await env.call('GET', `/v1/webhooks/${wh.id}`, { key: a.live })).status).toBe(404);
    expect((await env.call('GET', '/v1/webhooks', { key: a.live })).body.webhooks).toEqual([]);
    for (const [method, path, body] of [
      ['GET', `/v1/webhooks/${wh.id}`, undefined],
      ['PATCH', `/v1/webhooks/${wh.id}`, { active: true }],
      ['DELETE', `/v1/webhooks/${wh.id}`, undefined],
      ['POST', `/v1/webhooks/${wh.id}/test`, undefined],
      ['GET', `/v1/webhooks/${wh.id}/deliveries`, undefined],
    ] as const) {
      const res = await env.call(method, path, { key: other.test, body });
      expect(res.status, `${method} ${path}`).toBe(404);
      expect(res.body.reason).toBe('not_found');
    }
  });

  it("narrows to a business of the account; another account's business is 404", async () => {
    dns = { 'hooks.example.com': [PUBLIC] };
    const a = await env.account();
    const other = await env.account();
    const mine = await env.business(a.test);
    const theirs = await env.business(other.test);
    const ok = await env.call('POST', '/v1/webhooks', { key: a.test, body: { url: 'https://hooks.example.com/b', businessId: mine.id } });
    expect(ok.status).toBe(201);
    expect(ok.body.webhook.businessId).toBe(mine.id);
    const res = await env.call('POST', '/v1/webhooks', { key: a.test, body: { url: 'https://hooks.example.com/b', businessId: theirs.id } });
    expect(res.status).toBe(404);
    expect(res.body.reason).toBe('not_found');
    // The live database does not hold the sandbox business.
    expect((await env.call('POST', '/v1/webhooks', { key: a.live, body: { url: 'https://hooks.example.com/b', businessId: mine.id } })).status).toBe(404);
  });

  it('validates the body strictly, naming the field', async () => {
    dns = { 'hooks.example.com': [PUBLIC] };
    const a = await env.account();
    const cases: [unknown, RegExp][] = [
      [{}, /^body\.url: is required/],
      [{ url: 'https://hooks.example.com/', events: ['document.issued', 'nope'] }, /^body\.events\[1\]: must be one of/],
      [{ url: 'https://hooks.example.com/', secret: 'whsec_mine' }, /^body\.secret: unknown field/],
      [{ url: 'http://hooks.example.com/' }, /^body\.url: must use https/],
      [{ url: 'https://u:p@hooks.example.com/' }, /^body\.url: must not carry credentials/],
      [{ url: 'https://unknown-host.example.org/' }, /^body\.url: DNS lookup of unknown-host\.example\.org failed/],
      [{ url: 42 }, /^body\.url: /],
    ];
    for (const [body, message] of cases) {
      const res = await env.call('POST', '/v1/webhooks', { key: a.test, body });
      expect(res.status, JSON.stringify(body)).toBe(400);
      expect(res.body.reason).toBe('validation');
      expect(res.body.error).toMatch(message);
    }
    const wh = (await env.call('POST', '/v1/webhooks', { key: a.test, body: { url: 'https://hooks.example.com/' } })).body.webhook;
    const patch = await env.call('PATCH', `/v1/webhooks/${wh.id}`, { key: a.test, body: { businessId: 'biz_x' } });
    expect(patch.status).toBe(400);
    expect(patch.body.error).toMatch(/^body\.businessId: unknown field/);
    const badUrl = await env.call('PATCH', `/v1/webhooks/${wh.id}`, { key: a.test, body: { url: 'https://127.0.0.1/' } });
    expect(badUrl.status).toBe(400);
    expect(badUrl.body.error).toMatch(/^body\.url: is refused \(loopback\)/);
    const q = await env.call('GET', `/v1/webhooks/${wh.id}/deliveries?take=0`, { key: a.test });
    expect(q.status).toBe(400);
  });

  it('is described in the OpenAPI document', async () => {
    const res = await env.call('GET', '/v1/openapi.json');
    expect(res.status).toBe(200);
    const paths = Object.keys(res.body.paths);
    for (const p of ['/v1/webhooks', '/v1/webhooks/{id}', '/v1/webhooks/{id}/test', '/v1/webhooks/{id}/deliveries']) expect(paths).toContain(p);
  });

  it('needs the businesses scope', async () => {
    const a = await env.account();
    const k = await a.mint({ mode: 'test', scopes: ['documents'] });
    const res = await env.call('GET', '/v1/webhooks', { key: k.secret });
    expect(res.status).toBe(403);
    expect(res.body.reason).toBe('forbidden');
  });

  it('caps endpoints per account and mode', async () => {
    dns = { 'hooks.example.com': [PUBLIC] };
    const a = await env.account();
    for (let i = 0; i < 20; i++)
      expect((await env.call('POST', '/v1/webhooks', { key: a.test, body: { url: `https://hooks.example.com/${i}` } })).status).toBe(201);
    const res = await env.call('POST', '/v1/webhooks', { key: a.test, body: { url: 'https://hooks.example.com/21' } });
    expect(res.status).toBe(429);
    expect(res.body.reason).toBe('limit_reached');
    expect((await env.call('POST', '/v1/webhooks', { key: a.live, body: { url: 'https://hooks.example.com/live' } })).status).toBe(201);
  });
});

describe('SSRF', () => {
  const literalForms = [
    'https://127.0.0.1/',
    'https://2130706433/',
    'https://0x7f.1/',
    'https://017700000001/',
    'https://127.1/',
    'https://0/',
    'https://[::1]/',
    'https://[::]/',
    'https://[::ffff:127.0.0.1]/',
    'https://[::ffff:7f00:1]/',
    'https://[fd00::1]/',
    'https://[fe80::1]/',
    'https://[64:ff9b::7f00:1]/',
    'https://169.254.169.254/latest/meta-data/',
    'https://0xa9fea9fe/',
    'https://100.64.0.1/',
    'https://10.0.0.1/',
    'https://172.16.0.1/',
    'https://192.168.1.1/',
    'https://224.0.0.1/',
    'https://240.0.0.1/',
    'https://255.255.255.255/',
    'https://localhost/',
    'https://metadata.google.internal/',
    'https://intranet/',
  ];
  it.each(literalForms)('refuses %s at registration (400 validation)', async (url) => {
    const a = await env.account();
    const res = await env.call('POST', '/v1/webhooks', { key: a.test, body: { url } });
    expect(res.status).toBe(400);
    expect(res.body).toMatchObject({ reason: 'validation' });
    expect(res.body.error).toMatch(/^body\.url: is refused/);
  });

  const resolvedTo = [
    '127.0.0.1',
    '10.1.2.3',
    '172.20.0.5',
    '192.168.0.10',
    '100.100.100.200',
    '169.254.169.254',
    '0.0.0.0',
    '224.0.0.251',
    '240.1.1.1',
    '::1',
    '::ffff:127.0.0.1',
    'fd12:3456::1',
    'fe80::abcd',
    'ff02::1',
    '64:ff9b::a00:1',
  ];
  it.each(resolvedTo)('refuses a name resolving to %s', async (address) => {
    dns = { 'evil.example.net': [address] };
    const a = await env.account();
    const res = await env.call('POST', '/v1/webhooks', { key: a.test, body: { url: 'https://evil.example.net/hook' } });
    expect(res.status).toBe(400);
    expect(res.body.error).toContain(`evil.example.net resolves to ${address}`);
  });

  it('refuses a name when any of its addresses is private', async () => {
    dns = { 'mixed.example.net': [PUBLIC, '10.0.0.7'] };
    const a = await env.account();
    const res = await env.call('POST', '/v1/webhooks', { key: a.test, body: { url: 'https://mixed.example.net/' } });
    expect(res.status).toBe(400);
  });

  it('checks again at every delivery: a name that rebinds to loopback is refused without connecting', async () => {
    dns = { 'rebind.example.net': [PUBLIC] };
    const a = await env.account();
    const wh = (await env.call('POST', '/v1/webhooks', { key: a.test, body: { url: 'https://rebind.example.net/hook' } })).body.webhook;
    dns = { 'rebind.example.net': ['127.0.0.1'] };
    await env.db.sandbox.db.transaction((tx) =>
      recordEvent(tx, env.clock.now(), {
        event: 'expense.recorded',
        accountId: a.id,
        businessId: null,
        data: { expenseId: 'exp_rebind', amountIncVat: null, supplierName: null },
      }),
    );
    await new WebhookDispatcher(env.s).runOnce('sandbox');
    const d = (await env.call('GET', `/v1/webhooks/${wh.id}/deliveries`, { key: a.test })).body.deliveries[0];
    expect(d.status).toBe('pending');
    expect(d.attempts[0]).toMatchObject({ responseStatus: null });
    expect(d.attempts[0].error).toBe('refused target: rebind.example.net resolves to 127.0.0.1 (loopback)');

    // The test endpoint goes through the same sender.
    const probe = await env.call('POST', `/v1/webhooks/${wh.id}/test`, { key: a.test });
    expect(probe.status).toBe(200);
    expect(probe.body.delivered).toBe(false);
    expect(probe.body.delivery.attempts[0].error).toMatch(/^refused target: .*loopback/);
  });
});

import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { setAccountLimits } from '../../src/accounts/accounts.ts';
import { createTestEnv, TAX_IDS, type TestEnv } from '../helpers/env.ts';
import { textOf } from './browser.ts';
import { FakeTwilio } from './fake-twilio.ts';
import { signedInClient } from './helpers.ts';

let env: TestEnv;
const sms = new FakeTwilio();

beforeAll(async () => {
  await sms.start();
  env = await createTestEnv({ env: sms.env() });
});
afterAll(async () => {
  await env?.close();
  await sms.stop();
});

const secretIn = (body: string) => body.match(/id="new-key" readonly value="(bk_(?:live|test)_[0-9A-Za-z]{32})"/)?.[1];

describe('keys page', () => {
  it('a pending account sees why it cannot mint, and a mint attempt is refused', async () => {
    const { c } = await signedInClient(env, sms, { approve: false });
    const page = await c.get('/console/keys');
    expect(page.status).toBe(200);
    expect(textOf(page.body)).toContain('waiting for approval');
    expect(page.body).not.toContain('id="mint"');
    const mint = await c.post('/console/keys', { label: 'x', mode: 'test', scopes: ['businesses'] });
    expect(mint.status).toBe(403);
    expect(textOf(mint.body)).toContain('waiting for approval');
  });

  it('mints a key shown once, which works on the API; revoking it makes the API answer 401', async () => {
    const { c, account } = await signedInClient(env, sms);
    const page = await c.get('/console/keys');
    expect(page.body).toContain('id="mint"');
    expect(textOf(page.body)).toContain('0 of 10 active keys');
    const minted = await c.post('/console/keys', { label: 'billing server', mode: 'test', scopes: ['businesses', 'documents'] });
    expect(minted.status).toBe(201);
    const secret = secretIn(minted.body)!;
    expect(secret).toMatch(/^bk_test_/);
    expect(minted.body).toContain('data-copy="new-key"');
    expect(textOf(minted.body)).toContain('only time the key is shown');
    expect(textOf(minted.body)).toContain('mint the successor');
    expect(minted.headers['cache-control']).toBe('no-store');

    // The listing shows the prefix only, never the secret again.
    const list = await c.get('/console/keys');
    expect(list.body).not.toContain(secret);
    expect(list.body).toContain(`${secret.slice(0, 12)}…`);
    expect(textOf(list.body)).toContain('billing server');
    expect(textOf(list.body)).toContain('1 of 10 active keys');

    const api = await env.call('GET', '/v1/keys', { key: secret });
    expect(api.status).toBe(200);
    expect(api.headers['x-service-mode']).toBe('sandbox');
    const mine = api.body.keys.find((k: { current: boolean }) => k.current);
    expect(mine).toMatchObject({ label: 'billing server', mode: 'test', scopes: ['businesses', 'documents'] });
    // The listing now shows when it was last used.
    expect(textOf((await c.get('/console/keys')).body)).not.toMatch(/billing server .* never .* active/);

    const keyId = mine.id as string;
    const revoked = await c.post(`/console/keys/${keyId}/revoke`);
    expect(revoked.status).toBe(303);
    expect(textOf(revoked.next!.body)).toContain(`Key ${secret.slice(0, 12)}… was revoked.`);
    expect(revoked.next!.body).toContain(`data-key-id="${keyId}"`);
    expect((await env.call('GET', '/v1/keys', { key: secret })).status).toBe(401);

    const audit = await env.sql<{ action: string; account_id: string; key_id: string | null }>(
      'live',
      `SELECT action, account_id, key_id FROM audit_log WHERE entity_id = '${keyId}' ORDER BY seq`,
    );
    expect(audit).toEqual([
      { action: 'key.minted', account_id: account.id, key_id: null },
      { action: 'key.revoked', account_id: account.id, key_id: null },
    ]);
  });

  it('offers ocr only where it is granted, and the server refuses it otherwise', async () => {
    const { c, account } = await signedInClient(env, sms);
    const page = await c.get('/console/keys');
    expect(page.body).toMatch(/value="ocr" disabled/);
    const forced = await c.post('/console/keys', { label: 'ocr', mode: 'live', scopes: ['ocr'] });
    expect(forced.status).toBe(403);
    expect(textOf(forced.body)).toContain('ocr is granted on request');
    await setAccountLimits(env.db.live.db, account.id, { ocrGranted: true });
    expect((await c.get('/console/keys')).body).not.toMatch(/value="ocr" disabled/);
    const ok = await c.post('/console/keys', { label: 'ocr', mode: 'live', scopes: ['ocr', 'expenses'] });
    expect(ok.status).toBe(201);
    expect(secretIn(ok.body)).toMatch(/^bk_live_/);
  });

  it('enforces the active-key limit with a clear message; revoking frees a place', async () => {
    const { c, account } = await signedInClient(env, sms);
    await setAccountLimits(env.db.live.db, account.id, { maxActiveKeys: 2 });
    await c.get('/console/keys');
    expect((await c.post('/console/keys', { label: 'a', mode: 'test', scopes: ['businesses'] })).status).toBe(201);
    expect((await c.post('/console/keys', { label: 'b', mode: 'live', scopes: ['businesses'] })).status).toBe(201);
    const page = await c.get('/console/keys');
    expect(textOf(page.body)).toContain('You hold 2 active keys, the limit of this account');
    expect(page.body).not.toContain('id="mint"');
    const third = await c.post('/console/keys', { label: 'c', mode: 'test', scopes: ['businesses'] });
    expect(third.status).toBe(409);
    expect(textOf(third.body)).toContain('You hold 2 active keys, the limit of this account. Revoke a key before minting another.');
    const ids = [...page.body.matchAll(/data-key-id="([^"]+)"/g)].map((m) => m[1]);
    await c.post(`/console/keys/${ids[0]}/revoke`);
    expect((await c.post('/console/keys', { label: 'c', mode: 'test', scopes: ['businesses'] })).status).toBe(201);
  });

  it('refuses bad mint forms and keys of another account', async () => {
    const { c } = await signedInClient(env, sms);
    await c.get('/console/keys');
    expect((await c.post('/console/keys', { label: 'x', mode: 'prod', scopes: ['businesses'] })).status).toBe(400);
    expect((await c.post('/console/keys', { label: 'x', mode: 'test' })).status).toBe(400);
    const unknownScope = await c.post('/console/keys', { label: 'x', mode: 'test', scopes: ['admin'] });
    expect(unknownScope.status).toBe(400);
    expect(textOf(unknownScope.body)).toContain('unknown scope');
    const other = await env.account();
    const foreign = await c.post(`/console/keys/${other.liveKeyId}/revoke`);
    expect(foreign.status).toBe(404);
    expect((await env.call('GET', '/v1/keys', { key: other.live })).status).toBe(200);
  });

  it('a key can never mint or revoke a key: the console wants a session, not an API key', async () => {
    const other = await env.account();
    const res = await env.app.inject({
      method: 'POST',
      url: '/console/keys',
      headers: { 'x-api-key': other.live, 'content-type': 'application/x-www-form-urlencoded' },
      payload: 'label=x&mode=live&scopes=businesses',
    });
    expect(res.statusCode).toBe(403);
    const listed = await env.call('GET', '/v1/keys', { key: other.live });
    expect(listed.body.keys).toHaveLength(2);
  });
});

describe('usage page', () => {
  it('charts the GET /usage figures per day and lists the businesses of both databases', async () => {
    const { c } = await signedInClient(env, sms);
    await c.get('/console/keys');
    const live = secretIn((await c.post('/console/keys', { label: 'l', mode: 'live', scopes: ['businesses'] })).body)!;
    const test = secretIn((await c.post('/console/keys', { label: 't', mode: 'test', scopes: ['businesses'] })).body)!;
    await env.business(live, { name: 'Live Shop Ltd', taxId: TAX_IDS.company });
    await env.business(test, { name: 'עסק בארגז חול', taxId: TAX_IDS.company2 });
    for (let i = 0; i < 3; i++) await env.call('GET', '/v1/businesses', { key: live });

    const api = await env.call('GET', '/v1/usage?days=30', { key: live });
    const page = await c.get('/console/usage');
    expect(page.status).toBe(200);
    const today = api.body.days[api.body.days.length - 1];
    expect(today.requests).toBeGreaterThanOrEqual(4);
    // One chart per metric, 30 bars each; today's bar carries the same figure as the API.
    expect(page.body.match(/<svg /g)).toHaveLength(5);
    const requestsChart = page.body.split('data-metric="requests"')[1].split('</svg>')[0];
    expect(requestsChart.match(/<rect class="bar"/g)).toHaveLength(30);
    expect(requestsChart).toContain(`data-date="${today.date}" data-value="${today.requests}"`);
    const text = textOf(page.body);
    expect(text).toContain('Live Shop Ltd');
    expect(text).toContain('עסק בארגז חול');
    expect(text).toContain(TAX_IDS.company);

    const sbApi = await env.call('GET', '/v1/usage?days=7', { key: test });
    const sandbox = await c.get('/console/usage?mode=sandbox&days=7');
    const sbChart = sandbox.body.split('data-metric="requests"')[1].split('</svg>')[0];
    expect(sbChart.match(/<rect class="bar"/g)).toHaveLength(7);
    const sbToday = sbApi.body.days[6];
    expect(sbChart).toContain(`data-value="${sbToday.requests}"`);
  });

  it('is closed without a signed-in session', async () => {
    const res = await env.app.inject({ method: 'GET', url: '/console/usage' });
    expect(res.statusCode).toBe(303);
    expect(res.headers.location).toBe('/console/sign-in');
  });
});

import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestEnv, type TestEnv } from '../helpers/env.ts';
import { textOf } from './browser.ts';
import { FakeTwilio } from './fake-twilio.ts';
import { mintThroughConsole, signedInClient } from './helpers.ts';

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

const rowIds = (body: string) => [...body.matchAll(/<tr data-request-id="([^"]+)"/g)].map((m) => m[1]);

describe('request log in the console', () => {
  it('lists the account’s API requests with method, path, status, reason, request id, duration and key prefix; finds one by its id', async () => {
    const { c } = await signedInClient(env, sms);
    const key = await mintThroughConsole(c, 'test');
    const ok = await env.call('GET', '/v1/businesses', { key, headers: { 'x-request-id': 'my-trace-0001' } });
    expect(ok.status).toBe(200);
    env.clock.advance(1000);
    const refused = await env.call('GET', '/v1/businesses/biz_nope/documents', { key });
    expect(refused.status).toBe(404);

    const page = await c.get('/console/sandbox/requests');
    expect(page.status).toBe(200);
    expect(rowIds(page.body)).toEqual([refused.body.requestId, 'my-trace-0001']);
    const row = textOf(page.body.split(`data-request-id="${refused.body.requestId}"`)[1].split('</tr>')[0]);
    expect(row).toContain('GET');
    expect(row).toContain('/v1/businesses/biz_nope/documents');
    expect(row).toContain('404');
    expect(row).toContain('not_found');
    expect(row).toMatch(/\d+ ms/);
    expect(row).toContain(key.slice(0, 12));

    const found = await c.get('/console/sandbox/requests?requestId=my-trace-0001');
    expect(rowIds(found.body)).toEqual(['my-trace-0001']);
    // The other database has none of them.
    expect(rowIds((await c.get('/console/live/requests')).body)).toEqual([]);
    // The entry opens on the mode the account has keys in.
    expect((await c.get('/console/requests')).location).toBe('/console/sandbox/requests');

    // A malformed id is refused with the API's own message.
    const bad = await c.get('/console/sandbox/requests?requestId=' + encodeURIComponent('bad id!'));
    const api = await env.call('GET', '/v1/requests?requestId=' + encodeURIComponent('bad id!'), { key });
    expect(api.status).toBe(400);
    expect(bad.status).toBe(400);
    expect(textOf(bad.body)).toContain(api.body.error);
  });

  it('never shows another account’s rows, even searched by their request id', async () => {
    const a = await signedInClient(env, sms);
    const aKey = await mintThroughConsole(a.c, 'test');
    const call = await env.call('GET', '/v1/businesses', { key: aKey, headers: { 'x-request-id': 'secret-trace-of-a' } });
    expect(call.status).toBe(200);
    const b = await signedInClient(env, sms);
    await mintThroughConsole(b.c, 'test');
    expect(rowIds((await a.c.get('/console/sandbox/requests?requestId=secret-trace-of-a')).body)).toEqual(['secret-trace-of-a']);
    const search = await b.c.get('/console/sandbox/requests?requestId=secret-trace-of-a');
    expect(search.status).toBe(200);
    expect(rowIds(search.body)).toEqual([]);
    expect(search.body).not.toContain('secret-trace-of-a</code>');
    expect(rowIds((await b.c.get('/console/sandbox/requests')).body)).not.toContain('secret-trace-of-a');
  });

  it('the usage page opens on the mode the account has keys in', async () => {
    const { c } = await signedInClient(env, sms);
    const test = await mintThroughConsole(c, 'test');
    const usage = await c.get('/console/usage');
    expect(usage.body).toContain('<option value="sandbox" selected>');
    env.clock.advance(60_000);
    await mintThroughConsole(c, 'live');
    // Both modes: the key used (or minted) last decides.
    expect((await c.get('/console/usage')).body).toContain('<option value="live" selected>');
    env.clock.advance(60_000);
    expect((await env.call('GET', '/v1/businesses', { key: test })).status).toBe(200);
    await env.sql('live', 'SELECT 1');
    expect((await c.get('/console/usage')).body).toContain('<option value="sandbox" selected>');
    const fresh = await signedInClient(env, sms);
    expect((await fresh.c.get('/console/usage')).body).toContain('<option value="sandbox" selected>');
    expect((await fresh.c.get('/console/usage?mode=live')).body).toContain('<option value="live" selected>');
  });
});

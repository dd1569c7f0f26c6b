import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { setAccountLimits } from '../../src/accounts/accounts.ts';
import { pruneMintTokens, REVEAL_MS } from '../../src/console/mint-tokens.ts';
import { KEEP_MS } from '../../src/platform/http/idempotency.ts';
import { createTestEnv, type TestEnv } from '../helpers/env.ts';
import { ConsoleClient, textOf, type Page } from './browser.ts';
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
const tokenIn = (body: string) => body.match(/name="idempotency_key" value="([^"]+)"/)![1];

/** The mint form as the page offers it: its token and the CSRF token of the session. */
async function mintForm(c: ConsoleClient) {
  const page = await c.get('/console/keys');
  return tokenIn(page.body);
}

async function keysOf(accountId: string) {
  return env.sql<{ id: string; prefix: string; label: string | null }>(
    'live',
    `SELECT id, prefix, label FROM api_keys WHERE account_id = '${accountId}' ORDER BY created_at, id`,
  );
}

async function mintAudits(accountId: string) {
  const [r] = await env.sql<{ n: number }>('live', `SELECT count(*)::int AS n FROM audit_log WHERE account_id = '${accountId}' AND action = 'key.minted'`);
  return r.n;
}

/** Another signed-in session of the same account (a second browser, or a sign-in after expiry). */
async function signInAgain(account: { email: string; password: string; phone: string }, ip: string) {
  const c = new ConsoleClient(env.app, ip);
  await c.get('/console/sign-in');
  const r = await c.post('/console/sign-in', { email: account.email, password: account.password });
  expect(r.location).toBe('/console/verify');
  const v = await c.post('/console/verify', { code: sms.lastCode(account.phone) });
  expect(v.location).toBe('/console/keys');
  return c;
}

/** The form posted by a script: the token in the Idempotency-Key header instead of the form. */
async function postWithHeader(c: ConsoleClient, key: string, form: Record<string, string | string[]>, extra: Record<string, string> = {}) {
  const p = new URLSearchParams();
  for (const [k, v] of Object.entries(form)) for (const x of Array.isArray(v) ? v : [v]) p.append(k, x);
  p.append('_csrf', c.csrf);
  const res = await env.app.inject({
    method: 'POST',
    url: '/console/keys',
    headers: {
      cookie: [...c.cookies].map(([k, v]) => `${k}=${v}`).join('; '),
      'content-type': 'application/x-www-form-urlencoded',
      'idempotency-key': key,
      ...extra,
    },
    payload: p.toString(),
    remoteAddress: c.ip,
  });
  return { status: res.statusCode, body: res.body, headers: res.headers };
}

describe('minting a key from the console is idempotent', () => {
  it('a double submit mints one key; the repeat shows the same key again to this session, marked as a repeat', async () => {
    const { c, account } = await signedInClient(env, sms);
    const token = await mintForm(c);
    const form = { label: 'billing', mode: 'test', scopes: ['businesses', 'documents'], idempotency_key: token };
    const first = await c.post('/console/keys', form);
    expect(first.status).toBe(201);
    const secret = secretIn(first.body)!;
    expect(secret).toMatch(/^bk_test_/);
    expect(first.headers['idempotent-replayed']).toBeUndefined();
    // The page's next form is a new one: a new token.
    expect(tokenIn(first.body)).not.toBe(token);

    // Checkbox order is not another request.
    const again = await c.post('/console/keys', { ...form, scopes: ['documents', 'businesses'] });
    expect(again.status).toBe(200);
    expect(again.headers['idempotent-replayed']).toBe('true');
    expect(again.body).toContain('data-repeated="true"');
    expect(secretIn(again.body)).toBe(secret);
    expect(textOf(again.body)).toContain(`This form was already submitted: this is the key it created, ${secret.slice(0, 12)}… (billing), not a second one.`);

    expect(await keysOf(account.id)).toHaveLength(1);
    expect(await mintAudits(account.id)).toBe(1);
    // The database holds the token and the key id, never the secret in plain text.
    const [row] = await env.sql<Record<string, unknown>>('live', `SELECT * FROM console_idempotency WHERE account_id = '${account.id}'`);
    expect(row.key_id).toBe((await keysOf(account.id))[0].id);
    expect(JSON.stringify(row)).not.toContain(secret);
    expect(JSON.stringify(row)).not.toContain(secret.slice(8));
  });

  it('after the reveal window, or from another session, a repeat says the key exists and never shows the secret', async () => {
    const { c, account } = await signedInClient(env, sms);
    const token = await mintForm(c);
    const form = { label: 'erp', mode: 'live', scopes: ['businesses'], idempotency_key: token };
    const first = await c.post('/console/keys', form);
    const secret = secretIn(first.body)!;
    const prefix = secret.slice(0, 12);

    // Another browser of the same account cannot open the sealed secret, even inside the window.
    const other = await signInAgain(account, '198.51.100.7');
    await other.get('/console/keys');
    const elsewhere = await other.post('/console/keys', form);
    expect(elsewhere.status).toBe(200);
    expect(elsewhere.headers['idempotent-replayed']).toBe('true');
    expect(secretIn(elsewhere.body)).toBeUndefined();
    expect(elsewhere.body).not.toContain(secret);
    expect(textOf(elsewhere.body)).toContain(`This form was already submitted and created the key ${prefix}… (erp); no second key was minted.`);

    env.clock.advance(REVEAL_MS + 1);
    const late = await c.post('/console/keys', form);
    expect(late.status).toBe(200);
    expect(late.body).not.toContain(secret);
    expect(late.body).toContain('id="repeated"');
    expect(textOf(late.body)).toContain('Its secret was shown once and is not shown again');
    expect(await keysOf(account.id)).toHaveLength(1);

    // The prune worker erases the sealed secret once its window is over; the token still dedupes.
    const pruned = await pruneMintTokens(env.db.live.db, env.clock.now());
    expect(pruned.sealed).toBeGreaterThanOrEqual(1);
    const [row] = await env.sql<{ sealed_secret: string | null }>('live', `SELECT sealed_secret FROM console_idempotency WHERE token = '${token}'`);
    expect(row.sealed_secret).toBeNull();
    expect((await c.post('/console/keys', form)).status).toBe(200);
    expect(await keysOf(account.id)).toHaveLength(1);
  });

  it('the same token with another form body is a 409 conflict and mints nothing', async () => {
    const { c, account } = await signedInClient(env, sms);
    const token = await mintForm(c);
    expect((await c.post('/console/keys', { label: 'a', mode: 'test', scopes: ['businesses'], idempotency_key: token })).status).toBe(201);
    for (const changed of [
      { label: 'b', mode: 'test', scopes: ['businesses'] },
      { label: 'a', mode: 'live', scopes: ['businesses'] },
      { label: 'a', mode: 'test', scopes: ['businesses', 'documents'] },
    ]) {
      const res = await c.post('/console/keys', { ...changed, idempotency_key: token });
      expect(res.status).toBe(409);
      expect(textOf(res.body)).toContain('This form was already submitted with other values.');
      expect(secretIn(res.body)).toBeUndefined();
    }
    // A script sending the header gets the same answers.
    const scripted = await postWithHeader(c, token, { label: 'other', mode: 'test', scopes: ['businesses'] });
    expect(scripted.status).toBe(409);
    expect(await keysOf(account.id)).toHaveLength(1);
  });

  it('concurrent submits with one token mint one key', async () => {
    const { c, account } = await signedInClient(env, sms);
    const token = await mintForm(c);
    const form = { label: 'race', mode: 'test', scopes: ['businesses'], idempotency_key: token };
    const pages: Page[] = await Promise.all(Array.from({ length: 6 }, () => c.post('/console/keys', form)));
    const statuses = pages.map((p) => p.status).sort();
    expect(statuses).toEqual([200, 200, 200, 200, 200, 201]);
    const secret = secretIn(pages.find((p) => p.status === 201)!.body)!;
    // Every repeat came from this session within the window: each shows the one key.
    for (const p of pages) expect(secretIn(p.body)).toBe(secret);
    expect(await keysOf(account.id)).toHaveLength(1);
    expect(await mintAudits(account.id)).toBe(1);
  });

  it('a token older than its lifetime no longer dedupes; the prune worker deletes it', async () => {
    const { c, account } = await signedInClient(env, sms, { ip: '198.51.100.20' });
    const token = await mintForm(c);
    const form = { label: 'old', mode: 'test', scopes: ['businesses'], idempotency_key: token };
    expect((await c.post('/console/keys', form)).status).toBe(201);

    // Just inside the lifetime (from a fresh session: the first one has expired by then) it still dedupes.
    env.clock.advance(KEEP_MS - 60_000);
    const s1 = await signInAgain(account, '198.51.100.21');
    await s1.get('/console/keys');
    expect((await s1.post('/console/keys', form)).status).toBe(200);
    expect(await keysOf(account.id)).toHaveLength(1);

    // Past it, the same token is a new form: it mints anew (the expired row is taken over).
    env.clock.advance(60_000);
    const s2 = await signInAgain(account, '198.51.100.22');
    await s2.get('/console/keys');
    const fresh = await s2.post('/console/keys', form);
    expect(fresh.status).toBe(201);
    expect(fresh.headers['idempotent-replayed']).toBeUndefined();
    expect(await keysOf(account.id)).toHaveLength(2);
    // ...and the renewed token dedupes again from then on.
    expect((await s2.post('/console/keys', form)).status).toBe(200);
    expect(await keysOf(account.id)).toHaveLength(2);

    env.clock.advance(KEEP_MS);
    const before = await env.sql<{ n: number }>('live', `SELECT count(*)::int AS n FROM console_idempotency WHERE account_id = '${account.id}'`);
    expect(before[0].n).toBe(1);
    const pruned = await pruneMintTokens(env.db.live.db, env.clock.now());
    expect(pruned.tokens).toBeGreaterThanOrEqual(1);
    const after = await env.sql<{ n: number }>('live', `SELECT count(*)::int AS n FROM console_idempotency WHERE account_id = '${account.id}'`);
    expect(after[0].n).toBe(0);
  });

  it('a refused mint does not burn its token; a retry after the refusal mints', async () => {
    const { c, account } = await signedInClient(env, sms);
    await setAccountLimits(env.db.live.db, account.id, { maxActiveKeys: 1 });
    await c.get('/console/keys');
    expect((await c.post('/console/keys', { label: 'first', mode: 'test', scopes: ['businesses'] })).status).toBe(201);
    const token = 'script-mint-0001';
    const refused = await postWithHeader(c, token, { label: 'second', mode: 'test', scopes: ['businesses'] });
    expect(refused.status).toBe(409);
    expect(textOf(refused.body)).toContain('the limit of this account');
    await setAccountLimits(env.db.live.db, account.id, { maxActiveKeys: 2 });
    const retried = await postWithHeader(c, token, { label: 'second', mode: 'test', scopes: ['businesses'] });
    expect(retried.status).toBe(201);
    const again = await postWithHeader(c, token, { label: 'second', mode: 'test', scopes: ['businesses'] });
    expect(again.status).toBe(200);
    expect(again.headers['idempotent-replayed']).toBe('true');
    expect(secretIn(again.body)).toBe(secretIn(retried.body));
    expect(await keysOf(account.id)).toHaveLength(2);
  });

  it('refuses a malformed token, or a header and a form field that differ', async () => {
    const { c, account } = await signedInClient(env, sms);
    await c.get('/console/keys');
    const form = { label: 'x', mode: 'test', scopes: ['businesses'] };
    expect((await c.post('/console/keys', { ...form, idempotency_key: ' padded ' })).status).toBe(400);
    expect((await c.post('/console/keys', { ...form, idempotency_key: 'x'.repeat(201) })).status).toBe(400);
    const differ = await postWithHeader(c, 'one', { ...form, idempotency_key: 'two' });
    expect(differ.status).toBe(400);
    expect(textOf(differ.body)).toContain('differ');
    expect(await keysOf(account.id)).toHaveLength(0);
    // Without any token the form still works, as before (every submit mints).
    expect((await c.post('/console/keys', form)).status).toBe(201);
    expect((await c.post('/console/keys', form)).status).toBe(201);
    expect(await keysOf(account.id)).toHaveLength(2);
  });

  it('tokens are per account: another account using the same token mints its own key', async () => {
    const a = await signedInClient(env, sms);
    const b = await signedInClient(env, sms);
    const form = { label: 'shared', mode: 'test', scopes: ['businesses'] };
    await a.c.get('/console/keys');
    await b.c.get('/console/keys');
    expect((await postWithHeader(a.c, 'same-token', form)).status).toBe(201);
    expect((await postWithHeader(b.c, 'same-token', form)).status).toBe(201);
    expect(await keysOf(a.account.id)).toHaveLength(1);
    expect(await keysOf(b.account.id)).toHaveLength(1);
  });
});

import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestEnv, type TestEnv } from '../helpers/env.ts';
import { ConsoleClient, textOf } from './browser.ts';
import { FakeTwilio } from './fake-twilio.ts';

let env: TestEnv;
const sms = new FakeTwilio();
let n = 0;

beforeAll(async () => {
  await sms.start();
  env = await createTestEnv({ env: sms.env() });
});
afterAll(async () => {
  await env?.close();
  await sms.stop();
});

/** A fresh address per scenario, so lockouts of one test never touch another. */
function client(lang: 'en' | 'he' = 'en') {
  n++;
  return new ConsoleClient(env.app, `198.51.100.${n}`, lang);
}

async function signUp(c: ConsoleClient, over: Record<string, string> = {}) {
  const email = over.email ?? `dev${++n}@example.com`;
  const phone = over.phone ?? `05${String(n).padStart(8, '0')}`;
  await c.get('/console/sign-up');
  const res = await c.post('/console/sign-up', { name: 'Acme Integrations', email, phone, password: 'correct horse battery', ...over });
  return { res, email, phone, e164: `+9725${String(n).padStart(8, '0')}`.replace('+97250', '+9725') };
}

async function signInToCode(c: ConsoleClient, email: string, password = 'correct horse battery') {
  await c.get('/console/sign-in');
  return c.post('/console/sign-in', { email, password });
}

describe('console pages and headers', () => {
  it('sends a visitor without a session to sign-in, with a CSRF-protected form and strict headers', async () => {
    const c = client();
    const root = await c.get('/console');
    expect(root.status).toBe(303);
    expect(root.location).toBe('/console/sign-in');
    const page = await c.get('/console/sign-in');
    expect(page.status).toBe(200);
    expect(page.headers['content-type']).toContain('text/html');
    expect(page.body).toContain('name="_csrf"');
    expect(page.headers['content-security-policy']).toContain("script-src 'self'");
    expect(page.headers['cache-control']).toBe('no-store');
    expect(page.headers['x-frame-options']).toBe('DENY');
    const pre = root.setCookies.find((x) => x.name === 'pinkas_pre');
    expect(pre?.httpOnly).toBe(true);
    expect(pre?.sameSite).toBe('Lax');
    expect(pre?.secure).toBeFalsy();
    expect(page.body).toContain('<html lang="en" dir="ltr">');
  });

  it('speaks Hebrew right to left, by browser preference or by the switch', async () => {
    const he = await client('he').get('/console/sign-in');
    expect(he.body).toContain('<html lang="he" dir="rtl">');
    expect(he.body).toContain('כניסה');
    const c = client('en');
    const sw = await c.get('/console/lang?to=he&back=/console/sign-up');
    expect(sw.status).toBe(303);
    expect(sw.location).toBe('/console/sign-up');
    const page = await c.get('/console/sign-up');
    expect(page.body).toContain('dir="rtl"');
    expect(page.body).toContain('פתיחת חשבון');
    // The switch never redirects out of the console.
    const evil = await c.get('/console/lang?to=en&back=https://evil.example/');
    expect(evil.location).toBe('/console');
    const evil2 = await c.get('/console/lang?to=en&back=//evil.example/console');
    expect(evil2.location).toBe('/console');
  });

  it('serves its stylesheet and script, keeps console routes out of the OpenAPI document, and 404s as a page', async () => {
    const c = client();
    expect((await c.get('/console/assets/console.css')).status).toBe(200);
    const js = await c.get('/console/assets/console.js');
    expect(js.headers['content-type']).toContain('javascript');
    const nf = await c.get('/console/nope');
    expect(nf.status).toBe(404);
    expect(nf.headers['content-type']).toContain('text/html');
    const doc = await env.call('GET', '/v1/openapi.json');
    expect(JSON.stringify(Object.keys(doc.body.paths))).not.toContain('/console');
  });
});

describe('sign-up', () => {
  it('refuses invalid fields, naming each one, and keeps what was typed (except the password)', async () => {
    const c = client();
    await c.get('/console/sign-up');
    const res = await c.post('/console/sign-up', { name: '', email: 'not-an-email', phone: '123', password: 'short' });
    expect(res.status).toBe(400);
    const text = textOf(res.body);
    expect(text).toContain('Required.');
    expect(text).toContain('Enter a valid email address.');
    expect(text).toContain('Enter a mobile number');
    expect(text).toContain('At least 10 characters.');
    expect(res.body).toContain('value="not-an-email"');
    expect(res.body).not.toContain('value="short"');
  });

  it('creates an account pending approval with an argon2id hash and an audit row; a second sign-up with the email is refused', async () => {
    const c = client();
    const { res, email } = await signUp(c, { email: 'Founder@Example.com', phone: '050-123-4567' });
    expect(res.status).toBe(201);
    expect(textOf(res.body)).toContain('waiting for approval');
    const [row] = await env.sql<{ id: string; email: string; phone: string; password_hash: string; approval_status: string }>(
      'live',
      `SELECT id, email, phone, password_hash, approval_status FROM accounts WHERE email = 'founder@example.com'`,
    );
    expect(row.approval_status).toBe('pending');
    expect(row.phone).toBe('+972501234567');
    expect(row.password_hash).toMatch(/^\$argon2id\$v=19\$m=19456,t=2,p=1\$/);
    expect(row.password_hash).not.toContain('correct horse');
    const audit = await env.sql('live', `SELECT action FROM audit_log WHERE entity_id = '${row.id}'`);
    expect(audit.map((a) => a.action)).toEqual(['account.signed_up']);
    const again = await signUp(client(), { email: email.toUpperCase() });
    expect(again.res.status).toBe(409);
    expect(textOf(again.res.body)).toContain('already exists');
  });

  it('allows 20 sign-ups per address per day', async () => {
    const c = client();
    for (let i = 0; i < 20; i++) expect((await signUp(c)).res.status).toBe(201);
    const res = await signUp(c);
    expect(res.res.status).toBe(429);
    expect(textOf(res.res.body)).toContain('Too many requests from your address');
    expect(await env.sql('live', `SELECT 1 FROM accounts WHERE email = '${res.email}'`)).toHaveLength(0);
    expect((await signUp(client())).res.status).toBe(201);
  });

  it('refuses a form without the CSRF token, or with a token of another browser', async () => {
    const c = client();
    await c.get('/console/sign-up');
    const form = { name: 'X', email: `x${n}@example.com`, phone: '0501111111', password: 'correct horse battery' };
    const none = await c.post('/console/sign-up', form, { csrf: false });
    expect(none.status).toBe(403);
    expect(textOf(none.body)).toContain('The form expired');
    const other = client();
    await other.get('/console/sign-up');
    const foreign = await c.post('/console/sign-up', form, { csrf: other.csrf });
    expect(foreign.status).toBe(403);
    expect(await env.sql('live', `SELECT 1 FROM accounts WHERE email = 'x${n}@example.com'`)).toHaveLength(0);
  });
});

describe('sign-in with an SMS code', () => {
  it('password, then the code sent through the gateway, then a signed-in session with a new token', async () => {
    const c = client();
    const { email } = await signUp(c, { phone: '+972 52 765 4321' });
    const before = sms.messages.length;
    const step1 = await signInToCode(c, email);
    expect(step1.status).toBe(303);
    expect(step1.location).toBe('/console/verify');
    const cookie = step1.setCookies.find((x) => x.name === 'pinkas_session')!;
    expect(cookie.httpOnly).toBe(true);
    expect(cookie.sameSite).toBe('Lax');
    expect(cookie.path).toBe('/console');
    expect(sms.messages.length).toBe(before + 1);
    const msg = sms.messages[sms.messages.length - 1];
    expect(msg.to).toBe('+972527654321');
    expect(msg.from).toBe('+15005550006');
    expect(msg.body).toMatch(/\b\d{6}\b/);
    // Half signed in: only the code page is open.
    expect((await c.get('/console/keys')).location).toBe('/console/verify');
    const verify = await c.get('/console/verify');
    expect(textOf(verify.body)).toContain('+972 ••• ••• 21');
    const pendingToken = c.cookies.get('pinkas_session')!;
    const ok = await c.post('/console/verify', { code: sms.lastCode('+972527654321') });
    expect(ok.status).toBe(303);
    expect(ok.location).toBe('/console/keys');
    const signedToken = c.cookies.get('pinkas_session')!;
    expect(signedToken).not.toBe(pendingToken);
    expect((await c.get('/console/keys')).status).toBe(200);
    // The pre-verification token is worthless now.
    const stale = new ConsoleClient(env.app, c.ip);
    stale.cookies.set('pinkas_session', pendingToken);
    expect((await stale.get('/console/keys')).location).toBe('/console/sign-in');
    // Only hashes are stored.
    const rows = await env.sql('live', `SELECT token_hash FROM console_sessions WHERE token_hash IN ('${signedToken}', '${pendingToken}')`);
    expect(rows).toHaveLength(0);
  });

  it('a wrong password answers one message for unknown and known emails alike and sends nothing', async () => {
    const c = client();
    const { email } = await signUp(c);
    const before = sms.messages.length;
    const wrong = await signInToCode(c, email, 'wrong password!!');
    const unknown = await signInToCode(c, `nobody${n}@example.com`, 'wrong password!!');
    expect(wrong.status).toBe(401);
    expect(unknown.status).toBe(401);
    expect(textOf(wrong.body)).toContain('The email or the password is wrong.');
    expect(textOf(unknown.body)).toContain('The email or the password is wrong.');
    expect(sms.messages.length).toBe(before);
  });

  it('counts wrong codes, expires a code after 5 minutes, and kills it after 5 wrong tries', async () => {
    const c = client();
    const { email } = await signUp(c);
    await signInToCode(c, email);
    const right = sms.lastCode();
    const wrongCode = right === '000000' ? '111111' : '000000';
    const w1 = await c.post('/console/verify', { code: wrongCode });
    expect(w1.status).toBe(401);
    expect(textOf(w1.body)).toContain('4 tries left');
    expect((await c.post('/console/verify', { code: '12ab' })).status).toBe(400);
    for (let i = 0; i < 4; i++) await c.post('/console/verify', { code: wrongCode });
    const dead = await c.post('/console/verify', { code: right });
    expect(dead.status).toBe(410);
    expect(textOf(dead.body)).toContain('Too many wrong codes');

    const c2 = client();
    const second = await signUp(c2);
    await signInToCode(c2, second.email);
    const code = sms.lastCode();
    env.clock.advance(5 * 60_000);
    const late = await c2.post('/console/verify', { code });
    expect(late.status).toBe(410);
    expect(textOf(late.body)).toContain('expired');
  });

  it('throttles resending: 60 s between codes, a new code replaces the old, at most 5 per sign-in', async () => {
    const c = client();
    const { email } = await signUp(c);
    await signInToCode(c, email);
    const first = sms.lastCode();
    const soon = await c.post('/console/verify/resend');
    expect(soon.status).toBe(429);
    expect(Number(soon.headers['retry-after'])).toBe(60);
    env.clock.advance(61_000);
    const again = await c.post('/console/verify/resend');
    expect(again.status).toBe(200);
    expect(textOf(again.body)).toContain('A new code was sent.');
    const second = sms.lastCode();
    // The replaced code is just a wrong code now.
    if (second !== first) expect((await c.post('/console/verify', { code: first })).status).toBe(401);
    for (let i = 0; i < 3; i++) {
      env.clock.advance(61_000);
      expect((await c.post('/console/verify/resend')).status).toBe(200);
    }
    env.clock.advance(61_000);
    const tooMany = await c.post('/console/verify/resend');
    expect(tooMany.status).toBe(429);
    expect(textOf(tooMany.body)).toContain('Sign in again');
    expect((await c.get('/console/verify')).location).toBe('/console/sign-in');
  });

  it('locks an email out after 10 failures in 15 minutes, even for the right password, then opens again', async () => {
    const c = client();
    const { email } = await signUp(c);
    for (let i = 0; i < 9; i++) expect((await signInToCode(c, email, `wrong-${i}-password`)).status).toBe(401);
    const tenth = await signInToCode(c, email, 'wrong-9-password');
    expect(tenth.status).toBe(429);
    // From another address too: the lock is per account.
    const elsewhere = client();
    const right = await signInToCode(elsewhere, email);
    expect(right.status).toBe(429);
    expect(Number(right.headers['retry-after'])).toBeGreaterThan(0);
    expect(textOf(right.body)).toContain('Too many failed attempts');
    env.clock.advance(15 * 60_000 + 1000);
    expect((await signInToCode(elsewhere, email)).status).toBe(303);
  });

  it('locks an address out after 20 failures across emails', async () => {
    const c = client();
    const { email } = await signUp(client());
    for (let i = 0; i < 20; i++) await signInToCode(c, `guess${i}-${n}@example.com`, 'whatever-password');
    const res = await signInToCode(c, email);
    expect(res.status).toBe(429);
    expect((await signInToCode(client(), email)).status).toBe(303);
  });

  it('reports a gateway failure instead of pretending the code went out', async () => {
    const c = client();
    const { email } = await signUp(c);
    sms.failNext = 500;
    const res = await signInToCode(c, email);
    expect(res.status).toBe(502);
    expect(textOf(res.body)).toContain('could not be sent');
    expect(c.cookies.has('pinkas_session')).toBe(false);
  });

  it('signs out: the session ends on the server', async () => {
    const c = client();
    const { email } = await signUp(c);
    await signInToCode(c, email);
    await c.post('/console/verify', { code: sms.lastCode() });
    const token = c.cookies.get('pinkas_session')!;
    await c.get('/console/keys');
    const out = await c.post('/console/sign-out');
    expect(out.location).toBe('/console/sign-in');
    const replay = new ConsoleClient(env.app, c.ip);
    replay.cookies.set('pinkas_session', token);
    expect((await replay.get('/console/keys')).location).toBe('/console/sign-in');
  });

  it('ends a signed-in session after an idle hour', async () => {
    const c = client();
    const { email } = await signUp(c);
    await signInToCode(c, email);
    await c.post('/console/verify', { code: sms.lastCode() });
    env.clock.advance(59 * 60_000);
    expect((await c.get('/console/keys')).status).toBe(200);
    env.clock.advance(61 * 60_000);
    expect((await c.get('/console/keys')).location).toBe('/console/sign-in');
  });
});

/**
 * Issue 16 item 4: more than 20 failed authentications a minute from one address answer 429
 * `rate_limited` with Retry-After; issue 28: only bad keys are shed, every valid key keeps working
 * from that address; other addresses are not affected; the window slides with the injected clock
 * (no sleeping). These run without the key cache (read through); test/foundation/key-cache.test.ts
 * runs the rule with it.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestEnv, type TestAccount, type TestEnv } from '../helpers/env.ts';
import { AUTH_FAILURES_PER_MINUTE } from '../../src/accounts/auth.ts';
import { PostgresRateLimiter } from '../../src/platform/rate-limit.ts';

let env: TestEnv;
let a: TestAccount;
let b: TestAccount;
beforeAll(async () => {
  env = await createTestEnv();
  a = await env.account();
  b = await env.account();
});
afterAll(async () => env?.close());

const unknownKey = (i: number) => `bk_test_${String(i).padStart(32, 'Z')}`;
async function get(ip: string, key?: string) {
  const res = await env.app.inject({ method: 'GET', url: '/v1/keys', remoteAddress: ip, headers: key ? { 'x-api-key': key } : {} });
  return { status: res.statusCode, headers: res.headers, body: res.json() };
}

describe('failed authentications per address', () => {
  it('the 21st failure in a minute answers 429 with Retry-After; valid keys and other addresses still work', async () => {
    const ip = '198.51.100.7';
    expect((await get(ip, a.test)).status).toBe(200); // a worked from this address before the attack
    for (let i = 0; i < AUTH_FAILURES_PER_MINUTE; i++) {
      const r = await get(ip, i % 3 === 0 ? undefined : i % 3 === 1 ? 'bk_test_short' : unknownKey(i));
      expect(r.status, `attempt ${i + 1}`).toBe(401);
    }
    const blocked = await get(ip, unknownKey(99));
    expect(blocked.status).toBe(429);
    expect(blocked.body.reason).toBe('rate_limited');
    expect(Number(blocked.headers['retry-after'])).toBeGreaterThanOrEqual(1);
    expect(Number(blocked.headers['retry-after'])).toBeLessThanOrEqual(60);
    expect(blocked.body.requestId).toMatch(/^req_/);
    // A valid key never seen from this address passes: a burst of bad keys locks no one out (issue 28).
    expect((await get(ip, b.test)).status).toBe(200);
    // So does the key that worked from here before.
    expect((await get(ip, a.test)).status).toBe(200);
    // Other addresses are untouched.
    expect((await get('198.51.100.8', unknownKey(1))).status).toBe(401);
    expect((await get('198.51.100.8', b.test)).status).toBe(200);

    env.clock.advance(61_000);
    expect((await get(ip, unknownKey(100))).status).toBe(401);
    expect((await get(ip, b.test)).status).toBe(200);
  });

  it('revoked keys count as failures, and are refused with 429 once the address is blocked', async () => {
    const ip = '203.0.113.9';
    const k = await a.mint({ mode: 'test' });
    expect((await get(ip, k.secret)).status).toBe(200);
    await env.sql('live', `UPDATE api_keys SET revoked_at = now() WHERE id = '${k.id}'`);
    for (let i = 0; i < AUTH_FAILURES_PER_MINUTE; i++) expect((await get(ip, k.secret)).status).toBe(401);
    expect((await get(ip, k.secret)).status).toBe(429);
    expect((await get(ip, unknownKey(5))).status).toBe(429);
  });

  it('a successful request is not counted', async () => {
    const ip = '203.0.113.10';
    for (let i = 0; i < AUTH_FAILURES_PER_MINUTE * 3; i++) expect((await get(ip, a.test)).status).toBe(200);
    expect((await get(ip, unknownKey(7))).status).toBe(401);
  });
});

describe('the shared window for several processes (rate_limit_hit)', () => {
  it('peek reads what hit records, without recording', async () => {
    const one = new PostgresRateLimiter(env.db.live, 3);
    const other = new PostgresRateLimiter(env.db.live, 3); // another process on the same server
    const t = env.clock.now().getTime();
    expect((await other.peek('authfail:192.0.2.1', t)).allowed).toBe(true);
    for (let i = 0; i < 3; i++) expect((await one.hit('authfail:192.0.2.1', t + i * 1000)).allowed).toBe(true);
    const seen = await other.peek('authfail:192.0.2.1', t + 5000);
    expect(seen).toMatchObject({ allowed: false, remaining: 0, retryAfterMs: 55_000 });
    expect((await other.peek('authfail:192.0.2.1', t + 60_001)).allowed).toBe(true);
    expect((await one.peek('authfail:192.0.2.2', t)).remaining).toBe(3);
  });
});

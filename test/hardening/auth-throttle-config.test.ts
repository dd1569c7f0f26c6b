/**
 * Issue 16 item 4, configured: the failed-authentication throttle reads its numbers from
 * AUTH_FAILURES_PER_MINUTE and AUTH_TRUSTED_KEY_HOURS (validated at start, defaults 20 and 24 h,
 * the constants of src/accounts/auth.ts).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestEnv, type TestAccount, type TestEnv } from '../helpers/env.ts';
import { AUTH_FAILURES_PER_MINUTE, TRUSTED_FOR_MS } from '../../src/accounts/auth.ts';
import { ConfigError, loadConfig } from '../../src/platform/config.ts';
import { expectErrorShape } from './helpers.ts';

describe('configuration of the throttle', () => {
  const base = { PINKAS_ENV: 'test', DATA_DIR: '/nonexistent' };

  it('defaults to the documented constants', () => {
    const c = loadConfig(base);
    expect(c.authThrottle).toEqual({ failuresPerMinute: 20, trustedForMs: 24 * 3_600_000 });
    expect(AUTH_FAILURES_PER_MINUTE).toBe(20);
    expect(TRUSTED_FOR_MS).toBe(24 * 3_600_000);
  });

  it('reads the variables', () => {
    const c = loadConfig({ ...base, AUTH_FAILURES_PER_MINUTE: '5', AUTH_TRUSTED_KEY_HOURS: '2' });
    expect(c.authThrottle).toEqual({ failuresPerMinute: 5, trustedForMs: 2 * 3_600_000 });
  });

  it('refuses a bad value at start, naming the variable', () => {
    for (const [name, value] of [
      ['AUTH_FAILURES_PER_MINUTE', '0'],
      ['AUTH_FAILURES_PER_MINUTE', 'ten'],
      ['AUTH_FAILURES_PER_MINUTE', '-3'],
      ['AUTH_FAILURES_PER_MINUTE', '100001'],
      ['AUTH_TRUSTED_KEY_HOURS', '0'],
      ['AUTH_TRUSTED_KEY_HOURS', '1.5'],
      ['AUTH_TRUSTED_KEY_HOURS', '8761'],
    ]) {
      expect(() => loadConfig({ ...base, [name]: value }), `${name}=${value}`).toThrow(ConfigError);
      expect(() => loadConfig({ ...base, [name]: value }), `${name}=${value}`).toThrow(name);
    }
  });
});

describe('the throttle with configured numbers', () => {
  let env: TestEnv;
  let a: TestAccount;
  let b: TestAccount;
  beforeAll(async () => {
    env = await createTestEnv({ env: { AUTH_FAILURES_PER_MINUTE: '3', AUTH_TRUSTED_KEY_HOURS: '1' } });
    a = await env.account();
    b = await env.account();
  });
  afterAll(async () => env?.close());

  const unknownKey = (i: number) => `bk_test_${String(i).padStart(32, 'Q')}`;
  async function get(ip: string, key?: string) {
    const res = await env.app.inject({ method: 'GET', url: '/v1/keys', remoteAddress: ip, headers: key ? { 'x-api-key': key } : {} });
    return { status: res.statusCode, headers: res.headers, body: res.json(), raw: res.rawPayload };
  }

  it('the 4th failure in a minute answers 429; a trusted key stays exempt for the configured hour only', async () => {
    const ip = '192.0.2.44';
    expect((await get(ip, a.test)).status).toBe(200);
    for (let i = 0; i < 3; i++) expect((await get(ip, unknownKey(i))).status, `attempt ${i + 1}`).toBe(401);
    const blocked = await get(ip, unknownKey(9));
    expect(blocked.status).toBe(429);
    expectErrorShape(blocked, 'blocked');
    expect(blocked.body.reason).toBe('rate_limited');
    expect(Number(blocked.headers['retry-after'])).toBeGreaterThanOrEqual(1);
    expect((await get(ip, b.test)).status).toBe(429);
    expect((await get(ip, a.test)).status).toBe(200); // trusted from this address

    // Two hours later the window has slid and the trust (1 h) has run out: a new block spares no one.
    env.clock.advance(2 * 3_600_000);
    for (let i = 0; i < 3; i++) expect((await get(ip, unknownKey(20 + i))).status).toBe(401);
    expect((await get(ip, unknownKey(30))).status).toBe(429);
    expect((await get(ip, a.test)).status).toBe(429);
    // Another address is untouched.
    expect((await get('192.0.2.45', a.test)).status).toBe(200);
  });
});

/**
 * Issue 16 item 4, configured: the failed-authentication throttle reads its number from
 * AUTH_FAILURES_PER_MINUTE (validated at start, default 20, the constant of src/accounts/auth.ts).
 * Issue 28: it sheds bad keys only, so there is no longer a list of trusted keys to configure.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestEnv, type TestAccount, type TestEnv } from '../helpers/env.ts';
import { AUTH_FAILURES_PER_MINUTE } from '../../src/accounts/auth.ts';
import { ConfigError, loadConfig } from '../../src/platform/config.ts';
import { expectErrorShape } from './helpers.ts';

describe('configuration of the throttle', () => {
  const base = { PINKAS_ENV: 'test', DATA_DIR: '/nonexistent' };

  it('defaults to the documented constants', () => {
    const c = loadConfig(base);
    expect(c.authThrottle).toEqual({ failuresPerMinute: 20 });
    expect(AUTH_FAILURES_PER_MINUTE).toBe(20);
  });

  it('reads the variables', () => {
    const c = loadConfig({ ...base, AUTH_FAILURES_PER_MINUTE: '5' });
    expect(c.authThrottle).toEqual({ failuresPerMinute: 5 });
  });

  it('refuses a bad value at start, naming the variable', () => {
    for (const [name, value] of [
      ['AUTH_FAILURES_PER_MINUTE', '0'],
      ['AUTH_FAILURES_PER_MINUTE', 'ten'],
      ['AUTH_FAILURES_PER_MINUTE', '-3'],
      ['AUTH_FAILURES_PER_MINUTE', '100001'],
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
    env = await createTestEnv({ env: { AUTH_FAILURES_PER_MINUTE: '3' } });
    a = await env.account();
    b = await env.account();
  });
  afterAll(async () => env?.close());

  const unknownKey = (i: number) => `bk_test_${String(i).padStart(32, 'Q')}`;
  async function get(ip: string, key?: string) {
    const res = await env.app.inject({ method: 'GET', url: '/v1/keys', remoteAddress: ip, headers: key ? { 'x-api-key': key } : {} });
    return { status: res.statusCode, headers: res.headers, body: res.json(), raw: res.rawPayload };
  }

  it('the 4th failure in a minute answers 429; valid keys keep passing, whenever they were last used', async () => {
    const ip = '192.0.2.44';
    expect((await get(ip, a.test)).status).toBe(200);
    for (let i = 0; i < 3; i++) expect((await get(ip, unknownKey(i))).status, `attempt ${i + 1}`).toBe(401);
    const blocked = await get(ip, unknownKey(9));
    expect(blocked.status).toBe(429);
    expectErrorShape(blocked, 'blocked');
    expect(blocked.body.reason).toBe('rate_limited');
    expect(Number(blocked.headers['retry-after'])).toBeGreaterThanOrEqual(1);
    expect((await get(ip, b.test)).status).toBe(200); // a valid key, never used from here, passes
    expect((await get(ip, a.test)).status).toBe(200);

    // Two hours later the window has slid; a new block still sheds only the bad keys.
    env.clock.advance(2 * 3_600_000);
    for (let i = 0; i < 3; i++) expect((await get(ip, unknownKey(20 + i))).status).toBe(401);
    expect((await get(ip, unknownKey(30))).status).toBe(429);
    expect((await get(ip, a.test)).status).toBe(200);
    // Another address is untouched.
    expect((await get('192.0.2.45', a.test)).status).toBe(200);
  });
});
